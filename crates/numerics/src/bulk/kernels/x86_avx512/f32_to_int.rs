//! f32 → 4-, 8- and 16-bit integers (4-bit ones packed two per byte or one per byte) at the
//! AVX-512 level, 64 elements per step, with the rule of
//! [`crate::bulk::kernels::portable::f32_to_int`] (which casts the last `n % 64` elements); a
//! leaner path for saturating casts to one byte or packed 4-bit codes (`lean` for i8,
//! `lean_counters` for u8 and the 4-bit codes). The method is
//! in `docs/kernels.md`.

use crate::bulk::kernels::portable::f32_to_int::IntDst;
use crate::bulk::kernels::stream::prefetch;
use crate::bulk::kernels::x86_avx2::f32_to_int::imm;
use crate::bulk::kernels::x86_avx512::store::store64;
use crate::policy::IntOverflow;
use crate::round::RoundMode;
use crate::status::{Status, StatusCounts};
use std::arch::x86_64::*;

/// Elements per step (four vectors of 16).
const STEP: usize = 64;

/// Casts `n` little-endian f32 codes into `d.bytes`-byte integers (or nibbles, packed) at the
/// AVX-512 level; `None` when the machine lacks the level or `d` is not served. With `stream`
/// (honoured when `dst` starts on a 64-byte boundary, as
/// [`stream::split`](crate::bulk::kernels::stream::split) arranges) the full steps are stored
/// non-temporally.
pub(crate) fn run(
    d: &IntDst,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> Option<StatusCounts> {
    if d.simd_serves()
        && crate::bulk::kernels::simd::avx512_present()
        && std::arch::is_x86_feature_detected!("popcnt")
    {
        let stream = stream && (dst.as_ptr() as usize).is_multiple_of(64);
        // one-byte codes: the elements before `dst`'s first 64-byte boundary by the element
        // rule, so that every step's store is aligned (NumPy's buffers start 16 bytes past
        // one; a store across two cache lines costs more)
        let head = if d.bytes == 1 && !d.packed && !stream {
            ((64 - dst.as_ptr() as usize % 64) % 64).min(n)
        } else {
            0
        };
        let mut counts = d.run(&src[..4 * head], &mut dst[..head], head);
        let (src, dst, n) = (&src[4 * head..], &mut dst[head..], n - head);
        counts.add(&crate::bulk::kernels::x86_avx2::f32_to_int::body_then_tail(
            d,
            src,
            dst,
            n,
            STEP,
            |s, t, m| {
                // SAFETY: the CPU has POPCNT and every feature of the AVX-512 level (checked just
                // above); `t` starts where `dst` does, on a 64-byte boundary when `stream`.
                unsafe { dispatch(d, s, t, (m, stream)) }
            },
        ));
        return Some(counts);
    }
    let _ = (d, src, dst, n, stream);
    None
}

/// The [`cast`] for `d`'s width, mode and overflow rule, of `(n, stream)`.
///
/// # Safety
/// The CPU must support POPCNT and AVX-512 F, BW, VL, DQ and VBMI; with `stream`, `dst` must
/// start on a 64-byte boundary.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn dispatch(d: &IntDst, src: &[u8], dst: &mut [u8], job: (usize, bool)) -> StatusCounts {
    // SAFETY: the caller's guarantees, passed on (the shared dispatch macro hands `job` to
    // `cast` as its element count argument).
    unsafe {
        crate::bulk::kernels::x86_avx2::f32_to_int::by_width_mode_and_wrap!(cast, d, src, dst, job)
    }
}

/// Stores the 32 bytes `v` at `p`: non-temporally with `stream`, else unaligned.
///
/// # Safety
/// The CPU must support AVX; `p` must be valid for 32 bytes of writes, and 32-byte aligned
/// with `stream`.
#[target_feature(enable = "avx")]
#[inline]
unsafe fn store32(p: *mut u8, v: std::arch::x86_64::__m256i, stream: bool) {
    use std::arch::x86_64::{_mm256_storeu_si256, _mm256_stream_si256};
    // SAFETY: the caller's guarantees.
    unsafe {
        if stream {
            _mm256_stream_si256(p.cast(), v)
        } else {
            _mm256_storeu_si256(p.cast(), v)
        }
    }
}

/// The cast of `n` (a multiple of [`STEP`]) elements, rounding by `R` (see [`imm`](crate::bulk::kernels::x86_avx2::f32_to_int::imm)) into `W`
/// bytes (`W` = 0: 4-bit codes two per byte, the first in the low nibble), wrapping
/// out-of-range values when `WRAP`.
///
/// Per lane, with `r` the rounded value and `c` its clamp to `[lo, hi]` (a NaN `r` clamps to
/// `lo`), the scalar rule's cases as k-masks:
/// - NaN: code 0, invalid and inexact (`c ≠ x` unordered);
/// - ±Inf: the bound on its side, saturated (`clamp(x) ≠ x`) and inexact;
/// - finite `r` beyond the range (`c ≠ r`): the bound (saturated) or the low bits of `r`
///   (wrapped), and overflow and inexact (`c ≠ x`: `x` lies beyond the bound too);
/// - otherwise `r`, inexact if `r ≠ x`, flushed if `r = 0 ≠ x` (`r = 0` among the inexact:
///   0 is in every range), saturated if `x` itself lies beyond the range.
///
/// With `stream` the full steps' codes are stored non-temporally.
///
/// # Safety
/// Callable only where the AVX-512 level is enabled (from [`dispatch`]); with `stream`, `dst`
/// must start on a 64-byte boundary.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn cast<const R: i32, const W: usize, const WRAP: bool>(
    d: &IntDst,
    src: &[u8],
    dst: &mut [u8],
    job: (usize, bool),
) -> StatusCounts {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        match (W, WRAP, d.lo == 0) {
            (1, false, false) if d.bits == 8 && job.1 => lean::<R, true>(d, src, dst, job.0),
            (1, false, false) if d.bits == 8 => lean::<R, false>(d, src, dst, job.0),
            (0 | 1, false, false) => lean_counters::<R, false, W>(d, src, dst, job),
            (0 | 1, false, true) => lean_counters::<R, true, W>(d, src, dst, job),
            _ => full::<R, W, WRAP>(d, src, dst, job),
        }
    }
}

/// [`cast`] of i8 (saturating, one byte per element; `S`: the steps' codes stored
/// non-temporally, `dst` then starting on a 64-byte boundary, and the source prefetched
/// ahead into the second-level cache; otherwise into the first-level one), in fewer
/// operations per element than [`full`]. Per step of four vectors: the conversion with the
/// mode's embedded rounding (`vcvtps2dq`; ties away: of the truncation of `x` plus the
/// largest f32 below one half, signed as `x`), the 64 integers narrowed by signed-saturating
/// packs (`vpackssdw`, `vpacksswb`) and put in order by one dword permute, and one test of
/// the step's bytes against the band `[lo + 1, hi − 1]` (a subtract and an unsigned compare).
///
/// Three loops share the steps, so that what decides between them is a well-predicted branch,
/// not one per step that data with 1 % NaN / ±Inf would take at random:
///
/// - **the plain loop**: the lane's class comes from the difference `float(v) − x` of the
///   conversion `v` and `x` passed through one `vfixupimmps` (`PLAIN_CLASS`): +0 when exact,
///   the bit pattern 1 when +Inf (`x` = −Inf), +1.0 otherwise, which the packs narrow to the
///   class bytes 0, 1 and 127 (cheaper than a compare per vector joined into one mask).
///   Every byte within the band means the rounded value lies strictly inside the range and,
///   as it is within one of `x`, so does `x`: nothing saturates or overflows. A −Inf lane
///   (class 1) got the lower bound from the packs: saturated, not exact. So a step whose
///   bytes are all within the band or −Inf (plain data, and a causal mask's rows: whole
///   −Inf steps and the step where a row's values end, with no branch that follows the
///   rows) counts exact (class 0), flushed (the zero bytes not exact) and saturated (class
///   1); the first step with another byte off the band leaves for the NaN loop, which
///   casts it;
/// - **the NaN loop** (NaN and ±Inf lanes with no branch, its counts in byte counters; see
///   the comment at its head), in blocks of up to 15 steps, back to the plain loop after a
///   block without NaN or ±Inf; the first step with a finite value off the band leaves for
///   the special loop, which casts it;
/// - **the special loop**, until [`CLEAN_RUN`] plain or ±Inf-alone steps in a row (counted
///   by a select) hand back to the plain loop, with no branch that NaN / ±Inf lanes take:
///   each vector is first passed through one `vfixupimmps` (NaN → +0, +Inf → 2^16, every
///   other value kept; −Inf converts to −2^31), so that the packs give NaN 0 and ±Inf the
///   bound on its side. The lane's class comes from the difference `float(v) − x` of the
///   conversion `v` and `x`: +0 when exact, finite nonzero when inexact, NaN for NaN and
///   ±Inf for ±Inf; a second `vfixupimmps` makes it +0, +1.0, −1.0 or the bit pattern 1
///   (`CLASS`), which the same packs narrow to the class bytes 0, 127, −128
///   and 1, compared in the packs' order (the counts do not need the elements' order).
///   When the bytes off the band are the ±Inf lanes, the counts are saturated = ±Inf,
///   invalid = NaN, exact = class 0, flushed = the inexact lanes whose byte is 0. A step with
///   a finite value at or beyond a bound (rare in normal data, every step of data spread to
///   ±2^11) takes two compares per vector on `x` (above `hi`, below `lo`): every lane above
///   `hi` gets `hi` (values from 2^31 convert to −2^31), and the counts are saturated =
///   above or below, exact = class 0 off those, overflow = the 16-bit packed integers beyond
///   the range (one compare per 32) less the ±Inf lanes.
///
/// In the plain and special loops every count is a `popcnt` of a step's 64-bit mask in a
/// general register (in the special loop byte masks: compares into 16-lane masks joined into
/// one cost more than the packs).
///
/// # Safety
/// As [`cast`]; `d` must be i8 (saturating).
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn lean<const R: i32, const S: bool>(
    d: &IntDst,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
) -> StatusCounts {
    /// vfixupimmps responses by input class, four bits each (QNaN, SNaN, zero, one, −Inf,
    /// +Inf, negative, positive): NaN +0 (8), +Inf the first operand (0: 2^16), every other
    /// class the value itself (1).
    const TAME: i32 = 0x1101_1188;
    /// vfixupimmps responses for the difference `float(v) − x`: NaN −1.0 (9), zero +0 (8),
    /// ±Inf the first operand (0: the bit pattern 1), every finite nonzero value +1.0 (10).
    const CLASS: i32 = 0xAA00_A899_u32 as i32;
    /// vfixupimmps responses for the plain loop's difference `float(v) − x`: zero +0 (8), +Inf
    /// (from −Inf) the first operand (0: the bit pattern 1), every other class +1.0 (10).
    const PLAIN_CLASS: i32 = 0xAA0A_A8AA_u32 as i32;
    /// vfixupimmps responses for the NaN loop's difference `float(v) − x`: NaN −1.0 (9), zero
    /// +0 (8), ±Inf +1.0 (10), every finite nonzero value the first operand (0: the bit
    /// pattern 6).
    const NAN_CLASS: i32 = 0x00AA_0899;
    let (lo, hi) = (_mm512_set1_ps(d.lo as f32), _mm512_set1_ps(d.hi as f32));
    // a byte `b` lies within `[lo + 1, hi − 1]` when `b − (lo + 1) ≤ hi − lo − 2` unsigned
    let lo1_8 = _mm512_set1_epi8((d.lo + 1) as i8);
    let span2_8 = _mm512_set1_epi8((d.hi - d.lo - 2) as i8);
    let hi8 = _mm512_set1_epi8(d.hi as i8);
    let (lo16, span16) = (
        _mm512_set1_epi16(d.lo as i16),
        _mm512_set1_epi16((d.hi - d.lo) as i16),
    );
    let (big, tame) = (_mm512_set1_ps(65536.0), _mm512_set1_epi32(TAME));
    let (one32, class) = (_mm512_set1_epi32(1), _mm512_set1_epi32(CLASS));
    // the class bytes: ±Inf 1, inexact 127, NaN −128 (exact 0)
    let (inf8, inexact8, nan8) = (
        _mm512_set1_epi8(1),
        _mm512_set1_epi8(127),
        _mm512_set1_epi8(-128),
    );
    // dword 4l + j of the packed bytes holds vector j's lanes 4l..4l+4
    let unpair = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
    let steps = n / STEP;
    let (src, dst) = (&src[..4 * STEP * steps], &mut dst[..STEP * steps]);
    let (sp, dp) = (src.as_ptr(), dst.as_mut_ptr());
    let bytes = |v: [__m512i; 4]| {
        _mm512_packs_epi16(
            _mm512_packs_epi32(v[0], v[1]),
            _mm512_packs_epi32(v[2], v[3]),
        )
    };
    let load = |i: usize| -> [__m512; 4] {
        std::array::from_fn(|k| {
            // SAFETY: `src` holds `steps` steps of 256 bytes and `i` < `steps`: four 64-byte
            // unaligned loads.
            unsafe {
                let p = sp.add(4 * STEP * i + 64 * k);
                if S {
                    prefetch(p);
                } else {
                    prefetch_l1(p);
                }
                _mm512_loadu_ps(p.cast())
            }
        })
    };
    // SAFETY (of every call): `i` < `steps` and `dst` holds `steps` steps of 64 bytes;
    // streamed, it starts on a 64-byte boundary (the caller's guarantee), and so does every
    // step.
    let store = |i: usize, b: __m512i| unsafe { store64(dp.add(STEP * i), b, S) };
    // the counts, in general registers
    let (mut exact, mut flushed, mut saturated, mut overflow, mut invalid) = (0, 0, 0, 0, 0);
    let plain_class = _mm512_set1_epi32(PLAIN_CLASS);
    // the NaN loop's constants: the class of an inexact lane as the bit pattern 6 (the packs
    // keep it: byte 6; ±Inf's class byte is 127, NaN's −128); and two byte tables indexed by
    // a lane's class byte XOR (its code ≠ 0) (`vpshufb`: index 0 or 1 exact, 14 ±Inf, 7
    // inexact, 6 flushed; NaN's 0x80 gives 0): exact in the low nibble and ±Inf in the high
    // one; inexact (not flushed) low and flushed high
    let inexact6 = _mm512_set1_epi32(6);
    let nan_class = _mm512_set1_epi32(NAN_CLASS);
    let table = |t: [i8; 16]| {
        _mm512_broadcast_i32x4(_mm_setr_epi8(
            t[0], t[1], t[2], t[3], t[4], t[5], t[6], t[7], t[8], t[9], t[10], t[11], t[12], t[13],
            t[14], t[15],
        ))
    };
    let exact_inf = table([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0]);
    let inexact_flushed = table([0, 0, 0, 0, 0, 0, 16, 1, 0, 0, 0, 0, 0, 0, 0, 0]);
    // 1 in every byte, hidden from the optimiser: `min(code, 1)` then stays one `vpminub`
    // (not a test into a mask and a masked blend)
    let one8 = std::hint::black_box(_mm512_set1_epi8(1));
    let (low4, special8) = (_mm512_set1_epi8(0x0F), _mm512_set1_epi8(-64));
    let zero_v = _mm512_setzero_si512();
    // the NaN loop's sums (64-bit lanes): exact, ±Inf, inexact not flushed, flushed; and its
    // lanes
    let mut sums = [zero_v; 4];
    let mut nan_loop_lanes = 0u64;
    let mut i = 0;
    while i < steps {
        // the plain loop, up to the first step with a byte off the band that is not −Inf
        while i < steps {
            let xs = load(i);
            let v = xs.map(|x| convert::<R>(x));
            let c: [__m512i; 4] = std::array::from_fn(|j| {
                let diff = _mm512_sub_ps(_mm512_cvtepi32_ps(v[j]), xs[j]);
                _mm512_castps_si512(_mm512_fixupimm_ps::<0>(
                    _mm512_castsi512_ps(one32),
                    diff,
                    plain_class,
                ))
            });
            // codes and classes in the packs' order
            let (bp, ep) = (bytes(v), bytes(c));
            let inside = _mm512_cmple_epu8_mask(_mm512_sub_epi8(bp, lo1_8), span2_8);
            let neg_inf = _mm512_cmpeq_epi8_mask(ep, inf8);
            if inside | neg_inf != !0 {
                break;
            }
            let ex = _mm512_testn_epi8_mask(ep, ep);
            let zero = _mm512_testn_epi8_mask(bp, bp);
            exact += popcount(ex);
            flushed += popcount(zero & !ex);
            // the packs gave the −Inf lanes the lower bound
            saturated += popcount(neg_inf);
            store(i, _mm512_permutexvar_epi32(unpair, bp));
            i += 1;
        }
        // the NaN loop, in blocks of up to 15 steps, up to the first step with a finite value
        // off the band (at or beyond a bound), or back to the plain loop after a block without
        // NaN or ±Inf. No branch follows NaN or ±Inf: each vector is first passed through the
        // special loop's `vfixupimmps` (`TAME`: NaN → +0, +Inf → 2^16), so that the packs give
        // NaN 0 and ±Inf the bound on its side; the lane's class comes from the difference
        // `float(v) − x` of the conversion `v` and `x` passed through one `vfixupimmps`
        // (`NAN_CLASS`: +0 exact, the bit pattern 6 inexact, −1.0 NaN, +1.0 ±Inf) and packed
        // like the codes into the class bytes 0, 6, −128 and 127; the band test lets NaN and
        // ±Inf pass by their class bytes' top bits (one `vpternlogd`), and the statuses are
        // counted in byte counters by two `vpshufb` of the class bytes XOR (code ≠ 0), their
        // nibbles summed (`vpsadbw`) at the end of each block, where the counters also tell
        // a block without NaN or ±Inf.
        let mut left = false;
        while i < steps {
            let (mut c0, mut c1) = (zero_v, zero_v);
            let (start, end) = (i, (i + 15).min(steps));
            while i < end {
                let xs = load(i);
                let v = xs.map(|x| convert::<R>(_mm512_fixupimm_ps::<0>(big, x, tame)));
                let c: [__m512i; 4] = std::array::from_fn(|j| {
                    let diff = _mm512_sub_ps(_mm512_cvtepi32_ps(v[j]), xs[j]);
                    _mm512_castps_si512(_mm512_fixupimm_ps::<0>(
                        _mm512_castsi512_ps(inexact6),
                        diff,
                        nan_class,
                    ))
                });
                // codes and classes in the packs' order
                let (bp, ep) = (bytes(v), bytes(c));
                // the codes against the band, NaN and ±Inf lanes moved into it: their class
                // bytes (−128, 127) clear bit 7 or 6 of `code − (lo + 1)` (255 or 254 for the
                // bytes off the band; the finite lanes' class bytes 0 and 6 clear nothing)
                let off =
                    _mm512_ternarylogic_epi32::<0x2A>(special8, ep, _mm512_sub_epi8(bp, lo1_8));
                if _mm512_cmpgt_epu8_mask(off, span2_8) != 0 {
                    left = true;
                    break;
                }
                let idx = _mm512_xor_si512(ep, _mm512_min_epu8(bp, one8));
                c0 = _mm512_add_epi8(c0, _mm512_shuffle_epi8(exact_inf, idx));
                c1 = _mm512_add_epi8(c1, _mm512_shuffle_epi8(inexact_flushed, idx));
                store(i, _mm512_permutexvar_epi32(unpair, bp));
                i += 1;
            }
            nan_loop_lanes += ((i - start) * STEP) as u64;
            let nibbles = |c: __m512i| {
                [
                    _mm512_and_si512(c, low4),
                    _mm512_and_si512(_mm512_srli_epi16::<4>(c), low4),
                ]
            };
            let ([lo0, hi0], [lo1, hi1]) = (nibbles(c0), nibbles(c1));
            for (k, n) in [lo0, hi0, lo1, hi1].into_iter().enumerate() {
                sums[k] = _mm512_add_epi64(sums[k], _mm512_sad_epu8(n, zero_v));
            }
            if left {
                break;
            }
            // a block without NaN or ±Inf: every byte's exact, inexact and flushed counts
            // add up to its steps
            let finite = _mm512_add_epi8(lo0, _mm512_add_epi8(lo1, hi1));
            if _mm512_cmpneq_epi8_mask(finite, _mm512_set1_epi8((i - start) as i8)) == 0 {
                break;
            }
        }
        if !left {
            continue;
        }
        // the special loop, up to [`CLEAN_RUN`] plain steps in a row
        let mut clean = 0;
        while i < steps && clean < CLEAN_RUN {
            let xs = load(i);
            let v = xs.map(|x| convert::<R>(_mm512_fixupimm_ps::<0>(big, x, tame)));
            let c: [__m512i; 4] = std::array::from_fn(|j| {
                let diff = _mm512_sub_ps(_mm512_cvtepi32_ps(v[j]), xs[j]);
                _mm512_castps_si512(_mm512_fixupimm_ps::<0>(
                    _mm512_castsi512_ps(one32),
                    diff,
                    class,
                ))
            });
            // codes and classes in the packs' order
            let (bp, ep) = (bytes(v), bytes(c));
            let inside = _mm512_cmple_epu8_mask(_mm512_sub_epi8(bp, lo1_8), span2_8);
            let inf = _mm512_cmpeq_epi8_mask(ep, inf8);
            let mut b = _mm512_permutexvar_epi32(unpair, bp);
            let nan;
            if !inside == inf {
                nan = _mm512_cmpeq_epi8_mask(ep, nan8);
                let inexact = _mm512_cmpeq_epi8_mask(ep, inexact8);
                let zero = _mm512_testn_epi8_mask(bp, bp);
                exact += STEP as u64 - popcount(inexact) - popcount(nan) - popcount(inf);
                flushed += popcount(zero & inexact);
                saturated += popcount(inf);
                invalid += popcount(nan);
            } else {
                // a finite value at or beyond a bound: the classes in order, and `x`
                // against the bounds
                let e = _mm512_permutexvar_epi32(unpair, ep);
                let above = join(xs.map(|x| _mm512_cmp_ps_mask::<_CMP_GT_OQ>(x, hi)));
                let below = join(xs.map(|x| _mm512_cmp_ps_mask::<_CMP_LT_OQ>(x, lo)));
                let w = [
                    _mm512_packs_epi32(v[0], v[1]),
                    _mm512_packs_epi32(v[2], v[3]),
                ];
                let out = w
                    .map(|w| u64::from(_mm512_cmpgt_epu16_mask(_mm512_sub_epi16(w, lo16), span16)));
                b = _mm512_mask_mov_epi8(b, above, hi8);
                nan = _mm512_cmpeq_epi8_mask(e, nan8);
                let inf = _mm512_cmpeq_epi8_mask(e, inf8);
                let ex = _mm512_testn_epi8_mask(e, e) & !(above | below);
                let zero = _mm512_testn_epi8_mask(b, b);
                exact += popcount(ex);
                flushed += popcount(zero & !ex & !nan);
                saturated += popcount(above | below);
                invalid += popcount(nan);
                overflow += popcount(out[0]) + popcount(out[1]) - popcount(inf);
            }
            // (a select, not a branch)
            // (plain, or ±Inf alone: a causal mask's tail, which the plain loop casts too)
            let plain = (inside == !0 && nan == 0) || inf == !0;
            clean = if plain { clean + 1 } else { 0 };
            store(i, b);
            i += 1;
        }
    }
    let [ex, inf, inexact, fl] = sums.map(|s| _mm512_reduce_add_epi64(s) as u64);
    let (exact, flushed, saturated) = (exact + ex, flushed + fl, saturated + inf);
    // the NaN loop's NaN lanes: neither exact, ±Inf nor inexact
    let invalid = invalid + nan_loop_lanes - ex - inf - inexact - fl;
    let all = (steps * STEP) as u64;
    let mut counts = StatusCounts {
        total: all,
        exact,
        ..StatusCounts::default()
    };
    add_flags(
        &mut counts,
        [
            (Status::INEXACT, all - exact),
            (Status::OVERFLOW, overflow),
            (Status::FLUSHED_TO_ZERO, flushed),
            (Status::SATURATED, saturated),
            (Status::INVALID, invalid),
        ],
    );
    counts
}

/// Plain steps in a row after which [`lean`]'s special loop hands over to the plain one
/// (normal data with 1 % NaN / ±Inf has no two in a row; a causal mask's rows have long runs
/// of −Inf steps, which the plain loop casts too).
const CLEAN_RUN: usize = 4;

/// How far ahead of its loads [`lean`] prefetches the source into the first-level cache when
/// the output is not streamed (a source of a few MiB, read from the last-level cache).
const L1_AHEAD: usize = 2048;

/// Prefetches the line [`L1_AHEAD`] bytes past `p` into the first-level cache: on a 1 Mi
/// source (4 MiB, past the second-level cache) the hardware prefetcher alone leaves the
/// loads waiting (`docs/speed.md`). Never faults, whatever the address.
#[inline(always)]
fn prefetch_l1(p: *const u8) {
    // SAFETY: a prefetch is a hint: it reads nothing architecturally and never faults.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(L1_AHEAD).cast()) }
}

/// [`cast`] of u8 or of 4-bit codes (`W` = 0: packed), saturating (`U`: unsigned, `lo` =
/// 0), in fewer operations per element than [`full`] ([`lean`] serves i8; on these
/// destinations, whose ranges normal data leaves often, its band test sends too many steps
/// out of line): per vector the conversion with the mode's embedded
/// rounding (`vcvtps2dq`; ties away: of the truncation of `x` plus the largest f32 below one
/// half, signed as `x`) and its exact float value, and four compares: `x` within the range
/// (two, chained by masking), exact (the value equals `x`, among those), and flushed (the
/// integer 0 where not exact), counted by masked adds in 32-bit lane counters. The integers
/// are narrowed by signed-saturating packs (`vpackssdw`, then `vpacksswb` or `vpackuswb`:
/// the bounds' clamp for i8 / u8; 4-bit codes are then clamped by byte min / max, masked to
/// their nibble and, packed, paired by a shift) and a byte or dword permute into order; out of
/// range is a compare on the 16-bit values (two vectors of 32 lanes), counted in 16-bit lane
/// counters. A step whose lanes all lie within the range (one min / max over its four
/// vectors, tried while steps keep passing and on every eighth step after one fails) counts
/// only exact and flushed: no lane is saturated or out of range. A step with
/// a 16-bit value of −2^15 (from NaN, ±Inf, |x| ≥ 2^31 or x below −2^15) is, when all its
/// lanes are ±Inf, the bounds by sign with nothing to count; otherwise it is converted again
/// from [`tamed`] values (NaN 0, ±Inf beyond the range on its side), counted like any other
/// step, and its NaN and ±Inf lanes (`vfpclassps`, a popcount per step) correct the counts at
/// the end: a NaN lane is within the range and not flushed, a ±Inf lane not out of range.
///
/// Per step: saturated = not within the range; inexact = not exact (a lane beyond the range
/// is never exact); out of range = overflow; flushed.
///
/// # Safety
/// As [`cast`], for `W` = 0 or 1 without wrapping.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn lean_counters<const R: i32, const U: bool, const W: usize>(
    d: &IntDst,
    src: &[u8],
    dst: &mut [u8],
    (n, stream): (usize, bool),
) -> StatusCounts {
    /// Steps between two flushes of the lane counters (at most 4 per 32-bit lane and 2 per
    /// 16-bit lane per step).
    const FLUSH: usize = 1 << 12;
    let (lo, hi) = (_mm512_set1_ps(d.lo as f32), _mm512_set1_ps(d.hi as f32));
    let lo16 = _mm512_set1_epi16(d.lo as i16);
    let span16 = _mm512_set1_epi16((d.hi - d.lo) as i16);
    let min16 = _mm512_set1_epi16(i16::MIN);
    let zero = _mm512_setzero_si512();
    let four_bit = d.bits == 4;
    let bounds8 = (_mm512_set1_epi8(d.lo as i8), _mm512_set1_epi8(d.hi as i8));
    // SAFETY: the array is 64 bytes, the size of the unaligned load.
    let pair_order = unsafe { _mm512_loadu_si512(PAIR_ORDER.as_ptr().cast()) };
    let out_step = if W == 0 { STEP / 2 } else { STEP };
    // 1 in every 32-bit lane and −1 in every 16-bit one, hidden from the optimiser: a masked
    // add of them stays one instruction
    let one = std::hint::black_box(_mm512_set1_epi32(1));
    let minus_one16 = std::hint::black_box(_mm512_set1_epi16(-1));
    let steps = n / STEP;
    let bounds_i = (
        _mm512_set1_epi32(d.lo as i32),
        _mm512_set1_epi32(d.hi as i32),
    );
    let mut counts = StatusCounts::default();
    // within the range, exact, flushed (32-bit lanes); out of range (16-bit lanes)
    let mut wide = [zero; 3];
    let mut wide_oor = zero;
    // NaN lanes (invalid), ±Inf lanes
    let mut nans = 0u64;
    let mut infs = 0u64;
    let four = _mm512_set1_epi32(4);
    let (mut try_inside, mut tries) = (true, 0u32);
    let mut i = 0;
    while i < steps {
        let end = (i + FLUSH).min(steps);
        let mut acc = [zero; 3];
        let mut oor = zero;
        // the steps from `i` on
        while i < end {
            let (Some(x), Some(y)) = (
                src.get(4 * STEP * i..4 * STEP * (i + 1)),
                dst.get_mut(out_step * i..out_step * (i + 1)),
            ) else {
                break;
            };
            // SAFETY: `x` is one step's 256 source bytes.
            let xs = unsafe { load_step(x) };
            let mut v = xs.map(|x| convert::<R>(x));
            let pack = |v: [__m512i; 4]| {
                [
                    _mm512_packs_epi32(v[0], v[1]),
                    _mm512_packs_epi32(v[2], v[3]),
                ]
            };
            let mut w = pack(v);
            let count_oor = |w: [__m512i; 2], oor: &mut __m512i| {
                for w in w {
                    let out = _mm512_cmpgt_epu16_mask(_mm512_sub_epi16(w, lo16), span16);
                    *oor = _mm512_mask_sub_epi16(*oor, out, *oor, minus_one16);
                }
            };
            if _mm512_cmpeq_epi16_mask(_mm512_min_epi16(w[0], w[1]), min16) != 0 {
                // NaN, ±Inf or a value beyond ±2^15: converted again with NaN as 0 and ±Inf
                // beyond the range on its side ([`tamed`]), counted as any step, then
                // corrected by the step's NaN and ±Inf lanes
                let inf = xs.map(|x| _mm512_fpclass_ps_mask::<0x18>(x));
                if inf.iter().all(|&m| m == 0xFFFF) {
                    // ±Inf alone (a causal mask's −∞): the bound on each side, and nothing
                    // to count (saturated and inexact, as every lane not counted within the
                    // range or exact is)
                    for (&x, v) in xs.iter().zip(&mut v) {
                        let neg = _mm512_movepi32_mask(_mm512_castps_si512(x));
                        *v = _mm512_mask_blend_epi32(neg, bounds_i.1, bounds_i.0);
                    }
                    w = pack(v);
                } else {
                    let mut nan = 0u64;
                    for (k, (&x, v)) in xs.iter().zip(&mut v).enumerate() {
                        *v = convert::<R>(tamed(x));
                        count_lean_lanes(&mut acc, x, *v, (lo, hi), one);
                        nan |= u64::from(_mm512_fpclass_ps_mask::<0x81>(x)) << (16 * k);
                    }
                    let inf = inf
                        .iter()
                        .enumerate()
                        .fold(0u64, |all, (k, &m)| all | u64::from(m) << (16 * k));
                    nans += u64::from(nan.count_ones());
                    infs += u64::from(inf.count_ones());
                    w = pack(v);
                    count_oor(w, &mut oor);
                }
            } else {
                // tried while steps keep passing, and on every eighth step after one fails
                // (data with many values beyond the range pays little for it)
                tries = tries.wrapping_add(1);
                let inside = (try_inside || tries % 8 == 0) && {
                    let mn =
                        _mm512_min_ps(_mm512_min_ps(xs[0], xs[1]), _mm512_min_ps(xs[2], xs[3]));
                    let mx =
                        _mm512_max_ps(_mm512_max_ps(xs[0], xs[1]), _mm512_max_ps(xs[2], xs[3]));
                    _mm512_mask_cmp_ps_mask::<_CMP_LE_OQ>(
                        _mm512_cmp_ps_mask::<_CMP_GE_OQ>(mn, lo),
                        mx,
                        hi,
                    ) == 0xFFFF
                };
                try_inside = inside;
                if inside {
                    // every x within the range (so every integer too): exact and flushed only
                    acc[0] = _mm512_add_epi32(acc[0], four);
                    for (&x, &v) in xs.iter().zip(&v) {
                        let exact = _mm512_cmp_ps_mask::<_CMP_EQ_OQ>(_mm512_cvtepi32_ps(v), x);
                        let flushed = _mm512_mask_testn_epi32_mask(!exact, v, v);
                        acc[1] = _mm512_mask_add_epi32(acc[1], exact, acc[1], one);
                        acc[2] = _mm512_mask_add_epi32(acc[2], flushed, acc[2], one);
                    }
                } else {
                    for (&x, &v) in xs.iter().zip(&v) {
                        count_lean_lanes(&mut acc, x, v, (lo, hi), one);
                    }
                    count_oor(w, &mut oor);
                }
            }
            let b = narrow::<U>(w, four_bit, bounds8);
            // SAFETY: `y` is one step's output bytes (64, or 32 packed) at a multiple of their
            // count from `dst` (so aligned to it when streamed).
            unsafe { store_lean_counters::<W>(y, b, pair_order, stream) };
            i += 1;
        }
        for (w, a) in wide.iter_mut().zip(acc) {
            *w = _mm512_add_epi64(*w, widen_sums(a));
        }
        // 16-bit lane sums: pairs into 32-bit lanes, then as above
        let pairs = _mm512_madd_epi16(oor, _mm512_set1_epi16(1));
        wide_oor = _mm512_add_epi64(wide_oor, widen_sums(pairs));
    }
    let [within, exact, flushed] = wide.map(|w| _mm512_reduce_add_epi64(w) as u64);
    let oor = _mm512_reduce_add_epi64(wide_oor) as u64;
    // a NaN lane is counted as flushed (its integer 0, not exact) and not within the range,
    // where it is invalid and neither flushed nor saturated; a ±Inf lane as out of range,
    // where it gives the bound on its side (saturated, not overflowing)
    let (within, flushed, oor) = (within + nans, flushed - nans, oor - infs);
    let all = (steps * STEP) as u64;
    counts.total += all;
    counts.exact += exact;
    add_flags(
        &mut counts,
        [
            (Status::INEXACT, all - exact),
            (Status::OVERFLOW, oor),
            (Status::FLUSHED_TO_ZERO, flushed),
            (Status::SATURATED, all - within),
            (Status::INVALID, nans),
        ],
    );
    counts
}

/// Byte `m` of [`lean_counters`]'s packed 4-bit output: the byte pair of elements 2m, 2m + 1, in the
/// packs' order (dword 4l + j of the packed bytes holds vector j's lanes 4l..4l+4).
const PAIR_ORDER: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut m = 0;
    while m < 64 {
        let e = (2 * m) % STEP;
        let k = e / 4;
        t[m] = (4 * (4 * (k % 4) + k / 4) + e % 4) as u8;
        m += 1;
    }
    t
};

/// Counts [`lean_counters`]'s statuses of the 16 lanes `x` converted to `v`, one (`one`) per lane in
/// `acc`'s 32-bit lane counters: within the range `[lo, hi]`, exact (among those), flushed
/// (the integer 0 where not exact).
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn count_lean_lanes(
    acc: &mut [__m512i; 3],
    x: __m512,
    v: __m512i,
    (lo, hi): (__m512, __m512),
    one: __m512i,
) {
    let f = _mm512_cvtepi32_ps(v);
    let below = _mm512_cmp_ps_mask::<_CMP_LE_OQ>(x, hi);
    let within = _mm512_mask_cmp_ps_mask::<_CMP_GE_OQ>(below, x, lo);
    let exact = _mm512_mask_cmp_ps_mask::<_CMP_EQ_OQ>(within, f, x);
    let flushed = _mm512_mask_cmpeq_epi32_mask(!exact, v, _mm512_setzero_si512());
    for (a, k) in acc.iter_mut().zip([within, exact, flushed]) {
        *a = _mm512_mask_add_epi32(*a, k, *a, one);
    }
}

/// The 16-bit values `w` of one step narrowed to bytes by a saturating pack (unsigned when
/// `U`), in the packs' order; 4-bit codes (`four_bit`) then clamped to the bounds `(lo8, hi8)`
/// and masked to their nibble.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn narrow<const U: bool>(
    w: [__m512i; 2],
    four_bit: bool,
    (lo8, hi8): (__m512i, __m512i),
) -> __m512i {
    let b = if U {
        _mm512_packus_epi16(w[0], w[1])
    } else {
        _mm512_packs_epi16(w[0], w[1])
    };
    if !four_bit {
        return b;
    }
    let c = if U {
        _mm512_min_epu8(b, hi8)
    } else {
        _mm512_min_epi8(_mm512_max_epi8(b, lo8), hi8)
    };
    _mm512_and_si512(c, _mm512_set1_epi8(0x0F))
}

/// Stores [`lean_counters`]'s bytes `b` of one step (in the packs' order) to `y`: as bytes put in order
/// by a dword permute (`W` = 1), or as packed 4-bit codes, paired and put in order by
/// `pair_order` ([`PAIR_ORDER`]).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI; `y` must hold one step's output (64 bytes, or
/// 32 packed), aligned to its size when `stream`.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
unsafe fn store_lean_counters<const W: usize>(
    y: &mut [u8],
    b: __m512i,
    pair_order: __m512i,
    stream: bool,
) {
    if W == 0 {
        // byte pairs (lo, hi) → lo | hi << 4 in the low byte of each 16-bit pair
        let pairs = _mm512_or_si512(b, _mm512_srli_epi16::<4>(b));
        let out = _mm512_castsi512_si256(_mm512_permutexvar_epi8(pair_order, pairs));
        // SAFETY: `y` is 32 bytes, the size of the store, 32-byte aligned when streamed (the
        // caller's guarantees).
        unsafe { store32(y.as_mut_ptr(), out, stream) };
    } else {
        // dword 4l + j of the packed bytes holds vector j's lanes 4l..4l+4: back into order
        let unpair = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
        // SAFETY: `y` is 64 bytes, the size of the store, 64-byte aligned when streamed (the
        // caller's guarantees).
        unsafe { store64(y.as_mut_ptr(), _mm512_permutexvar_epi32(unpair, b), stream) };
    }
}

/// The sums of pairs of the 16 unsigned 32-bit lane counters `a`, as 8 64-bit lanes.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn widen_sums(a: __m512i) -> __m512i {
    let l = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(a));
    let h = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(a));
    _mm512_add_epi64(l, h)
}

/// The four 16-lane masks `m` of a step as one 64-bit mask, vector 0 in the low bits.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn join(m: [__mmask16; 4]) -> __mmask64 {
    let ab = _mm512_kunpackw(m[1].into(), m[0].into());
    let cd = _mm512_kunpackw(m[3].into(), m[2].into());
    _mm512_kunpackd(cd.into(), ab.into())
}

/// The 16 lanes `x` of a [`lean_counters`] step with special lanes made safe to convert: NaN as +0,
/// −Inf as the lowest finite f32 (which converts to −2^31, below every range), +Inf and every
/// value above 2^16 as 2^16 (above every one-byte range; the conversion of 2^31 or more would
/// give −2^31). Finite values up to 2^16 are kept, so their integers are unchanged.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn tamed(x: __m512) -> __m512 {
    // vfixupimmps responses by input class, four bits each: QNaN and SNaN +0 (8), −Inf
    // −MAX_FLOAT (0xF), +Inf MAX_FLOAT (0xE), the others kept (0)
    const TABLE: i32 = 0x0088 | 0xF << 16 | 0xE << 20;
    let fixed = _mm512_fixupimm_ps::<0>(x, x, _mm512_set1_epi32(TABLE));
    // (no NaN is left, so the order of the operands does not matter)
    _mm512_min_ps(_mm512_set1_ps(65536.0), fixed)
}

/// The four vectors of one step's source `x` (256 bytes), each prefetched ahead.
///
/// # Safety
/// The CPU must support AVX-512 F; `x` must hold at least 256 bytes.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
unsafe fn load_step(x: &[u8]) -> [__m512; 4] {
    std::array::from_fn(|k| {
        let p = x.as_ptr().wrapping_add(64 * k);
        prefetch(p);
        // SAFETY: `x` holds 256 bytes (the caller's guarantee), four unaligned 64-byte loads.
        unsafe { _mm512_loadu_ps(p.cast()) }
    })
}

/// The 16 lanes of `x` converted to i32 by [`lean`]'s rule for the rounding `R`: the mode's
/// embedded rounding, or for ties away the truncation of `x` plus the largest f32 below one
/// half, signed as `x`.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn convert<const R: i32>(x: __m512) -> __m512i {
    if R == imm::AWAY {
        // trunc(x ± the largest f32 below 1/2) is half-away rounding for every f32
        let sign_mask = _mm512_castsi512_ps(_mm512_set1_epi32(i32::MIN));
        let below_half = _mm512_set1_ps(f32::from_bits(0x3EFF_FFFF)); // 0.5 - 2^-25
        let t = _mm512_add_ps(x, _mm512_or_ps(_mm512_and_ps(x, sign_mask), below_half));
        _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(t)
    } else if R == imm::FLOOR {
        _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC }>(x)
    } else if R == imm::CEIL {
        _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC }>(x)
    } else if R == imm::TRUNC {
        _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC }>(x)
    } else {
        _mm512_cvt_roundps_epi32::<{ _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC }>(x)
    }
}

/// Adds each count to its flag's slot of `counts`.
fn add_flags<const F: usize>(counts: &mut StatusCounts, flags: [(Status, u64); F]) {
    for (flag, k) in flags {
        if let Some(slot) = counts.flags.get_mut(flag.bits().trailing_zeros() as usize) {
            *slot += k;
        }
    }
}

/// [`cast`] by the full rule (any width, wrapping or not).
///
/// # Safety
/// As [`cast`].
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn full<const R: i32, const W: usize, const WRAP: bool>(
    d: &IntDst,
    src: &[u8],
    dst: &mut [u8],
    (n, stream): (usize, bool),
) -> StatusCounts {
    let bounds = Bounds::of(d);
    let four_bit = d.bits == 4;
    // per flag (inexact, overflow, flushed, saturated, invalid): how many lanes had it
    let mut tally = [0u64; 5];
    let steps = n / STEP;
    // destination bytes per step
    let out_step = if W == 0 { STEP / 2 } else { W * STEP };
    for (x, y) in src[..4 * STEP * steps]
        .chunks_exact(4 * STEP)
        .zip(dst[..out_step * steps].chunks_exact_mut(out_step))
    {
        // SAFETY: `x` is one step's 256 source bytes.
        let xs = unsafe { load_step(x) };
        let any_special = xs.iter().fold(0, |a, &x| a | special::<WRAP>(x)) != 0;
        let mut v = [_mm512_setzero_si512(); 4];
        let mut masks = [[0; 5]; 4];
        for ((vk, mk), &xk) in v.iter_mut().zip(&mut masks).zip(&xs) {
            (*vk, *mk) = if any_special {
                lanes::<R, WRAP>(xk, &bounds, true)
            } else {
                lanes::<R, WRAP>(xk, &bounds, false)
            };
        }
        tally_masks(&mut tally, &masks);
        // SAFETY: `y` is one step's output bytes at a multiple of their count from `dst` (so
        // 64-byte aligned, or 32-byte for 32 bytes, when streamed: the caller's guarantee).
        unsafe { store_full::<W>(y, v, four_bit, stream) };
    }
    let [inexact, overflow, flushed, saturated, invalid] = tally;
    let m = (steps * STEP) as u64;
    let mut counts = StatusCounts {
        total: m,
        // Every invalid or overflowing result is also inexact.
        exact: m - inexact,
        ..StatusCounts::default()
    };
    add_flags(
        &mut counts,
        [
            (Status::INEXACT, inexact),
            (Status::OVERFLOW, overflow),
            (Status::WRAPPED, if WRAP { overflow } else { 0 }),
            (Status::FLUSHED_TO_ZERO, flushed),
            (Status::SATURATED, saturated),
            (Status::INVALID, invalid),
        ],
    );
    counts
}

/// The destination's range `[lo, hi]` in every lane, as f32 and as i32.
#[derive(Clone, Copy)]
struct Bounds {
    /// The lower bound as f32.
    lo: __m512,
    /// The upper bound as f32.
    hi: __m512,
    /// The lower bound as i32.
    lo_i: __m512i,
    /// The upper bound as i32.
    hi_i: __m512i,
}

impl Bounds {
    /// The bounds of `d`.
    #[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
    #[inline]
    fn of(d: &IntDst) -> Self {
        Self {
            lo: _mm512_set1_ps(d.lo as f32),
            hi: _mm512_set1_ps(d.hi as f32),
            lo_i: _mm512_set1_epi32(d.lo as i32),
            hi_i: _mm512_set1_epi32(d.hi as i32),
        }
    }
}

/// The 16 lanes of `x` rounded to integral by `R` (see [`imm`]).
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn round<const R: i32>(x: __m512) -> __m512 {
    if R == imm::AWAY {
        // trunc(x ± the largest f32 below 1/2) is half-away rounding for every f32 (as
        // in the AVX2 kernel, checked there over all 2^32 codes)
        let sign_mask = _mm512_castsi512_ps(_mm512_set1_epi32(i32::MIN));
        let below_half = _mm512_set1_ps(f32::from_bits(0x3EFF_FFFF)); // 0.5 - 2^-25
        _mm512_roundscale_ps::<{ imm::TRUNC }>(_mm512_add_ps(
            x,
            _mm512_or_ps(_mm512_and_ps(x, sign_mask), below_half),
        ))
    } else {
        _mm512_roundscale_ps::<R>(x)
    }
}

/// The lanes of `x` that need [`full`]'s whole rule: NaN and ±Inf, and when `WRAP` also
/// |x| ≥ 2^31 (whose low bits `vcvtps2dq` cannot give).
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn special<const WRAP: bool>(x: __m512) -> __mmask16 {
    if WRAP {
        let sign_mask = _mm512_castsi512_ps(_mm512_set1_epi32(i32::MIN));
        let two_31 = _mm512_set1_ps(2_147_483_648.0);
        _mm512_cmp_ps_mask::<_CMP_NLT_UQ>(_mm512_andnot_ps(sign_mask, x), two_31)
    } else {
        _mm512_fpclass_ps_mask::<0x99>(x) // QNaN, +Inf, -Inf, SNaN
    }
}

/// [`full`]'s code (low bits, unmasked) and status masks of the 16 lanes `x`: inexact,
/// overflow, flushed, saturated, invalid. `whole`: the rule for every f32; otherwise for
/// vectors without special lanes (the masks of the ±Inf, NaN and big-value cases are then
/// empty).
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lanes<const R: i32, const WRAP: bool>(
    x: __m512,
    b: &Bounds,
    whole: bool,
) -> (__m512i, [__mmask16; 5]) {
    let r = round::<R>(x);
    // `vmaxps` gives its second operand when the first is NaN: a NaN clamps to `lo`.
    let c = _mm512_min_ps(_mm512_max_ps(r, b.lo), b.hi);
    let cx = _mm512_min_ps(_mm512_max_ps(x, b.lo), b.hi);
    let oor = _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(c, r);
    let inexact = _mm512_cmp_ps_mask::<_CMP_NEQ_UQ>(c, x);
    let x_out = _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(cx, x);
    let flushed = _mm512_mask_cmp_ps_mask::<_CMP_EQ_OQ>(inexact, r, _mm512_setzero_ps());
    if !whole {
        let saturated = if WRAP { x_out & !oor } else { x_out };
        let value = _mm512_cvtps_epi32(if WRAP { r } else { c });
        return (value, [inexact, oor, flushed, saturated, 0]);
    }
    let nan = _mm512_cmp_ps_mask::<_CMP_UNORD_Q>(x, x);
    let inf = _mm512_fpclass_ps_mask::<0x18>(x); // +Inf, -Inf
    let overflow = oor & !inf;
    let saturated = if WRAP { x_out & !overflow } else { x_out };
    let value = if WRAP {
        _mm512_maskz_mov_epi32(!nan, wrapped(r, inf, b))
    } else {
        _mm512_maskz_cvtps_epi32(!nan, c)
    };
    (value, [inexact, overflow, flushed, saturated, nan])
}

/// The wrapped codes (low bits) of the rounded, non-NaN lanes `r`: below 2^31 the conversion;
/// beyond, the significand shifted into place (zero from 2^55 on), negated for negative
/// values; ±Inf (`inf`) saturate to the bound on their side.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn wrapped(r: __m512, inf: __mmask16, b: &Bounds) -> __m512i {
    let abs_i = _mm512_set1_epi32(0x7FFF_FFFF);
    let exp_big = _mm512_set1_epi32(158); // |r| ≥ 2^31: beyond `vcvtps2dq`
    let sig_mask = _mm512_set1_epi32(0x7F_FFFF);
    let implicit = _mm512_set1_epi32(0x80_0000);
    let bias_shift = _mm512_set1_epi32(150);
    let small = _mm512_cvtps_epi32(r);
    let bits = _mm512_castps_si512(r);
    let e = _mm512_srli_epi32::<23>(_mm512_and_si512(bits, abs_i));
    let sig = _mm512_or_si512(_mm512_and_si512(bits, sig_mask), implicit);
    let mag = _mm512_sllv_epi32(sig, _mm512_sub_epi32(e, bias_shift));
    let neg = _mm512_srai_epi32::<31>(bits);
    let big_v = _mm512_sub_epi32(_mm512_xor_si512(mag, neg), neg);
    let big = _mm512_cmpge_epi32_mask(e, exp_big);
    let v = _mm512_mask_mov_epi32(small, big, big_v);
    let sat = _mm512_mask_blend_epi32(_mm512_movepi32_mask(bits), b.hi_i, b.lo_i);
    _mm512_mask_mov_epi32(v, inf, sat)
}

/// Adds to each flag's `tally` how many of the 64 lanes of a step had it (`masks`: per vector,
/// per flag).
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn tally_masks(tally: &mut [u64; 5], masks: &[[__mmask16; 5]; 4]) {
    for (f, t) in tally.iter_mut().enumerate() {
        // the flag's masks of the four vectors as one 64-bit mask, in mask registers
        let ab = _mm512_kunpackw(masks[1][f].into(), masks[0][f].into());
        let cd = _mm512_kunpackw(masks[3][f].into(), masks[2][f].into());
        let all = _mm512_kunpackd(cd.into(), ab.into());
        *t += popcount(all);
    }
}

/// The set bits of `m`, by `popcnt` in assembly: the compiler would turn `count_ones` over
/// several masks into a far slower vector nibble-table count.
#[target_feature(enable = "popcnt")]
#[inline]
pub(crate) fn popcount(m: u64) -> u64 {
    let r: u64;
    // SAFETY: `popcnt` reads and writes only the two registers named (the CPU has POPCNT,
    // enabled for this function).
    unsafe {
        std::arch::asm!("popcnt {r}, {m}", m = in(reg) m, r = lateout(reg) r,
            options(pure, nomem, nostack))
    };
    r
}

/// Stores [`full`]'s codes `v` of one step to `y` as `W`-byte codes (`W` = 0: 4-bit codes
/// two per byte, the first in the low nibble; `four_bit`: 4-bit codes one per byte).
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI; `y` must hold one step's output (128, 64 or
/// 32 bytes), 64-byte aligned (32 for 32 bytes) when `stream`.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
unsafe fn store_full<const W: usize>(y: &mut [u8], v: [__m512i; 4], four_bit: bool, stream: bool) {
    if W == 2 {
        let (p, q) = (to_words(v[0], v[1]), to_words(v[2], v[3]));
        // SAFETY: `y` is 128 bytes, two 64-byte stores (64-byte aligned when streamed).
        unsafe {
            store64(y.as_mut_ptr(), p, stream);
            store64(y.as_mut_ptr().add(64), q, stream);
        }
    } else if W == 1 {
        // SAFETY: `y` is 64 bytes, the size of the store (64-byte aligned when streamed).
        unsafe { store64(y.as_mut_ptr(), to_bytes(v, four_bit), stream) };
    } else {
        // byte pairs (lo, hi) → lo | hi << 4 in the low byte of each 16-bit pair
        let b = to_bytes(v, four_bit);
        let pairs = _mm512_or_si512(b, _mm512_srli_epi16::<4>(b));
        // SAFETY: the array is 64 bytes, the size of the unaligned load.
        let even_bytes = unsafe { _mm512_loadu_si512(EVEN_BYTES.as_ptr().cast()) };
        let packed = _mm512_permutexvar_epi8(even_bytes, pairs);
        // SAFETY: `y` is 32 bytes, the size of the store (32-byte aligned when streamed).
        unsafe { store32(y.as_mut_ptr(), _mm512_castsi512_si256(packed), stream) };
    }
}

/// Byte j of `vpermt2b(a, idx, b)`: the low byte of dword j of a:b (j < 32; above, the same
/// bytes again, which the blend with the second pair replaces).
const LOW_BYTES: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = ((4 * j) & 127) as u8;
        j += 1;
    }
    t
};

/// Byte j: byte 2j (j < 32), the low byte of each 16-bit pair of nibbles.
const EVEN_BYTES: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut j = 0;
    while j < 64 {
        t[j] = ((2 * j) & 63) as u8;
        j += 1;
    }
    t
};

/// The 64 codes of four vectors `v` as bytes, in order (4-bit codes, `four_bit`, masked to
/// their nibble).
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn to_bytes(v: [__m512i; 4], four_bit: bool) -> __m512i {
    // SAFETY: the array is 64 bytes, the size of the unaligned load.
    let low_bytes = unsafe { _mm512_loadu_si512(LOW_BYTES.as_ptr().cast()) };
    let ab = _mm512_permutex2var_epi8(v[0], low_bytes, v[1]);
    let cd = _mm512_permutex2var_epi8(v[2], low_bytes, v[3]);
    let b = _mm512_mask_blend_epi8(0xFFFF_FFFF_0000_0000, ab, cd);
    if four_bit {
        _mm512_and_si512(b, _mm512_set1_epi8(0x0F))
    } else {
        b
    }
}

/// The 32 codes of two vectors `a`, `b` as 16-bit codes, in order.
#[target_feature(enable = "avx2,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn to_words(a: __m512i, b: __m512i) -> __m512i {
    let low16 = _mm512_set1_epi32(0xFFFF);
    // 64-bit groups of `vpackusdw(a, b)` (a0-3 b0-3 | a4-7 b4-7 | …) back into order.
    let unpair = _mm512_set_epi64(7, 5, 3, 1, 6, 4, 2, 0);
    let p = _mm512_packus_epi32(_mm512_and_si512(a, low16), _mm512_and_si512(b, low16));
    _mm512_permutexvar_epi64(unpair, p)
}
