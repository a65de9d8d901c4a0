//! f32 → i8 to nearest even, saturating, at the AVX2 level: 32 elements per step in about
//! half the vector operations of the general loop ([`super::f32_to_int`]).
//!
//! Per 8 lanes: the value clamped to `[−128.5, 127.5⁻]` (the largest f32 below 127.5), so
//! that every lane whose rounded value lies beyond the range is moved (and only those);
//! `vcvtps2dq` rounds it by the default environment (to nearest, ties to even); the
//! conversion back says which lanes are inexact (the result differs from the source).
//! The codes, the inexact lanes and the moved lanes are packed to bytes, and the statuses
//! are counted on those bytes (byte counters, added up every 255 steps): a moved lane
//! overflows and saturates, a zero code of an inexact lane is flushed.
//!
//! What the bytes cannot tell goes to the general rule ([`super::f32_to_int`]'s lanes) for
//! the step: an inexact lane at a bound that was not moved (a source in `(127, 127.5)` or
//! `[−128.5, −128)` saturates without overflowing; one just inside the range rounds to the
//! bound). NaN and ±Inf lanes stay in the loop: ±Inf is moved like an overflow and counted
//! apart (saturated, not overflowing), NaN gets code 0 by mask and is counted (invalid). A
//! step is looked at for NaN or ±Inf only when the sum of its lanes is not finite or it has
//! such a lane at a bound.

use super::f32_to_int::{Range, add_run, imm, lanes, store};
use crate::bulk::kernels::portable::f32_to_int::IntDst;
use crate::bulk::kernels::stream::prefetch;
use crate::policy::IntOverflow;
use crate::round::RoundMode;
use crate::status::StatusCounts;
use std::arch::x86_64::*;

/// Elements per step (four vectors of 8).
pub(crate) const STEP: usize = 32;

/// Whether this loop serves `d`: i8 one per byte, saturating, to nearest even.
pub(crate) fn serves(d: &IntDst) -> bool {
    d.bits == 8
        && d.bytes == 1
        && !d.packed
        && d.lo == -128
        && d.hi == 127
        && d.overflow == IntOverflow::Saturate
        && matches!(d.mode, RoundMode::Rint | RoundMode::None)
}

/// Casts `src.len() / 4` (a multiple of [`STEP`]) f32 codes into i8 codes, non-temporally
/// with `stream` when `dst` starts on a 32-byte boundary.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT; `d` must be served ([`serves`]).
#[target_feature(enable = "avx2,popcnt")]
pub(super) unsafe fn run(d: &IntDst, src: &[u8], dst: &mut [u8], stream: bool) -> StatusCounts {
    let stream = stream && (dst.as_ptr() as usize).is_multiple_of(32);
    // SAFETY: AVX2 and POPCNT are enabled here; `dst` is 32-byte aligned when streamed.
    unsafe {
        if stream {
            cast::<true>(d, src, dst)
        } else {
            cast::<false>(d, src, dst)
        }
    }
}

/// The four vectors of one step's source `x` (128 bytes), prefetched ahead when `PF`.
///
/// # Safety
/// The CPU must support AVX2; `x` must hold at least 128 bytes.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn load_step<const PF: bool>(x: &[u8]) -> [__m256; 4] {
    if PF {
        prefetch(x.as_ptr());
        prefetch(x.as_ptr().wrapping_add(64));
    }
    // SAFETY: `x` holds 128 bytes (the caller's guarantee), four unaligned 32-byte loads.
    std::array::from_fn(|j| unsafe { _mm256_loadu_ps(x.as_ptr().add(32 * j).cast()) })
}

/// Signed-saturating packs of four vectors of 32-bit lanes to bytes: dword `j` of the
/// result holds lanes `4(j / 4)..` of vector `j % 4`.
#[target_feature(enable = "avx2")]
#[inline]
fn pack(v: [__m256i; 4]) -> __m256i {
    _mm256_packs_epi16(
        _mm256_packs_epi32(v[0], v[1]),
        _mm256_packs_epi32(v[2], v[3]),
    )
}

/// The sum of the four 64-bit lanes of `v`.
#[target_feature(enable = "avx2")]
#[inline]
fn sum64(v: __m256i) -> u64 {
    let mut l = [0u64; 4];
    // SAFETY: `l` is 32 bytes, the size of the unaligned store.
    unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), v) };
    l.iter().sum()
}

/// One step `xs` by the general rule ([`lanes`]), its codes stored into `y` (32 bytes) and
/// its statuses (inexact, overflow, flushed, saturated, invalid) added to `slow`; out of
/// line, so that the loop keeps its counters in registers.
#[target_feature(enable = "avx2,popcnt")]
#[inline(never)]
fn general_step(range: &Range, xs: [__m256; 4], y: &mut [u8], slow: &mut [u64; 5]) {
    for (j, half) in y.chunks_exact_mut(16).enumerate() {
        let (ca, sa) = lanes::<{ imm::NEAREST_EVEN }, false>(xs[2 * j], range);
        let (cb, sb) = lanes::<{ imm::NEAREST_EVEN }, false>(xs[2 * j + 1], range);
        for ((t, p), q) in slow.iter_mut().zip(sa).zip(sb) {
            let count = |m: __m256i| _mm256_movemask_ps(_mm256_castsi256_ps(m)).count_ones();
            *t += u64::from(count(p) + count(q));
        }
        store::<1>(ca, cb, half);
    }
}

/// The loop of [`run`]; `STREAM`: stores past the cache and source prefetches.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT; with `STREAM`, `dst` must start on a 32-byte
/// boundary.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn cast<const STREAM: bool>(d: &IntDst, src: &[u8], dst: &mut [u8]) -> StatusCounts {
    /// Steps between two flushes of the byte counters (at most 1 per byte per step).
    const FLUSH: usize = 255;
    let range = Range::of(d);
    let zero = _mm256_setzero_si256();
    let lo = _mm256_set1_ps(-128.5);
    // the largest f32 below 127.5: rounds to 127
    let hi = _mm256_set1_ps(f32::from_bits(0x42FE_FFFF));
    let b_max = _mm256_set1_epi8(127);
    let b_min = _mm256_set1_epi8(-128);
    let abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FFF_FFFF));
    let inf = _mm256_set1_ps(f32::INFINITY);
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let steps = src.len() / (4 * STEP);
    // byte counters' 64-bit lane sums: inexact, moved (overflowing or ±Inf), flushed
    let mut wide = [zero; 3];
    // ±Inf lanes of fast steps (moved, but saturated without overflowing)
    let mut infs = 0u64;
    // NaN lanes of fast steps
    let mut nans = 0u64;
    // the general rule's statuses of the other steps
    let mut slow = [0u64; 5];
    let mut slow_lanes = 0u64;
    for (s_run, d_run) in src[..4 * STEP * steps]
        .chunks(4 * STEP * FLUSH)
        .zip(dst[..STEP * steps].chunks_mut(STEP * FLUSH))
    {
        let mut acc = [zero; 3];
        for (x, y) in s_run
            .chunks_exact(4 * STEP)
            .zip(d_run.chunks_exact_mut(STEP))
        {
            // SAFETY: `x` is one step's 128 source bytes.
            let xs = unsafe { load_step::<STREAM>(x) };
            let v = xs.map(|x| _mm256_min_ps(hi, _mm256_max_ps(lo, x)));
            let c = v.map(|v| _mm256_cvtps_epi32(v));
            let k = pack(std::array::from_fn(|j| {
                _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_UQ>(
                    _mm256_cvtepi32_ps(c[j]),
                    xs[j],
                ))
            }));
            let moved = pack(std::array::from_fn(|j| {
                _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_OQ>(v[j], xs[j]))
            }));
            let b = pack(c);
            // inexact lanes at a bound that were not moved
            let at_bound =
                _mm256_or_si256(_mm256_cmpeq_epi8(b, b_max), _mm256_cmpeq_epi8(b, b_min));
            let odd = _mm256_and_si256(_mm256_andnot_si256(moved, at_bound), k);
            // a NaN or ±Inf lane (or finite lanes whose sum overflows) makes the sum not finite
            let s = _mm256_add_ps(_mm256_add_ps(xs[0], xs[1]), _mm256_add_ps(xs[2], xs[3]));
            let special = _mm256_cmp_ps::<_CMP_UNORD_Q>(_mm256_sub_ps(s, s), s);
            let rare = _mm256_or_si256(odd, _mm256_castps_si256(special));
            let mut code = b;
            if _mm256_testz_si256(rare, rare) == 0 {
                // NaN lanes: code 0, inexact (as counted) and invalid
                let nan =
                    pack(xs.map(|x| _mm256_castps_si256(_mm256_cmp_ps::<_CMP_UNORD_Q>(x, x))));
                let odd = _mm256_andnot_si256(nan, odd);
                if _mm256_testz_si256(odd, odd) == 0 {
                    general_step(&range, xs, y, &mut slow);
                    slow_lanes += STEP as u64;
                    continue;
                }
                nans += u64::from(_mm256_movemask_epi8(nan).count_ones());
                code = _mm256_andnot_si256(nan, b);
                for x in xs {
                    let m = _mm256_cmp_ps::<_CMP_EQ_OQ>(_mm256_and_ps(x, abs_mask), inf);
                    infs += u64::from(_mm256_movemask_ps(m).count_ones());
                }
            }
            acc[0] = _mm256_sub_epi8(acc[0], k);
            acc[1] = _mm256_sub_epi8(acc[1], moved);
            acc[2] = _mm256_sub_epi8(acc[2], _mm256_and_si256(_mm256_cmpeq_epi8(b, zero), k));
            let out = _mm256_permutevar8x32_epi32(code, order);
            // SAFETY: `y` is 32 bytes, the size of the store, 32-byte aligned when `STREAM`
            // (`dst` is, and every step's output is 32 bytes).
            unsafe {
                if STREAM {
                    _mm256_stream_si256(y.as_mut_ptr().cast(), out)
                } else {
                    _mm256_storeu_si256(y.as_mut_ptr().cast(), out)
                }
            }
        }
        for (w, a) in wide.iter_mut().zip(acc) {
            *w = _mm256_add_epi64(*w, _mm256_sad_epu8(a, zero));
        }
    }
    let [inexact, moved, flushed] = wide.map(|w| sum64(w));
    let mut counts = StatusCounts::default();
    let fast = (STEP * steps) as u64 - slow_lanes;
    add_run::<false>(
        &mut counts,
        fast,
        [inexact, moved - infs, flushed, moved, nans],
    );
    add_run::<false>(&mut counts, slow_lanes, slow);
    counts
}
