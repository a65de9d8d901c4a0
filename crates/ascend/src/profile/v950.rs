//! Ascend 950: the 950 `Cast` page, tables 3–6, plus the rows npusim adds from the
//! newer AscendC documentation and library (each marked in `note`).

use npusim_numerics::RoundMode::{self, Hybrid, None as CastNone, Odd, Rint, Round};

use npusim_numerics::{
    CastPolicy, InfRule, IntOverflow, NanRule, Overflow, Stochastic, StochasticCompare,
    UnsignedNegative,
};

use super::{PairRule, R5, SatSupport, row};
use crate::ctrl::{CTRL_FLOAT_NO_SAT, CTRL_FP8_NAN_KEEP, CTRL_INT_TRUNCATE, Ctrl};
use crate::dtype::DType::{self, *};
use crate::element::CastOptions;
use crate::modes::SatMode;

use SatSupport::{Both, NotApplicable as NA, SaturateOnly};

const EXACT: &[RoundMode] = &[];
/// Rows where the AscendC library also accepts CAST_NONE and treats it as CAST_RINT.
const R5_NONE: &[RoundMode] = &[
    Rint,
    Round,
    RoundMode::Floor,
    RoundMode::Ceil,
    RoundMode::Trunc,
    CastNone,
];
const TO_HALF: &[RoundMode] = &[
    Odd,
    Rint,
    Round,
    RoundMode::Floor,
    RoundMode::Ceil,
    RoundMode::Trunc,
    CastNone,
];
/// `rule` with the note that the AscendC library also accepts CAST_NONE there, as CAST_RINT.
const fn none_as_rint(rule: PairRule) -> PairRule {
    PairRule {
        note: "CAST_NONE accepted as CAST_RINT (AscendC library)",
        ..rule
    }
}
const TO_HIF8: &[RoundMode] = &[Round, Hybrid];
const RINT_ONLY: &[RoundMode] = &[Rint];

/// Seed 001 tables 3 (float→int), 4 (float→float), 5 (int→float) and 6 (int→int).
pub static V950_PAIRS: [PairRule; 56] = [
    // Table 3: float -> int
    none_as_rint(row(Half, Int4, R5_NONE, Both)),
    row(Float, Int16, R5, Both),
    none_as_rint(row(Half, Int8, R5_NONE, Both)),
    none_as_rint(row(Half, UInt8, R5_NONE, Both)),
    row(Float, Int64, R5, Both),
    row(Float, Int32, R5, Both),
    row(Half, Int16, R5, Both),
    row(Half, Int32, R5, NA),
    PairRule {
        note: "not in seed 001; from the newer AscendC Cast documentation and library (spec 6.2 row 6)",
        ..row(BFloat16, Int32, R5, Both)
    },
    // Table 4: float -> float
    row(Half, Float, EXACT, NA),
    row(BFloat16, Float, EXACT, NA),
    row(HiFloat8, Half, EXACT, NA),
    row(Float, BFloat16, R5, Both),
    none_as_rint(row(Float, Half, TO_HALF, Both)),
    row(Half, HiFloat8, TO_HIF8, Both),
    row(Float, HiFloat8, TO_HIF8, Both),
    row(Float, Fp8E5M2, RINT_ONLY, Both),
    row(Float, Fp8E4M3, RINT_ONLY, Both),
    row(HiFloat8, Float, EXACT, NA),
    row(Fp8E4M3, Float, EXACT, NA),
    row(Fp8E5M2, Float, EXACT, NA),
    row(BFloat16, Fp4E2M1, R5, NA),
    row(BFloat16, Fp4E1M2, R5, NA),
    row(Fp4E2M1, BFloat16, EXACT, NA),
    row(Fp4E1M2, BFloat16, EXACT, NA),
    row(BFloat16, Half, R5, Both),
    row(Half, BFloat16, R5, NA),
    row(BFloat16, Fp8E8M0, EXACT, NA),
    row(Fp8E8M0, BFloat16, EXACT, NA),
    // Table 5: int -> float
    row(Int4, Half, EXACT, NA),
    row(Int4, BFloat16, EXACT, NA),
    row(UInt8, Half, EXACT, NA),
    row(Int8, Half, EXACT, NA),
    row(Int16, Float, EXACT, NA),
    row(Int64, Float, R5, NA),
    row(Int16, Half, R5, NA),
    row(Int32, Float, R5, NA),
    // Table 6: int -> int
    row(UInt32, UInt8, EXACT, Both),
    row(Int32, UInt8, EXACT, Both),
    row(UInt16, UInt8, EXACT, Both),
    row(Int16, UInt8, EXACT, Both),
    row(UInt32, UInt16, EXACT, Both),
    row(UInt32, Int16, EXACT, Both),
    row(Int32, UInt16, EXACT, Both),
    row(Int32, Int16, EXACT, Both),
    row(UInt8, UInt16, EXACT, NA),
    row(Int8, Int16, EXACT, NA),
    row(UInt16, UInt32, EXACT, NA),
    row(Int16, UInt32, EXACT, SaturateOnly),
    row(Int16, Int32, EXACT, NA),
    row(Int32, Int64, EXACT, NA),
    row(UInt8, UInt32, EXACT, NA),
    row(Int8, Int32, EXACT, NA),
    PairRule {
        note: "seed 001 prints no sat mode for this row; SAT and NO_SAT accepted as the AscendC library does (spec A-N3)",
        ..row(Int16, Int4, EXACT, Both)
    },
    row(Int4, Int16, EXACT, NA),
    row(Int64, Int32, EXACT, Both),
];

/// Conversions the 950 LocalTensor API adds to the Reg API table (it is emulated on the Reg API).
pub static V950_LOCAL_TENSOR_EXTRA: [PairRule; 2] = [
    PairRule {
        note: "LocalTensor API only: float -> float rounds to an integral value (seed 002 table 1)",
        ..row(Float, Float, R5, NA)
    },
    PairRule {
        ignores_mode: true,
        note: "LocalTensor API only: needs SetDeqScale; the mode argument is ignored",
        ..row(Int32, Half, R5, NA)
    },
];

/// Ascend 950: the 950 `Cast` page's constraints, with saturation chosen by CTRL.
pub(crate) fn v950_policy(
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
        // float32 outputs are never saturating (the 950 `Cast` page); nothing listed can
        // overflow them.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_pair_is_listed_twice() {
        let all: Vec<_> = V950_PAIRS
            .iter()
            .chain(V950_LOCAL_TENSOR_EXTRA.iter())
            .collect();
        for (i, a) in all.iter().enumerate() {
            for b in &all[i + 1..] {
                assert!(
                    !(a.src == b.src && a.dst == b.dst),
                    "{} -> {}",
                    a.src,
                    a.dst
                );
            }
        }
    }
}
