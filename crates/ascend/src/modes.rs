//! The enums of AscendC's cast configuration: `RoundMode` spellings, `SatMode`, `RegLayout`,
//! `MaskMergeMode`, `CastTrait`.
//!
//! Rounding modes are numerics' [`RoundMode`]; AscendC's spelling of them (`CAST_RINT`, ...) is
//! [`round_mode_name`], and AscendC's `RoundMode` as a kernel writes it — one of the `CAST_*`
//! modes or `RoundMode::UNKNOWN` (no rounding involved) — is [`CastRoundMode`].

use std::fmt;
use std::str::FromStr;

use npusim_numerics::RoundMode;

use crate::error::AscendError;

/// AscendC's spelling of a rounding mode: `CAST_RINT`, `CAST_ROUND`, `CAST_FLOOR`, `CAST_CEIL`,
/// `CAST_TRUNC`, `CAST_ODD`, `CAST_HYBRID`, `CAST_NONE`.
///
/// ```
/// use npusim_ascend::modes::round_mode_name;
/// use npusim_numerics::RoundMode;
/// assert_eq!(round_mode_name(RoundMode::Rint), "CAST_RINT");
/// ```
pub const fn round_mode_name(mode: RoundMode) -> &'static str {
    match mode {
        RoundMode::Rint => "CAST_RINT",
        RoundMode::Round => "CAST_ROUND",
        RoundMode::Floor => "CAST_FLOOR",
        RoundMode::Ceil => "CAST_CEIL",
        RoundMode::Trunc => "CAST_TRUNC",
        RoundMode::Odd => "CAST_ODD",
        RoundMode::Hybrid => "CAST_HYBRID",
        RoundMode::None => "CAST_NONE",
    }
}

/// AscendC's `RoundMode` argument as a kernel writes it: a `CAST_*` mode, or
/// `RoundMode::UNKNOWN` (the MicroAPI trait default for conversions that never round) as `None`.
///
/// Parses `CAST_RINT`, `RoundMode::CAST_RINT`, the numerics names (`rint`, `rtz`, ...) and
/// `UNKNOWN` (or nothing); prints the AscendC spelling.
///
/// ```
/// use npusim_ascend::CastRoundMode;
/// use npusim_numerics::RoundMode;
/// let m: CastRoundMode = "CAST_CEIL".parse().unwrap();
/// assert_eq!(m.mode(), Some(RoundMode::Ceil));
/// assert_eq!(CastRoundMode::UNKNOWN.to_string(), "UNKNOWN");
/// assert!("CAST_SIDEWAYS".parse::<CastRoundMode>().unwrap_err().to_string().contains("CAST_RINT"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CastRoundMode(pub Option<RoundMode>);

impl CastRoundMode {
    /// `RoundMode::UNKNOWN`: no rounding involved.
    pub const UNKNOWN: CastRoundMode = CastRoundMode(None);

    /// Every legal spelling, as listed in error messages.
    pub const VALID: &'static str = "CAST_NONE CAST_RINT CAST_FLOOR CAST_CEIL CAST_ROUND CAST_TRUNC CAST_ODD CAST_HYBRID UNKNOWN";

    /// The rounding mode, `None` for `UNKNOWN`.
    pub const fn mode(self) -> Option<RoundMode> {
        self.0
    }

    /// The AscendC spelling (`CAST_RINT`, ..., `UNKNOWN`).
    pub const fn name(self) -> &'static str {
        match self.0 {
            Some(m) => round_mode_name(m),
            None => "UNKNOWN",
        }
    }
}

impl From<RoundMode> for CastRoundMode {
    fn from(mode: RoundMode) -> Self {
        CastRoundMode(Some(mode))
    }
}

impl fmt::Display for CastRoundMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for CastRoundMode {
    type Err = AscendError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let l = t.to_ascii_lowercase();
        if matches!(l.as_str(), "" | "unknown" | "roundmode::unknown") {
            return Ok(CastRoundMode::UNKNOWN);
        }
        RoundMode::parse_name(t)
            .map(CastRoundMode::from)
            .map_err(|_| AscendError::UnknownValue {
                what: "round mode",
                name: t.to_string(),
                valid: CastRoundMode::VALID,
            })
    }
}

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
            _ => Err(AscendError::UnknownValue {
                what: "sat mode",
                name: s.trim().to_string(),
                valid: "SAT NO_SAT UNKNOWN",
            }),
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
            _ => Err(AscendError::UnknownValue {
                what: "RegLayout",
                name: s.trim().to_string(),
                valid: "ZERO ONE TWO THREE UNKNOWN",
            }),
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

impl fmt::Display for MaskMergeMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for MaskMergeMode {
    type Err = AscendError;
    /// `ZEROING` (or nothing) and `MERGING` (which Cast then rejects), with or without the
    /// `MaskMergeMode::` prefix, any case.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let l = s.trim().to_ascii_uppercase();
        let l = l.strip_prefix("MASKMERGEMODE::").unwrap_or(&l);
        match l {
            "" | "ZEROING" => Ok(MaskMergeMode::Zeroing),
            "MERGING" => Ok(MaskMergeMode::Merging),
            _ => Err(AscendError::UnknownValue {
                what: "MaskMergeMode",
                name: s.trim().to_string(),
                valid: "ZEROING (MERGING exists but Cast rejects it)",
            }),
        }
    }
}

/// `CastTrait { layoutMode, satMode, mrgMode, roundMode }` of the Reg (MicroAPI) `Cast`.
///
/// ```
/// use npusim_ascend::{CastTrait, RegLayout, SatMode};
/// use npusim_numerics::RoundMode;
/// // the trait of the 950 `Cast` reference's CastVF example
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
