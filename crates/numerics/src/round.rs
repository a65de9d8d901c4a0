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

/// What a rounding step cut off, as a fraction of one unit of the kept precision: the four
/// classes every deterministic mode decides on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Loss {
    /// Nothing was cut off: the value is exact.
    ExactlyZero,
    /// Less than half a unit.
    LessThanHalf,
    /// Exactly half a unit (a tie).
    ExactlyHalf,
    /// More than half a unit.
    MoreThanHalf,
}

const HALF: u64 = 1 << 63;

impl Loss {
    /// The class of a discarded fraction left-aligned in 64 bits (bit 0 sticky).
    pub const fn of_fraction(frac: u64) -> Loss {
        if frac == 0 {
            Loss::ExactlyZero
        } else if frac < HALF {
            Loss::LessThanHalf
        } else if frac == HALF {
            Loss::ExactlyHalf
        } else {
            Loss::MoreThanHalf
        }
    }
}

/// An exact value cut at a quantum: `n` whole units kept, and what was cut off.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cut {
    /// Units of the quantum that were kept (the truncated magnitude), modulo 2^128.
    pub n: u128,
    /// Whether the kept units did not fit 128 bits (`n` then holds their low 128 bits).
    pub huge: bool,
    /// The discarded fraction of one unit, left-aligned in 64 bits; bit 0 is sticky
    /// (set when anything beyond 64 fraction bits was non-zero).
    pub frac: u64,
}

impl Cut {
    /// Cuts `sig × 2^exp` at quantum `2^q`.
    pub fn new(sig: u128, exp: i32, q: i32) -> Cut {
        if exp >= q {
            let d = (exp - q) as u32;
            let huge = d >= 128 || (d > 0 && sig >> (128 - d) != 0);
            return Cut {
                n: if d >= 128 { 0 } else { sig << d },
                huge,
                frac: 0,
            };
        }
        // The fraction cut off is rest / 2^s; left-align it in 64 bits, the rest is sticky.
        let s = (q - exp) as u32;
        let (n, rest) = if s < 128 {
            (sig >> s, sig & ((1u128 << s) - 1))
        } else {
            (0, sig)
        };
        let frac = if s <= 64 {
            (rest as u64) << (64 - s)
        } else {
            let shift = s - 64;
            let (top, lost) = if shift < 128 {
                ((rest >> shift) as u64, rest & ((1u128 << shift) - 1) != 0)
            } else {
                (0, rest != 0)
            };
            top | u64::from(lost)
        };
        Cut {
            n,
            huge: false,
            frac,
        }
    }

    /// The class of what was cut off.
    pub const fn loss(&self) -> Loss {
        Loss::of_fraction(self.frac)
    }
}

/// Whether to add one unit to the truncated magnitude: the per-mode decision.
///
/// `lsb_odd` is the last bit of the truncated result's code; `frac` and `entropy` are only read
/// by [`RoundMode::Hybrid`], which compares the top bits of the discarded fraction with the
/// per-element random threshold.
pub(crate) fn rounds_up(
    mode: RoundMode,
    negative: bool,
    lsb_odd: bool,
    cut: &Cut,
    stochastic: Stochastic,
    entropy: u32,
) -> bool {
    let loss = cut.loss();
    let inexact = loss != Loss::ExactlyZero;
    match mode {
        RoundMode::Rint | RoundMode::None => match loss {
            Loss::MoreThanHalf => true,
            Loss::ExactlyHalf => lsb_odd,
            Loss::ExactlyZero | Loss::LessThanHalf => false,
        },
        RoundMode::Round => matches!(loss, Loss::ExactlyHalf | Loss::MoreThanHalf),
        RoundMode::Floor => negative && inexact,
        RoundMode::Ceil => !negative && inexact,
        RoundMode::Trunc => false,
        RoundMode::Odd => inexact && !lsb_odd,
        RoundMode::Hybrid => {
            let bits = u32::from(stochastic.bits.clamp(1, 32));
            let top = cut.frac >> (64 - bits);
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
        assert_eq!(c.loss(), Loss::MoreThanHalf);
        let cut = |n, frac| Cut {
            n,
            huge: false,
            frac,
        };
        // far below the quantum: only the sticky bit survives
        assert_eq!(Cut::new(1, -300, 0), cut(0, 1));
        assert_eq!(Cut::new(1, -300, 0).loss(), Loss::LessThanHalf);
        // exactly half, with the cut 64 bits down
        assert_eq!(Cut::new(1 << 63, -64, 0), cut(0, HALF));
        assert_eq!(Cut::new(1 << 63, -64, 0).loss(), Loss::ExactlyHalf);
        // a quarter plus a bit lost beyond 64 fraction bits: the sticky bit records it
        assert_eq!(Cut::new((1 << 63) | 1, -64, 1), cut(0, (1 << 62) | 1));
        // a 128-bit significand cut 100 bits down: the top 64 remainder bits plus sticky
        let c = Cut::new((1u128 << 127) | 1, 0, 100);
        assert_eq!(c, cut(1 << 27, 1));
        // kept units beyond 128 bits are flagged
        assert!(Cut::new(3, 127, 0).huge);
        assert!(!Cut::new(1, 127, 0).huge);
        assert_eq!(Cut::new(0, 0, 0).loss(), Loss::ExactlyZero);
    }

    #[test]
    fn mode_names_round_trip() {
        for m in RoundMode::ALL {
            assert_eq!(RoundMode::parse_name(m.name()).ok(), Some(m));
            let cast_spelling = format!("CAST_{}", m.name().to_uppercase());
            assert_eq!(RoundMode::parse_name(&cast_spelling).ok(), Some(m));
        }
        let e = RoundMode::parse_name("nearest").unwrap_err().to_string();
        assert!(
            e.contains("nearest") && e.contains("rint") && e.contains("hybrid"),
            "{e}"
        );
    }
}
