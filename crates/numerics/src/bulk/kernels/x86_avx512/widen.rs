//! f16 → f32 and bf16 → f32 ([`Widen`]) at the AVX-512 level, 32 codes (64 source bytes) per
//! step. f16: `vcvtph2ps` on each half of the step, exact for every finite code; it quiets
//! signalling NaNs, so where the cast keeps them signalling (the kernel's quiet bit clear) the
//! quiet bit of those lanes is cleared again by a masked `andn`. bf16: zero-extend and shift
//! left 16, the policy's quiet bit OR-ed into NaN lanes. NaN and ±Inf (the only codes with a
//! status) come from two k-mask tests on the 32 source lanes, counted in 16-bit lane counters.
//! Unless streamed, a masked first step brings the stores onto 64-byte boundaries. With
//! `stream` the two 64-byte stores of a step are non-temporal (the destination then starts on
//! a 64-byte boundary, and every step writes 128 bytes); the source is prefetched ahead once
//! per step ([`stream::prefetch`](crate::bulk::kernels::stream::prefetch)) when streamed; unstreamed
//! casts past the L2 prefetch both buffers into the L1 ahead of each step. The last codes are
//! one masked step. Tested bit for bit (codes and status counts) against the reference on every
//! code.

use crate::bulk::kernels::flags;
use crate::bulk::kernels::portable::widen::{Half, Widen};
use crate::bulk::kernels::simd;
use crate::status::StatusCounts;

impl Widen {
    /// Whether the source is bf16 (else f16).
    fn is_bf16(&self) -> bool {
        self.half == Half::BF16
    }

    /// Bits OR-ed into a NaN's f32 code: the quiet bit `0x0040_0000`, or none.
    fn nan_quiet(&self) -> u32 {
        self.nan_quiet
    }

    /// Raw status bits of a NaN input.
    fn nan_status(&self) -> u16 {
        self.nan_status
    }

    /// Raw status bits of a ±Inf input.
    fn inf_status(&self) -> u16 {
        self.inf_status
    }
}

/// Casts `n` little-endian 16-bit codes of `src` into f32 codes in `dst` at the AVX-512 level,
/// streamed with `stream` (then `dst` must start on a 64-byte boundary); `None` when the
/// machine lacks the level.
pub(crate) fn run(
    k: &Widen,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> Option<StatusCounts> {
    if simd::avx512_present() && std::arch::is_x86_feature_detected!("popcnt") {
        let (src, dst) = (&src[..2 * n], &mut dst[..4 * n]);
        let stream = stream && (dst.as_ptr() as usize).is_multiple_of(64);
        let fetch = !stream && 6 * n >= FETCH_FROM;
        // SAFETY: the CPU has POPCNT and every feature of the AVX-512 level (checked just
        // above); a streamed `dst` starts on a 64-byte boundary (checked just above).
        let (nan, inf) = unsafe {
            match (k.is_bf16(), k.nan_quiet() == 0) {
                (true, _) => cast::<true, false>(k, src, dst, stream, fetch),
                (false, true) => cast::<false, true>(k, src, dst, stream, fetch),
                (false, false) => cast::<false, false>(k, src, dst, stream, fetch),
            }
        };
        let mut counts = StatusCounts::default();
        flags::record_n(k.nan_status(), nan, &mut counts);
        flags::record_n(k.inf_status(), inf, &mut counts);
        flags::record_n(0, n as u64 - nan - inf, &mut counts);
        return Some(counts);
    }
    let _ = (k, src, dst, n, stream);
    None
}

/// Bytes moved (source and destination) from which an unstreamed cast prefetches both
/// buffers into the L1 ahead of the loop ([`SRC_AHEAD`], [`DST_AHEAD`]): past the L2 the
/// loop otherwise waits on the L3 for its loads and for the lines its stores fill
/// (`docs/speed.md`); below it the prefetches only cost.
const FETCH_FROM: usize = 1 << 20;

/// How far ahead of a step the source line is prefetched, in source bytes.
const SRC_AHEAD: usize = 512;

/// How far ahead of a step the destination lines are prefetched, in destination bytes (the
/// same elements as [`SRC_AHEAD`]).
const DST_AHEAD: usize = 1024;

/// Asks for the line at `p` to be brought into the L1. Never faults, whatever the address
/// (the pointer is only formed, never read through).
#[inline(always)]
fn fetch_line(p: *const u8) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: a prefetch is a hint: it reads nothing architecturally and never faults.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(p.cast()) }
}

/// Widens every code of `src` (`dst` holds twice its bytes) and returns how many were NaN and
/// how many ±Inf. `BF16` picks the source format; `UNQUIET` (f16): the cast keeps signalling
/// NaNs signalling, so the quiet bit `vcvtph2ps` sets on them is cleared again (without it the
/// step has no such fix at all).
///
/// With `fetch` (never with `stream`) each full step first prefetches the source line
/// [`SRC_AHEAD`] bytes ahead and the two destination lines [`DST_AHEAD`] bytes ahead into
/// the L1.
///
/// Unless streamed, the codes before `dst`'s first 64-byte boundary (when `dst` lies on a
/// 4-byte one) are one masked step, so that every full step's two stores are aligned: on
/// this machine stores that straddle cache lines cost up to 15 % at 1 Mi elements, and
/// NumPy's buffers start 16 bytes past a boundary. The last codes are one masked step too.
///
/// Per full step the NaN and exponent-all-ones (NaN or ±Inf) lanes are counted in two
/// vectors of 16-bit lane counters by masked subtracts (no branch, no transfer to general
/// registers), summed every [`FLUSH`] steps; ±Inf = the exponent-all-ones lanes less the NaN
/// ones.
///
/// # Safety
/// The CPU must support POPCNT and every feature of the AVX-512 level
/// ([`simd::avx512_present`]); with `stream`, `dst` must start on a 64-byte boundary.
#[target_feature(enable = "avx2,fma,f16c,popcnt,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn cast<const BF16: bool, const UNQUIET: bool>(
    k: &Widen,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
    fetch: bool,
) -> (u64, u64) {
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx512::store::store64;
    use std::arch::x86_64::*;
    /// Full steps between two sums of the 16-bit lane counters (each lane adds at most one
    /// per step, and the sum reads them as signed).
    const FLUSH: usize = 1 << 14;
    let (e, m) = if BF16 {
        (0x7F80u16, 0x007Fu16)
    } else {
        (0x7C00, 0x03FF)
    };
    let exp = _mm512_set1_epi16(e as i16);
    let man = _mm512_set1_epi16(m as i16);
    let quiet16 = _mm512_set1_epi16(0x0200);
    let quiet = _mm512_set1_epi32(k.nan_quiet() as i32);
    let quiet_bit = _mm512_set1_epi32(0x0040_0000);

    // The 32 f32 codes of the 32 codes `h` (two halves), and the masks of the NaN lanes and
    // of the lanes whose exponent is all ones (NaN or ±Inf).
    let step = |h: __m512i| -> (__m512i, __m512i, __mmask32, __mmask32) {
        let special = _mm512_cmpeq_epi16_mask(_mm512_and_si512(h, exp), exp);
        let nan = _mm512_mask_test_epi16_mask(special, h, man);
        let lo = _mm512_castsi512_si256(h);
        let hi = _mm512_extracti64x4_epi64::<1>(h);
        let (w0, w1) = if BF16 {
            let w0 = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(lo));
            let w1 = _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(hi));
            (
                _mm512_mask_or_epi32(w0, nan as __mmask16, w0, quiet),
                _mm512_mask_or_epi32(w1, (nan >> 16) as __mmask16, w1, quiet),
            )
        } else if UNQUIET {
            let w0 = _mm512_castps_si512(_mm512_cvtph_ps(lo));
            let w1 = _mm512_castps_si512(_mm512_cvtph_ps(hi));
            // signalling NaNs the cast keeps signalling: their quiet bit cleared again
            let snan = _mm512_mask_testn_epi16_mask(nan, h, quiet16);
            (
                _mm512_mask_andnot_epi32(w0, snan as __mmask16, quiet_bit, w0),
                _mm512_mask_andnot_epi32(w1, (snan >> 16) as __mmask16, quiet_bit, w1),
            )
        } else {
            (
                _mm512_castps_si512(_mm512_cvtph_ps(lo)),
                _mm512_castps_si512(_mm512_cvtph_ps(hi)),
            )
        };
        (w0, w1, nan, special)
    };
    // One masked step: the first `x.len() / 2` (< 32) codes of `x` into `y`, their NaN and
    // ±Inf lanes counted.
    let partial = |x: &[u8], y: &mut [u8]| -> (u64, u64) {
        let rest = x.len() / 2;
        if rest == 0 {
            return (0, 0);
        }
        let load: __mmask32 = (1u32 << rest) - 1;
        // SAFETY: the mask selects the `rest` 16-bit lanes of `x` (`rest` < 32), and
        // masked-off lanes are not read (nor can they fault).
        let h = unsafe { _mm512_maskz_loadu_epi16(load, x.as_ptr().cast()) };
        // masked-off lanes are zero: neither NaN nor ±Inf
        let (w0, w1, nan, special) = step(h);
        let p = y.as_mut_ptr();
        // SAFETY: `y` holds `4 * rest` bytes; the masks select the first `rest` 32-bit lanes
        // of the two 64-byte stores (the second only past 16), and masked-off lanes are not
        // written.
        unsafe {
            _mm512_mask_storeu_epi32(p.cast(), load as __mmask16, w0);
            if rest > 16 {
                _mm512_mask_storeu_epi32(p.add(64).cast(), (load >> 16) as __mmask16, w1);
            }
        }
        (
            u64::from(nan.count_ones()),
            u64::from((special & !nan).count_ones()),
        )
    };

    let n = src.len() / 2;
    let off = dst.as_ptr() as usize % 64;
    let head = if stream || !off.is_multiple_of(4) {
        0
    } else {
        ((64 - off) % 64 / 4).min(n)
    };
    let (src_head, src) = src.split_at(2 * head);
    let (dst_head, dst) = dst.split_at_mut(4 * head);
    let (mut nan, mut inf) = partial(src_head, dst_head);
    let mut xs = src.chunks_exact(64);
    let mut ys = dst.chunks_exact_mut(128);
    let minus_one = std::hint::black_box(_mm512_set1_epi16(-1));
    let ones = _mm512_set1_epi16(1);
    // the lane counters summed: a pair of 16-bit lanes at a time, then every lane
    let sum = |c: __m512i| _mm512_reduce_add_epi32(_mm512_madd_epi16(c, ones)) as u32 as u64;
    loop {
        let (mut nans, mut specials) = (_mm512_setzero_si512(), _mm512_setzero_si512());
        let mut steps = 0;
        for (x, y) in (&mut xs).zip(&mut ys).take(FLUSH) {
            if stream {
                prefetch(x.as_ptr());
            } else if fetch {
                fetch_line(x.as_ptr().wrapping_add(SRC_AHEAD));
                fetch_line(y.as_ptr().wrapping_add(DST_AHEAD));
                fetch_line(y.as_ptr().wrapping_add(DST_AHEAD + 64));
            }
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let h = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let (w0, w1, a, b) = step(h);
            specials = _mm512_mask_sub_epi16(specials, b, specials, minus_one);
            nans = _mm512_mask_sub_epi16(nans, a, nans, minus_one);
            let p = y.as_mut_ptr();
            // SAFETY: `y` is 128 bytes, two 64-byte stores; streamed, `dst` starts on a
            // 64-byte boundary (the caller's guarantee) and every step writes 128 bytes, so
            // `p` and `p + 64` are on 64-byte boundaries.
            unsafe {
                store64(p, w0, stream);
                store64(p.add(64), w1, stream);
            }
            steps += 1;
        }
        let a = sum(nans);
        nan += a;
        inf += sum(specials) - a;
        if steps < FLUSH {
            break;
        }
    }
    let (a, b) = partial(xs.remainder(), ys.into_remainder());
    (nan + a, inf + b)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both formats, with and without the quiet bit for NaNs: every code equals the
    /// element rule of [`Widen`], streamed or not, at every length up to 3 steps.
    #[test]
    fn every_code_equals_the_element_rule() {
        if !simd::level_here(simd::SimdLevel::Avx512) {
            return;
        }
        let codes: Vec<u8> = (0..=u16::MAX).flat_map(|c| c.to_le_bytes()).collect();
        for bf16 in [false, true] {
            for nan_quiet in [0, 0x0040_0000] {
                let k = Widen::for_test(bf16, nan_quiet);
                let want: Vec<u8> = (0..=u16::MAX)
                    .flat_map(|c| k.convert_code(c).to_le_bytes())
                    .collect();
                let mut out = vec![0u8; 4 * 65536 + 64];
                let at = (64 - out.as_ptr() as usize % 64) % 64;
                for stream in [false, true] {
                    out.fill(0x5A);
                    let got = run(&k, &codes, &mut out[at..], 65536, stream);
                    assert!(got.is_some());
                    assert!(out[at..at + 4 * 65536] == want[..], "{bf16} {nan_quiet:#x}");
                }
                for n in 0..=96 {
                    for skip in [0usize, 1, 31] {
                        out.fill(0x5A);
                        let src = &codes[2 * (0x7C00 + skip)..];
                        run(&k, src, &mut out, n, false);
                        let w = &want[4 * (0x7C00 + skip)..];
                        assert!(out[..4 * n] == w[..4 * n], "n = {n}");
                        assert!(out[4 * n..].iter().all(|&b| b == 0x5A), "n = {n}");
                    }
                }
            }
        }
    }
}
