//! Cast policies: the rounding mode plus what overflow, ±Inf and NaN become.
//!
//! Numerics knows no vendor. A vendor crate describes its hardware's behaviour by building a
//! [`CastPolicy`] and handing it to [`crate::convert()`]; the defaults here are the IEEE 754
//! behaviour that `rustc_apfloat`, numpy and ml_dtypes share for the formats they support.

use crate::round::{RoundMode, Stochastic};

/// What a finite value whose rounded magnitude exceeds the destination's largest finite
/// value becomes (float destinations).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Overflow {
    /// IEEE 754: the rounding direction decides. Nearest modes and `hybrid` give ±Inf;
    /// `trunc` and `odd` give ±max; `floor` gives +max / −Inf; `ceil` gives +Inf / −max.
    /// A destination without Inf gives NaN instead (e4m3fn), or ±max if it has no NaN either (fp4).
    #[default]
    Ieee,
    /// Clamp to ±max finite.
    Saturate,
}

/// What ±Inf becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum InfRule {
    /// ±Inf where the destination has it; otherwise handled like an overflow (see [`Overflow`]).
    #[default]
    Keep,
    /// ±max finite.
    Saturate,
}

/// What NaN becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum NanRule {
    /// A NaN of the destination: sign kept, quiet bit set, top payload bits kept. A destination
    /// without NaN (fp4) gives +0, an integer destination gives 0.
    #[default]
    Keep,
    /// +0 (the smallest value for e8m0, which has no zero).
    Zero,
}

/// What an integer destination does with an out-of-range value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum IntOverflow {
    /// Clamp to [min, max] (negative values → 0 for unsigned).
    #[default]
    Saturate,
    /// Keep the low bits of the rounded integer's two's complement (C-style truncation).
    Wrap,
}

/// What a negative value becomes in a destination without a sign bit (e8m0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum UnsignedNegative {
    /// NaN (the value cannot be represented).
    #[default]
    Nan,
    /// The magnitude is used: the sign is dropped.
    Magnitude,
}

/// Everything a conversion needs besides the source and destination formats.
///
/// ```
/// use npusim_numerics::{CastPolicy, RoundMode, Format, convert};
/// let big = u64::from(1000.0f32.to_bits());
/// // IEEE default: e4m3fn has no Inf, so overflow gives NaN (0x7F) ...
/// assert_eq!(convert(big, Format::F32, Format::F8E4M3FN, &CastPolicy::default()), 0x7F);
/// // ... a saturating policy clamps to 448 (0x7E).
/// let sat = CastPolicy::saturating(RoundMode::Rint);
/// assert_eq!(convert(big, Format::F32, Format::F8E4M3FN, &sat), 0x7E);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct CastPolicy {
    /// Rounding mode.
    pub round: RoundMode,
    /// Finite overflow into a float destination.
    pub overflow: Overflow,
    /// ±Inf inputs.
    pub inf: InfRule,
    /// NaN inputs.
    pub nan: NanRule,
    /// Out-of-range values into an integer destination.
    pub int_overflow: IntOverflow,
    /// Negative values into an unsigned float destination (e8m0).
    pub unsigned_negative: UnsignedNegative,
    /// Parameters of [`RoundMode::Hybrid`].
    pub stochastic: Stochastic,
}

impl CastPolicy {
    /// The IEEE default policy with the given rounding mode (integers saturate).
    pub fn new(round: RoundMode) -> CastPolicy {
        CastPolicy {
            round,
            ..CastPolicy::default()
        }
    }

    /// Everything saturates: overflow and ±Inf clamp to ±max, integers clamp; NaN stays NaN.
    pub fn saturating(round: RoundMode) -> CastPolicy {
        CastPolicy {
            round,
            overflow: Overflow::Saturate,
            inf: InfRule::Saturate,
            ..CastPolicy::default()
        }
    }

    /// Nothing saturates: IEEE overflow for floats, wrapping for integers.
    pub fn non_saturating(round: RoundMode) -> CastPolicy {
        CastPolicy {
            round,
            int_overflow: IntOverflow::Wrap,
            ..CastPolicy::default()
        }
    }

    /// The same policy with another rounding mode.
    pub fn with_round(self, round: RoundMode) -> CastPolicy {
        CastPolicy { round, ..self }
    }
}
