//! One element's conversion, fully resolved for a product: the legality check, the numerics
//! policy that reproduces the hardware's saturation and Inf/NaN rules, and the few AscendC
//! behaviours that are not a plain rounding (float → float to an integral value, the e8m0
//! zero code, SetDeqScale, HiF8's hybrid threshold).

use npusim_numerics::{
    CastPolicy, Format, InfRule, IntOverflow, NanRule, Overflow, RoundMode, Stochastic,
    StochasticCompare, UnsignedNegative, bulk, convert, convert_with_entropy,
};

use crate::ctrl::{CTRL_FLOAT_NO_SAT, CTRL_FP8_NAN_KEEP, CTRL_INT_TRUNCATE, Ctrl};
use crate::deq_scale::deq_int32_to_half;
use crate::dtype::DType;
use crate::error::AscendError;
use crate::modes::SatMode;
use crate::profile::{PairRule, Product, SatSupport, find_pair};

/// Where CAST_HYBRID's per-element threshold comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HybridThreshold {
    /// Random bits from a seeded generator keyed by the element index (reproducible).
    Random {
        /// The seed.
        seed: u64,
    },
    /// The AscendC pseudocode read literally: the threshold is the input's own low bits
    /// (`f[13:0]` of an f32, `{f[0], 1}` of an f16). Exact f32 inputs then round up (spec A-H2).
    InputLowBits,
}

impl Default for HybridThreshold {
    fn default() -> Self {
        HybridThreshold::Random {
            seed: bulk::DEFAULT_SEED,
        }
    }
}

/// Which mask bit governs a lane of a widening Reg-API cast with a layout other than ZERO.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum WideningMask {
    /// The wider (destination) element's bit, as seeds 001/002 say (default).
    #[default]
    WiderType,
    /// The source element's bit, as the newer AscendC RegLayout text says (spec A-M1).
    SourceElement,
}

/// Choices for the points the documentation leaves open (spec §11); defaults follow the seeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CastOptions {
    /// Atlas training: run in Inf/NaN overflow mode (`ACL_RT_OVERFLOW_MODE=INFNAN`) instead of
    /// the default saturation mode (spec A-S1).
    pub training_inf_nan: bool,
    /// Ascend 950 bf16 ±Inf → e8m0 gives 0xFF (the library's shifts) instead of the
    /// documented 0xFE (seed 001; spec A-E1).
    pub e8m0_inf_to_nan: bool,
    /// CAST_HYBRID's threshold.
    pub hybrid: HybridThreshold,
    /// Reg API mask reading for widening casts.
    pub widening_mask: WideningMask,
}

/// What an element conversion does besides rounding with its policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    /// A plain numerics conversion.
    Plain,
    /// float → float: round to an integral float value (seed 002 table 1).
    RoundToIntegral,
    /// e8m0 → bf16: code 0x00 gives +0.0, not 2^-127, and 0xFF the quiet NaN 0x7FC0 whatever
    /// the saturation state (950 library, spec §1.2 and A-E2).
    E8m0ToBf16,
    /// int32 → half with SetDeqScale: `half(float(src) × 2^-17 × scale × 2^17)`.
    Deq {
        /// The half scale's bits.
        scale: u16,
    },
}

/// A resolved element conversion.
///
/// ```
/// use npusim_ascend::{Ctrl, DType, ElementCast, Product, SatMode, CastOptions};
/// use npusim_numerics::RoundMode;
/// // half 127.5 -> int8 with CAST_ROUND on the training series: ties away, then saturates
/// let c = ElementCast::local_tensor(Product::AtlasTraining, DType::Half, DType::Int8,
///     RoundMode::Round, None, &CastOptions::default()).unwrap();
/// assert_eq!(c.apply(0x57F8, 0), 0x7F);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ElementCast {
    /// Source type.
    pub src: DType,
    /// Destination type.
    pub dst: DType,
    /// The numerics policy.
    pub policy: CastPolicy,
    /// Non-rounding behaviour.
    pub special: Special,
    /// CAST_HYBRID's threshold source.
    pub hybrid: HybridThreshold,
}

impl ElementCast {
    /// Resolves a LocalTensor-API cast (`Cast(dst, src, round_mode, ...)`): the product's table,
    /// no `SatMode` (the training series saturates; the 950 follows its reset CTRL state).
    pub fn local_tensor(
        product: Product,
        src: DType,
        dst: DType,
        round: RoundMode,
        deq_scale: Option<u16>,
        options: &CastOptions,
    ) -> Result<ElementCast, AscendError> {
        let table = product.local_tensor_pairs();
        let rule = find_pair(product, &table, src, dst)?;
        let mode = rule.check_round(product, Some(round))?;
        let ctrl = Ctrl::default();
        Self::build(
            product,
            rule,
            mode,
            SatMode::Unknown,
            &ctrl,
            deq_scale,
            options,
        )
    }

    /// Resolves an Ascend 950 Reg-API cast from its `CastTrait` parts and the CTRL register.
    pub fn reg(
        src: DType,
        dst: DType,
        round: Option<RoundMode>,
        sat: SatMode,
        ctrl: &Ctrl,
        options: &CastOptions,
    ) -> Result<ElementCast, AscendError> {
        let product = Product::Ascend950;
        let table: Vec<&'static PairRule> = crate::profile::V950_PAIRS.iter().collect();
        let rule = find_pair(product, &table, src, dst)?;
        let mode = rule.check_round(product, round)?;
        let sat_ok = match rule.sat {
            SatSupport::Both => true,
            SatSupport::NotApplicable | SatSupport::SaturateOnly => sat == SatMode::Unknown,
        };
        if !sat_ok {
            return Err(AscendError::IllegalSatMode {
                product: product.name(),
                src,
                dst,
                sat: sat.name().to_string(),
                legal: match rule.sat {
                    SatSupport::Both => "SAT, NO_SAT, UNKNOWN",
                    SatSupport::NotApplicable => {
                        "UNKNOWN (the conversion has no saturation choice)"
                    }
                    SatSupport::SaturateOnly => "UNKNOWN (the conversion always saturates)",
                }
                .to_string(),
            });
        }
        Self::build(product, rule, mode, sat, ctrl, None, options)
    }

    fn build(
        product: Product,
        rule: &PairRule,
        round: RoundMode,
        sat: SatMode,
        ctrl: &Ctrl,
        deq_scale: Option<u16>,
        options: &CastOptions,
    ) -> Result<ElementCast, AscendError> {
        let (src, dst) = (rule.src, rule.dst);
        let policy = match product {
            Product::AtlasTraining => training_policy(round, options),
            Product::Ascend950 => v950_policy(rule, round, sat, ctrl, options),
        };
        let special = match (src, dst) {
            (DType::Int32, DType::Half) => Special::Deq {
                scale: deq_scale.ok_or(AscendError::DeqScaleNotSet)?,
            },
            (DType::Float, DType::Float) => Special::RoundToIntegral,
            (DType::Fp8E8M0, DType::BFloat16) => Special::E8m0ToBf16,
            _ => Special::Plain,
        };
        Ok(ElementCast {
            src,
            dst,
            policy,
            special,
            hybrid: options.hybrid,
        })
    }

    /// Converts one source code (low bits) to a destination code; `index` is the element's
    /// position, which seeds CAST_HYBRID's random threshold.
    pub fn apply(&self, code: u64, index: u64) -> u64 {
        let (sf, df) = (self.src.format(), self.dst.format());
        match self.special {
            Special::Plain => {
                if self.policy.round != RoundMode::Hybrid {
                    return convert(code, sf, df, &self.policy);
                }
                let threshold = match self.hybrid {
                    HybridThreshold::Random { seed } => bulk::entropy(seed, index),
                    HybridThreshold::InputLowBits => match self.src {
                        DType::Half => (((code & 1) << 1) | 1) as u32,
                        _ => (code & 0x3FFF) as u32,
                    },
                };
                convert_with_entropy(code, sf, df, &self.policy, threshold)
            }
            Special::RoundToIntegral => round_to_integral_f32(code, &self.policy),
            // The 950 widens e8m0 by shifting the byte into the bf16 exponent field, so the
            // result never depends on the saturation state: 0x00 → +0.0, 0xFF → 0x7FC0.
            Special::E8m0ToBf16 => match code & 0xFF {
                0x00 => 0,
                0xFF => 0x7FC0,
                _ => convert(code, sf, df, &self.policy),
            },
            Special::Deq { scale } => deq_int32_to_half(code as u32, scale, &self.policy),
        }
    }
}

/// The training series: everything saturates, NaN → 0 (spec A-S1), unless Inf/NaN mode.
fn training_policy(round: RoundMode, options: &CastOptions) -> CastPolicy {
    if options.training_inf_nan {
        CastPolicy::new(round)
    } else {
        CastPolicy {
            round,
            overflow: Overflow::Saturate,
            inf: InfRule::Saturate,
            nan: NanRule::Zero,
            int_overflow: IntOverflow::Saturate,
            ..CastPolicy::default()
        }
    }
}

/// Ascend 950: seed 001's constraints, with saturation chosen by CTRL (spec §3.1).
fn v950_policy(
    rule: &PairRule,
    round: RoundMode,
    sat: SatMode,
    ctrl: &Ctrl,
    options: &CastOptions,
) -> CastPolicy {
    let (src, dst) = (rule.src, rule.dst);
    let to_int = !dst.is_float();
    let saturate = match rule.sat {
        SatSupport::SaturateOnly => true,
        _ if ctrl.global_saturation() => {
            if to_int {
                !ctrl.bit(CTRL_INT_TRUNCATE)
            } else {
                !ctrl.bit(CTRL_FLOAT_NO_SAT)
            }
        }
        // Per instruction; the trait default UNKNOWN behaves as the reset state (saturating).
        _ => sat != SatMode::NoSat,
    };
    let base = CastPolicy {
        round,
        stochastic: Stochastic {
            bits: if src == DType::Half { 2 } else { 14 },
            compare: StochasticCompare::GreaterOrEqual,
        },
        ..CastPolicy::default()
    };
    match dst {
        // float32 outputs are never saturating (seed 001); nothing listed can overflow them.
        DType::Float => base,
        // bf16 -> fp4: Inf/overflow → ±max, NaN → 0, always.
        DType::Fp4E2M1 | DType::Fp4E1M2 => CastPolicy {
            overflow: Overflow::Saturate,
            inf: InfRule::Saturate,
            nan: NanRule::Zero,
            ..base
        },
        // bf16 -> e8m0: the exponent field (truncation), sign dropped, NaN → 0xFF, Inf → 0xFE.
        DType::Fp8E8M0 => CastPolicy {
            round: RoundMode::Trunc,
            overflow: Overflow::Saturate,
            inf: if options.e8m0_inf_to_nan {
                InfRule::Keep
            } else {
                InfRule::Saturate
            },
            nan: NanRule::Keep,
            unsigned_negative: UnsignedNegative::Magnitude,
            ..base
        },
        _ if to_int => CastPolicy {
            int_overflow: if saturate {
                IntOverflow::Saturate
            } else {
                IntOverflow::Wrap
            },
            ..base
        },
        _ if saturate => CastPolicy {
            overflow: Overflow::Saturate,
            inf: InfRule::Saturate,
            nan: if matches!(dst, DType::Fp8E4M3 | DType::Fp8E5M2) && ctrl.bit(CTRL_FP8_NAN_KEEP) {
                NanRule::Keep
            } else {
                NanRule::Zero
            },
            ..base
        },
        _ => base,
    }
}

/// float → float under a rounding mode: the nearest integral float in that direction
/// (numerics' [`round_to_integral`](npusim_numerics::round_to_integral)). NaN, ±Inf and values
/// that are already integral are returned unchanged; a zero result keeps the input's sign.
pub fn round_to_integral_f32(code: u64, policy: &CastPolicy) -> u64 {
    npusim_numerics::round_to_integral(code, Format::F32, policy).code
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32c(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    #[test]
    fn float_to_float_rounds_to_integral_values() {
        let p = |m| CastPolicy::new(m);
        assert_eq!(
            round_to_integral_f32(f32c(0.5), &p(RoundMode::Rint)),
            f32c(0.0)
        );
        assert_eq!(
            round_to_integral_f32(f32c(0.5), &p(RoundMode::Ceil)),
            f32c(1.0)
        );
        assert_eq!(
            round_to_integral_f32(f32c(0.5), &p(RoundMode::Round)),
            f32c(1.0)
        );
        assert_eq!(
            round_to_integral_f32(f32c(-0.3), &p(RoundMode::Trunc)),
            f32c(-0.0)
        );
        assert_eq!(
            round_to_integral_f32(f32c(-2.5), &p(RoundMode::Floor)),
            f32c(-3.0)
        );
        assert_eq!(
            round_to_integral_f32(f32c(1e20), &p(RoundMode::Floor)),
            f32c(1e20)
        );
    }
}
