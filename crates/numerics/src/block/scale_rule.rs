//! The rules that choose an MX block's shared e8m0 scale from the block's largest magnitude.

use std::fmt;
use std::str::FromStr;

use super::error::BlockError;
use super::f32_arith::{div_to_f32, exact_f32};
use crate::exact::Exact;

/// How an MX block's shared exponent `e` (scale X = 2^e) is chosen from amax = max |V_i|.
///
/// Every rule clamps `e` to the e8m0 range [-127, 127]; an all-zero block gets -127.
///
/// ```
/// use npusim_numerics::block::ScaleRule;
/// assert_eq!("rceil".parse::<ScaleRule>().unwrap(), ScaleRule::Rceil);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum ScaleRule {
    /// OCP MX v1.0: e = floor(log2(amax)) - emax_elem. Large elements may saturate.
    #[default]
    Floor,
    /// e = ceil(log2(amax)) - emax_elem: rounds the scale up so nothing saturates.
    Ceil,
    /// e = floor(log2(R(amax))) - emax_elem with R rounding amax to the element's mantissa
    /// width, ties away from zero.
    Even,
    /// NVIDIA's hardware rule: e = ceil(log2(fl32(amax / max_normal))), as
    /// `cvt.rp.satfinite.ue8m0x2.f32` computes it (exactly).
    Rceil,
}

impl ScaleRule {
    /// Every rule.
    pub const ALL: [ScaleRule; 4] = [
        ScaleRule::Floor,
        ScaleRule::Ceil,
        ScaleRule::Even,
        ScaleRule::Rceil,
    ];

    /// Canonical lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            ScaleRule::Floor => "floor",
            ScaleRule::Ceil => "ceil",
            ScaleRule::Even => "even",
            ScaleRule::Rceil => "rceil",
        }
    }

    /// Parses a name, case-insensitive.
    pub fn parse_name(s: &str) -> Result<ScaleRule, BlockError> {
        let l = s.trim().to_ascii_lowercase();
        ScaleRule::ALL
            .into_iter()
            .find(|r| r.name() == l)
            .ok_or_else(|| BlockError::UnknownScaleRule {
                name: s.to_string(),
                valid: ScaleRule::ALL.map(ScaleRule::name).join(" "),
            })
    }

    /// The unclamped shared exponent for a finite amax (`None` for amax = 0).
    ///
    /// `elem` describes the element grid: its top binade `emax`, mantissa bits `man` and max
    /// normal `max_sig × 2^max_exp` (odd `max_sig`).
    pub(crate) fn exponent(self, amax: &Exact, elem: &ElementGrid) -> Option<i32> {
        let Exact::Finite { sig, .. } = *amax else {
            return None;
        };
        let binade = amax.binade()?;
        let sig_bits = 64 - sig.leading_zeros();
        let e = match self {
            ScaleRule::Floor => binade - elem.emax,
            ScaleRule::Ceil => binade + i32::from(!sig.is_power_of_two()) - elem.emax,
            ScaleRule::Even => {
                // R(amax) reaches the next binade iff the top man + 2 significand bits are
                // all ones (mantissa ≥ 2 - 2^-(man+1)).
                let keep = elem.man + 2;
                let top = if sig_bits >= keep {
                    sig >> (sig_bits - keep)
                } else {
                    sig << (keep - sig_bits)
                };
                let up = top == (1u64 << keep) - 1;
                binade + i32::from(up) - elem.emax
            }
            ScaleRule::Rceil => {
                let d = div_to_f32(amax, elem.max_sig, -elem.max_exp);
                if d == 0.0 {
                    return Some(i32::MIN / 2);
                }
                if d.is_infinite() {
                    return Some(i32::MAX / 2);
                }
                let dx = exact_f32(d);
                let b = dx.binade()?;
                let Exact::Finite { sig: dsig, .. } = dx else {
                    return None;
                };
                b + i32::from(!dsig.is_power_of_two())
            }
        };
        Some(e)
    }
}

/// What a scale rule needs to know about the element format.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ElementGrid {
    /// Binade of the largest normal element (emax_elem).
    pub emax: i32,
    /// Mantissa bits of the top binade.
    pub man: u32,
    /// Largest normal element = `max_sig × 2^max_exp`, `max_sig` odd.
    pub max_sig: u64,
    /// See `max_sig`.
    pub max_exp: i32,
}

impl fmt::Display for ScaleRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ScaleRule {
    type Err = BlockError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ScaleRule::parse_name(s)
    }
}
