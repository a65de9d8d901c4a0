//! The hardware conversions alone at the AVX2 level ([`Bare`]; a ceiling for `npusim bench`,
//! not a cast): the fewest instructions per 32 bytes of output, no status, no policy.

use std::arch::x86_64::*;

use crate::bulk::kernels::bare::{Bare, steps};
use crate::bulk::kernels::stream::prefetch;

/// Stores the 32 bytes `v` at `p`: non-temporally with `stream`, else unaligned.
///
/// # Safety
/// The CPU must support AVX; `p` must be valid for 32 bytes of writes, and 32-byte aligned
/// with `stream`.
#[target_feature(enable = "avx")]
#[inline]
unsafe fn store32(p: *mut u8, v: __m256i, stream: bool) {
    // SAFETY: the caller's guarantees.
    unsafe {
        if stream {
            _mm256_stream_si256(p.cast(), v)
        } else {
            _mm256_storeu_si256(p.cast(), v)
        }
    }
}

/// Prefetches the source line at `p` when the output is streamed (as the casts do).
#[inline(always)]
fn prefetch_if(p: *const u8, stream: bool) {
    if stream {
        prefetch(p);
    }
}

/// Converts the whole steps of `src` into `dst` by `bare`'s instructions and returns the
/// elements done. The steps: 16 elements (f32 → f16 / bf16, f16 / bf16 → f32) or 32
/// (f32 → i8).
///
/// # Safety
/// The CPU must support AVX2 and F16C; with `stream`, `dst` must start on a 32-byte boundary.
#[target_feature(enable = "avx2,fma,f16c")]
pub(crate) unsafe fn convert(bare: Bare, src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    // SAFETY: the caller's guarantees.
    unsafe {
        match bare {
            Bare::F32F16 => f32_f16(src, dst, stream),
            Bare::F32Bf16 => f32_bf16(src, dst, stream),
            Bare::F32I8 => f32_i8(src, dst, stream),
            Bare::F16F32 => f16_f32(src, dst, stream),
            Bare::Bf16F32 => bf16_f32(src, dst, stream),
        }
    }
}

/// f32 → f16: two `vcvtps2ph` ymm (to nearest even) per 16 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn f32_f16(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    const R: i32 = _MM_FROUND_TO_NEAREST_INT;
    let k = steps(src, dst, 4, 2, 16);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    for i in 0..k {
        // SAFETY: step `i` reads bytes 64 i .. 64 (i + 1) of `src` and writes bytes
        // 32 i .. 32 (i + 1) of `dst`, within both (`steps`); the store is 32-byte aligned
        // with `stream`.
        unsafe {
            let p = x.add(64 * i);
            prefetch_if(p, stream);
            let a = _mm256_cvtps_ph::<R>(_mm256_loadu_ps(p.cast()));
            let b = _mm256_cvtps_ph::<R>(_mm256_loadu_ps(p.add(32).cast()));
            store32(y.add(32 * i), _mm256_set_m128i(b, a), stream);
        }
    }
    16 * k
}

/// f32 → bf16: the rounding add at bit 16 and a shift on 8 lanes, two vectors packed by
/// `vpackusdw` and put in order by `vpermq`, per 16 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn f32_bf16(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    let k = steps(src, dst, 4, 2, 16);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    let (one, half) = (_mm256_set1_epi32(1), _mm256_set1_epi32(0x7FFF));
    let round = |v: __m256i| {
        let odd = _mm256_and_si256(_mm256_srli_epi32::<16>(v), one);
        _mm256_srli_epi32::<16>(_mm256_add_epi32(v, _mm256_add_epi32(odd, half)))
    };
    for i in 0..k {
        // SAFETY: as in `f32_f16`.
        unsafe {
            let p = x.add(64 * i);
            prefetch_if(p, stream);
            let a = round(_mm256_loadu_si256(p.cast()));
            let b = round(_mm256_loadu_si256(p.add(32).cast()));
            let v = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(a, b));
            store32(y.add(32 * i), v, stream);
        }
    }
    16 * k
}

/// f32 → i8: four `vcvtps2dq` (to nearest even under the default MXCSR), three saturating
/// packs and a dword permute per 32 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn f32_i8(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    let k = steps(src, dst, 4, 1, 32);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    // the packs leave 128-bit lane l as the 4-byte groups l of a, b, c, d: put a's first
    let idx = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    for i in 0..k {
        // SAFETY: step `i` reads bytes 128 i .. 128 (i + 1) of `src` and writes bytes
        // 32 i .. 32 (i + 1) of `dst`, within both (`steps`); the store is 32-byte aligned
        // with `stream`.
        unsafe {
            let p = x.add(128 * i);
            prefetch_if(p, stream);
            prefetch_if(p.add(64), stream);
            let c = |o: usize| _mm256_cvtps_epi32(_mm256_loadu_ps(p.add(o).cast()));
            let ab = _mm256_packs_epi32(c(0), c(32));
            let cd = _mm256_packs_epi32(c(64), c(96));
            let v = _mm256_permutevar8x32_epi32(_mm256_packs_epi16(ab, cd), idx);
            store32(y.add(32 * i), v, stream);
        }
    }
    32 * k
}

/// f16 → f32: two `vcvtph2ps` ymm per 16 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn f16_f32(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    let k = steps(src, dst, 2, 4, 16);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    for i in 0..k {
        // SAFETY: step `i` reads bytes 32 i .. 32 (i + 1) of `src` and writes bytes
        // 64 i .. 64 (i + 1) of `dst`, within both (`steps`); the stores are 32-byte aligned
        // with `stream`.
        unsafe {
            let p = x.add(32 * i);
            prefetch_if(p, stream);
            let a = _mm256_castps_si256(_mm256_cvtph_ps(_mm_loadu_si128(p.cast())));
            let b = _mm256_castps_si256(_mm256_cvtph_ps(_mm_loadu_si128(p.add(16).cast())));
            store32(y.add(64 * i), a, stream);
            store32(y.add(64 * i + 32), b, stream);
        }
    }
    16 * k
}

/// bf16 → f32: `vpmovzxwd` and a shift, twice per 16 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,fma,f16c")]
unsafe fn bf16_f32(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    let k = steps(src, dst, 2, 4, 16);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    for i in 0..k {
        // SAFETY: as in `f16_f32`.
        unsafe {
            let p = x.add(32 * i);
            prefetch_if(p, stream);
            let w = |o: usize| {
                _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(_mm_loadu_si128(p.add(o).cast())))
            };
            store32(y.add(64 * i), w(0), stream);
            store32(y.add(64 * i + 32), w(16), stream);
        }
    }
    16 * k
}
