//! f32 → the one-byte destinations of the key table ([`KeyTable`]: fnuz fp8, HiF8, e8m0
//! where its formula kernel is not used, fp6 / fp4 one per byte, small saturating integers)
//! at the AVX2 level: the table itself, looked up 8 keys at a time by `vpgatherdd` (the key:
//! the f32's top 16 bits and whether any low bit is set), 32 elements per step; the codes
//! packed into bytes, the statuses into 16-bit values counted per block of 512 by
//! [`flags::count`]. The results are the table's entries, so the loop is exact by
//! construction; the last `n % 32` elements take the per-element lookup.

use std::arch::x86_64::{
    __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi32, _mm256_i32gather_epi32,
    _mm256_loadu_si256, _mm256_or_si256, _mm256_packus_epi16, _mm256_packus_epi32,
    _mm256_permutevar8x32_epi32, _mm256_set1_epi32, _mm256_setr_epi32, _mm256_setzero_si256,
    _mm256_srli_epi32, _mm256_storeu_si256,
};

use crate::bulk::kernels::drive;
use crate::bulk::kernels::flags::{self, BLOCK};
use crate::bulk::kernels::table::f32_key::{KeyLoop, KeyTable};
use crate::status::StatusCounts;

/// Elements per step.
const STEP: usize = 32;

/// The gathered lookup of a [`KeyTable`] at the AVX2 level.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeyGather;

impl KeyLoop for KeyGather {
    fn name(&self) -> &'static str {
        "f32-key-avx2"
    }

    fn run(
        &self,
        table: &KeyTable,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        let _ = stream;
        let entries = table.entries();
        if !crate::bulk::kernels::simd::avx2_present()
            || src.len() < 4 * n
            || dst.len() < n
            || entries.len() != 1 << 17
        {
            return None;
        }
        let done = n / STEP * STEP;
        // SAFETY: the CPU has AVX2 (checked just above); `src` and `dst` hold `n` codes and
        // `entries` every key.
        let mut counts = unsafe { gather(entries, &src[..4 * done], &mut dst[..done]) };
        if n > done {
            let rest = drive::f32_to_codes::<u8>(
                &src[4 * done..4 * n],
                &mut dst[done..n],
                n - done,
                table,
            );
            counts.add(&rest);
        }
        Some(counts)
    }
}

/// The entries of the keys of 8 f32 codes.
///
/// # Safety
/// The CPU must support AVX2; `entries` must hold 2^17 entries.
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn lookup(entries: &[u32], x: __m256i) -> __m256i {
    let top = _mm256_and_si256(_mm256_srli_epi32::<15>(x), _mm256_set1_epi32(0x1_FFFE));
    let low_zero = _mm256_cmpeq_epi32(
        _mm256_and_si256(x, _mm256_set1_epi32(0xFFFF)),
        _mm256_setzero_si256(),
    );
    let sticky = _mm256_andnot_si256(low_zero, _mm256_set1_epi32(1));
    let key = _mm256_or_si256(top, sticky);
    // SAFETY: every key is below 2^17, the length of `entries`.
    unsafe { _mm256_i32gather_epi32::<4>(entries.as_ptr().cast(), key) }
}

/// One step: the 32 f32 codes `x` (128 bytes) looked up, their codes stored into `y` (32
/// bytes, unaligned) and their raw statuses into `s` (32 entries, in any order: they are only
/// counted).
///
/// # Safety
/// The CPU must support AVX2; `entries` must hold 2^17 entries; `x` must hold 128 bytes, `y`
/// 32 and `s` 32.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn step(entries: &[u32], x: &[u8], y: &mut [u8], s: &mut [u16]) {
    crate::bulk::kernels::stream::prefetch(x.as_ptr());
    crate::bulk::kernels::stream::prefetch(x.as_ptr().wrapping_add(64));
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let low = _mm256_set1_epi32(0xFF);
    let mut e = [_mm256_setzero_si256(); 4];
    for (k, v) in e.iter_mut().enumerate() {
        // SAFETY: `x` holds 32 codes, 128 bytes; this reads bytes 32k..32k+32.
        let xv = unsafe { _mm256_loadu_si256(x.as_ptr().add(32 * k).cast()) };
        // SAFETY: the caller's guarantee on `entries`.
        *v = unsafe { lookup(entries, xv) };
    }
    let code = |v: __m256i| _mm256_and_si256(v, low);
    let a = _mm256_packus_epi32(code(e[0]), code(e[1]));
    let b = _mm256_packus_epi32(code(e[2]), code(e[3]));
    let bytes = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(a, b), order);
    // SAFETY: `y` is 32 bytes, the size of the unaligned store.
    unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), bytes) };
    let s0 = _mm256_packus_epi32(_mm256_srli_epi32::<16>(e[0]), _mm256_srli_epi32::<16>(e[1]));
    let s1 = _mm256_packus_epi32(_mm256_srli_epi32::<16>(e[2]), _mm256_srli_epi32::<16>(e[3]));
    // SAFETY: `s` is 32 u16, 64 bytes: two unaligned 32-byte stores.
    unsafe {
        _mm256_storeu_si256(s.as_mut_ptr().cast(), s0);
        _mm256_storeu_si256(s.as_mut_ptr().add(16).cast(), s1);
    }
}

/// The steps of 32 elements of `src` into `dst` (`dst.len()` a multiple of 32, `src` 4 bytes
/// per element), statuses counted per block.
///
/// # Safety
/// The CPU must support AVX2; `entries` must hold 2^17 entries.
#[target_feature(enable = "avx2")]
unsafe fn gather(entries: &[u32], src: &[u8], dst: &mut [u8]) -> StatusCounts {
    let mut counts = StatusCounts::default();
    let mut st = [0u16; BLOCK];
    for (xb, yb) in src.chunks(4 * BLOCK).zip(dst.chunks_mut(BLOCK)) {
        let m = yb.len();
        for ((x, y), s) in xb
            .chunks_exact(4 * STEP)
            .zip(yb.chunks_exact_mut(STEP))
            .zip(st.chunks_exact_mut(STEP))
        {
            // SAFETY: the caller's guarantees; `x` is 128 bytes, `y` 32 and `s` 32 entries.
            unsafe { step(entries, x, y, s) };
        }
        flags::count(&st[..m], &mut counts);
    }
    counts
}
