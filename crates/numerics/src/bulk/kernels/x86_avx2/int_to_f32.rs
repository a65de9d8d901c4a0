//! i8 / u8 / i16 / u16 → f32 ([`IntToF32`](crate::bulk::kernels::portable::int_to_f32::IntToF32))
//! at the AVX2 level: 32 integers per step, widened 8 at a time (`vpmovsx`/`vpmovzx`) and
//! converted (`vcvtdq2ps`), stored non-temporally when the slice is streamed.

use crate::bulk::kernels::simd;
use crate::bulk::kernels::stream::prefetch;
use std::arch::x86_64::{
    __m128i, __m256i, _mm_loadl_epi64, _mm_loadu_si128, _mm256_cvtepi8_epi32,
    _mm256_cvtepi16_epi32, _mm256_cvtepi32_ps, _mm256_cvtepu8_epi32, _mm256_cvtepu16_epi32,
    _mm256_storeu_ps, _mm256_stream_ps,
};

/// Elements per step.
pub(crate) const STEP: usize = 32;

/// Converts the first `n` (a multiple of [`STEP`]) integers of `bytes` bytes each (1 or 2;
/// `signed` or not) of `src` into f32 codes in `dst` at the AVX2 level, stored
/// non-temporally with `stream` where `dst` starts on a 32-byte boundary; false (nothing
/// written) when the machine lacks the level or a buffer is short.
pub(crate) fn cast(
    bytes: usize,
    signed: bool,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> bool {
    if !simd::avx2_present()
        || !n.is_multiple_of(STEP)
        || src.len() < bytes * n
        || dst.len() < 4 * n
    {
        return false;
    }
    let stream = stream && (dst.as_ptr() as usize).is_multiple_of(32);
    // SAFETY: the CPU has AVX2 (checked just above); `src` and `dst` hold the bytes of `n`
    // elements and `n` is a multiple of the step (checked just above); a streamed `dst`
    // starts on a 32-byte boundary (checked just above).
    unsafe {
        match (bytes, signed, stream) {
            (1, true, true) => run::<1, true, true>(src, dst, n),
            (1, true, false) => run::<1, true, false>(src, dst, n),
            (1, false, true) => run::<1, false, true>(src, dst, n),
            (1, false, false) => run::<1, false, false>(src, dst, n),
            (_, true, true) => run::<2, true, true>(src, dst, n),
            (_, true, false) => run::<2, true, false>(src, dst, n),
            (_, false, true) => run::<2, false, true>(src, dst, n),
            (_, false, false) => run::<2, false, false>(src, dst, n),
        }
    }
    true
}

/// Converts the first `n` (a multiple of [`STEP`]) integers of `B` bytes each (`S`: signed)
/// of `src` into f32 codes in `dst`, [`STEP`] per step; with `STREAM`, the source prefetched
/// and the codes stored non-temporally (a slice that is not streamed is small: its source is
/// in the cache).
///
/// # Safety
/// The CPU must support AVX2; `src` must hold `n * B` bytes and `dst` `4 * n`; with
/// `STREAM`, `dst` must start on a 32-byte boundary.
#[target_feature(enable = "avx2")]
unsafe fn run<const B: usize, const S: bool, const STREAM: bool>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
) {
    for (x, y) in src[..B * n]
        .chunks_exact(STEP * B)
        .zip(dst[..4 * n].chunks_exact_mut(4 * STEP))
    {
        if STREAM {
            prefetch(x.as_ptr());
        }
        for g in 0..STEP / 8 {
            // SAFETY: bytes 8B g..8B (g + 1) of `x` (STEP * B bytes), the size of the
            // unaligned load.
            let wide: __m256i = unsafe {
                let p = x.as_ptr().add(8 * B * g);
                if B == 1 {
                    let v = _mm_loadl_epi64(p.cast::<__m128i>());
                    if S {
                        _mm256_cvtepi8_epi32(v)
                    } else {
                        _mm256_cvtepu8_epi32(v)
                    }
                } else {
                    let v = _mm_loadu_si128(p.cast::<__m128i>());
                    if S {
                        _mm256_cvtepi16_epi32(v)
                    } else {
                        _mm256_cvtepu16_epi32(v)
                    }
                }
            };
            let f = _mm256_cvtepi32_ps(wide);
            // SAFETY: bytes 32g..32g + 32 of `y` (4 * STEP bytes), on a 32-byte boundary when
            // streamed (every step moves 4 * STEP bytes on from the aligned start).
            unsafe {
                let at = y.as_mut_ptr().add(32 * g).cast::<f32>();
                if STREAM {
                    _mm256_stream_ps(at, f);
                } else {
                    _mm256_storeu_ps(at, f);
                }
            }
        }
    }
}
