//! f16 and bf16 → the other binary floats the [`FloatDst`] kernel serves (fp8, fp6 and fp4
//! one per byte, f16 ↔ bf16), every deterministic mode and policy ([`HalfFloat`]): each block
//! of source codes is widened to f32 exactly (an f16 or bf16 value is an f32 value, NaN
//! payloads kept bit for bit), then cast by the f32 kernel. The widening changes no value, so
//! the f32 kernel makes every rounding decision the direct cast makes; that the results also
//! agree for NaN, ±Inf and every status is checked when the kernel is built, on all 65,536
//! source codes against the lookup table of the same cast (the reference's results): the
//! kernel is used only if it agrees on every code. At the AVX2 level and above the widening is
//! [`x86_avx2::half_src`](crate::bulk::kernels::x86_avx2::half_src) (`vcvtph2ps` or a shift,
//! 8 codes per step) and the f32 kernel runs at the cast's level; tested bit for bit against
//! the reference at every level like every kernel.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use crate::bulk::kernels::flags::{self, BLOCK};
use crate::bulk::kernels::portable::f32_float::FloatDst;
use crate::bulk::kernels::portable::widen::Half;
use crate::bulk::kernels::simd::{SimdLevel, on_x86_64};
use crate::bulk::kernels::table::codes::Table;
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::status::StatusCounts;

/// f16 or bf16 → a [`FloatDst`] destination (one code per byte or per two bytes), through
/// exact f32 codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct HalfFloat {
    /// The source format.
    half: Half,
    /// The f32 kernel of the destination and policy.
    float: FloatDst,
    /// Bytes per destination code (1 or 2).
    dst_bytes: usize,
}

/// Source codes per block: the f32 codes of one block stay in the L1 cache.
const HALF_BLOCK: usize = 2 * BLOCK;

/// The exact f32 code of the f16 or bf16 code `h` (NaN payloads kept, signalling ones too).
#[inline(always)]
pub(crate) fn widen_code(half: Half, h: u16) -> u32 {
    let h = u32::from(h);
    match half {
        Half::BF16 => h << 16,
        Half::F16 => {
            let sign = (h & 0x8000) << 16;
            let e = (h >> 10) & 0x1F;
            let m = h & 0x3FF;
            let abs = if e == 0 {
                // m × 2^-24, exact in f32
                (m as f32 * 5.960_464_5e-8).to_bits()
            } else if e == 31 {
                0x7F80_0000 | (m << 13)
            } else {
                ((e + 112) << 23) | (m << 13)
            };
            sign | abs
        }
    }
}

/// Widens `out.len()` little-endian codes of `src` into little-endian f32 codes, in plain
/// Rust (the compiler vectorises it at the cast's level).
#[inline(always)]
fn widen_portable(half: Half, src: &[u8], out: &mut [u32]) {
    for (x, y) in src.chunks_exact(2).zip(out.iter_mut()) {
        *y = widen_code(half, u16::from_le_bytes([x[0], x[1]])).to_le();
    }
}

impl HalfFloat {
    /// The kernel for `src` → `dst` under `policy`, built (and checked on every source code)
    /// once per combination; `None` when the source is not f16 or bf16, the destination is
    /// the source, packed or not served by [`FloatDst`], or the check fails.
    pub(crate) fn cached(src: Format, dst: Format, policy: &CastPolicy) -> Option<HalfFloat> {
        type Cache = Mutex<HashMap<(Format, Format, CastPolicy), Option<HalfFloat>>>;
        static CACHE: OnceLock<Cache> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(HashMap::new()));
        let key = (src, dst, *policy);
        if let Ok(map) = cache.lock()
            && let Some(k) = map.get(&key)
        {
            return *k;
        }
        let k = HalfFloat::new(src, dst, policy);
        if let Ok(mut map) = cache.lock() {
            map.insert(key, k);
        }
        k
    }

    /// [`HalfFloat::cached`] without the cache.
    fn new(src: Format, dst: Format, policy: &CastPolicy) -> Option<HalfFloat> {
        let half = match src {
            Format::F16 => Half::F16,
            Format::BF16 => Half::BF16,
            _ => return None,
        };
        let dst_bytes = match dst.bits() {
            1..=8 => 1,
            9..=16 => 2,
            _ => return None,
        };
        if dst == src {
            return None;
        }
        let k = HalfFloat {
            half,
            float: FloatDst::new(dst, policy)?,
            dst_bytes,
        };
        let table = Table::cached(src, dst, policy)?;
        k.agrees_with(&table).then_some(k)
    }

    /// Whether the kernel (at the portable level) gives the table's code and status for every
    /// source code.
    fn agrees_with(&self, table: &Table) -> bool {
        let all: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        let n = all.len() / 2;
        let mut out = vec![0u8; n * self.dst_bytes];
        self.run(SimdLevel::Portable, &all, &mut out, n, false);
        let code_at = |i: usize| {
            let b = &out[i * self.dst_bytes..(i + 1) * self.dst_bytes];
            b.iter()
                .rev()
                .fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
        };
        let codes_agree = (0..n).all(|c| code_at(c) == table.entry(c as u16).0);
        codes_agree
            && (0..=u16::MAX).all(|c| {
                let mut one = [0u8; 2];
                let one = &mut one[..self.dst_bytes];
                let got = self.run(SimdLevel::Portable, &c.to_le_bytes(), one, 1, false);
                let mut want = StatusCounts::default();
                flags::record_n(table.entry(c).1, 1, &mut want);
                got == want
            })
    }

    /// Whether the explicit AVX2 widening runs at `level` on this machine.
    pub(crate) fn avx2_at(level: SimdLevel) -> bool {
        level >= SimdLevel::Avx2 && level.is_available()
    }

    /// Whether the one-pass AVX2 loop into one-byte codes
    /// ([`x86_avx2::half_small_float`](crate::bulk::kernels::x86_avx2::half_small_float))
    /// casts the bulk of a slice at `level`: at the AVX2 level and above (it measured faster
    /// than the widening route at AVX2 and at AVX-512, see `docs/speed.md`).
    pub(crate) fn fp8_at(&self, level: SimdLevel) -> bool {
        level >= SimdLevel::Avx2
            && level.is_available()
            && self.dst_bytes == 1
            && on_x86_64!(
                crate::bulk::kernels::x86_avx2::half_small_float::serves(
                    self.half,
                    &self.float.small_float()
                ),
                false
            )
    }

    /// Casts `n` little-endian source codes into destination codes at `level`, block by
    /// block; `stream` as in [`SliceKernel::cast`](crate::bulk::kernels::SliceKernel::cast).
    #[inline(always)]
    fn run(
        &self,
        level: SimdLevel,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        let explicit = HalfFloat::avx2_at(level);
        let one_pass = self.fp8_at(level);
        crate::bulk::kernels::plan::ran(if one_pass {
            "half-float-fp8-avx2"
        } else if explicit {
            "half-float-avx2"
        } else {
            "half-float"
        });
        let mut counts = StatusCounts::default();
        let mut start = 0;
        if one_pass
            && let Some((done, got)) = on_x86_64!(
                crate::bulk::kernels::x86_avx2::half_small_float::run_body(
                    self.half,
                    &self.float.small_float(),
                    src,
                    dst,
                    n
                ),
                None::<(usize, StatusCounts)>
            )
        {
            counts = got;
            start = done;
        }
        let mut f32s = [0u32; HALF_BLOCK];
        while start < n {
            let m = HALF_BLOCK.min(n - start);
            let block = &src[2 * start..2 * (start + m)];
            let widened = explicit
                && on_x86_64!(
                    crate::bulk::kernels::x86_avx2::half_src::widen_exact(
                        self.half,
                        block,
                        &mut f32s[..m]
                    ),
                    false
                );
            if !widened {
                widen_portable(self.half, block, &mut f32s[..m]);
            }
            let out = &mut dst[self.dst_bytes * start..self.dst_bytes * (start + m)];
            let got = self.float.run(
                level,
                bytemuck::cast_slice(&f32s[..m]),
                out,
                m,
                false,
                stream,
            );
            counts.add(&got);
            start += m;
        }
        counts
    }
}

impl crate::bulk::kernels::SliceKernel for HalfFloat {
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
        self.run(level, src, dst, n, stream)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::RoundMode;

    #[test]
    fn widening_is_exact_on_every_code() {
        for h in 0..=u16::MAX {
            let f16 = half::f16::from_bits(h);
            let w = widen_code(Half::F16, h);
            if f16.is_nan() {
                // the payload kept bit for bit, quiet or signalling
                assert_eq!(
                    w,
                    (u32::from(h & 0x8000) << 16) | 0x7F80_0000 | (u32::from(h & 0x3FF) << 13)
                );
            } else {
                assert_eq!(f32::from_bits(w), f32::from(f16), "{h:#06x}");
                assert_eq!(w >> 31, u32::from(h >> 15), "{h:#06x}");
            }
            assert_eq!(widen_code(Half::BF16, h), u32::from(h) << 16);
        }
    }

    #[test]
    fn fp8_fp6_and_the_other_half_are_served_and_f32_is_not() {
        let p = CastPolicy::new(RoundMode::Rint);
        for src in [Format::F16, Format::BF16] {
            for dst in [
                Format::F8E4M3FN,
                Format::F8E5M2,
                Format::F6E2M3FN,
                Format::F4E2M1,
            ] {
                assert!(HalfFloat::cached(src, dst, &p).is_some(), "{src} -> {dst}");
            }
            assert!(HalfFloat::cached(src, src, &p).is_none());
            assert!(HalfFloat::cached(src, Format::F32, &p).is_none());
        }
        assert!(HalfFloat::cached(Format::F16, Format::BF16, &p).is_some());
        assert!(HalfFloat::cached(Format::F8E4M3FN, Format::F8E5M2, &p).is_none());
    }
}
