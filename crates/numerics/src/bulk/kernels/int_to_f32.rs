//! i8 / u8 / i16 / u16 → f32: every such integer is an f32 exactly, so the cast is the
//! integer's value converted, with one status for all elements. The kernel is built from the
//! lookup table of the same cast and used only if it agrees with it on every source code (so a
//! policy that did anything else to these values would keep the table). The portable loop is
//! plain Rust that the compiler vectorises; at the AVX-512 level 16 lanes are widened
//! (`vpmovsx`/`vpmovzx`) and converted (`vcvtdq2ps`) per step, stored non-temporally when the
//! slice is streamed ([`stream`](super::stream)).

use super::simd::SimdLevel;
use super::table::Table;
use crate::format::Format;
use crate::status::StatusCounts;

/// An exact integer → f32 cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntToF32 {
    /// Bytes per source integer (1 or 2).
    bytes: usize,
    /// Whether the source is signed.
    signed: bool,
    /// The status every element gets (raw bits; none for an exact cast).
    status: u16,
}

impl IntToF32 {
    /// The kernel for `src` → `dst` whose results are `table`'s, if `src` is an 8- or 16-bit
    /// integer, `dst` is f32 and the table gives every code its value with one status.
    pub(crate) fn new(src: Format, dst: Format, table: &Table) -> Option<IntToF32> {
        if dst != Format::F32 || !matches!(src, Format::I8 | Format::U8 | Format::I16 | Format::U16)
        {
            return None;
        }
        let k = IntToF32 {
            bytes: src.unpacked_bytes(),
            signed: src.is_signed(),
            status: table.entry(0).1,
        };
        let codes = 1u32 << (8 * k.bytes);
        let agrees = (0..codes).all(|c| {
            let c = c as u16;
            table.entry(c) == (u64::from(k.value(c).to_bits()), k.status)
        });
        agrees.then_some(k)
    }

    /// The f32 value of the source code `c`.
    #[inline(always)]
    fn value(&self, c: u16) -> f32 {
        match (self.bytes, self.signed) {
            (1, true) => f32::from(c as u8 as i8),
            (1, false) => f32::from(c as u8),
            (_, true) => f32::from(c as i16),
            _ => f32::from(c),
        }
    }

    /// Short name of the code that casts the bulk of a slice at `level`.
    pub(crate) fn name_at(&self, level: SimdLevel) -> &'static str {
        if level.runs_avx512() {
            "int-f32-avx512"
        } else {
            "int-f32"
        }
    }

    /// The counts of `n` elements.
    fn counts(&self, n: usize) -> StatusCounts {
        let mut counts = StatusCounts::default();
        super::flags::record_n(self.status, n as u64, &mut counts);
        counts
    }

    /// The portable loop over `n` elements.
    #[inline(always)]
    fn run_portable(&self, src: &[u8], dst: &mut [u8], n: usize) {
        let out = dst[..4 * n].chunks_exact_mut(4);
        match (self.bytes, self.signed) {
            (1, true) => {
                for (&b, y) in src[..n].iter().zip(out) {
                    y.copy_from_slice(&f32::from(b as i8).to_le_bytes());
                }
            }
            (1, false) => {
                for (&b, y) in src[..n].iter().zip(out) {
                    y.copy_from_slice(&f32::from(b).to_le_bytes());
                }
            }
            (_, true) => {
                for (x, y) in src[..2 * n].chunks_exact(2).zip(out) {
                    let v = i16::from_le_bytes([x[0], x[1]]);
                    y.copy_from_slice(&f32::from(v).to_le_bytes());
                }
            }
            _ => {
                for (x, y) in src[..2 * n].chunks_exact(2).zip(out) {
                    let v = u16::from_le_bytes([x[0], x[1]]);
                    y.copy_from_slice(&f32::from(v).to_le_bytes());
                }
            }
        }
    }
}

impl super::SliceKernel for IntToF32 {
    #[inline(always)]
    fn cast(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: super::super::Storage,
        dst: &mut [u8],
        d: super::super::Storage,
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        let _ = (s, d);
        #[cfg(target_arch = "x86_64")]
        if level.runs_avx512() {
            super::plan::ran("int-f32-avx512");
            let done = n - n % 16;
            // SAFETY: the CPU has AVX-512 F and BW (checked just above); `src` and `dst` hold
            // the bytes of `n` elements (checked by the caller); a streamed `dst` starts on a
            // 64-byte boundary (`stream::split`).
            unsafe {
                match (self.bytes, self.signed) {
                    (1, true) => avx512::run::<1, true>(src, dst, done, stream),
                    (1, false) => avx512::run::<1, false>(src, dst, done, stream),
                    (_, true) => avx512::run::<2, true>(src, dst, done, stream),
                    _ => avx512::run::<2, false>(src, dst, done, stream),
                }
            }
            self.run_portable(&src[self.bytes * done..], &mut dst[4 * done..], n - done);
            return self.counts(n);
        }
        let _ = (level, stream);
        super::plan::ran("int-f32");
        self.run_portable(src, dst, n);
        self.counts(n)
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::super::stream::prefetch;
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
    pub(super) unsafe fn run<const B: usize, const S: bool>(
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) {
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
}
