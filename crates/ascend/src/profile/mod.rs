//! Vendor cast profiles: which conversions a product's `Cast` supports, and the numerics
//! [`CastPolicy`](npusim_numerics::CastPolicy) that reproduces its rounding, saturation and Inf/NaN
//! rules. Each product's pair table and its policy rules live together in one file (`training.rs`,
//! `v950.rs`).
//!
//! Numerics knows no vendor; this module is where AscendC's rules become plain policies.

mod training;
mod v950;

use std::fmt;
use std::str::FromStr;

use npusim_numerics::RoundMode;

use crate::dtype::DType;
use crate::error::AscendError;
use crate::modes::round_mode_name;

pub use training::TRAINING_PAIRS;
pub(crate) use training::training_policy;
pub(crate) use v950::v950_policy;
pub use v950::{V950_LOCAL_TENSOR_EXTRA, V950_PAIRS};

/// A modelled Ascend product.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Product {
    /// Atlas training series (the training `Cast` page, no `SatMode`); the default.
    #[default]
    AtlasTraining,
    /// Ascend 950PR / 950DT (the 950 `Cast` page, `CastTrait`, CTRL-governed saturation).
    Ascend950,
}

impl Product {
    /// Display name.
    pub const fn name(self) -> &'static str {
        match self {
            Product::AtlasTraining => "Atlas training series",
            Product::Ascend950 => "Ascend 950",
        }
    }

    /// Short name accepted on the command line.
    pub const fn short(self) -> &'static str {
        match self {
            Product::AtlasTraining => "training",
            Product::Ascend950 => "950",
        }
    }

    /// The pair table of this product's LocalTensor (`Cast(dst, src, mode, ...)`) API.
    pub fn local_tensor_pairs(self) -> Vec<&'static PairRule> {
        match self {
            Product::AtlasTraining => TRAINING_PAIRS.iter().collect(),
            Product::Ascend950 => V950_PAIRS
                .iter()
                .chain(V950_LOCAL_TENSOR_EXTRA.iter())
                .collect(),
        }
    }
}

impl fmt::Display for Product {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Product {
    type Err = AscendError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s
            .trim()
            .to_ascii_lowercase()
            .replace([' ', '_'], "-")
            .as_str()
        {
            "" | "training" | "atlas-training" | "atlas" | "910" | "c100" => {
                Ok(Product::AtlasTraining)
            }
            "950" | "ascend950" | "ascend-950" | "950pr" | "950dt" => Ok(Product::Ascend950),
            _ => Err(AscendError::UnknownProduct {
                name: s.to_string(),
                valid: "training 950".to_string(),
            }),
        }
    }
}

/// Which `SatMode` values a pair takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SatSupport {
    /// No saturation choice (`SatMode::UNKNOWN` in the tables): cannot overflow, or fixed rules.
    NotApplicable,
    /// `SAT` and `NO_SAT`.
    Both,
    /// Only saturating (int16 → uint32: negatives become 0).
    SaturateOnly,
}

/// One row of a product's table of legal conversions.
#[derive(Clone, Copy, Debug)]
pub struct PairRule {
    /// Source type.
    pub src: DType,
    /// Destination type.
    pub dst: DType,
    /// Accepted AscendC rounding modes (`RoundMode::None` is `CAST_NONE`).
    pub modes: &'static [RoundMode],
    /// No rounding can happen; `RoundMode::UNKNOWN` is accepted.
    pub exact: bool,
    /// The rounding-mode argument is accepted and ignored (int32 → half with SetDeqScale).
    pub ignores_mode: bool,
    /// Which saturation modes the pair takes.
    pub sat: SatSupport,
    /// Where the row comes from when it is not in the vendor document's own table.
    pub note: &'static str,
}

/// The five directed/nearest modes most rounding rows accept.
pub(crate) const R5: &[RoundMode] = &[
    RoundMode::Rint,
    RoundMode::Round,
    RoundMode::Floor,
    RoundMode::Ceil,
    RoundMode::Trunc,
];

/// Builds a table row.
pub(crate) const fn row(
    src: DType,
    dst: DType,
    modes: &'static [RoundMode],
    sat: SatSupport,
) -> PairRule {
    PairRule {
        src,
        dst,
        modes,
        exact: modes.is_empty(),
        ignores_mode: false,
        sat,
        note: "",
    }
}

impl PairRule {
    /// Checks a rounding mode (`None` = `RoundMode::UNKNOWN`) and returns the mode to apply.
    pub fn check_round(
        &self,
        product: Product,
        round: Option<RoundMode>,
    ) -> Result<RoundMode, AscendError> {
        if self.ignores_mode {
            return Ok(RoundMode::Rint);
        }
        match round {
            None | Some(RoundMode::None) if self.exact => Ok(RoundMode::Rint),
            Some(m) if self.modes.contains(&m) => Ok(if m == RoundMode::None {
                RoundMode::Rint
            } else {
                m
            }),
            _ => Err(AscendError::IllegalRoundMode {
                product: product.name(),
                src: self.src,
                dst: self.dst,
                mode: round.map_or("UNKNOWN", round_mode_name).to_string(),
                legal: self.legal_modes(),
            }),
        }
    }

    /// The accepted modes, spelled as AscendC does.
    pub fn legal_modes(&self) -> String {
        if self.ignores_mode {
            return "any (ignored: the conversion always rounds to nearest even)".to_string();
        }
        let mut v: Vec<&str> = self.modes.iter().map(|&m| round_mode_name(m)).collect();
        if self.exact {
            v.insert(0, "UNKNOWN");
            if !self.modes.contains(&RoundMode::None) {
                v.insert(1, "CAST_NONE");
            }
        }
        v.join(", ")
    }
}

/// Finds the row for `src → dst`, or an error listing every legal pair.
pub fn find_pair(
    product: Product,
    table: &[&'static PairRule],
    src: DType,
    dst: DType,
) -> Result<&'static PairRule, AscendError> {
    table
        .iter()
        .find(|r| r.src == src && r.dst == dst)
        .copied()
        .ok_or_else(|| AscendError::IllegalPair {
            product: product.name(),
            src,
            dst,
            legal: table
                .iter()
                .map(|r| format!("{}->{}", r.src, r.dst))
                .collect::<Vec<_>>()
                .join(", "),
        })
}
