//! f32 → binary floats of at most 8 bits, to nearest even, one code per byte, overflow
//! clamped to a code by sign ([`SmallFloat::overflow_clamps`]): the scaled float add of
//! [`super::f32_small_float_scaled`] in fewer vector operations per 32-element step.
//!
//! Per 8 lanes the sum's bits less the constant exponent give the code (clamped on the packed
//! bytes, where NaN and ±Inf saturate to the clamp code too), and the difference of the bits
//! of the rounded scaled value and the scaled value (both non-negative) gives the rounding's
//! direction by its sign, zero when exact; NaN and ±Inf make the scaled value a NaN that the
//! add and the subtraction pass on unchanged, so their difference is zero too. The statuses
//! are counted on bytes: the inexact bit on the code (overflow, inexact, underflow, flushed,
//! as in the scaled loop), and a lane rounded down to the largest finite code is one beyond
//! it that saturates without overflowing (no per-lane compare with the largest finite
//! value). A step with an exact clamp code (a NaN or ±Inf lane, or an exact overflow) takes
//! the scaled loop's blends, inline.

use super::f32_small_float_scaled::{Consts, Tally, load_step, pack, store, sum64};
use crate::bulk::kernels::portable::f32_small_float::SmallFloat;
use crate::status::StatusCounts;
use std::arch::x86_64::*;

/// Elements per step (four vectors of 8).
const STEP: usize = super::f32_small_float_scaled::STEP;

/// 8 magnitudes `a`: the code (the sum's bits less `bias`, unclamped; NaN and ±Inf far
/// outside the byte range) and the bits of the rounded scaled value less those of the scaled
/// value (the rounding's direction by sign, zero when exact or NaN or ±Inf).
#[target_feature(enable = "avx2")]
#[inline]
fn lanes(c: &Consts, a: __m256i, bias: __m256i) -> (__m256i, __m256i) {
    // exponent field min(255 − E, 255 − Emin): 2^(128 − Ec); zero for NaN and Inf
    let scale = _mm256_min_epu32(_mm256_andnot_si256(a, c.exp_field), c.max_scale);
    let s = _mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(scale));
    let m = _mm256_castsi256_ps(_mm256_sub_epi32(
        c.m_base,
        _mm256_srl_epi32(scale, c.to_code),
    ));
    // rounded by the default environment: to nearest, ties to even
    let y = _mm256_add_ps(s, m);
    // both non-negative: the difference of the bits has the sign of `r − s`; NaN and ±Inf
    // (`s` a NaN that the add and the subtraction pass on): zero
    let r = _mm256_sub_ps(y, m);
    let d = _mm256_sub_epi32(_mm256_castps_si256(r), _mm256_castps_si256(s));
    (_mm256_sub_epi32(_mm256_castps_si256(y), bias), d)
}

/// The cast of `src.len() / 4` (a multiple of [`STEP`]) elements to nearest even, one code
/// per byte, overflow clamped; with `SPLIT` the negative overflows are counted apart (the
/// policy's overflow statuses differ by sign); with `stream` stored past the cache.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT; with `stream`, `dst` must start on a 32-byte
/// boundary; `sf` must be served by the scaled loop and its overflow clamp
/// ([`SmallFloat::overflow_clamps`]).
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn cast<const SPLIT: bool>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
) -> StatusCounts {
    /// Steps between two flushes of the byte counters (at most 1 per byte per step).
    const FLUSH: usize = 255;
    let c = Consts::new(sf);
    let man = 23 - sf.shift;
    let bias = _mm256_set1_epi32(((151 - man) << 23) as i32);
    let set8 = |v: u32| _mm256_set1_epi8(v as u8 as i8);
    let b_top = set8(0x80);
    let b_sat = set8(0x80 | sf.max_code);
    let steps = src.len() / (4 * STEP);
    let zero = _mm256_setzero_si256();
    let mut tally = Tally::default();
    // 64-bit lane sums of the byte counters: overflowing, inexact bit, underflowing,
    // flushed, saturated (rounded down to the largest code), negative overflowing
    let mut wide = [zero; 6];
    // NaN and ±Inf lanes (counted as kept by the fast counters)
    let mut nan_inf = 0;
    for (s_run, d_run) in src
        .chunks(4 * STEP * FLUSH)
        .zip(dst.chunks_mut(STEP * FLUSH))
    {
        let mut acc = [zero; 5];
        let mut acc_neg = zero;
        for (x, y) in s_run
            .chunks_exact(4 * STEP)
            .zip(d_run.chunks_exact_mut(STEP))
        {
            // SAFETY: `x` is one step's 128 source bytes.
            let xs = unsafe { load_step(x) };
            let a = xs.map(|x| _mm256_and_si256(x, c.abs_mask));
            let l = a.map(|a| lanes(&c, a, bias));
            let cb = _mm256_min_epu8(pack::<true>(l.map(|(v, _)| v)), c.b_clamp);
            let db = pack::<true>(l.map(|(_, d)| d));
            let exact = _mm256_cmpeq_epi8(db, zero);
            let mut b = _mm256_or_si256(cb, _mm256_andnot_si256(exact, b_top));
            // the source signs in the sign bit of each byte
            let sign = pack::<true>(xs);
            let mut code = _mm256_or_si256(
                _mm256_min_epu8(cb, c.b_ovf_clamp),
                _mm256_blendv_epi8(zero, c.b_sign, sign),
            );
            // NaN and ±Inf lanes are exact clamp codes, as are exact overflows
            let rare = _mm256_cmpeq_epi8(b, c.b_clamp);
            if _mm256_testz_si256(rare, rare) == 0 {
                (b, code) = rare_step(&c, a, sign, (b, code), (&mut tally, &mut nan_inf));
            }
            let ovf = _mm256_cmpeq_epi8(b, c.b_ovf);
            acc[0] = _mm256_sub_epi8(acc[0], ovf);
            acc[1] = _mm256_sub_epi8(acc[1], _mm256_cmpgt_epi8(zero, b));
            acc[2] = _mm256_sub_epi8(acc[2], _mm256_cmpgt_epi8(c.b_under, b));
            acc[3] = _mm256_sub_epi8(acc[3], _mm256_cmpeq_epi8(b, b_top));
            // rounded down to the largest finite code: beyond it, saturated
            let sat = _mm256_and_si256(_mm256_cmpeq_epi8(b, b_sat), _mm256_cmpgt_epi8(zero, db));
            acc[4] = _mm256_sub_epi8(acc[4], sat);
            if SPLIT {
                acc_neg = _mm256_sub_epi8(
                    acc_neg,
                    _mm256_and_si256(ovf, _mm256_cmpgt_epi8(zero, sign)),
                );
            }
            // SAFETY: `y` is 32 bytes, what `store` writes, aligned when streamed.
            unsafe { store::<false>(&c, code, y, stream) };
        }
        for (w, a) in wide.iter_mut().zip(acc) {
            *w = _mm256_add_epi64(*w, _mm256_sad_epu8(a, zero));
        }
        if SPLIT {
            wide[5] = _mm256_add_epi64(wide[5], _mm256_sad_epu8(acc_neg, zero));
        }
    }
    let [ovf, inexact_bit, under, flushed, sat, ovf_neg] = wide.map(|w| sum64(w));
    let fast = (STEP * steps) as u64;
    tally.kept += fast - ovf - nan_inf;
    tally.inexact += inexact_bit - ovf;
    tally.under += under;
    tally.flushed += flushed;
    tally.beyond += sat + ovf;
    tally.ovf_neg += ovf_neg;
    tally.counts(sf, fast)
}

/// A step with a NaN or ±Inf lane or an exact overflow (magnitudes `a`, source signs `sign`
/// in the sign bit of each byte): its bytes `b` with the NaN and ±Inf lanes made an exact
/// zero for the counters (those lanes tallied into `tally` and `nan_inf`) and the exact
/// overflows marked as the inexact ones, and its codes `code` with the policy's NaN and ±Inf
/// codes blended in.
#[target_feature(enable = "avx2,popcnt")]
#[inline]
fn rare_step(
    c: &Consts,
    a: [__m256i; 4],
    sign: __m256i,
    (b, code): (__m256i, __m256i),
    (tally, nan_inf): (&mut Tally, &mut u64),
) -> (__m256i, __m256i) {
    let zero = _mm256_setzero_si256();
    let sp = pack::<true>(a.map(|a| _mm256_cmpgt_epi32(a, c.max_finite)));
    let count = |m: __m256i| u64::from(_mm256_movemask_epi8(m).count_ones());
    let neg = _mm256_cmpgt_epi8(zero, sign);
    *nan_inf += count(sp);
    let nans = a.map(|a| _mm256_cmpgt_epi32(a, c.exp_field));
    let any_nan = _mm256_or_si256(
        _mm256_or_si256(nans[0], nans[1]),
        _mm256_or_si256(nans[2], nans[3]),
    );
    // (no NaN: the special lanes are all ±Inf, the usual case)
    let nan = if _mm256_testz_si256(any_nan, any_nan) != 0 {
        None
    } else {
        let nan = pack::<true>(nans);
        tally.nan[0] += count(nan);
        tally.nan[1] += count(_mm256_and_si256(nan, neg));
        Some(nan)
    };
    let inf = match nan {
        None => sp,
        Some(nan) => _mm256_andnot_si256(nan, sp),
    };
    tally.inf[0] += count(inf);
    tally.inf[1] += count(_mm256_and_si256(inf, neg));
    // an exact overflow (a clamp byte that is no NaN or ±Inf) counts as the inexact
    // overflows do: the same code and statuses
    let clamped = _mm256_andnot_si256(sp, _mm256_cmpeq_epi8(b, c.b_clamp));
    let b = _mm256_or_si256(
        _mm256_andnot_si256(sp, b),
        _mm256_and_si256(clamped, c.b_inexact),
    );
    let inf_code = _mm256_blendv_epi8(c.b_inf[0], c.b_inf[1], sign);
    let code = _mm256_blendv_epi8(code, inf_code, sp);
    let code = match nan {
        None => code,
        Some(nan) => {
            let payload = pack::<false>(
                a.map(|a| _mm256_and_si256(_mm256_srl_epi32(a, c.shift), c.nan_payload)),
            );
            let nan_code =
                _mm256_or_si256(_mm256_blendv_epi8(c.b_nan[0], c.b_nan[1], sign), payload);
            _mm256_blendv_epi8(code, nan_code, nan)
        }
    };
    (b, code)
}
