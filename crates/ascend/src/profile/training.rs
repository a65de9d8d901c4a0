//! Atlas training series: the training `Cast` page, table 4, the only conversions its `Cast`
//! supports.
//!
//! Seed 002's larger "precision conversion rules" table describes rules shared with other
//! products; it is not a list of what the training series supports.

use npusim_numerics::RoundMode::{self, Ceil, Floor, None as CastNone, Odd, Rint, Round, Trunc};
use npusim_numerics::{CastPolicy, InfRule, IntOverflow, NanRule, Overflow};

use super::{PairRule, SatSupport, row};
use crate::dtype::DType::*;
use crate::element::CastOptions;

const NONE_ONLY: &[RoundMode] = &[CastNone];
const TO_INT: &[RoundMode] = &[Rint, Floor, Ceil, Round, Trunc];
const TO_INT8: &[RoundMode] = &[Floor, Ceil, Round, Trunc, CastNone];

const fn exact(src: crate::DType, dst: crate::DType) -> PairRule {
    PairRule {
        exact: true,
        ..row(src, dst, NONE_ONLY, SatSupport::NotApplicable)
    }
}

/// Seed 002 table 4: (src, dst, accepted round modes).
pub static TRAINING_PAIRS: [PairRule; 10] = [
    exact(Half, Float),
    row(Half, Int32, TO_INT, SatSupport::NotApplicable),
    row(Half, Int8, TO_INT8, SatSupport::NotApplicable),
    row(Half, UInt8, TO_INT8, SatSupport::NotApplicable),
    row(Float, Half, &[CastNone, Odd], SatSupport::NotApplicable),
    row(Float, Int32, TO_INT, SatSupport::NotApplicable),
    exact(UInt8, Half),
    exact(Int8, Half),
    row(Int32, Float, NONE_ONLY, SatSupport::NotApplicable),
    PairRule {
        ignores_mode: true,
        note: "needs SetDeqScale; the mode argument is ignored (seed 002 passes CAST_RINT in its example, table 4 lists CAST_NONE)",
        ..row(Int32, Half, NONE_ONLY, SatSupport::NotApplicable)
    },
];

/// The training series: everything saturates, NaN → 0 (undocumented; npusim's choice), unless
/// Inf/NaN mode.
pub(crate) fn training_policy(round: RoundMode, options: &CastOptions) -> CastPolicy {
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
