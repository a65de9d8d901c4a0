//! The enums of AscendC's cast configuration: `SatMode`, `RegLayout`, `MaskMergeMode`, `CastTrait`.
//!
//! Rounding modes are numerics' [`RoundMode`]; AscendC's `RoundMode::UNKNOWN` (no rounding
//! involved) is `None` in an `Option<RoundMode>`.

use std::fmt;
use std::str::FromStr;

use npusim_numerics::RoundMode;

use crate::error::AscendError;

/// `SatMode`: whether overflow saturates (when `CTRL[60]` = 0 hands the choice to the instruction).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum SatMode {
    /// `SatMode::UNKNOWN` (the trait default): not applicable, or the hardware default.
    #[default]
    Unknown,
    /// `SatMode::NO_SAT`: floats overflow to ±Inf and keep Inf/NaN; integers keep the low bits.
    NoSat,
    /// `SatMode::SAT`: clamp to the destination's range; NaN → 0.
    Sat,
}

impl SatMode {
    /// AscendC spelling.
    pub const fn name(self) -> &'static str {
        match self {
            SatMode::Unknown => "UNKNOWN",
            SatMode::NoSat => "NO_SAT",
            SatMode::Sat => "SAT",
        }
    }
}

impl fmt::Display for SatMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for SatMode {
    type Err = AscendError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_uppercase();
        let l = l.strip_prefix("SATMODE::").unwrap_or(&l);
        match l {
            "UNKNOWN" | "" | "DEFAULT" => Ok(SatMode::Unknown),
            "NO_SAT" | "NOSAT" | "NO-SAT" => Ok(SatMode::NoSat),
            "SAT" => Ok(SatMode::Sat),
            _ => Err(AscendError::BadDescription(format!(
                "unknown sat mode `{s}`; valid: SAT NO_SAT UNKNOWN"
            ))),
        }
    }
}

/// `RegLayout`: which sub-lane of the wider register a width-changing cast reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RegLayout {
    /// `RegLayout::UNKNOWN`: same-width casts.
    #[default]
    Unknown,
    /// Sub-lane 0.
    Zero,
    /// Sub-lane 1.
    One,
    /// Sub-lane 2 (4:1 width ratios only).
    Two,
    /// Sub-lane 3 (4:1 width ratios only).
    Three,
}

impl RegLayout {
    /// AscendC spelling.
    pub const fn name(self) -> &'static str {
        match self {
            RegLayout::Unknown => "UNKNOWN",
            RegLayout::Zero => "ZERO",
            RegLayout::One => "ONE",
            RegLayout::Two => "TWO",
            RegLayout::Three => "THREE",
        }
    }

    /// The sub-lane index (UNKNOWN reads/writes sub-lane 0).
    pub const fn index(self) -> usize {
        match self {
            RegLayout::Unknown | RegLayout::Zero => 0,
            RegLayout::One => 1,
            RegLayout::Two => 2,
            RegLayout::Three => 3,
        }
    }
}

impl fmt::Display for RegLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RegLayout {
    type Err = AscendError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_uppercase();
        let l = l.strip_prefix("REGLAYOUT::").unwrap_or(&l);
        match l {
            "UNKNOWN" | "" => Ok(RegLayout::Unknown),
            "ZERO" | "0" => Ok(RegLayout::Zero),
            "ONE" | "1" => Ok(RegLayout::One),
            "TWO" | "2" => Ok(RegLayout::Two),
            "THREE" | "3" => Ok(RegLayout::Three),
            _ => Err(AscendError::BadDescription(format!(
                "unknown RegLayout `{s}`; valid: ZERO ONE TWO THREE UNKNOWN"
            ))),
        }
    }
}

/// `MaskMergeMode`: what happens to destination lanes the mask does not select.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum MaskMergeMode {
    /// `ZEROING`: unselected lanes become 0 (the only mode Cast supports).
    #[default]
    Zeroing,
    /// `MERGING`: unselected lanes keep the old register value (rejected by Cast).
    Merging,
}

impl MaskMergeMode {
    /// AscendC spelling.
    pub const fn name(self) -> &'static str {
        match self {
            MaskMergeMode::Zeroing => "ZEROING",
            MaskMergeMode::Merging => "MERGING",
        }
    }
}

/// `CastTrait { layoutMode, satMode, mrgMode, roundMode }` of the Reg (MicroAPI) `Cast`.
///
/// ```
/// use npusim_ascend::{CastTrait, RegLayout, SatMode};
/// use npusim_numerics::RoundMode;
/// // the trait of the seed's CastVF example
/// let t = CastTrait::new(RegLayout::Zero, SatMode::NoSat, RoundMode::Rint);
/// assert_eq!(t.round, Some(RoundMode::Rint));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CastTrait {
    /// `layoutMode`.
    pub layout: RegLayout,
    /// `satMode`.
    pub sat: SatMode,
    /// `mrgMode`.
    pub merge: MaskMergeMode,
    /// `roundMode`; `None` is `RoundMode::UNKNOWN`.
    pub round: Option<RoundMode>,
}

impl CastTrait {
    /// A ZEROING trait with the given layout, saturation and rounding.
    pub const fn new(layout: RegLayout, sat: SatMode, round: RoundMode) -> CastTrait {
        CastTrait {
            layout,
            sat,
            merge: MaskMergeMode::Zeroing,
            round: Some(round),
        }
    }

    /// A ZEROING trait for a conversion that involves no rounding (`RoundMode::UNKNOWN`).
    pub const fn exact(layout: RegLayout) -> CastTrait {
        CastTrait {
            layout,
            sat: SatMode::Unknown,
            merge: MaskMergeMode::Zeroing,
            round: None,
        }
    }
}
