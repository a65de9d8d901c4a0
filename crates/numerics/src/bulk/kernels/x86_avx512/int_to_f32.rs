//! i8 / u8 / i16 / u16 → f32 ([`IntToF32`](crate::bulk::kernels::portable::int_to_f32::IntToF32))
//! at the AVX-512 level: 16 lanes widened (`vpmovsx`/`vpmovzx`) and converted (`vcvtdq2ps`)
//! per step, stored non-temporally when the slice is streamed.

use crate::bulk::kernels::simd;

/// Converts the first `n` (a multiple of 16) integers of `bytes` bytes each (1 or 2; `signed`
/// or not) of `src` into f32 codes in `dst` at the AVX-512 level, stored non-temporally with
/// `stream` where `dst` starts on a 64-byte boundary; false (nothing written) when the
/// machine lacks the level.
pub(crate) fn cast(
    bytes: usize,
    signed: bool,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> bool {
    if !simd::avx512_present() {
        return false;
    }
    let stream = stream && (dst.as_ptr() as usize).is_multiple_of(64);
    // SAFETY: the CPU has AVX-512 F and BW (checked just above); `src` and `dst` hold the
    // bytes of `n` elements (checked by the caller's caller); a streamed `dst` starts on a
    // 64-byte boundary (checked just above).
    unsafe {
        match (bytes, signed) {
            (1, true) => run::<1, true>(src, dst, n, stream),
            (1, false) => run::<1, false>(src, dst, n, stream),
            (_, true) => run::<2, true>(src, dst, n, stream),
            _ => run::<2, false>(src, dst, n, stream),
        }
    }
    true
}

use crate::bulk::kernels::stream::prefetch;
use std::arch::x86_64::{
    __m512i, _mm_loadu_si128, _mm256_loadu_si256, _mm512_cvtepi8_epi32, _mm512_cvtepi16_epi32,
    _mm512_cvtepi32_ps, _mm512_cvtepu8_epi32, _mm512_cvtepu16_epi32, _mm512_storeu_ps,
    _mm512_stream_ps,
};

/// Converts the first `n` (a multiple of 16) integers of `B` bytes each (`S`: signed) of
/// `src` into f32 codes in `dst`, 16 per step; with `stream`, stored non-temporally.
///
/// # Safety
/// The CPU must support AVX-512 F and BW; `src` must hold `n * B` bytes and `dst`
/// `4 * n`; with `stream`, `dst` must start on a 64-byte boundary.
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn run<const B: usize, const S: bool>(src: &[u8], dst: &mut [u8], n: usize, stream: bool) {
    for (x, y) in src[..B * n]
        .chunks_exact(16 * B)
        .zip(dst[..4 * n].chunks_exact_mut(64))
    {
        prefetch(x.as_ptr());
        // SAFETY: `x` is 16 * B bytes, the size of the unaligned load.
        let wide: __m512i = unsafe {
            if B == 1 {
                let v = _mm_loadu_si128(x.as_ptr().cast());
                if S {
                    _mm512_cvtepi8_epi32(v)
                } else {
                    _mm512_cvtepu8_epi32(v)
                }
            } else {
                let v = _mm256_loadu_si256(x.as_ptr().cast());
                if S {
                    _mm512_cvtepi16_epi32(v)
                } else {
                    _mm512_cvtepu16_epi32(v)
                }
            }
        };
        let f = _mm512_cvtepi32_ps(wide);
        // SAFETY: `y` is 64 bytes, on a 64-byte boundary when streamed (every step moves
        // 64 bytes on from the aligned start).
        unsafe {
            if stream {
                _mm512_stream_ps(y.as_mut_ptr().cast(), f);
            } else {
                _mm512_storeu_ps(y.as_mut_ptr().cast(), f);
            }
        }
    }
}
