//! f64 and i32 → f32, every deterministic mode and policy: nearest-even conversion, then one
//! step where the mode rounds the other way, branchless so that it vectorises at every
//! level; at the AVX-512 level [`crate::bulk::kernels::x86_avx512::to_f32`] casts the bulk of a
//! slice. The method is in `docs/kernels.md`.

use crate::bulk::kernels::flags::{self, BLOCK};
use crate::bulk::kernels::simd::{SimdLevel, on_x86_64};
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

/// The rounding-mode numbering of every kernel ([`crate::bulk::kernels::mode`]).
pub(crate) use crate::bulk::kernels::mode;

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
        match (self.source, level.runs_avx512()) {
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

    /// The f32 code and raw status bits of the f64 code `bits`, rounded by mode `M`: the
    /// nearest-even conversion (correctly rounded, subnormals included), moved one code toward
    /// the mode's direction where its exact widening lies on the wrong side of `x` (ties away:
    /// where `x` is an exact tie the conversion rounded toward zero; odd: the truncation, its
    /// last bit set where inexact); then the policy's overflow, ±Inf and NaN results and the
    /// statuses, all by selects.
    #[inline(always)]
    pub(crate) fn convert<const M: u8>(&self, bits: u64) -> (u32, u16) {
        let x = f64::from_bits(bits);
        let neg = bits >> 63 == 1;
        let sign = ((bits >> 32) as u32) & 0x8000_0000;
        let a = x.abs();
        let nan = x.is_nan();
        let inf = a == f64::INFINITY;
        // |x| > the largest f32, and |x| ≥ 2^128 (both false for NaN, true for ±Inf)
        let beyond = a > f64::from(f32::MAX);
        let big = a >= 2f64.powi(128);
        let rn = (x as f32).to_bits();
        let back = f64::from(f32::from_bits(rn));
        // one code away from zero, one toward zero (the sign bit is kept)
        let (away, toward) = (rn.wrapping_add(1), rn.wrapping_sub(1));
        // every mode's candidate, then the mode's (an if-chain on `M`, which the vectoriser
        // takes where a `match` with guards defeats it)
        let floor_step = if neg { away } else { toward };
        let ceil_step = if neg { toward } else { away };
        let trunc = if back.abs() > a { toward } else { rn };
        let odd = if f64::from(f32::from_bits(trunc)) != x && !nan {
            trunc | 1
        } else {
            trunc
        };
        // ties away: rounded toward zero at an exact tie, where both distances (exact
        // differences of values within a factor of two, or of a value and zero) are equal
        let other = f64::from(f32::from_bits(away)).abs();
        let below = a - back.abs();
        let tie_toward = below > 0.0 && below == other - a;
        let r = if M == mode::FLOOR {
            if back > x { floor_step } else { rn }
        } else if M == mode::CEIL {
            if back < x { ceil_step } else { rn }
        } else if M == mode::TRUNC {
            trunc
        } else if M == mode::ODD {
            odd
        } else if M == mode::NEAREST_AWAY {
            if tie_toward { away } else { rn }
        } else {
            rn
        };
        let overflow = (r & 0x7FFF_FFFF == F32_INF || big) && !inf && !nan;
        // (as logic, not a load indexed by the sign, which the vectoriser gives up on)
        let to_max = (neg && self.max_neg) || (!neg && self.max_pos);
        let ovf_code = sign | if to_max { F32_MAX } else { F32_INF };
        let c = if overflow { ovf_code } else { r };
        let c_abs = c & 0x7FFF_FFFF;
        let inexact = f64::from(f32::from_bits(c)) != x;
        let finite_st = (if inexact { INEXACT } else { 0 })
            | (if overflow { OVERFLOW } else { 0 })
            | (if inexact && c_abs < 0x0080_0000 {
                UNDERFLOW
            } else {
                0
            })
            | (if inexact && c_abs == 0 { FLUSHED } else { 0 })
            | (if beyond && c_abs == F32_MAX {
                SATURATED
            } else {
                0
            })
            | (if c_abs == F32_INF { INF } else { 0 });
        let (special_code, special_st) = if nan {
            if self.nan_zero {
                (0, INVALID | INEXACT)
            } else {
                let payload = ((bits >> 29) as u32) & 0x7F_FFFF;
                (sign | 0x7FC0_0000 | payload, NAN)
            }
        } else if self.inf_saturate {
            (sign | F32_MAX, SATURATED | INEXACT)
        } else {
            (sign | F32_INF, INF)
        };
        if nan || inf {
            (special_code, special_st)
        } else {
            (c, finite_st)
        }
    }

    /// Casts `n` little-endian source codes into f32 codes by mode `M`, block by block.
    #[inline(always)]
    fn run_m<const M: u8>(&self, src: &[u8], dst: &mut [u8], n: usize) -> StatusCounts {
        let w = self.src_bytes();
        // a local copy: its fields stay in registers through the loop (a load through
        // `self` per element, which nothing proves invariant, keeps the loop scalar)
        let k = *self;
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
            if let Some(inexact) = normal_block::<M>(&wide[..m], &mut codes[..m]) {
                flags::record_n(INEXACT, inexact, &mut counts);
                flags::record_n(0, m as u64 - inexact, &mut counts);
            } else {
                for ((&x, c), t) in wide[..m].iter().zip(&mut codes[..m]).zip(&mut st[..m]) {
                    let (code, status) = k.convert::<M>(u64::from_le(x));
                    *c = code.to_le();
                    *t = status;
                }
                flags::count(&st[..m], &mut counts);
            }
            d.copy_from_slice(bytemuck::cast_slice(&codes[..m]));
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

/// The f64 magnitude bits of the smallest normal f32, 2^-126.
const F64_F32_MIN_NORMAL: u64 = 0x3810_0000_0000_0000;
/// The f64 magnitude bits of the largest finite f32.
const F64_F32_MAX: u64 = 0x47EF_FFFF_E000_0000;
/// The f64 exponent bias minus the f32 one, at the f64 exponent field.
const REBIAS: u64 = (1023 - 127) << 52;
/// The f64 mantissa bits below an f32's last place.
const DROPPED: u64 = (1 << 29) - 1;

/// Casts a block of little-endian f64 codes into little-endian f32 codes by mode `M`, by
/// integer rounding of the f64 bits (the exponent rebiased, the 29 bits below the f32's last
/// place rounded off; a carry into the exponent is the next binade), which is the cast where
/// every code is ±0 or has a magnitude from the smallest normal f32 to the largest finite f32:
/// then no mode overflows or underflows, and nothing is NaN or ±Inf. Returns how many results
/// are inexact (every other result is exact, with no other status), or `None` when a code lies
/// outside that range (the codes written are then meaningless).
#[inline(always)]
fn normal_block<const M: u8>(block: &[u64], codes: &mut [u32]) -> Option<u64> {
    let mut inexact = 0u64;
    let mut outside = false;
    for (&x, c) in block.iter().zip(codes.iter_mut()) {
        let bits = u64::from_le(x);
        let neg = bits >> 63;
        let a = bits & !(1 << 63);
        // (signed compares: `a` is below 2^63)
        let v = a as i64;
        outside |= v != 0 && (v < F64_F32_MIN_NORMAL as i64 || v > F64_F32_MAX as i64);
        let r = a.wrapping_sub(REBIAS);
        let low = r & DROPPED;
        let lost = u64::from(low != 0);
        let lsb = (r >> 29) & 1;
        // what is added below the last place before the bits are dropped
        let up = if M == mode::NEAREST_EVEN {
            (DROPPED >> 1) + lsb
        } else if M == mode::NEAREST_AWAY {
            1 << 28
        } else if M == mode::FLOOR {
            DROPPED * neg
        } else if M == mode::CEIL {
            DROPPED * (1 - neg)
        } else {
            0
        };
        let q = (r + up) >> 29;
        let q = if M == mode::ODD { q | lost } else { q };
        let magnitude = if a == 0 { 0 } else { q as u32 };
        *c = (magnitude | ((neg as u32) << 31)).to_le();
        inexact += lost;
    }
    (!outside).then_some(inexact)
}

impl crate::bulk::kernels::SliceKernel for ToF32 {
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
                crate::bulk::kernels::x86_avx512::to_f32::run(self, src, dst, n, stream),
                None
            )
        {
            crate::bulk::kernels::plan::ran(match self.source {
                Source::F64 => "f64-f32-avx512",
                Source::I32 => "i32-f32-avx512",
            });
            return counts;
        }
        let _ = stream;
        crate::bulk::kernels::plan::ran(self.name());
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
