//! f16 → f32 and bf16 → f32: exact widening by bit arithmetic (f16 subnormals through an exact
//! f32 multiply), which the compiler vectorises. What NaN inputs become (quiet bit, status) is
//! read from the lookup table of the same cast, and the kernel is checked against that table
//! on all 65,536 codes when it is built: it is used only if it agrees on every one. At the AVX2
//! level, f16 → f32 whose NaNs come out quiet is the F16C instruction `vcvtph2ps`, and bf16 →
//! f32 an 8-lane shift; at the AVX-512 level [`super::widen_avx512`] casts every slice, 32
//! codes per step, streamed when asked (all tested at their level against the reference like
//! every kernel).

use super::flags::{self, BLOCK};
use super::table::Table;
use crate::format::Format;
use crate::status::{Status, StatusCounts};

/// Which 16-bit float is widened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Half {
    F16,
    BF16,
}

/// A widening 16-bit float → f32 cast under one policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Widen {
    half: Half,
    /// Bits OR-ed into a NaN's f32 code (the quiet bit, if the cast sets it).
    nan_quiet: u32,
    /// Raw status bits of NaN and of ±Inf inputs.
    nan_status: u16,
    inf_status: u16,
}

impl Widen {
    /// The kernel for `src` → f32 whose results are those of `table`, if it agrees with the
    /// table on every code.
    pub(crate) fn new(src: Format, dst: Format, table: &Table) -> Option<Widen> {
        let half = match (src, dst) {
            (Format::F16, Format::F32) => Half::F16,
            (Format::BF16, Format::F32) => Half::BF16,
            _ => return None,
        };
        let (nan, inf) = match half {
            Half::F16 => (0x7C01u16, 0x7C00u16),
            Half::BF16 => (0x7F81, 0x7F80),
        };
        let (nan_code, nan_status) = table.entry(nan);
        let k = Widen {
            half,
            nan_quiet: nan_code as u32 & 0x0040_0000,
            nan_status,
            inf_status: table.entry(inf).1,
        };
        let agrees = (0..=u16::MAX).all(|c| {
            let (code, status) = table.entry(c);
            k.convert(c) == (code as u32, status)
        });
        agrees.then_some(k)
    }

    /// Whether the source is bf16 (else f16).
    pub(crate) fn is_bf16(&self) -> bool {
        self.half == Half::BF16
    }

    /// Bits OR-ed into a NaN's f32 code: the quiet bit `0x0040_0000`, or none.
    pub(crate) fn nan_quiet(&self) -> u32 {
        self.nan_quiet
    }

    /// Raw status bits of a NaN input.
    pub(crate) fn nan_status(&self) -> u16 {
        self.nan_status
    }

    /// Raw status bits of a ±Inf input.
    pub(crate) fn inf_status(&self) -> u16 {
        self.inf_status
    }

    /// A kernel for unit tests: bf16 or f16, NaNs OR-ed with `nan_quiet`, statuses zero.
    #[cfg(test)]
    pub(crate) fn for_test(bf16: bool, nan_quiet: u32) -> Widen {
        Widen {
            half: if bf16 { Half::BF16 } else { Half::F16 },
            nan_quiet,
            nan_status: 0,
            inf_status: 0,
        }
    }

    /// The f32 code of the 16-bit code `h` (the element rule, for unit tests).
    #[cfg(test)]
    pub(crate) fn convert_code(&self, h: u16) -> u32 {
        self.convert(h).0
    }

    /// f32 code and raw status bits of the 16-bit code `h`.
    #[inline(always)]
    fn convert(&self, h: u16) -> (u32, u16) {
        let h = u32::from(h);
        let sign = (h & 0x8000) << 16;
        let (abs, special, mantissa) = match self.half {
            Half::F16 => {
                let e = (h >> 10) & 0x1F;
                let m = h & 0x3FF;
                let normal = ((e + 112) << 23) | (m << 13);
                // m × 2^-24, exact in f32
                let sub = (m as f32 * 5.960_464_5e-8).to_bits();
                let abs = if e == 0 { sub } else { normal };
                (abs, e == 31, m)
            }
            Half::BF16 => {
                let abs = (h & 0x7FFF) << 16;
                (abs, (h & 0x7F80) == 0x7F80, h & 0x7F)
            }
        };
        let nan = special & (mantissa != 0);
        let inf = special & (mantissa == 0);
        let abs = match self.half {
            Half::F16 if special => 0x7F80_0000 | (mantissa << 13),
            _ => abs,
        };
        let code = sign | abs | if nan { self.nan_quiet } else { 0 };
        let status = if nan {
            self.nan_status
        } else if inf {
            self.inf_status
        } else {
            Status::OK.bits()
        };
        (code, status)
    }

    /// Widens one block: little-endian codes `inp` into `out`, returning how many were NaN
    /// and how many ±Inf (the only codes with a status), summed in the same vectorised loop.
    #[inline(always)]
    fn widen(&self, inp: &[u16], out: &mut [u32]) -> (u64, u64) {
        let (exp, man) = match self.half {
            Half::F16 => (0x7C00u16, 0x03FFu16),
            Half::BF16 => (0x7F80, 0x007F),
        };
        let (mut nan, mut inf) = (0u32, 0u32);
        for (x, y) in inp.iter().zip(out.iter_mut()) {
            let h = u16::from_le(*x);
            *y = self.convert(h).0.to_le();
            let special = h & exp == exp;
            let zero_man = h & man == 0;
            nan += u32::from(special & !zero_man);
            inf += u32::from(special & zero_man);
        }
        (u64::from(nan), u64::from(inf))
    }

    /// Adds one block of `m` results, `nan` of them NaN and `inf` ±Inf, to `counts` (every
    /// finite code widens exactly).
    fn count(&self, m: usize, (nan, inf): (u64, u64), counts: &mut StatusCounts) {
        flags::record_n(self.nan_status, nan, counts);
        flags::record_n(self.inf_status, inf, counts);
        flags::record_n(0, m as u64 - nan - inf, counts);
    }

    /// Casts `n` little-endian 16-bit codes into f32 codes.
    #[inline(always)]
    pub(crate) fn run(&self, src: &[u8], dst: &mut [u8], n: usize) -> StatusCounts {
        let mut counts = StatusCounts::default();
        let mut inp = [0u16; BLOCK];
        let mut out = [0u32; BLOCK];
        let k = *self;
        for (s, d) in src[..2 * n]
            .chunks(2 * BLOCK)
            .zip(dst[..4 * n].chunks_mut(4 * BLOCK))
        {
            let m = s.len() / 2;
            // Aligned buffers are read and written in place; others through local arrays.
            match (
                bytemuck::try_cast_slice::<u8, u16>(s),
                bytemuck::try_cast_slice_mut::<u8, u32>(d),
            ) {
                (Ok(x), Ok(y)) => k.count(m, k.widen(x, y), &mut counts),
                _ => {
                    bytemuck::cast_slice_mut::<u16, u8>(&mut inp[..m]).copy_from_slice(s);
                    let specials = k.widen(&inp[..m], &mut out[..m]);
                    d.copy_from_slice(bytemuck::cast_slice(&out[..m]));
                    k.count(m, specials, &mut counts);
                }
            }
        }
        counts
    }
}

impl Widen {
    /// The AVX2 loop, when the machine has AVX2 and F16C and, for f16, the cast quiets NaNs
    /// as `vcvtph2ps` does; `None` otherwise.
    fn run_avx2(&self, src: &[u8], dst: &mut [u8], n: usize) -> Option<StatusCounts> {
        #[cfg(target_arch = "x86_64")]
        if super::simd::avx2_present() {
            return match self.half {
                // SAFETY: the CPU has AVX2 and F16C (checked just above).
                Half::BF16 => Some(unsafe { self.run_avx2_unchecked::<true>(src, dst, n) }),
                // SAFETY: as above.
                Half::F16 if self.nan_quiet == 0x0040_0000 => {
                    Some(unsafe { self.run_avx2_unchecked::<false>(src, dst, n) })
                }
                Half::F16 => None,
            };
        }
        let _ = (src, dst, n);
        None
    }

    /// [`Widen::run_avx2`] on a CPU with AVX2 and F16C: in place, 8 codes per step (f16: the
    /// F16C instruction `vcvtph2ps`; bf16: zero-extend, shift left 16, the policy's quiet bit
    /// OR-ed into NaN lanes); NaN and Inf codes counted in 16-bit lane accumulators in the
    /// same pass.
    ///
    /// # Safety
    /// The CPU must support AVX2 and F16C.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn run_avx2_unchecked<const BF16: bool>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
    ) -> StatusCounts {
        use std::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi16, _mm_loadu_si128,
            _mm_set1_epi16, _mm_setzero_si128, _mm_storeu_si128, _mm_sub_epi16, _mm256_and_si256,
            _mm256_castps_si256, _mm256_cmpgt_epi32, _mm256_cvtepu16_epi32, _mm256_cvtph_ps,
            _mm256_or_si256, _mm256_set1_epi32, _mm256_slli_epi32, _mm256_storeu_si256,
        };
        /// Groups of 8 between two flushes of the 16-bit lane counters.
        const RUN: usize = 4096;
        let mut counts = StatusCounts::default();
        let groups = n / 8;
        let (e, m) = if BF16 {
            (0x7F80u16, 0x007Fu16)
        } else {
            (0x7C00, 0x03FF)
        };
        let exp = _mm_set1_epi16(e as i16);
        let man = _mm_set1_epi16(m as i16);
        let zero = _mm_setzero_si128();
        let abs = _mm256_set1_epi32(0x7FFF_FFFF);
        let inf32 = _mm256_set1_epi32(0x7F80_0000);
        let quiet = _mm256_set1_epi32(self.nan_quiet as i32);
        let sum = |v: __m128i| -> u64 {
            let mut lanes = [0u16; 8];
            // SAFETY: `lanes` is 16 bytes, the size of the unaligned store.
            unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), v) };
            lanes.iter().map(|&c| u64::from(c)).sum()
        };
        for (s_run, d_run) in src[..16 * groups]
            .chunks(16 * RUN)
            .zip(dst[..32 * groups].chunks_mut(32 * RUN))
        {
            let (mut nan, mut inf) = (zero, zero);
            for (x, y) in s_run.chunks_exact(16).zip(d_run.chunks_exact_mut(32)) {
                // SAFETY: `x` is 16 bytes, the size of the unaligned load; AVX2 is enabled.
                let h = unsafe { _mm_loadu_si128(x.as_ptr().cast()) };
                let w = if BF16 {
                    let w = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h));
                    let is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(w, abs), inf32);
                    _mm256_or_si256(w, _mm256_and_si256(is_nan, quiet))
                } else {
                    _mm256_castps_si256(_mm256_cvtph_ps(h))
                };
                // SAFETY: `y` is 32 bytes, the size of the unaligned store.
                unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), w) };
                let special = _mm_cmpeq_epi16(_mm_and_si128(h, exp), exp);
                let zero_man = _mm_cmpeq_epi16(_mm_and_si128(h, man), zero);
                nan = _mm_sub_epi16(nan, _mm_andnot_si128(zero_man, special));
                inf = _mm_sub_epi16(inf, _mm_and_si128(zero_man, special));
            }
            let (nan, inf) = (sum(nan), sum(inf));
            let m = (s_run.len() / 2) as u64;
            flags::record_n(self.nan_status, nan, &mut counts);
            flags::record_n(self.inf_status, inf, &mut counts);
            flags::record_n(0, m - nan - inf, &mut counts);
        }
        let rest = n % 8;
        if rest > 0 {
            let tail = self.run(&src[16 * groups..2 * n], &mut dst[32 * groups..4 * n], rest);
            counts.add(&tail);
        }
        counts
    }
}

impl super::SliceKernel for Widen {
    #[inline(always)]
    fn cast(
        &self,
        level: super::simd::SimdLevel,
        src: &[u8],
        s: super::super::Storage,
        dst: &mut [u8],
        d: super::super::Storage,
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        let _ = (s, d);
        if super::widen_avx512::serves_at(level)
            && let Some(counts) = super::widen_avx512::run(self, src, dst, n, stream)
        {
            super::plan::ran("widen-avx512");
            return counts;
        }
        super::plan::ran("widen");
        if level >= super::simd::SimdLevel::Avx2
            && let Some(counts) = self.run_avx2(src, dst, n)
        {
            return counts;
        }
        self.run(src, dst, n)
    }
}
