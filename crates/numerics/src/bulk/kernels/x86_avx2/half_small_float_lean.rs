//! f16 / bf16 → binary floats of at most 8 bits one per byte, to nearest even, for the
//! policies whose overflow is clamped to a code by sign, whose ±Inf codes are the overflow
//! codes and whose statuses do not depend on the sign (every standard policy of e4m3fn, e5m2,
//! fp6 and fp4): the 16-bit rule of [`super::half_small_float`] in fewer vector operations
//! per 32-element step.
//!
//! The biased exponents of a step's 32 codes are packed to bytes once; two `vpshufb` tables
//! indexed by them give every lane's shift factor and the offset that leaves its significand
//! (the destination's subnormal binades included), in place of the per-vector index
//! arithmetic. The code is rounded on 16-bit lanes and packed; ±Inf needs no blend (its
//! rounded magnitude clamps to the overflow code), NaN one blend. The statuses are counted on
//! bytes: the clamped code with the inexact bit (inexact, underflowing, flushed, one above the
//! largest), the exponent's all-ones (NaN or ±Inf), NaN, and beyond the largest finite value.

use super::f32_small_float_scaled::{Tally, sum64};
use super::half_small_float::{Half16, STEP, Shape, bytes};
use crate::bulk::kernels::portable::f32_small_float::SmallFloat;
use crate::status::StatusCounts;
use std::arch::x86_64::*;

/// Whether the lean loop serves `sf` with overflow clamped (`clamp`) and statuses not counted by
/// sign (`by_sign` false): ±Inf takes the overflow code of its sign.
pub(super) fn serves(sf: &SmallFloat, clamp: bool, by_sign: bool) -> bool {
    clamp && !by_sign && sf.inf[0].0 == sf.overflow[0].0 && sf.inf[1].0 == sf.overflow[1].0
}

/// The `vpshufb` tables of the exponent index: per index the shift factor `2^(16 − k)` (at
/// least 1) and the offset less which a lane is the value the factor rounds, as low and high
/// bytes; with the index's saturating bias and its last entry (the destination's normal
/// binades).
struct Tables {
    /// Factor, low bytes.
    f_lo: __m256i,
    /// Factor, high bytes.
    f_hi: __m256i,
    /// Offset, low bytes.
    o_lo: __m256i,
    /// Offset, high bytes.
    o_hi: __m256i,
    /// Bytes: subtracted (saturating) from the exponent.
    bias: __m256i,
    /// Bytes: the last index (the normal binades).
    last: __m256i,
}

impl Tables {
    /// The tables of `shape`: index `i` is the exponent `E = s + i` with `s = max(0, base −
    /// 14)`, the last one `base + 1 − s` (every normal binade); index 0 is, when `s` > 0, every
    /// exponent up to `s` (whose lanes all round to zero: offset 0 and factor 1 keep the code
    /// zero and the exactness of the whole code).
    #[target_feature(enable = "avx2")]
    fn new(shape: Shape) -> Tables {
        let Shape { man, drop, base } = shape;
        let s = base.saturating_sub(14);
        let last = base + 1 - s;
        let mut f = [0u16; 16];
        let mut o = [0u16; 16];
        for i in 0..=last {
            let e = s + i;
            let (off, k) = if s > 0 && i == 0 {
                (0, 16)
            } else if e > base {
                (base << man, drop)
            } else {
                // below the smallest normal binade: the significand (E = 0: the code itself,
                // in E = 1's binade)
                (e.saturating_sub(1) << man, drop + base + 1 - e.max(1))
            };
            f[i as usize] = (1u32 << (16 - k.min(16))) as u16;
            o[i as usize] = off as u16;
        }
        let table = |t: &[u16; 16], high: bool| {
            let b: [u8; 16] = std::array::from_fn(|i| (t[i] >> if high { 8 } else { 0 }) as u8);
            // SAFETY: `b` is 16 bytes, the size of the unaligned load.
            _mm256_broadcastsi128_si256(unsafe { _mm_loadu_si128(b.as_ptr().cast()) })
        };
        Tables {
            f_lo: table(&f, false),
            f_hi: table(&f, true),
            o_lo: table(&o, false),
            o_hi: table(&o, true),
            bias: _mm256_set1_epi8(s as u8 as i8),
            last: _mm256_set1_epi8(last as u8 as i8),
        }
    }
}

/// The cast of `src.len() / 2` (a multiple of [`STEP`]) f16 (`F16`) or bf16 codes by the
/// 16-bit rule of `shape` (with `SUB` when its `base` is above 0); with `PAYLOAD` a NaN keeps
/// payload bits.
///
/// # Safety
/// The CPU must support AVX2; `sf` must be served ([`serves`]) with `shape` its rule.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn cast<const F16: bool, const SUB: bool, const PAYLOAD: bool>(
    sf: &SmallFloat,
    shape: Shape,
    src: &[u8],
    dst: &mut [u8],
) -> StatusCounts {
    /// Steps between two flushes of the byte counters (at most 1 per byte per step).
    const FLUSH: usize = 255;
    let k = Half16::new::<F16>(sf);
    let t = Tables::new(shape);
    let set8 = |v: u32| _mm256_set1_epi8(v as u8 as i8);
    let set16 = |v: u32| _mm256_set1_epi16(v as u16 as i16);
    let factor = set16(1 << (16 - shape.drop));
    let factor_half = set16(1 << (15 - shape.drop));
    let b_one = set8(1);
    let half = set16(0x8000);
    let e_max = set8(if F16 { 0x1F } else { 0xFF });
    let b_clamp = set8(sf.max_code + 1);
    let b_top = set8(0x80);
    // signed bytes: below these, inexact and below one above the largest, or below the
    // smallest normal
    let b_kept = set8(0x80 + sf.max_code + 1);
    let b_under = set8(0x80 + sf.min_normal);
    let b_ovf = set8(sf.overflow[0].0);
    let b_sign = set8(1 << (sf.bits - 1));
    let nan = [set8(sf.nan_fixed[0].0), set8(sf.nan_fixed[1].0)];
    let zero = _mm256_setzero_si256();
    // inexact below the clamp, one above the largest (overflow, NaN, ±Inf), underflowing,
    // flushed, NaN or ±Inf, NaN, beyond the largest finite value (NaN and ±Inf included):
    // 64-bit lane sums of the byte counters
    let mut wide = [zero; 7];
    for (s_run, d_run) in src
        .chunks(2 * STEP * FLUSH)
        .zip(dst.chunks_mut(STEP * FLUSH))
    {
        let mut acc = [zero; 7];
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
            let e = bytes::<true>(a.map(|a| {
                if F16 {
                    _mm256_srli_epi16::<10>(a)
                } else {
                    _mm256_srli_epi16::<7>(a)
                }
            }));
            let (xs, fs) = if SUB {
                let i = _mm256_min_epu8(_mm256_subs_epu8(e, t.bias), t.last);
                let pair = |lo: __m256i, hi: __m256i| {
                    let (l, h) = (_mm256_shuffle_epi8(lo, i), _mm256_shuffle_epi8(hi, i));
                    [_mm256_unpacklo_epi8(l, h), _mm256_unpackhi_epi8(l, h)]
                };
                let f = pair(t.f_lo, t.f_hi);
                let o = if F16 {
                    // f16 offsets are multiples of 0x400: their low bytes are zero
                    let h = _mm256_shuffle_epi8(t.o_hi, i);
                    [_mm256_unpacklo_epi8(zero, h), _mm256_unpackhi_epi8(zero, h)]
                } else {
                    pair(t.o_lo, t.o_hi)
                };
                (
                    [_mm256_sub_epi16(a[0], o[0]), _mm256_sub_epi16(a[1], o[1])],
                    f,
                )
            } else {
                (a, [factor; 2])
            };
            // round half up by `vpmulhrsw` (a factor 1, k ≥ 16: half of it 0, the code 0), then
            // a tie (the dropped bits, top-aligned, exactly half) to even by clearing the last
            // bit; exact: no dropped bit
            let mut codes = [zero; 2];
            let mut tie = [zero; 2];
            let mut exact = [zero; 2];
            for j in 0..2 {
                let halved = if SUB {
                    _mm256_srli_epi16::<1>(fs[j])
                } else {
                    factor_half
                };
                codes[j] = _mm256_mulhrs_epi16(xs[j], halved);
                let dropped = _mm256_mullo_epi16(xs[j], fs[j]);
                tie[j] = _mm256_cmpeq_epi16(dropped, half);
                exact[j] = _mm256_cmpeq_epi16(dropped, zero);
            }
            let r = _mm256_andnot_si256(
                _mm256_and_si256(bytes::<false>(tie), b_one),
                bytes::<true>(codes),
            );
            let exact = bytes::<false>(exact);
            let sign = bytes::<false>(h);
            let sp = _mm256_cmpeq_epi8(e, e_max);
            let is_nan = bytes::<false>(a.map(|a| _mm256_cmpgt_epi16(a, k.inf)));
            let beyond = bytes::<false>(a.map(|a| _mm256_cmpgt_epi16(a, k.within)));
            let mc = _mm256_min_epu8(r, b_clamp);
            let b = _mm256_or_si256(mc, _mm256_andnot_si256(exact, b_top));
            for (t, m) in acc.iter_mut().zip([
                _mm256_cmpgt_epi8(b_kept, b),
                _mm256_cmpeq_epi8(mc, b_clamp),
                _mm256_cmpgt_epi8(b_under, b),
                _mm256_cmpeq_epi8(b, b_top),
                sp,
                is_nan,
                beyond,
            ]) {
                *t = _mm256_sub_epi8(*t, m);
            }
            let code = _mm256_or_si256(
                _mm256_min_epu8(r, b_ovf),
                _mm256_blendv_epi8(zero, b_sign, sign),
            );
            let nan_code = _mm256_blendv_epi8(nan[0], nan[1], sign);
            let nan_code = if PAYLOAD {
                let p =
                    a.map(|a| _mm256_and_si256(_mm256_srl_epi16(a, k.payload_shift), k.payload));
                _mm256_or_si256(nan_code, bytes::<true>(p))
            } else {
                nan_code
            };
            let code = _mm256_blendv_epi8(code, nan_code, is_nan);
            // bytes 0-7, 16-23 | 8-15, 24-31 → element order
            let code = _mm256_permute4x64_epi64::<0xD8>(code);
            // SAFETY: `y` is one step's 32 destination bytes, the size of the store.
            unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), code) };
        }
        for (w, a) in wide.iter_mut().zip(acc) {
            *w = _mm256_add_epi64(*w, _mm256_sad_epu8(a, zero));
        }
    }
    let [inexact, top, under, flushed, sp, nan, beyond] = wide.map(|w| sum64(w));
    let lanes = (src.len() / 2) as u64;
    let tally = Tally {
        inexact,
        under,
        flushed,
        beyond: beyond - sp,
        kept: lanes - top,
        ovf_neg: 0,
        nan: [nan, 0],
        inf: [sp - nan, 0],
    };
    tally.counts(sf, lanes)
}
