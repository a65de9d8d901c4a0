//! f64 and i32 → f32, every deterministic mode and policy. The portable kernel is exact
//! integer arithmetic on the f64 bit pattern (an i32 by way of its exact f64 value): the
//! significand with its implicit bit is cut at the f32 quantum of the value's binade (2^-149
//! for the whole f32 subnormal range), the cut-off remainder compared with half a unit gives
//! the mode's decision, and the kept units plus that decision added to the binade's exponent
//! field give the code (a carry into the next binade, or from the subnormals into the
//! normals, falls out of the addition). Overflow, ±Inf, NaN and the statuses are selected
//! branchlessly per element, so the loop vectorises at every instruction-set level
//! ([`super::simd::run_at`]). At the AVX-512 level [`super::to_f32_avx512`] casts the bulk of
//! a slice. Both are tested bit for bit (codes and status counts) against the reference.

use super::flags::{self, BLOCK};
use super::simd::SimdLevel;
use crate::policy::{CastPolicy, InfRule, NanRule, Overflow};
use crate::round::RoundMode;
use crate::status::{Status, StatusCounts};

const INEXACT: u16 = Status::INEXACT.bits();
const OVERFLOW: u16 = Status::OVERFLOW.bits();
const UNDERFLOW: u16 = Status::UNDERFLOW.bits();
const FLUSHED: u16 = Status::FLUSHED_TO_ZERO.bits();
const SATURATED: u16 = Status::SATURATED.bits();
const INF: u16 = Status::INF.bits();
const NAN: u16 = Status::NAN.bits();
const INVALID: u16 = Status::INVALID.bits();

/// The f32 code of +Inf.
pub(crate) const F32_INF: u32 = 0x7F80_0000;
/// The f32 code of the largest finite value.
pub(crate) const F32_MAX: u32 = 0x7F7F_FFFF;

/// The rounding modes as const-generic parameters.
pub(crate) mod mode {
    /// Nearest, ties to even (`rint`, `none`).
    pub const NEAREST_EVEN: u8 = 0;
    /// Nearest, ties away from zero (`round`).
    pub const NEAREST_AWAY: u8 = 1;
    /// Toward −∞.
    pub const FLOOR: u8 = 2;
    /// Toward +∞.
    pub const CEIL: u8 = 3;
    /// Toward zero.
    pub const TRUNC: u8 = 4;
    /// Round to odd.
    pub const ODD: u8 = 5;
}

/// The source of a [`ToF32`] cast.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    /// f64 codes.
    F64,
    /// i32 codes.
    I32,
}

/// A cast of f64 or i32 codes to f32 under one policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ToF32 {
    /// The source format.
    pub source: Source,
    /// The rounding mode (one of [`mode`]).
    pub mode: u8,
    /// A positive finite overflow gives +max (else +Inf).
    pub max_pos: bool,
    /// A negative finite overflow gives −max (else −Inf).
    pub max_neg: bool,
    /// ±Inf inputs give ±max.
    pub inf_saturate: bool,
    /// NaN inputs give +0 (else a quiet NaN with the top payload bits).
    pub nan_zero: bool,
}

impl ToF32 {
    /// The cast from `source` under `policy`; `None` for stochastic rounding.
    pub(crate) fn new(source: Source, policy: &CastPolicy) -> Option<ToF32> {
        let m = match policy.round {
            RoundMode::Rint | RoundMode::None => mode::NEAREST_EVEN,
            RoundMode::Round => mode::NEAREST_AWAY,
            RoundMode::Floor => mode::FLOOR,
            RoundMode::Ceil => mode::CEIL,
            RoundMode::Trunc => mode::TRUNC,
            RoundMode::Odd => mode::ODD,
            RoundMode::Hybrid => return None,
        };
        let sat = policy.overflow == Overflow::Saturate;
        Some(ToF32 {
            source,
            mode: m,
            max_pos: sat || matches!(m, mode::TRUNC | mode::ODD | mode::FLOOR),
            max_neg: sat || matches!(m, mode::TRUNC | mode::ODD | mode::CEIL),
            inf_saturate: policy.inf == InfRule::Saturate,
            nan_zero: policy.nan == NanRule::Zero,
        })
    }

    /// Short name.
    pub(crate) const fn name(&self) -> &'static str {
        match self.source {
            Source::F64 => "f64-f32",
            Source::I32 => "i32-f32",
        }
    }

    /// Short name of the code that casts the bulk of a slice at `level`.
    pub(crate) fn name_at(&self, level: SimdLevel) -> &'static str {
        match (self.source, super::to_f32_avx512::serves_at(level)) {
            (Source::F64, true) => "f64-f32-avx512",
            (Source::I32, true) => "i32-f32-avx512",
            _ => self.name(),
        }
    }

    /// Bytes per source element.
    const fn src_bytes(&self) -> usize {
        match self.source {
            Source::F64 => 8,
            Source::I32 => 4,
        }
    }

    /// The f32 code and raw status bits of the f64 code `x`, rounded by mode `M`.
    #[inline(always)]
    pub(crate) fn convert<const M: u8>(&self, x: u64) -> (u32, u16) {
        let neg = x >> 63 == 1;
        let sign = ((x >> 32) as u32) & 0x8000_0000;
        let abs = x & 0x7FFF_FFFF_FFFF_FFFF;
        let nan = abs > 0x7FF0_0000_0000_0000;
        let inf = abs == 0x7FF0_0000_0000_0000;
        // |x| > the largest f32 (Inf and NaN included)
        let beyond = abs > 0x47EF_FFFF_E000_0000;
        let exp = (abs >> 52) as i32;
        // the f32 biased exponent of the binade; the subnormals share binade 1's quantum
        let e = exp - (1023 - 127);
        let e1 = e.max(1);
        let implicit = if exp == 0 { 0 } else { 1u64 << 52 };
        let sig = (abs & 0x000F_FFFF_FFFF_FFFF) | implicit;
        // 29 bits below the f32 quantum of a normal, more below the subnormal range's (a
        // significand of 53 bits shifted by 63 is gone either way)
        let shift = (29 + (e1 - e)).min(63) as u32;
        let k = sig >> shift;
        let rest = sig & ((1u64 << shift) - 1);
        let half = 1u64 << (shift - 1);
        let inexact = rest != 0;
        let odd = k & 1 == 1;
        let up = match M {
            mode::NEAREST_EVEN => rest > half || (rest == half && odd),
            mode::NEAREST_AWAY => rest >= half,
            mode::FLOOR => neg && inexact,
            mode::CEIL => !neg && inexact,
            mode::TRUNC => false,
            _ => inexact && !odd,
        };
        // (a binade beyond the f32 range gives a code of Inf or more: an overflow)
        let mag = (((e1.min(255) - 1) as u32) << 23) + k as u32 + u32::from(up);
        let overflow = mag >= F32_INF && !inf && !nan;
        let to_max = if neg { self.max_neg } else { self.max_pos };
        let tiny = mag < 0x0080_0000;
        let finite_st = if overflow {
            OVERFLOW | INEXACT | if to_max { SATURATED } else { INF }
        } else {
            (if inexact { INEXACT } else { 0 })
                | (if inexact && tiny { UNDERFLOW } else { 0 })
                | (if inexact && mag == 0 { FLUSHED } else { 0 })
                | (if beyond { SATURATED } else { 0 })
        };
        let finite_code = if overflow {
            if to_max { F32_MAX } else { F32_INF }
        } else {
            mag
        };
        let (special_code, special_st) = if nan {
            if self.nan_zero {
                (0, INVALID | INEXACT)
            } else {
                (sign | 0x7FC0_0000 | ((abs >> 29) as u32 & 0x7F_FFFF), NAN)
            }
        } else if self.inf_saturate {
            (sign | F32_MAX, SATURATED | INEXACT)
        } else {
            (sign | F32_INF, INF)
        };
        if nan || inf {
            (special_code, special_st)
        } else {
            (sign | finite_code, finite_st)
        }
    }

    /// Casts `n` little-endian source codes into f32 codes by mode `M`, block by block.
    #[inline(always)]
    fn run_m<const M: u8>(&self, src: &[u8], dst: &mut [u8], n: usize) -> StatusCounts {
        let w = self.src_bytes();
        let mut counts = StatusCounts::default();
        let mut wide = [0u64; BLOCK];
        let mut ints = [0i32; BLOCK];
        let mut codes = [0u32; BLOCK];
        let mut st = [0u16; BLOCK];
        for (s, d) in src[..w * n]
            .chunks(w * BLOCK)
            .zip(dst[..4 * n].chunks_mut(4 * BLOCK))
        {
            let m = s.len() / w;
            match self.source {
                Source::F64 => {
                    bytemuck::cast_slice_mut::<u64, u8>(&mut wide[..m]).copy_from_slice(s);
                }
                Source::I32 => {
                    bytemuck::cast_slice_mut::<i32, u8>(&mut ints[..m]).copy_from_slice(s);
                    for (y, &i) in wide[..m].iter_mut().zip(&ints[..m]) {
                        *y = f64::from(i32::from_le(i)).to_bits().to_le();
                    }
                }
            }
            for ((&x, c), t) in wide[..m].iter().zip(&mut codes[..m]).zip(&mut st[..m]) {
                let (code, status) = self.convert::<M>(u64::from_le(x));
                *c = code.to_le();
                *t = status;
            }
            d.copy_from_slice(bytemuck::cast_slice(&codes[..m]));
            flags::count(&st[..m], &mut counts);
        }
        counts
    }

    /// Casts `n` little-endian source codes into f32 codes, counting statuses (the portable
    /// loop, as compiled for the caller's instruction-set level).
    #[inline(always)]
    pub(crate) fn run_portable(&self, src: &[u8], dst: &mut [u8], n: usize) -> StatusCounts {
        match self.mode {
            mode::NEAREST_AWAY => self.run_m::<{ mode::NEAREST_AWAY }>(src, dst, n),
            mode::FLOOR => self.run_m::<{ mode::FLOOR }>(src, dst, n),
            mode::CEIL => self.run_m::<{ mode::CEIL }>(src, dst, n),
            mode::TRUNC => self.run_m::<{ mode::TRUNC }>(src, dst, n),
            mode::ODD => self.run_m::<{ mode::ODD }>(src, dst, n),
            _ => self.run_m::<{ mode::NEAREST_EVEN }>(src, dst, n),
        }
    }
}

impl super::SliceKernel for ToF32 {
    #[inline(always)]
    fn cast(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: super::super::Storage,
        dst: &mut [u8],
        d: super::super::Storage,
        n: usize,
    ) -> StatusCounts {
        let _ = (s, d);
        if super::to_f32_avx512::serves_at(level)
            && let Some(counts) = super::to_f32_avx512::run(self, src, dst, n)
        {
            return counts;
        }
        self.run_portable(src, dst, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::convert_with_status;
    use crate::format::Format;

    /// The element rule equals the reference on boundary f64 codes, every mode and policy.
    #[test]
    fn element_rule_equals_the_reference() {
        let mut codes = vec![
            0u64,
            1,
            0x000F_FFFF_FFFF_FFFF,
            0x0010_0000_0000_0000,
            0x7FF0_0000_0000_0000,
            0x7FF8_0000_0000_0001,
            0x7FF0_0000_0000_0001,
            0x47EF_FFFF_E000_0000,
            0x47EF_FFFF_F000_0000,
            0x47EF_FFFF_EFFF_FFFF,
            0x47EF_FFFF_F000_0001,
            0x47F0_0000_0000_0000,
        ];
        for f in [
            1.0f64,
            1.5,
            2f64.powi(-126),
            2f64.powi(-149),
            2f64.powi(-150),
        ] {
            for d in 0..3 {
                codes.push(f.to_bits() + d);
                codes.push(f.to_bits() - d);
            }
        }
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let e = (1023 - 160 + (x >> 53) % 300).min(0x7FF);
            codes.push((x & 0x800F_FFFF_FFFF_FFFF) | (e << 52));
        }
        let n = codes.len();
        for i in 0..n {
            codes.push(codes[i] ^ (1 << 63));
        }
        for mode in RoundMode::DETERMINISTIC {
            for policy in [CastPolicy::new(mode), CastPolicy::saturating(mode)] {
                let Some(k) = ToF32::new(Source::F64, &policy) else {
                    panic!("{policy:?}");
                };
                for &c in &codes {
                    let want = convert_with_status(c, Format::F64, Format::F32, &policy, 0);
                    let got = match k.mode {
                        mode::NEAREST_AWAY => k.convert::<{ mode::NEAREST_AWAY }>(c),
                        mode::FLOOR => k.convert::<{ mode::FLOOR }>(c),
                        mode::CEIL => k.convert::<{ mode::CEIL }>(c),
                        mode::TRUNC => k.convert::<{ mode::TRUNC }>(c),
                        mode::ODD => k.convert::<{ mode::ODD }>(c),
                        _ => k.convert::<{ mode::NEAREST_EVEN }>(c),
                    };
                    assert_eq!(
                        (u64::from(got.0), got.1),
                        (want.code, want.status.bits()),
                        "{c:#018x} {policy:?}"
                    );
                }
            }
        }
    }
}
