//! The hardware conversions alone at the AVX-512 level ([`Bare`]; a ceiling for `npusim
//! bench`, not a cast): the fewest instructions per 64 bytes of output, no status, no policy.

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

/// Prefetches the `lines` 64-byte source lines from `p` on (only when the output is
/// streamed, as the casts do: in the cache the prefetches cost more than they give).
#[inline(always)]
fn prefetch_lines(p: *const u8, lines: usize, stream: bool) {
    if stream {
        for l in 0..lines {
            prefetch(p.wrapping_add(64 * l));
        }
    }
}

/// Converts the whole steps of `src` into `dst` by `bare`'s instructions (f32 → bf16 by
/// `vcvtne2ps2bf16` with `bf16`, else by the rounding add) and returns the elements done.
/// The steps: 32 elements (f32 → f16 / bf16, f16 / bf16 → f32) or 64 (f32 → i8).
///
/// # Safety
/// The CPU must support AVX2, F16C and AVX-512 F, BW, VL and DQ, and AVX-512 BF16 with `bf16`;
/// with `stream`, `dst` must start on a 64-byte boundary.
#[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
pub(crate) unsafe fn convert(
    bare: Bare,
    bf16: bool,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
) -> usize {
    // SAFETY: the caller's guarantees.
    unsafe {
        match bare {
            Bare::F32F16 => f32_f16(src, dst, stream),
            Bare::F32Bf16 if bf16 => f32_bf16_ne(src, dst, stream),
            Bare::F32Bf16 => f32_bf16_add(src, dst, stream),
            Bare::F32I8 => f32_i8(src, dst, stream),
            Bare::F16F32 => f16_f32(src, dst, stream),
            Bare::Bf16F32 => bf16_f32(src, dst, stream),
        }
    }
}

/// f32 → f16: two `vcvtps2ph` zmm (to nearest even) per 32 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f32_f16(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    const R: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    let k = steps(src, dst, 4, 2, 32);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    for i in 0..k {
        // SAFETY: step `i` reads bytes 128 i .. 128 (i + 1) of `src` and writes bytes
        // 64 i .. 64 (i + 1) of `dst`, within both (`steps`); the stores are 32-byte aligned
        // with `stream` (`dst` starts on a 64-byte boundary).
        unsafe {
            let p = x.add(128 * i);
            prefetch_lines(p, 2, stream);
            let a = _mm512_cvtps_ph::<R>(_mm512_loadu_ps(p.cast()));
            let b = _mm512_cvtps_ph::<R>(_mm512_loadu_ps(p.add(64).cast()));
            store32(y.add(64 * i), a, stream);
            store32(y.add(64 * i + 32), b, stream);
        }
    }
    32 * k
}

/// f32 → bf16: one `vcvtne2ps2bf16` per 32 elements (f32 subnormals read as zero, NaN quieted).
///
/// # Safety
/// As [`convert`], and the CPU must support AVX-512 BF16.
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512bf16")]
unsafe fn f32_bf16_ne(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    let k = steps(src, dst, 4, 2, 32);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    for i in 0..k {
        // SAFETY: as in `f32_f16`; the store is 64-byte aligned with `stream`.
        unsafe {
            let p = x.add(128 * i);
            prefetch_lines(p, 2, stream);
            let lo = _mm512_loadu_ps(p.cast());
            let hi = _mm512_loadu_ps(p.add(64).cast());
            let v = std::mem::transmute::<__m512bh, __m512i>(_mm512_cvtne2ps_pbh(hi, lo));
            crate::bulk::kernels::x86_avx512::store::store64(y.add(64 * i), v, stream);
        }
    }
    32 * k
}

/// The f32 codes `x` rounded to nearest even at bit 16: `x + 0x7FFF + (bit 16 of x)`.
#[target_feature(enable = "avx512f")]
#[inline]
fn round_at_16(x: __m512i) -> __m512i {
    let odd = _mm512_and_si512(_mm512_srli_epi32::<16>(x), _mm512_set1_epi32(1));
    _mm512_add_epi32(x, _mm512_add_epi32(odd, _mm512_set1_epi32(0x7FFF)))
}

/// f32 → bf16: the rounding add on 16 lanes, the top halves of two vectors gathered by one
/// `vpermt2w` per 32 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f32_bf16_add(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    let k = steps(src, dst, 4, 2, 32);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    // the odd words (top halves) of `lo`, then those of `hi`
    let idx: [i16; 32] = std::array::from_fn(|j| (2 * j + 1) as i16);
    // SAFETY: `idx` is 64 readable bytes (an unaligned load).
    let idx = unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) };
    for i in 0..k {
        // SAFETY: as in `f32_f16`; the store is 64-byte aligned with `stream`.
        unsafe {
            let p = x.add(128 * i);
            prefetch_lines(p, 2, stream);
            let lo = round_at_16(_mm512_loadu_si512(p.cast()));
            let hi = round_at_16(_mm512_loadu_si512(p.add(64).cast()));
            let v = _mm512_permutex2var_epi16(lo, idx, hi);
            crate::bulk::kernels::x86_avx512::store::store64(y.add(64 * i), v, stream);
        }
    }
    32 * k
}

/// f32 → i8: four `vcvtps2dq` (to nearest even), two saturating packs and a dword permute
/// per 64 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f32_i8(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    const R: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    let k = steps(src, dst, 4, 1, 64);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    // the packs leave 128-bit lane l as the 4-byte groups l of a, b, c, d: put a's first
    let idx = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    for i in 0..k {
        // SAFETY: step `i` reads bytes 256 i .. 256 (i + 1) of `src` and writes bytes
        // 64 i .. 64 (i + 1) of `dst`, within both (`steps`); the store is 64-byte aligned
        // with `stream`.
        unsafe {
            let p = x.add(256 * i);
            prefetch_lines(p, 4, stream);
            let c = |o: usize| _mm512_cvt_roundps_epi32::<R>(_mm512_loadu_ps(p.add(o).cast()));
            let ab = _mm512_packs_epi32(c(0), c(64));
            let cd = _mm512_packs_epi32(c(128), c(192));
            let v = _mm512_permutexvar_epi32(idx, _mm512_packs_epi16(ab, cd));
            crate::bulk::kernels::x86_avx512::store::store64(y.add(64 * i), v, stream);
        }
    }
    64 * k
}

/// f16 → f32: two `vcvtph2ps` zmm per 32 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn f16_f32(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    let k = steps(src, dst, 2, 4, 32);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    for i in 0..k {
        // SAFETY: step `i` reads bytes 64 i .. 64 (i + 1) of `src` and writes bytes
        // 128 i .. 128 (i + 1) of `dst`, within both (`steps`); the stores are 64-byte
        // aligned with `stream`.
        unsafe {
            let p = x.add(64 * i);
            prefetch_lines(p, 1, stream);
            let a = _mm512_castps_si512(_mm512_cvtph_ps(_mm256_loadu_si256(p.cast())));
            let b = _mm512_castps_si512(_mm512_cvtph_ps(_mm256_loadu_si256(p.add(32).cast())));
            crate::bulk::kernels::x86_avx512::store::store64(y.add(128 * i), a, stream);
            crate::bulk::kernels::x86_avx512::store::store64(y.add(128 * i + 64), b, stream);
        }
    }
    32 * k
}

/// bf16 → f32: `vpmovzxwd` and a shift, twice per 32 elements.
///
/// # Safety
/// As [`convert`].
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
unsafe fn bf16_f32(src: &[u8], dst: &mut [u8], stream: bool) -> usize {
    let k = steps(src, dst, 2, 4, 32);
    let (x, y) = (src.as_ptr(), dst.as_mut_ptr());
    for i in 0..k {
        // SAFETY: as in `f16_f32`.
        unsafe {
            let p = x.add(64 * i);
            prefetch_lines(p, 1, stream);
            let w = |o: usize| {
                _mm512_slli_epi32::<16>(_mm512_cvtepu16_epi32(_mm256_loadu_si256(p.add(o).cast())))
            };
            crate::bulk::kernels::x86_avx512::store::store64(y.add(128 * i), w(0), stream);
            crate::bulk::kernels::x86_avx512::store::store64(y.add(128 * i + 64), w(32), stream);
        }
    }
    32 * k
}
