//! f16 → f32 and bf16 → f32: exact widening by bit arithmetic (f16 subnormals through an exact
//! f32 multiply), which the compiler vectorises. What NaN inputs become (quiet bit, status) is
//! read from the lookup table of the same cast, and the kernel is checked against that table
//! on all 65,536 codes when it is built: it is used only if it agrees on every one. At the AVX2
//! level, f16 → f32 whose NaNs come out quiet is the F16C instruction `vcvtph2ps`, and bf16 →
//! f32 an 8-lane shift; at the AVX-512 level [`crate::bulk::kernels::x86_avx512::widen`] casts every slice, 32
//! codes per step, streamed when asked (all tested at their level against the reference like
//! every kernel).

use crate::bulk::kernels::flags::{self, BLOCK};
use crate::bulk::kernels::simd::{SimdLevel, on_x86_64};
use crate::bulk::kernels::table::codes::Table;
use crate::format::Format;
use crate::status::{Status, StatusCounts};

/// Which 16-bit float is widened.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Half {
    /// IEEE binary16.
    F16,
    /// bfloat16.
    BF16,
}

/// A widening 16-bit float → f32 cast under one policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Widen {
    /// The source format.
    pub(crate) half: Half,
    /// Bits OR-ed into a NaN's f32 code (the quiet bit, if the cast sets it).
    pub(crate) nan_quiet: u32,
    /// Raw status bits of NaN and of ±Inf inputs.
    pub(crate) nan_status: u16,
    pub(crate) inf_status: u16,
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

impl crate::bulk::kernels::SliceKernel for Widen {
    #[inline(always)]
    fn cast(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: crate::bulk::Storage,
        dst: &mut [u8],
        d: crate::bulk::Storage,
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        let _ = (s, d);
        if level.runs_avx512()
            && let Some(counts) = on_x86_64!(
                crate::bulk::kernels::x86_avx512::widen::run(self, src, dst, n, stream),
                None
            )
        {
            crate::bulk::kernels::plan::ran("widen-avx512");
            return counts;
        }
        let _ = stream;
        crate::bulk::kernels::plan::ran("widen");
        if level >= SimdLevel::Avx2
            && let Some(counts) = on_x86_64!(self.run_avx2(src, dst, n), None)
        {
            return counts;
        }
        self.run(src, dst, n)
    }
}
