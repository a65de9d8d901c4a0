//! One element's conversion, fully resolved for a product: the legality check, the numerics
//! policy that reproduces the hardware's saturation and Inf/NaN rules, and the few AscendC
//! behaviours that are not a plain rounding (float → float to an integral value, the e8m0
//! zero code, SetDeqScale, HiF8's hybrid threshold).

use std::fmt;
use std::str::FromStr;

use npusim_numerics::{CastPolicy, Format, RoundMode, bulk, convert, convert_with_entropy};

use crate::ctrl::Ctrl;
use crate::deq_scale::deq_int32_to_half;
use crate::dtype::DType;
use crate::error::AscendError;
use crate::modes::SatMode;
use crate::profile::{PairRule, Product, SatSupport, find_pair, training_policy, v950_policy};

/// Where CAST_HYBRID's per-element threshold comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HybridThreshold {
    /// Random bits from a seeded generator keyed by the element index (reproducible).
    Random {
        /// The seed.
        seed: u64,
    },
    /// The AscendC pseudocode read literally: the threshold is the input's own low bits
    /// (`f[13:0]` of an f32, `{f[0], 1}` of an f16). Exact f32 inputs then round up (the pages'
    /// `≥`, taken literally).
    InputLowBits,
}

impl Default for HybridThreshold {
    fn default() -> Self {
        HybridThreshold::Random {
            seed: bulk::DEFAULT_SEED,
        }
    }
}

/// Which kind of CAST_HYBRID threshold a call asks for (the seed travels separately).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum HybridKind {
    /// [`HybridThreshold::Random`] (`random`, the default).
    #[default]
    Random,
    /// [`HybridThreshold::InputLowBits`] (`input-low-bits`, alias `literal`).
    InputLowBits,
}

impl HybridKind {
    /// The spelling in call descriptions.
    pub const fn name(self) -> &'static str {
        match self {
            HybridKind::Random => "random",
            HybridKind::InputLowBits => "input-low-bits",
        }
    }

    /// The threshold, with `seed` for the random kind.
    pub const fn threshold(self, seed: u64) -> HybridThreshold {
        match self {
            HybridKind::Random => HybridThreshold::Random { seed },
            HybridKind::InputLowBits => HybridThreshold::InputLowBits,
        }
    }
}

impl fmt::Display for HybridKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for HybridKind {
    type Err = AscendError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().replace('_', "-").as_str() {
            "" | "random" => Ok(HybridKind::Random),
            "input-low-bits" | "literal" => Ok(HybridKind::InputLowBits),
            _ => Err(AscendError::UnknownValue {
                what: "hybrid threshold",
                name: s.trim().to_string(),
                valid: "random input-low-bits",
            }),
        }
    }
}

/// Which mask bit governs a lane of a widening Reg-API cast with a layout other than ZERO.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum WideningMask {
    /// The wider (destination) element's bit, as both Ascend `Cast` references say (default).
    #[default]
    WiderType,
    /// The source element's bit, as the newer AscendC RegLayout text says.
    SourceElement,
}

impl WideningMask {
    /// The spelling in call descriptions: `wider` or `source`.
    pub const fn name(self) -> &'static str {
        match self {
            WideningMask::WiderType => "wider",
            WideningMask::SourceElement => "source",
        }
    }
}

impl fmt::Display for WideningMask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for WideningMask {
    type Err = AscendError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "" | "wider" => Ok(WideningMask::WiderType),
            "source" => Ok(WideningMask::SourceElement),
            _ => Err(AscendError::UnknownValue {
                what: "widening mask",
                name: s.trim().to_string(),
                valid: "wider source",
            }),
        }
    }
}

/// Choices for the points the documentation leaves open; defaults follow the vendor documents.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CastOptions {
    /// Atlas training: run in Inf/NaN overflow mode (`ACL_RT_OVERFLOW_MODE=INFNAN`) instead of
    /// the default saturation mode (the documents are silent; npusim's choice).
    pub training_inf_nan: bool,
    /// Ascend 950 bf16 ±Inf → e8m0 gives 0xFF (the library's shifts) instead of the
    /// documented 0xFE (the 950 `Cast` page).
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
    /// float → float: round to an integral float value (the training `Cast` page, table 1).
    RoundToIntegral,
    /// e8m0 → bf16: code 0x00 gives +0.0, not 2^-127, and 0xFF the quiet NaN 0x7FC0 whatever
    /// the saturation state (the 950 library's reading).
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
    /// Resolves a LocalTensor-API cast (`Cast(dst, src, round_mode, ...)`) with the CTRL
    /// register at its reset value: the product's table, no `SatMode` (the training series
    /// saturates; the 950 follows its reset CTRL state, which saturates).
    pub fn local_tensor(
        product: Product,
        src: DType,
        dst: DType,
        round: RoundMode,
        deq_scale: Option<u16>,
        options: &CastOptions,
    ) -> Result<ElementCast, AscendError> {
        Self::local_tensor_with_ctrl(
            product,
            src,
            dst,
            round,
            deq_scale,
            &Ctrl::default(),
            options,
        )
    }

    /// Resolves a LocalTensor-API cast under a CTRL register value.
    ///
    /// The Ascend 950 runs its LocalTensor `Cast` on the MicroAPI with a `SatMode::SAT` trait,
    /// so CTRL decides as for the Reg API: with `CTRL[60]` = 1 (reset) bits 48
    /// (float outputs keep Inf/NaN), 50 (fp8 NaN kept) and 59 (integer outputs truncate) choose,
    /// with `CTRL[60]` = 0 the trait's SAT does. The Atlas training series' Cast does not read
    /// CTRL (the training `Cast` page names no control bit; its overflow mode is
    /// [`CastOptions::training_inf_nan`]), so `ctrl` is ignored there.
    #[allow(clippy::too_many_arguments)]
    pub fn local_tensor_with_ctrl(
        product: Product,
        src: DType,
        dst: DType,
        round: RoundMode,
        deq_scale: Option<u16>,
        ctrl: &Ctrl,
        options: &CastOptions,
    ) -> Result<ElementCast, AscendError> {
        let table = product.local_tensor_pairs();
        let rule = find_pair(product, &table, src, dst)?;
        let mode = rule.check_round(product, Some(round))?;
        Self::build(product, rule, mode, SatMode::Sat, ctrl, deq_scale, options)
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
