//! f16 / bf16 → binary floats of at most 8 bits one per byte (e4m3fn, e5m2, fp6, fp4
//! unpacked) in the to-nearest-even mode at the AVX2 level, in one pass on the 16-bit codes:
//! 32 source codes per step, 16 per vector, rounded in place by integer arithmetic on their
//! magnitude codes ([`Rule16`]: rebias, a shift by multiplies, the rounding decided on the
//! dropped bits, the clamp by one `vpminuw`), never widened to f32. The classes that cost
//! the f32 loops a branch are decided on the 16-bit codes too, for all 32 lanes at once and
//! without a branch: NaN and ±Inf by the exponent field, "beyond the largest finite value"
//! by one compare of the magnitude code with the largest source code at or below that
//! value, the sign from the code's top bit. The policy's NaN (payload kept where the
//! destination keeps one) and ±Inf codes are blended in by mask on every step, and every
//! status is counted in byte counters, so a step full of NaN, ±Inf or overflowing lanes
//! costs what a plain one does. The last `n % 32` elements, and the destinations the rule
//! does not fit ([`Rule16::fits`]), take the widening route
//! ([`crate::bulk::kernels::portable::half_src`]).

use super::f32_small_float_scaled::{Consts, Tally, sum64};
use super::half_small_float_lean as lean;
use crate::bulk::kernels::mode;
use crate::bulk::kernels::portable::f32_small_float::SmallFloat;
use crate::bulk::kernels::portable::half_src::widen_code;
use crate::bulk::kernels::portable::widen::Half;
use crate::status::StatusCounts;
use std::arch::x86_64::*;

/// Elements per step (two vectors of 16 source codes).
pub(crate) const STEP: usize = 32;

/// Whether this loop serves `half` → `sf` (one code per byte): the destinations the scaled
/// f32 loop serves ([`super::f32_small_float_scaled::serves`]), to nearest even only, whose
/// rounding fits the 16-bit rule ([`Rule16::fits`]).
pub(crate) fn serves(half: Half, sf: &SmallFloat) -> bool {
    sf.mode == mode::NEAREST_EVEN
        && super::f32_small_float_scaled::serves(sf, false)
        && Rule16::fits(half, sf).is_some()
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
    if sf.mode != mode::NEAREST_EVEN
        || !super::f32_small_float_scaled::serves(sf, false)
        || !crate::bulk::kernels::simd::avx2_present()
    {
        return None;
    }
    let shape = Rule16::fits(half, sf)?;
    let body = n - n % STEP;
    let (s, d) = (src.get(..2 * body)?, dst.get_mut(..body)?);
    let clamp = sf.overflow_clamps();
    let payload = sf.nan_payload != 0;
    let by_sign = [sf.nan_fixed, sf.inf, sf.overflow]
        .iter()
        .any(|[p, n]| p.1 != n.1);
    let job = (shape, payload, by_sign);
    // SAFETY: the CPU has AVX2 and F16C (checked just above: the level's detection); the
    // lean loop runs only where it serves `sf`.
    let counts = unsafe {
        if lean::serves(sf, clamp, by_sign) {
            return Some((body, lean_dispatch(half, sf, shape, s, d, payload)));
        }
        match (half, clamp, shape.base > 0) {
            (Half::F16, false, false) => dispatch::<true, false, false>(sf, s, d, job),
            (Half::F16, false, true) => dispatch::<true, false, true>(sf, s, d, job),
            (Half::F16, true, false) => dispatch::<true, true, false>(sf, s, d, job),
            (Half::F16, true, true) => dispatch::<true, true, true>(sf, s, d, job),
            (Half::BF16, false, false) => dispatch::<false, false, false>(sf, s, d, job),
            (Half::BF16, false, true) => dispatch::<false, false, true>(sf, s, d, job),
            (Half::BF16, true, false) => dispatch::<false, true, false>(sf, s, d, job),
            (Half::BF16, true, true) => dispatch::<false, true, true>(sf, s, d, job),
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
pub(super) struct Half16 {
    /// 0x7FFF: the magnitude of a code.
    pub(super) abs: __m256i,
    /// The largest finite magnitude code: above it, NaN or ±Inf.
    max_finite: __m256i,
    /// The magnitude code of +Inf: above it, NaN.
    pub(super) inf: __m256i,
    /// The largest magnitude code within the destination's largest finite value.
    pub(super) within: __m256i,
    /// Shifts a NaN's magnitude code to the destination's payload bits.
    pub(super) payload_shift: __m128i,
    /// The payload bits the destination keeps.
    pub(super) payload: __m256i,
}

impl Half16 {
    /// The constants of `F16` (else bf16) for `sf`.
    #[target_feature(enable = "avx2")]
    pub(super) fn new<const F16: bool>(sf: &SmallFloat) -> Half16 {
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

/// Where a source's magnitude codes meet the destination's, for the 16-bit rule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Shape {
    /// Mantissa bits of the source (10 for f16, 7 for bf16).
    pub(super) man: u32,
    /// Mantissa bits the destination drops from the source's.
    pub(super) drop: u32,
    /// The source's biased exponent one below the destination's smallest normal binade: 0
    /// when the two smallest normal binades are the same (f16 → e5m2).
    pub(super) base: u32,
}

/// The 16-bit rule's constants: a magnitude code `a` is rounded in place at the
/// destination's last mantissa bit, 16 lanes per vector. In the destination's normal
/// binades the code is `a − (base << man)` shifted right by `drop` bits (the exponent fields
/// line up, and a carry out of the mantissa moves the code into the next binade); below
/// them it is the significand with its implicit bit shifted right by `drop + j`, `j` the
/// binades below the smallest normal one. The shift is a multiply: `vpmulhuw` by `2^(16 −
/// k)` keeps `x >> k` and `vpmullw` by the same factor leaves the dropped bits at the top
/// of the word, which decide the rounding (above half, or half with an odd kept code) and
/// exactness (not zero). The factor per lane comes from a 16-byte table indexed by `j`
/// (`vpshufb`), low byte at `j` and high byte at `j + 8`.
#[derive(Clone, Copy)]
struct Rule16 {
    /// The source's exponent field.
    exp: __m256i,
    /// The source's implicit bit, `1 << man`.
    imp: __m256i,
    /// `base << man`: less this, a normal code's exponent is the destination's.
    rebias: __m256i,
    /// `((base + 1) << man) + imp − 1`: less a code (saturating), `j << man` and less.
    below: __m256i,
    /// 7: the last entry of the factor table (every lane there rounds to zero).
    last: __m256i,
    /// 0x0101: puts the table index in both bytes of a word.
    both: __m256i,
    /// 0x0800: the high byte's entries follow the low bytes'.
    high: __m256i,
    /// The factors `2^(16 − drop − j)` as a byte table (both 128-bit halves).
    factors: __m256i,
    /// `2^(16 − drop)`: the factor of every lane when `base` is 0.
    factor: __m256i,
    /// 1: the last kept bit.
    one: __m256i,
    /// 0x8000: the rounding's half, as a sign flip.
    half: __m256i,
    /// The magnitude code one above the largest finite one: the clamp of every code.
    clamp: __m256i,
    /// 0x80: the inexact bit of a code byte.
    inexact: __m256i,
}

impl Rule16 {
    /// The shape of `half` → `sf` when the 16-bit rule rounds it exactly as the reference
    /// does: the destination keeps 1 to 5 mantissa bits and 1 to 9 fewer than the source,
    /// and its smallest normal binade is the source's (`base` 0) or 8 or more binades above
    /// it (the source's subnormals then round to zero from the table's last entry, as a
    /// binade one lower would; between the two, a source subnormal would need a shift of its
    /// own, and the widening route casts it).
    fn fits(half: Half, sf: &SmallFloat) -> Option<Shape> {
        let (man, offset) = match half {
            Half::F16 => (10u32, 112u32),
            Half::BF16 => (7, 0),
        };
        let kept = 23u32.checked_sub(sf.shift)?;
        let drop = man.checked_sub(kept)?;
        let base = sf.e0.checked_sub(offset)?;
        let max_base = (1u32 << (15 - man)) - 2;
        let ok = (1..=5).contains(&kept)
            && (1..=9).contains(&drop)
            && (base == 0 || (7..=max_base).contains(&base));
        ok.then_some(Shape { man, drop, base })
    }

    /// The constants of `shape` for the destination `sf`.
    #[target_feature(enable = "avx2")]
    fn new(shape: Shape, sf: &SmallFloat) -> Rule16 {
        let set = |v: u32| _mm256_set1_epi16(v as u16 as i16);
        let Shape { man, drop, base } = shape;
        let imp = 1u32 << man;
        // j = 0..7: k = drop + j ≤ 16 bits dropped (drop ≤ 9)
        let mut table = [0u8; 16];
        for j in 0..8 {
            let f = 1u32 << (16 - drop - j);
            table[j as usize] = f as u8;
            table[j as usize + 8] = (f >> 8) as u8;
        }
        // SAFETY: `table` is 16 bytes, the size of the unaligned load.
        let t = unsafe { _mm_loadu_si128(table.as_ptr().cast()) };
        Rule16 {
            exp: set(0x7FFF & !(imp - 1)),
            imp: set(imp),
            rebias: set(base << man),
            below: set(((base + 1) << man) + imp - 1),
            last: set(7),
            both: set(0x0101),
            high: set(0x0800),
            factors: _mm256_broadcastsi128_si256(t),
            factor: set(1 << (16 - drop)),
            one: set(1),
            half: set(0x8000),
            clamp: set(sf.max_code + 1),
            inexact: set(0x80),
        }
    }
}

/// The 16 magnitude codes `a` rounded to nearest even by the 16-bit rule ([`Rule16`]):
/// per word the destination's magnitude code, clamped at one above the largest (NaN and
/// ±Inf lanes give some code, replaced later), with the inexact bit 0x80; with `SUB` the
/// destination's subnormal binades lie above the source's smallest normal one (`base` > 0).
#[target_feature(enable = "avx2")]
#[inline]
fn round16<const F16: bool, const SUB: bool>(r: &Rule16, a: __m256i) -> __m256i {
    let (x, f) = if SUB {
        // less (E − 1) << man below the smallest normal binade (E = 0: less nothing), less
        // base << man from it up: the significand with its implicit bit, or the code rebased
        let less = _mm256_min_epu16(
            _mm256_subs_epu16(_mm256_and_si256(a, r.exp), r.imp),
            r.rebias,
        );
        let x = _mm256_sub_epi16(a, less);
        let below = _mm256_subs_epu16(r.below, a);
        let j = if F16 {
            _mm256_srli_epi16::<10>(below)
        } else {
            _mm256_srli_epi16::<7>(below)
        };
        let j = _mm256_min_epu16(j, r.last);
        let index = _mm256_add_epi16(_mm256_mullo_epi16(j, r.both), r.high);
        (x, _mm256_shuffle_epi8(r.factors, index))
    } else {
        (a, r.factor)
    };
    let kept = _mm256_mulhi_epu16(x, f);
    let dropped = _mm256_mullo_epi16(x, f);
    // up: the dropped bits above half, or at half with an odd kept code (saturating)
    let v = _mm256_adds_epu16(dropped, _mm256_and_si256(kept, r.one));
    let up = _mm256_cmpgt_epi16(_mm256_xor_si256(v, r.half), _mm256_setzero_si256());
    let code = _mm256_min_epu16(_mm256_sub_epi16(kept, up), r.clamp);
    let exact = _mm256_cmpeq_epi16(dropped, _mm256_setzero_si256());
    _mm256_or_si256(code, _mm256_andnot_si256(exact, r.inexact))
}

/// The 16-bit lanes of two vectors (masks, or codes whose sign is their top bit, or values
/// of at most 0xFF with `UNSIGNED`) as 32 bytes: elements 0-7, 16-23 | 8-15, 24-31 (low |
/// high 128-bit half), put in element order by one `vpermq` before the store.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn bytes<const UNSIGNED: bool>(v: [__m256i; 2]) -> __m256i {
    if UNSIGNED {
        _mm256_packus_epi16(v[0], v[1])
    } else {
        _mm256_packs_epi16(v[0], v[1])
    }
}

/// [`lean::cast`] for the source, the rule's subnormal shifts and the NaN payload.
///
/// # Safety
/// The CPU must support AVX2; the lean loop must serve `sf` ([`lean::serves`]).
#[target_feature(enable = "avx2")]
unsafe fn lean_dispatch(
    half: Half,
    sf: &SmallFloat,
    shape: Shape,
    src: &[u8],
    dst: &mut [u8],
    payload: bool,
) -> StatusCounts {
    // SAFETY: the caller's guarantee, passed on.
    unsafe {
        match (half, shape.base > 0, payload) {
            (Half::F16, false, false) => lean::cast::<true, false, false>(sf, shape, src, dst),
            (Half::F16, false, true) => lean::cast::<true, false, true>(sf, shape, src, dst),
            (Half::F16, true, false) => lean::cast::<true, true, false>(sf, shape, src, dst),
            (Half::F16, true, true) => lean::cast::<true, true, true>(sf, shape, src, dst),
            (Half::BF16, false, false) => lean::cast::<false, false, false>(sf, shape, src, dst),
            (Half::BF16, false, true) => lean::cast::<false, false, true>(sf, shape, src, dst),
            (Half::BF16, true, false) => lean::cast::<false, true, false>(sf, shape, src, dst),
            (Half::BF16, true, true) => lean::cast::<false, true, true>(sf, shape, src, dst),
        }
    }
}

/// [`cast`] for the NaN payload and the statuses by sign (`job`: the rule's shape, whether
/// a NaN keeps payload bits, whether the statuses are counted by sign).
///
/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
unsafe fn dispatch<const F16: bool, const CLAMP: bool, const SUB: bool>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    (shape, payload, by_sign): (Shape, bool, bool),
) -> StatusCounts {
    // SAFETY: the caller's guarantee, passed on.
    unsafe {
        match (payload, by_sign) {
            (false, false) => cast::<F16, CLAMP, SUB, false, false>(sf, shape, src, dst),
            (false, true) => cast::<F16, CLAMP, SUB, false, true>(sf, shape, src, dst),
            (true, false) => cast::<F16, CLAMP, SUB, true, false>(sf, shape, src, dst),
            (true, true) => cast::<F16, CLAMP, SUB, true, true>(sf, shape, src, dst),
        }
    }
}

/// The cast of `src.len() / 2` (a multiple of [`STEP`]) f16 (`F16`) or bf16 codes by the
/// 16-bit rule of `shape` (with `SUB` when its `base` is above 0); with `CLAMP` overflow is the rounded magnitude clamped to the overflow code with the sign put
/// on; with `PAYLOAD` a NaN keeps payload bits; with `BY_SIGN` the negative NaN, ±Inf and
/// overflowing lanes are counted apart (the policy gives them other statuses than the
/// positive ones; else they count as positive).
///
/// # Safety
/// The CPU must support AVX2 and F16C.
#[target_feature(enable = "avx2,f16c")]
unsafe fn cast<
    const F16: bool,
    const CLAMP: bool,
    const SUB: bool,
    const PAYLOAD: bool,
    const BY_SIGN: bool,
>(
    sf: &SmallFloat,
    shape: Shape,
    src: &[u8],
    dst: &mut [u8],
) -> StatusCounts {
    /// Steps between two flushes of the byte counters (at most 1 per byte per step).
    const FLUSH: usize = 255;
    let c = Consts::new(sf);
    let k = Half16::new::<F16>(sf);
    let r = Rule16::new(shape, sf);
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
            // the codes with the inexact bit, bytes in the order of `bytes`
            let b = bytes::<true>(a.map(|a| round16::<F16, SUB>(&r, a)));
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
