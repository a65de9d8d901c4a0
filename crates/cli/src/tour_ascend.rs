//! The tour's Ascend part: golden cases that need an Ascend rule (run through npusim-ascend's
//! product profiles), and seed 002's two 512-lane LocalTensor examples.

use npusim_ascend::seed_examples::{run as run_example, seed002_examples};
use npusim_ascend::{
    AiCore, CastOptions, Ctrl, DType, ElementCast, HybridThreshold, Product, SatMode,
};
use npusim_numerics::Format::{self, *};
use npusim_numerics::RoundMode;

use crate::tour::{CEIL, Case, FLOOR, NONE, RINT, ROUND, Rule, TRUNC, c};

fn dtype(f: Format) -> DType {
    DType::from_format(f).unwrap_or(DType::Float)
}

/// A Reg-API element cast; an illegal combination yields an impossible code so the row fails.
fn reg(case: &Case, sat: SatMode, ctrl: Ctrl, hybrid: HybridThreshold) -> u64 {
    let options = CastOptions {
        hybrid,
        ..CastOptions::default()
    };
    ElementCast::reg(
        dtype(case.src),
        dtype(case.dst),
        Some(case.mode),
        sat,
        &ctrl,
        &options,
    )
    .map_or(u64::MAX, |e| e.apply(case.src_bits, 0))
}

fn lt(product: Product, case: &Case, deq_scale: Option<u16>) -> u64 {
    let mut core = AiCore::new(product);
    if let Some(s) = deq_scale {
        core.set_deq_scale(s);
    }
    core.resolve(dtype(case.src), dtype(case.dst), case.mode)
        .map_or(u64::MAX, |e| e.apply(case.src_bits, 0))
}

/// The 950 LocalTensor API (reset CTRL: saturating).
const LT950: Rule = Rule::Custom {
    name: "950 LT",
    cast: |k| lt(Product::Ascend950, k, None),
};
/// The Atlas training LocalTensor API.
const TRAINING: Rule = Rule::Custom {
    name: "train",
    cast: |k| lt(Product::AtlasTraining, k, None),
};
/// Reg API, reset CTRL, SatMode::UNKNOWN.
const REG: Rule = Rule::Custom {
    name: "950 reg",
    cast: |k| {
        reg(
            k,
            SatMode::Unknown,
            Ctrl::default(),
            HybridThreshold::default(),
        )
    },
};
/// Reg API with `CTRL[60]` = 0 and SatMode::SAT.
const REG_SAT: Rule = Rule::Custom {
    name: "reg SAT",
    cast: |k| {
        reg(
            k,
            SatMode::Sat,
            Ctrl::per_instruction(),
            HybridThreshold::default(),
        )
    },
};
/// Reg API with `CTRL[60]` = 0, SatMode::NO_SAT and the literal hybrid threshold.
const REG_HYBRID: Rule = Rule::Custom {
    name: "reg HR",
    cast: |k| {
        reg(
            k,
            SatMode::NoSat,
            Ctrl::per_instruction(),
            HybridThreshold::InputLowBits,
        )
    },
};
/// SetDeqScale(2.0), then the training LocalTensor API.
const DEQ2: Rule = Rule::Custom {
    name: "deq x2",
    cast: |k| lt(Product::AtlasTraining, k, Some(0x4000)),
};
/// SetDeqScale(0.5), then the training LocalTensor API.
const DEQ_HALF: Rule = Rule::Custom {
    name: "deq x.5",
    cast: |k| lt(Product::AtlasTraining, k, Some(0x3800)),
};

const HYBRID: RoundMode = RoundMode::Hybrid;

/// Golden cases that need an Ascend profile, plus training-series checks of seed 002 table 4.
#[rustfmt::skip]
pub static ASCEND_CASES: &[Case] = &[
    c("G001", "S2 float->float: round to an integral float", F32, 0x3f000000, F32, RINT, LT950, 0x0, ""),
    c("G002", "S2 float->float: round to an integral float", F32, 0x3f000000, F32, FLOOR, LT950, 0x0, ""),
    c("G003", "S2 float->float: round to an integral float", F32, 0x3f000000, F32, CEIL, LT950, 0x3f800000, ""),
    c("G004", "S2 float->float: round to an integral float", F32, 0x3f000000, F32, ROUND, LT950, 0x3f800000, ""),
    c("G005", "S2 float->float: round to an integral float", F32, 0x3f000000, F32, TRUNC, LT950, 0x0, ""),
    c("G046", "S2 table 4 on the training series", F16, 0x57f8, I8, ROUND, TRAINING, 0x7f, "half 127.5 -> int8 CAST_ROUND: ties away to 128, saturated to 127"),
    c("G073", "S2 table 4 on the training series", I32, 0x2000003, F32, NONE, TRAINING, 0x4c000001, "int32 2^25+3 -> float: CAST_NONE rounds to nearest even"),
    c("G110", "S2 table 4 on the training series", F32, 0x42f67777, F16, crate::tour::ODD, TRAINING, 0x57b3, "float 123.23333 -> half CAST_ODD"),
    c("G151", "S1 e8m0 constraints (950 Reg API)", BF16, 0x7f80, F8E8M0, NONE, REG, 0xfe, "bf16 +Inf -> e8m0 max 0xFE as seed 001 says (the library's shifts would give 0xFF)"),
    c("G152", "S1 e8m0 constraints (950 Reg API)", BF16, 0x7fc0, F8E8M0, NONE, REG, 0xff, ""),
    c("G195", "950 bf16->e8m0: the exponent field", BF16, 0x3fc0, F8E8M0, NONE, REG, 0x7f, "1.5 truncates to 2^0"),
    c("G196", "950 bf16->e8m0: the exponent field", BF16, 0x4040, F8E8M0, NONE, REG, 0x80, ""),
    c("G197", "950 bf16->e8m0: the exponent field", BF16, 0xc000, F8E8M0, NONE, REG, 0x80, "the sign is dropped"),
    c("G198", "950 bf16->e8m0: the exponent field", BF16, 0x0, F8E8M0, NONE, REG, 0x0, ""),
    c("G199", "950 bf16->e8m0: the exponent field", BF16, 0x10, F8E8M0, NONE, REG, 0x0, ""),
    c("G200", "950 e8m0->bf16", F8E8M0, 0x7f, BF16, NONE, REG, 0x3f80, ""),
    c("G201", "950 e8m0->bf16", F8E8M0, 0x0, BF16, NONE, REG, 0x0, "0x00 gives +0.0, not 2^-127"),
    c("G202", "950 e8m0->bf16", F8E8M0, 0xfe, BF16, NONE, REG, 0x7f00, ""),
    c("G203", "950 e8m0->bf16", F8E8M0, 0xff, BF16, NONE, REG, 0x7fc0, ""),
    c("G157", "S1 fp8 SAT: NaN -> 0 (CTRL[50] = 0)", F32, 0x7fc00000, F8E5M2, RINT, REG_SAT, 0x0, ""),
    c("G179", "950 HiF8 HYBRID, literal pseudocode threshold", F16, 0x4c00, HiF8, HYBRID, REG_HYBRID, 0x40, "thr = {h[0], 1}"),
    c("G180", "950 HiF8 HYBRID, literal pseudocode threshold", F16, 0x4c40, HiF8, HYBRID, REG_HYBRID, 0x41, ""),
    c("G181", "950 HiF8 HYBRID, literal pseudocode threshold", F16, 0x4c80, HiF8, HYBRID, REG_HYBRID, 0x41, ""),
    c("G182", "950 HiF8 HYBRID, literal pseudocode threshold", F16, 0x3c40, HiF8, HYBRID, REG_HYBRID, 0x9, ""),
    c("G183", "950 HiF8 HYBRID, literal pseudocode threshold", F32, 0x41800000, HiF8, HYBRID, REG_HYBRID, 0x41, "literal >= with thr = f[13:0] = 0 rounds exact 16.0 up (spec A-H2)"),
    c("G184", "950 HiF8 HYBRID, literal pseudocode threshold", F32, 0x41880000, HiF8, HYBRID, REG_HYBRID, 0x41, ""),
    c("G204", "S2 SetDeqScale: int32 -> half", I32, 0x3, F16, NONE, DEQ2, 0x4600, "src / 2^17 x scale x 2^17"),
    c("G205", "S2 SetDeqScale: int32 -> half", I32, 0x186a0, F16, NONE, DEQ_HALF, 0x7a1a, "100000 x 0.5 = 50000 rounds to 49984"),
];

/// Runs seed 002's two 512-lane result examples; prints one line each; returns the failures.
pub fn run_lane_examples() -> usize {
    let mut failed = 0;
    println!("-- S2 result examples: half -> int32 CAST_CEIL over the unified buffer (G206-G208)");
    for ex in seed002_examples() {
        match run_example(&ex) {
            Ok((got, report)) => {
                let same = got.iter().zip(&ex.expected).filter(|(a, b)| a == b).count();
                let ok = same == ex.expected.len() && got.len() == ex.expected.len();
                if !ok {
                    failed += 1;
                }
                println!(
                    "{} {:<15} {}: {same}/{} lanes as printed ({} computed, {} kept their prior contents); dst[0] = {}, dst[64] = {}",
                    if ok { "PASS" } else { "FAIL" },
                    ex.name,
                    ex.call,
                    ex.expected.len(),
                    report.written.len(),
                    got.len() - report.written.len(),
                    got.first().copied().unwrap_or_default(),
                    got.get(64).copied().unwrap_or_default(),
                );
            }
            Err(e) => {
                failed += 1;
                println!("FAIL {}: {e}", ex.name);
            }
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tour::failing_lines;

    #[test]
    fn every_ascend_case_and_example_passes() {
        let failing = failing_lines(ASCEND_CASES);
        assert!(failing.is_empty(), "{}", failing.join("\n"));
        assert_eq!(run_lane_examples(), 0);
    }
}
