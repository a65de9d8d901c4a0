//! Rounding modes and the one rounding routine every conversion ends in.
//!
//! The shape follows IEEE 754 practice: cut the exact value at the destination's quantum,
//! classify what was cut off (nothing / less than half / exactly half / more than half of a
//! unit), then let the mode decide from that class, the sign and the last kept bit whether to
//! add one unit. `odd`, `round` (ties away) and the stochastic `hybrid` are just more deciders.

use std::fmt;
use std::str::FromStr;

use crate::error::NumericsError;

/// How a value that falls between two representable neighbours is resolved.
///
/// ```
/// use npusim_numerics::{RoundMode, Format, CastPolicy, convert};
/// // 2.5 to an integer format under each mode:
/// let two_and_half = 0x4020_0000u64; // f32 2.5
/// let to_i8 = |m| convert(two_and_half, Format::F32, Format::I8, &CastPolicy::new(m)) as i8;
/// assert_eq!(to_i8(RoundMode::Rint), 2);
/// assert_eq!(to_i8(RoundMode::Round), 3);
/// assert_eq!(to_i8(RoundMode::Floor), 2);
/// assert_eq!(to_i8(RoundMode::Ceil), 3);
/// assert_eq!(to_i8(RoundMode::Trunc), 2);
/// assert_eq!(to_i8(RoundMode::Odd), 3);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum RoundMode {
    /// Round to nearest, ties to even (the code whose last bit is 0). `CAST_RINT`.
    #[default]
    Rint,
    /// Round to nearest, ties away from zero. `CAST_ROUND`.
    Round,
    /// Toward −∞. `CAST_FLOOR`.
    Floor,
    /// Toward +∞. `CAST_CEIL`.
    Ceil,
    /// Toward zero. `CAST_TRUNC`.
    Trunc,
    /// Von Neumann rounding ("jamming", round to odd): if inexact, take the neighbour whose
    /// code is odd. Exact values are kept. `CAST_ODD`.
    Odd,
    /// Stochastic rounding: add one unit when the discarded fraction beats a per-element random
    /// threshold (see [`Stochastic`]). `CAST_HYBRID`; on HiF8 it is ties-away in the
    /// 3-mantissa-bit band, as the format defines.
    Hybrid,
    /// `CAST_NONE`: no rounding when exact, otherwise the same as [`RoundMode::Rint`].
    None,
}

impl RoundMode {
    /// Every mode, in declaration order.
    pub const ALL: [RoundMode; 8] = [
        RoundMode::Rint,
        RoundMode::Round,
        RoundMode::Floor,
        RoundMode::Ceil,
        RoundMode::Trunc,
        RoundMode::Odd,
        RoundMode::Hybrid,
        RoundMode::None,
    ];

    /// The deterministic modes (all but `hybrid`; `none` is the same as `rint`).
    pub const DETERMINISTIC: [RoundMode; 6] = [
        RoundMode::Rint,
        RoundMode::Round,
        RoundMode::Floor,
        RoundMode::Ceil,
        RoundMode::Trunc,
        RoundMode::Odd,
    ];

    /// Canonical lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            RoundMode::Rint => "rint",
            RoundMode::Round => "round",
            RoundMode::Floor => "floor",
            RoundMode::Ceil => "ceil",
            RoundMode::Trunc => "trunc",
            RoundMode::Odd => "odd",
            RoundMode::Hybrid => "hybrid",
            RoundMode::None => "none",
        }
    }

    /// The AscendC spelling (`CAST_RINT`, ...).
    pub const fn vendor_name(self) -> &'static str {
        match self {
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

    /// Parses a name: canonical, the `CAST_*` spelling, or an IEEE abbreviation
    /// (`rne`, `rna`, `rtz`, `rd`, `ru`, `rto`, `sr`), case-insensitive.
    pub fn parse_name(s: &str) -> Result<RoundMode, NumericsError> {
        let l = s.trim().to_ascii_lowercase();
        let l = l.strip_prefix("roundmode::").unwrap_or(&l);
        let l = l.strip_prefix("cast_").unwrap_or(l);
        Ok(match l {
            "rint" | "rne" | "nearest_even" | "ties_even" => RoundMode::Rint,
            "round" | "rna" | "nearest_away" | "ties_away" => RoundMode::Round,
            "floor" | "rd" | "down" | "rtn" => RoundMode::Floor,
            "ceil" | "ru" | "up" | "rtp" => RoundMode::Ceil,
            "trunc" | "rtz" | "toward_zero" => RoundMode::Trunc,
            "odd" | "rto" | "von_neumann" => RoundMode::Odd,
            "hybrid" | "sr" | "stochastic" => RoundMode::Hybrid,
            "none" => RoundMode::None,
            _ => {
                return Err(NumericsError::UnknownRoundMode {
                    name: s.to_string(),
                    valid: RoundMode::ALL.map(|m| m.name()).join(" "),
                });
            }
        })
    }
}

impl fmt::Display for RoundMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for RoundMode {
    type Err = NumericsError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RoundMode::parse_name(s)
    }
}

/// How the stochastic (`hybrid`) decision compares the discarded fraction with the threshold.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StochasticCompare {
    /// Add a unit when `fraction > threshold`: exact values never move, P(up) = fraction.
    Greater,
    /// Add a unit when `fraction ≥ threshold` (the AscendC HiF8 pseudocode's literal rule).
    GreaterOrEqual,
}

/// Parameters of stochastic rounding.
///
/// The top `bits` bits of the discarded fraction (a fixed-point number in `[0, 2^bits)`) are
/// compared with the low `bits` bits of the per-element random value (the *entropy*).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stochastic {
    /// Width of the compared fraction, 1..=32.
    pub bits: u8,
    /// The comparison.
    pub compare: StochasticCompare,
}

impl Default for Stochastic {
    fn default() -> Self {
        Stochastic {
            bits: 32,
            compare: StochasticCompare::Greater,
        }
    }
}

/// An exact value cut at a quantum: `n` whole units kept, and what was cut off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    /// Units of the quantum that were kept (the truncated magnitude).
    pub n: u64,
    /// The discarded fraction of one unit, left-aligned in 64 bits; bit 0 is sticky
    /// (set when anything beyond 64 fraction bits was non-zero).
    pub frac: u64,
}

impl Cut {
    /// Cuts `sig × 2^exp` at quantum `2^q`. The caller guarantees the kept part fits 64 bits
    /// (`exp - q < 64 - bit_len(sig)` when `exp > q`).
    pub fn new(sig: u64, exp: i32, q: i32) -> Cut {
        if exp >= q {
            return Cut {
                n: sig << (exp - q),
                frac: 0,
            };
        }
        let s = (q - exp) as u32;
        if s < 64 {
            Cut {
                n: sig >> s,
                frac: sig << (64 - s),
            }
        } else if s < 128 {
            let t = s - 64;
            let frac = sig >> t;
            let lost = t > 0 && sig << (64 - t) != 0;
            Cut {
                n: 0,
                frac: frac | u64::from(lost),
            }
        } else {
            Cut {
                n: 0,
                frac: u64::from(sig != 0),
            }
        }
    }
}

const HALF: u64 = 1 << 63;

/// Whether to add one unit to the truncated magnitude.
///
/// `lsb_odd` is the last bit of the truncated result's code; `entropy` is only read by
/// [`RoundMode::Hybrid`].
pub(crate) fn rounds_up(
    mode: RoundMode,
    negative: bool,
    lsb_odd: bool,
    frac: u64,
    stochastic: Stochastic,
    entropy: u32,
) -> bool {
    match mode {
        RoundMode::Rint | RoundMode::None => frac > HALF || (frac == HALF && lsb_odd),
        RoundMode::Round => frac >= HALF,
        RoundMode::Floor => negative && frac != 0,
        RoundMode::Ceil => !negative && frac != 0,
        RoundMode::Trunc => false,
        RoundMode::Odd => frac != 0 && !lsb_odd,
        RoundMode::Hybrid => {
            let bits = u32::from(stochastic.bits.clamp(1, 32));
            let top = frac >> (64 - bits);
            let threshold = u64::from(entropy) & ((1u64 << bits) - 1);
            match stochastic.compare {
                StochasticCompare::Greater => top > threshold,
                StochasticCompare::GreaterOrEqual => top >= threshold,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_classifies_the_discarded_part() {
        // 0b1011 × 2^0 cut at 2^2: keep 0b10, discard 0b11/4 = 0.75
        let c = Cut::new(0b1011, 0, 2);
        assert_eq!(c.n, 0b10);
        assert_eq!(c.frac, 0b11 << 62);
        // far below the quantum: only the sticky bit survives
        assert_eq!(Cut::new(1, -300, 0), Cut { n: 0, frac: 1 });
        // exactly half, with the cut 64 bits down
        assert_eq!(Cut::new(1 << 63, -64, 0), Cut { n: 0, frac: HALF });
        // a quarter plus a bit lost beyond 64 fraction bits: the sticky bit records it
        let c = Cut::new((1 << 63) | 1, -64, 1);
        assert_eq!(
            c,
            Cut {
                n: 0,
                frac: (1 << 62) | 1
            }
        );
    }

    #[test]
    fn mode_names_round_trip() {
        for m in RoundMode::ALL {
            assert_eq!(RoundMode::parse_name(m.name()).ok(), Some(m));
            assert_eq!(RoundMode::parse_name(m.vendor_name()).ok(), Some(m));
        }
        let e = RoundMode::parse_name("nearest").unwrap_err().to_string();
        assert!(
            e.contains("nearest") && e.contains("rint") && e.contains("hybrid"),
            "{e}"
        );
    }
}
