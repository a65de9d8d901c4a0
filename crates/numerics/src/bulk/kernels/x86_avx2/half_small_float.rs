//! f16 / bf16 → binary floats of at most 8 bits one per byte (e4m3fn, e5m2, fp6, fp4
//! unpacked) in the to-nearest-even mode at the AVX2 level, in one pass: 32 source codes per
//! step are widened to f32 in registers (`vcvtph2ps`, exact for every finite f16, or a
//! 16-bit shift for bf16) and rounded by the scaled float add of
//! [`super::f32_small_float_scaled`]; the classes that cost the f32 loops a branch are
//! decided on the 16-bit source codes instead, for all 32 lanes at once and without a branch:
//! NaN and ±Inf by the exponent field, "beyond the largest finite value" by one compare of
//! the magnitude code with the largest source code at or below that value, the sign from the
//! code's top bit. The policy's NaN (payload kept where the destination keeps one) and ±Inf
//! codes are blended in by mask on every step, and every status is counted in byte counters,
//! so a step full of NaN, ±Inf or overflowing lanes costs what a plain one does (the widening
//! route, [`crate::bulk::kernels::portable::half_src`], leaves its loop for such steps, and
//! f16 data with every code alike has one in nearly every step). The last `n % 32` elements
//! take that route.

use super::f32_small_float_scaled::{Consts, Tally, pack, rounded, sum64};
use crate::bulk::kernels::mode;
use crate::bulk::kernels::portable::f32_small_float::SmallFloat;
use crate::bulk::kernels::portable::half_src::widen_code;
use crate::bulk::kernels::portable::widen::Half;
use crate::status::StatusCounts;
use std::arch::x86_64::*;

/// Elements per step (two vectors of 16 source codes).
pub(crate) const STEP: usize = 32;

/// Whether this loop serves `half` → `sf` (one code per byte): the destinations the scaled
/// f32 loop serves ([`super::f32_small_float_scaled::serves`]), to nearest even only.
pub(crate) fn serves(half: Half, sf: &SmallFloat) -> bool {
    let _ = half;
    sf.mode == mode::NEAREST_EVEN && super::f32_small_float_scaled::serves(sf, false)
}

/// Casts the first `n - n % 32` of `n` little-endian f16 or bf16 codes of `src` into one
/// byte each of `dst`, and returns how many it cast with their statuses; `None` when the
/// machine lacks AVX2 and F16C, the loop does not serve the cast ([`serves`]) or a buffer is
/// short.
pub(crate) fn run_body(
    half: Half,
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
) -> Option<(usize, StatusCounts)> {
    if !serves(half, sf) || !crate::bulk::kernels::simd::avx2_present() {
        return None;
    }
    let body = n - n % STEP;
    let (s, d) = (src.get(..2 * body)?, dst.get_mut(..body)?);
    let clamp = sf.overflow_clamps();
    let payload = sf.nan_payload != 0;
    let by_sign = [sf.nan_fixed, sf.inf, sf.overflow]
        .iter()
        .any(|[p, n]| p.1 != n.1);
    // SAFETY: the CPU has AVX2 and F16C (checked just above: the level's detection).
    let counts = unsafe {
        match (half, clamp) {
            (Half::F16, false) => dispatch::<true, false>(sf, s, d, payload, by_sign),
            (Half::F16, true) => dispatch::<true, true>(sf, s, d, payload, by_sign),
            (Half::BF16, false) => dispatch::<false, false>(sf, s, d, payload, by_sign),
            (Half::BF16, true) => dispatch::<false, true>(sf, s, d, payload, by_sign),
        }
    };
    Some((body, counts))
}

/// The largest finite magnitude code of `half` whose value is at most the f32 magnitude
/// `max_abs`: a finite source code lies beyond `max_abs` exactly when its magnitude code is
/// above it (codes and values rise together).
fn largest_code_within(half: Half, max_abs: u32) -> u16 {
    // the first magnitude code of ±Inf
    let inf = match half {
        Half::F16 => 0x7C00u16,
        Half::BF16 => 0x7F80,
    };
    // the smallest code in [0, inf) whose value exceeds max_abs, by bisection
    let (mut lo, mut hi) = (0u16, inf);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if widen_code(half, mid) > max_abs {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    // code 0 (value 0) never exceeds a largest finite value, so lo ≥ 1
    lo.saturating_sub(1)
}

/// The 16-bit constants of the source format, per 16-bit lane.
#[derive(Clone, Copy)]
struct Half16 {
    /// 0x7FFF: the magnitude of a code.
    abs: __m256i,
    /// The largest finite magnitude code: above it, NaN or ±Inf.
    max_finite: __m256i,
    /// The magnitude code of +Inf: above it, NaN.
    inf: __m256i,
    /// The largest magnitude code within the destination's largest finite value.
    within: __m256i,
    /// Shifts a NaN's magnitude code to the destination's payload bits.
    payload_shift: __m128i,
    /// The payload bits the destination keeps.
    payload: __m256i,
}

impl Half16 {
    /// The constants of `F16` (else bf16) for `sf`.
    #[target_feature(enable = "avx2")]
    fn new<const F16: bool>(sf: &SmallFloat) -> Half16 {
        let set = |v: u16| _mm256_set1_epi16(v as i16);
        let (half, max_finite, inf, man) = if F16 {
            (Half::F16, 0x7BFF, 0x7C00, 10)
        } else {
            (Half::BF16, 0x7F7F, 0x7F80, 7)
        };
        // the f32 payload shift (sf.shift) less the bits the widening adds (23 − man)
        let payload_shift = sf.shift.saturating_sub(23 - man);
        Half16 {
            abs: set(0x7FFF),
            max_finite: set(max_finite),
            inf: set(inf),
            within: set(largest_code_within(half, sf.max_abs)),
            payload_shift: _mm_cvtsi32_si128(payload_shift as i32),
            payload: set(sf.nan_payload as u16),
        }
    }
}

/// The f32 codes of the 32 magnitude codes `a` (two vectors of 16), exact, in the order
/// in which [`pack`] of the four vectors and `vpacksswb` of `a` put their bytes: the four
/// 32-bit vectors hold codes 0-3 | 8-11, 4-7 | 12-15, 16-19 | 24-27, 20-23 | 28-31 (low |
/// high 128-bit half).
#[target_feature(enable = "avx2,f16c")]
#[inline]
fn widen<const F16: bool>(a: [__m256i; 2]) -> [__m256i; 4] {
    if F16 {
        // exact for every finite code; NaN lanes are decided on the codes
        let [p, q] = a.map(|v| _mm256_permute4x64_epi64::<0xD8>(v));
        [
            _mm256_castsi256_si128(p),
            _mm256_extracti128_si256::<1>(p),
            _mm256_castsi256_si128(q),
            _mm256_extracti128_si256::<1>(q),
        ]
        .map(|h| _mm256_castps_si256(_mm256_cvtph_ps(h)))
    } else {
        // a bf16 code is the top half of its f32 code
        let z = _mm256_setzero_si256();
        [
            _mm256_unpacklo_epi16(z, a[0]),
            _mm256_unpackhi_epi16(z, a[0]),
            _mm256_unpacklo_epi16(z, a[1]),
            _mm256_unpackhi_epi16(z, a[1]),
        ]
    }
}

/// The 16-bit lanes of two vectors (masks, or codes whose sign is their top bit, or values
/// of at most 0xFF with `UNSIGNED`) as 32 bytes, in the order of [`widen`].
#[target_feature(enable = "avx2")]
#[inline]
fn bytes<const UNSIGNED: bool>(v: [__m256i; 2]) -> __m256i {
    if UNSIGNED {
        _mm256_packus_epi16(v[0], v[1])
    } else {
        _mm256_packs_epi16(v[0], v[1])
    }
}

/// [`cast`] for the NaN payload (`payload`) and the statuses by sign (`by_sign`).
///
/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
unsafe fn dispatch<const F16: bool, const CLAMP: bool>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    payload: bool,
    by_sign: bool,
) -> StatusCounts {
    // SAFETY: the caller's guarantee, passed on.
    unsafe {
        match (payload, by_sign) {
            (false, false) => cast::<F16, CLAMP, false, false>(sf, src, dst),
            (false, true) => cast::<F16, CLAMP, false, true>(sf, src, dst),
            (true, false) => cast::<F16, CLAMP, true, false>(sf, src, dst),
            (true, true) => cast::<F16, CLAMP, true, true>(sf, src, dst),
        }
    }
}

/// The cast of `src.len() / 2` (a multiple of [`STEP`]) f16 (`F16`) or bf16 codes; with
/// `CLAMP` overflow is the rounded magnitude clamped to the overflow code with the sign put
/// on; with `PAYLOAD` a NaN keeps payload bits; with `BY_SIGN` the negative NaN, ±Inf and
/// overflowing lanes are counted apart (the policy gives them other statuses than the
/// positive ones; else they count as positive).
///
/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
unsafe fn cast<const F16: bool, const CLAMP: bool, const PAYLOAD: bool, const BY_SIGN: bool>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
) -> StatusCounts {
    /// Steps between two flushes of the byte counters (at most 1 per byte per step).
    const FLUSH: usize = 255;
    let c = Consts::new(sf);
    let k = Half16::new::<F16>(sf);
    let zero = _mm256_setzero_si256();
    // overflowing, inexact bit, underflowing, flushed, beyond (NaN and ±Inf included), NaN
    // or ±Inf, NaN; then (with `BY_SIGN`) the negative overflowing, NaN or ±Inf, NaN: 64-bit
    // lane sums of the byte counters
    let mut wide = [zero; 10];
    for (s_run, d_run) in src
        .chunks(2 * STEP * FLUSH)
        .zip(dst.chunks_mut(STEP * FLUSH))
    {
        let mut acc = [zero; 10];
        for (x, y) in s_run
            .chunks_exact(2 * STEP)
            .zip(d_run.chunks_exact_mut(STEP))
        {
            // SAFETY: `x` is one step's 64 source bytes, two unaligned 32-byte loads.
            let h = unsafe {
                [
                    _mm256_loadu_si256(x.as_ptr().cast()),
                    _mm256_loadu_si256(x.as_ptr().add(32).cast()),
                ]
            };
            let a = h.map(|h| _mm256_and_si256(h, k.abs));
            let l = widen::<F16>(a).map(|x| rounded::<{ mode::NEAREST_EVEN }>(&c, x));
            // the codes with the inexact bit, bytes in the order of `bytes`
            let b = _mm256_or_si256(
                pack::<false>(l.map(|(v, _)| v)),
                _mm256_and_si256(pack::<true>(l.map(|(_, i)| i)), c.b_inexact),
            );
            let sign = bytes::<false>(h);
            let neg = _mm256_cmpgt_epi8(zero, sign);
            let sp = bytes::<false>(a.map(|a| _mm256_cmpgt_epi16(a, k.max_finite)));
            let nan = bytes::<false>(a.map(|a| _mm256_cmpgt_epi16(a, k.inf)));
            let beyond = bytes::<false>(a.map(|a| _mm256_cmpgt_epi16(a, k.within)));
            // NaN and ±Inf lanes become an exact zero for the counts (their codes are blended
            // in below); an exact overflow (the clamp code without the inexact bit) counts as
            // the inexact overflows do
            let clamped = _mm256_cmpeq_epi8(b, c.b_clamp);
            let b = _mm256_andnot_si256(
                sp,
                _mm256_or_si256(b, _mm256_and_si256(clamped, c.b_inexact)),
            );
            let ovf = _mm256_cmpeq_epi8(b, c.b_ovf);
            for (t, m) in acc.iter_mut().zip([
                ovf,
                _mm256_cmpgt_epi8(zero, b),
                _mm256_cmpgt_epi8(c.b_under, b),
                _mm256_cmpeq_epi8(b, c.b_flushed),
                beyond,
                sp,
                nan,
            ]) {
                *t = _mm256_sub_epi8(*t, m);
            }
            if BY_SIGN {
                for (t, m) in acc[7..].iter_mut().zip([ovf, sp, nan]) {
                    *t = _mm256_sub_epi8(*t, _mm256_and_si256(m, neg));
                }
            }
            let mag = _mm256_and_si256(b, c.b_mag);
            let signed = |mag: __m256i| _mm256_or_si256(mag, _mm256_and_si256(neg, c.b_sign));
            let code = if CLAMP {
                signed(_mm256_min_epu8(mag, c.b_ovf_clamp))
            } else {
                let ovf_code = _mm256_blendv_epi8(c.b_ovf_code[0], c.b_ovf_code[1], sign);
                _mm256_blendv_epi8(signed(mag), ovf_code, ovf)
            };
            let inf_code = _mm256_blendv_epi8(c.b_inf[0], c.b_inf[1], sign);
            let code = _mm256_blendv_epi8(code, inf_code, sp);
            let nan_code = _mm256_blendv_epi8(c.b_nan[0], c.b_nan[1], sign);
            let nan_code = if PAYLOAD {
                let p =
                    a.map(|a| _mm256_and_si256(_mm256_srl_epi16(a, k.payload_shift), k.payload));
                _mm256_or_si256(nan_code, bytes::<true>(p))
            } else {
                nan_code
            };
            let code = _mm256_blendv_epi8(code, nan_code, nan);
            // bytes 0-7, 16-23 | 8-15, 24-31 → element order
            let code = _mm256_permute4x64_epi64::<0xD8>(code);
            // SAFETY: `y` is one step's 32 destination bytes, the size of the store.
            unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), code) };
        }
        for (w, a) in wide.iter_mut().zip(acc) {
            *w = _mm256_add_epi64(*w, _mm256_sad_epu8(a, zero));
        }
    }
    let [
        ovf,
        inexact_bit,
        under,
        flushed,
        beyond,
        sp,
        nan,
        ovf_neg,
        sp_neg,
        nan_neg,
    ] = wide.map(|w| sum64(w));
    let lanes = (src.len() / 2) as u64;
    let tally = Tally {
        inexact: inexact_bit - ovf,
        under,
        flushed,
        beyond: beyond - sp,
        kept: lanes - ovf - sp,
        ovf_neg,
        nan: [nan, nan_neg],
        inf: [sp - nan, sp_neg - nan_neg],
    };
    tally.counts(sf, lanes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_largest_code_within_a_value_is_found_for_both_sources() {
        // e4m3fn's 448 = 0x43E0_0000: f16 0x5F00, bf16 0x43E0
        assert_eq!(largest_code_within(Half::F16, 0x43E0_0000), 0x5F00);
        assert_eq!(largest_code_within(Half::BF16, 0x43E0_0000), 0x43E0);
        // just above 448: the same codes
        assert_eq!(largest_code_within(Half::F16, 0x43E0_0001), 0x5F00);
        // e5m2's 57344 = 0x4760_0000: f16 0x7B00
        assert_eq!(largest_code_within(Half::F16, 0x4760_0000), 0x7B00);
        // beyond every finite f16: the largest finite code
        assert_eq!(largest_code_within(Half::F16, 0x7F7F_FFFF), 0x7BFF);
    }
}
