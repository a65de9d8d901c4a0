//! f32 → 4-, 8- and 16-bit integers (4-bit ones packed two per byte or one per byte) at the
//! AVX2 level: 8 lanes per instruction, the rounding by
//! `vroundps` (nearest-even, floor, ceil, trunc; half-away from the truncation and the exact
//! fraction), the range rule by compares and blends, the codes narrowed by unsigned packs of
//! the masked low bits, and the statuses counted in vector accumulators in the same pass.
//! The same rule as [`crate::bulk::kernels::portable::f32_to_int`]'s per-element one (which does the last `n % 16`
//! elements), tested bit for bit against the reference.

use crate::bulk::kernels::portable::f32_to_int::IntDst;
use crate::policy::IntOverflow;
use crate::round::RoundMode;
use crate::status::{Status, StatusCounts};

/// Elements per step (two vectors of 8).
const STEP: usize = 16;

/// Casts `n` little-endian f32 codes into `d.bytes`-byte integers at the AVX2 level (i8 to
/// nearest even, saturating, by [`super::f32_i8`], non-temporally with `stream` where its
/// destination is aligned); `None` when the machine lacks AVX2 or [`IntDst::simd_serves`]
/// does not hold.
pub(crate) fn run(
    d: &IntDst,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> Option<StatusCounts> {
    if super::f32_i8::serves(d)
        && crate::bulk::kernels::simd::avx2_present()
        && std::arch::is_x86_feature_detected!("popcnt")
    {
        return Some(body_then_tail(
            d,
            src,
            dst,
            n,
            super::f32_i8::STEP,
            |s, t, _| {
                // SAFETY: the CPU has AVX2 and POPCNT (checked just above) and `d` is served.
                unsafe { super::f32_i8::run(d, s, t, stream) }
            },
        ));
    }
    if d.simd_serves() && crate::bulk::kernels::simd::avx2_present() {
        return Some(body_then_tail(d, src, dst, n, STEP, |s, t, m| {
            // SAFETY: the CPU has AVX2 (checked just above).
            unsafe { dispatch(d, s, t, m) }
        }));
    }
    let _ = (d, src, dst, n, stream);
    None
}

/// Casts the first `n - n % step` elements with `body` (given the source and destination
/// bytes and the element count) and the last `n % step` by the per-element rule.
pub(crate) fn body_then_tail(
    d: &IntDst,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    step: usize,
    body: impl FnOnce(&[u8], &mut [u8], usize) -> StatusCounts,
) -> StatusCounts {
    let at = |i: usize| if d.packed { i / 2 } else { d.bytes * i };
    let done = n - n % step;
    let mut counts = body(&src[..4 * done], &mut dst[..at(done)], done);
    let rest = n - done;
    if rest > 0 {
        let end = if d.packed { n.div_ceil(2) } else { at(n) };
        let tail = d.run(&src[4 * done..4 * n], &mut dst[at(done)..end], rest);
        counts.add(&tail);
    }
    counts
}

/// The call of `$cast::<rounding, width, wrap>(d, src, dst, n)` for `d`'s destination width
/// (0: packed nibbles, 1 or 2 bytes), mode and overflow rule: the one place where these become
/// const parameters, for both the AVX2 and the AVX-512 kernel.
macro_rules! by_width_mode_and_wrap {
    ($cast:ident, $d:expr, $src:expr, $dst:expr, $n:expr) => {{
        use $crate::bulk::kernels::x86_avx2::f32_to_int::imm;
        let (d, src, dst, n) = ($d, $src, $dst, $n);
        let wrap = d.overflow == IntOverflow::Wrap;
        macro_rules! by_mode {
            ($w:literal) => {
                match (d.mode, wrap) {
                    (RoundMode::Round, false) => $cast::<{ imm::AWAY }, $w, false>(d, src, dst, n),
                    (RoundMode::Round, true) => $cast::<{ imm::AWAY }, $w, true>(d, src, dst, n),
                    (RoundMode::Floor, false) => $cast::<{ imm::FLOOR }, $w, false>(d, src, dst, n),
                    (RoundMode::Floor, true) => $cast::<{ imm::FLOOR }, $w, true>(d, src, dst, n),
                    (RoundMode::Ceil, false) => $cast::<{ imm::CEIL }, $w, false>(d, src, dst, n),
                    (RoundMode::Ceil, true) => $cast::<{ imm::CEIL }, $w, true>(d, src, dst, n),
                    (RoundMode::Trunc, false) => $cast::<{ imm::TRUNC }, $w, false>(d, src, dst, n),
                    (RoundMode::Trunc, true) => $cast::<{ imm::TRUNC }, $w, true>(d, src, dst, n),
                    (_, false) => $cast::<{ imm::NEAREST_EVEN }, $w, false>(d, src, dst, n),
                    (_, true) => $cast::<{ imm::NEAREST_EVEN }, $w, true>(d, src, dst, n),
                }
            };
        }
        if d.packed {
            by_mode!(0)
        } else if d.bytes == 1 {
            by_mode!(1)
        } else {
            by_mode!(2)
        }
    }};
}
pub(crate) use by_width_mode_and_wrap;

/// Rounding immediates of `vroundps` / `vrndscaleps` (scale 0, exceptions suppressed); `AWAY`
/// is not one.
pub(crate) mod imm {
    pub(crate) const NEAREST_EVEN: i32 = 0x08;
    pub(crate) const FLOOR: i32 = 0x09;
    pub(crate) const CEIL: i32 = 0x0A;
    pub(crate) const TRUNC: i32 = 0x0B;
    /// Half away from zero: from the truncation and the fraction (a value `vroundps` is never
    /// given here).
    pub(crate) const AWAY: i32 = 0x0C;
}

/// The [`cast`] for `d`'s width, mode and overflow rule.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
unsafe fn dispatch(d: &IntDst, src: &[u8], dst: &mut [u8], n: usize) -> StatusCounts {
    by_width_mode_and_wrap!(cast, d, src, dst, n)
}

/// `x` rounded to integral by `R` (see [`imm`]; half away: the truncation of `x` plus the
/// largest f32 below one half, signed as `x`).
#[target_feature(enable = "avx2")]
#[inline]
fn round<const R: i32>(x: std::arch::x86_64::__m256) -> std::arch::x86_64::__m256 {
    use std::arch::x86_64::*;
    let sign_mask = _mm256_castsi256_ps(_mm256_set1_epi32(i32::MIN));
    let below_half = _mm256_set1_ps(f32::from_bits(0x3EFF_FFFF)); // 0.5 - 2^-25
    if R == imm::AWAY {
        // trunc(x ± the largest f32 below 1/2): equals half-away rounding for every
        // f32 (checked exhaustively against `f32::round` over all 2^32 codes, up to the
        // sign of a zero result, which nothing here reads)
        _mm256_round_ps::<{ imm::TRUNC }>(_mm256_add_ps(
            x,
            _mm256_or_ps(_mm256_and_ps(x, sign_mask), below_half),
        ))
    } else {
        _mm256_round_ps::<R>(x)
    }
}

/// Stores the codes of one step, `ca` (elements 0..8) and `cb` (8..16) in 32-bit lanes, into
/// `y` as `W`-byte integers (`W` = 0: 4-bit codes two per byte, the first in the low nibble).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn store<const W: usize>(
    ca: std::arch::x86_64::__m256i,
    cb: std::arch::x86_64::__m256i,
    y: &mut [u8],
) {
    use std::arch::x86_64::*;
    // a0..3 b0..3 | a4..7 b4..7 → a0..7 b0..7 as 16-bit codes
    let p = _mm256_permute4x64_epi64::<0xD8>(_mm256_packus_epi32(ca, cb));
    if W == 2 {
        // SAFETY: `y` is 32 bytes, the size of the unaligned store.
        unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), p) };
    } else {
        let q = _mm256_permute4x64_epi64::<0x08>(_mm256_packus_epi16(p, p));
        let bytes = _mm256_castsi256_si128(q);
        if W == 0 {
            // byte pairs (lo, hi) → lo | hi << 4
            let lo = _mm_and_si128(bytes, _mm_set1_epi16(0x000F));
            let hi = _mm_and_si128(_mm_srli_epi16::<4>(bytes), _mm_set1_epi16(0x00F0));
            let nib = _mm_packus_epi16(_mm_or_si128(lo, hi), _mm_setzero_si128());
            // SAFETY: `y` is 8 bytes, the size of the unaligned store.
            unsafe { _mm_storel_epi64(y.as_mut_ptr().cast(), nib) };
        } else {
            // SAFETY: `y` is 16 bytes, the size of the unaligned store.
            unsafe { _mm_storeu_si128(y.as_mut_ptr().cast(), bytes) };
        }
    }
}

/// Adds the statuses of a run of `m` elements to `counts`, from the lane counters' sums
/// (inexact, overflow, flushed, saturated input, invalid); `WRAP` as in [`cast`].
pub(super) fn add_run<const WRAP: bool>(counts: &mut StatusCounts, m: u64, sums: [u64; 5]) {
    let [inexact, overflow, flushed, saturated, invalid] = sums;
    counts.total += m;
    // Every invalid or overflowing result is also inexact.
    counts.exact += m - inexact;
    for (flag, k) in [
        (Status::INEXACT, inexact),
        (Status::OVERFLOW, overflow),
        (
            if WRAP {
                Status::WRAPPED
            } else {
                Status::SATURATED
            },
            if WRAP { overflow } else { 0 },
        ),
        (Status::FLUSHED_TO_ZERO, flushed),
        (Status::SATURATED, saturated),
        (Status::INVALID, invalid),
    ] {
        if let Some(slot) = counts.flags.get_mut(flag.bits().trailing_zeros() as usize) {
            *slot += k;
        }
    }
}

/// The cast of `n` (a multiple of [`STEP`]) elements, rounding by `R` (see [`imm`]) into `W`
/// bytes (`W` = 0: 4-bit codes two per byte, the first in the low nibble), wrapping
/// out-of-range values when `WRAP`.
///
/// Per lane, with `r` the rounded value (the scalar rule's cases, as masks):
/// - NaN: code 0, invalid and inexact;
/// - ±Inf: the bound on its side, saturated and inexact;
/// - finite `r` beyond the range: the bound (saturated) or the low bits of `r` (wrapped), and
///   overflow and inexact;
/// - otherwise `r`, inexact if `r ≠ x`, flushed if `r = 0 ≠ x`, saturated if `x` itself lies
///   beyond the range.
///
/// Callable only where AVX2 is enabled (from [`dispatch`]).
#[target_feature(enable = "avx2")]
fn cast<const R: i32, const W: usize, const WRAP: bool>(
    d: &IntDst,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
) -> StatusCounts {
    use std::arch::x86_64::*;
    /// Steps between two flushes of the 32-bit lane counters (2 per lane per step).
    const FLUSH: usize = 1 << 24;
    let range = Range::of(d);
    let zero = _mm256_setzero_si256();
    let mut counts = StatusCounts::default();
    let steps = n / STEP;
    // destination bytes per step
    let out_step = if W == 0 { STEP / 2 } else { W * STEP };
    for (s_run, d_run) in src[..4 * STEP * steps]
        .chunks(4 * STEP * FLUSH)
        .zip(dst[..out_step * steps].chunks_mut(out_step * FLUSH))
    {
        let mut acc = [zero; 5];
        for (x, y) in s_run
            .chunks_exact(4 * STEP)
            .zip(d_run.chunks_exact_mut(out_step))
        {
            // SAFETY: `x` is 64 bytes, two unaligned 32-byte loads.
            let (a, b) = unsafe {
                (
                    _mm256_loadu_ps(x.as_ptr().cast()),
                    _mm256_loadu_ps(x.as_ptr().add(32).cast()),
                )
            };
            let (ca, sa) = lanes::<R, WRAP>(a, &range);
            let (cb, sb) = lanes::<R, WRAP>(b, &range);
            for ((t, p), q) in acc.iter_mut().zip(sa).zip(sb) {
                *t = _mm256_sub_epi32(_mm256_sub_epi32(*t, p), q);
            }
            store::<W>(ca, cb, y);
        }
        add_run::<WRAP>(&mut counts, (s_run.len() / 4) as u64, acc.map(|v| sum(v)));
    }
    counts
}

/// The destination's range `[lo, hi]` in every lane, as f32 and as i32, and the mask of its
/// codes' bits.
#[derive(Clone, Copy)]
pub(super) struct Range {
    /// The lower bound as f32.
    lo: std::arch::x86_64::__m256,
    /// The upper bound as f32.
    hi: std::arch::x86_64::__m256,
    /// The lower bound as i32.
    lo_i: std::arch::x86_64::__m256i,
    /// The upper bound as i32.
    hi_i: std::arch::x86_64::__m256i,
    /// The low `bits` bits of a code.
    code_mask: std::arch::x86_64::__m256i,
}

impl Range {
    /// The range of `d`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(super) fn of(d: &IntDst) -> Self {
        use std::arch::x86_64::*;
        Self {
            lo: _mm256_set1_ps(d.lo as f32),
            hi: _mm256_set1_ps(d.hi as f32),
            lo_i: _mm256_set1_epi32(d.lo as i32),
            hi_i: _mm256_set1_epi32(d.hi as i32),
            code_mask: _mm256_set1_epi32(((1u64 << d.bits) - 1) as i32),
        }
    }
}

/// The sum of the 8 unsigned 32-bit lanes of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn sum(v: std::arch::x86_64::__m256i) -> u64 {
    let mut l = [0u32; 8];
    // SAFETY: `l` is 32 bytes, the size of the unaligned store.
    unsafe { std::arch::x86_64::_mm256_storeu_si256(l.as_mut_ptr().cast(), v) };
    l.iter().map(|&c| u64::from(c)).sum()
}

/// [`cast`]'s code (low bits) and status masks (inexact, overflow, flushed, saturated,
/// invalid) of the 8 lanes `x`, for the range `g`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn lanes<const R: i32, const WRAP: bool>(
    x: std::arch::x86_64::__m256,
    g: &Range,
) -> (std::arch::x86_64::__m256i, [std::arch::x86_64::__m256i; 5]) {
    use std::arch::x86_64::*;
    let abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFF_FFFF));
    let zero_ps = _mm256_setzero_ps();
    let r = round::<R>(x);
    let nan = _mm256_cmp_ps::<_CMP_UNORD_Q>(x, x);
    let is_inf =
        _mm256_cmp_ps::<_CMP_EQ_OQ>(_mm256_and_ps(x, abs_mask), _mm256_set1_ps(f32::INFINITY));
    let above = _mm256_cmp_ps::<_CMP_GT_OQ>(r, g.hi);
    let oor = _mm256_or_ps(above, _mm256_cmp_ps::<_CMP_LT_OQ>(r, g.lo));
    let x_out = _mm256_or_ps(
        _mm256_cmp_ps::<_CMP_GT_OQ>(x, g.hi),
        _mm256_cmp_ps::<_CMP_LT_OQ>(x, g.lo),
    );
    let inexact = _mm256_or_ps(_mm256_cmp_ps::<_CMP_NEQ_UQ>(r, x), oor);
    let overflow = _mm256_andnot_ps(is_inf, oor);
    let flushed = _mm256_and_ps(
        _mm256_cmp_ps::<_CMP_EQ_OQ>(r, zero_ps),
        _mm256_cmp_ps::<_CMP_NEQ_OQ>(x, zero_ps),
    );
    let saturated = if WRAP {
        _mm256_andnot_ps(overflow, x_out)
    } else {
        x_out
    };
    let value = if WRAP {
        wrapped(r, above, is_inf, g)
    } else {
        _mm256_cvtps_epi32(_mm256_min_ps(_mm256_max_ps(r, g.lo), g.hi))
    };
    let code = _mm256_and_si256(
        _mm256_andnot_si256(_mm256_castps_si256(nan), value),
        g.code_mask,
    );
    let m = _mm256_castps_si256;
    (
        code,
        [m(inexact), m(overflow), m(flushed), m(saturated), m(nan)],
    )
}

/// The wrapped values of the rounded lanes `r`: in range (and |r| < 2^31) the conversion;
/// beyond, the significand shifted into place (zero from 2^55 on), negated for negative
/// values; ±Inf (`is_inf`) saturate to the bound on their side (`above`: beyond `hi`).
#[target_feature(enable = "avx2")]
#[inline]
fn wrapped(
    r: std::arch::x86_64::__m256,
    above: std::arch::x86_64::__m256,
    is_inf: std::arch::x86_64::__m256,
    g: &Range,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let exp_big = _mm256_set1_epi32(158); // |r| ≥ 2^31: beyond `vcvtps2dq`
    let small = _mm256_cvtps_epi32(r);
    let bits = _mm256_castps_si256(r);
    let e = _mm256_srli_epi32::<23>(_mm256_and_si256(bits, _mm256_set1_epi32(0x7FFF_FFFF)));
    let sig = _mm256_or_si256(
        _mm256_and_si256(bits, _mm256_set1_epi32(0x7F_FFFF)),
        _mm256_set1_epi32(0x80_0000),
    );
    let mag = _mm256_sllv_epi32(sig, _mm256_sub_epi32(e, _mm256_set1_epi32(150)));
    let neg = _mm256_srai_epi32::<31>(bits);
    let big_v = _mm256_sub_epi32(_mm256_xor_si256(mag, neg), neg);
    let big = _mm256_cmpgt_epi32(e, _mm256_sub_epi32(exp_big, _mm256_set1_epi32(1)));
    let v = _mm256_blendv_epi8(small, big_v, big);
    let sat = _mm256_blendv_epi8(g.lo_i, g.hi_i, _mm256_castps_si256(above));
    _mm256_blendv_epi8(v, sat, _mm256_castps_si256(is_inf))
}
