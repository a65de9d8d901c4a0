//! The two 512-lane result examples of the AscendC API reference's `Cast` page for the Atlas
//! training series (LocalTensor API, section "More Samples") as built-in data, extracted
//! verbatim from that page (npusim's collection) by `tools/extract_more_samples.py`, with a
//! runner: the tests and `npusim tour` use both.
//!
//! Both examples cast half → int32 with CAST_CEIL, `repeatTimes = 8`, `{1, 1, 8, 4}`:
//! `mask = 64` computes all 512 lanes; `mask = 32` computes the first 32 lanes of every 64 and
//! leaves the others with whatever the destination held before (the page prints stale words).

use npusim_numerics::{CastPolicy, Format, RoundMode, convert};

use npusim_ascend::{AiCore, AscendError, CastReport, Mask, Product, UnaryRepeatParams, ty};

/// One printed example: its call and its printed inputs and outputs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LaneExample {
    /// Short name: the page's label (`S2`, as in the golden table) and the mask.
    pub name: &'static str,
    /// The AscendC call it reproduces.
    pub call: &'static str,
    /// The 512 half inputs' bits.
    pub src: Vec<u16>,
    /// The 512 printed int32 outputs (masked lanes: the destination's prior contents).
    pub expected: Vec<i32>,
    /// The contiguous mask.
    pub mask: u64,
}

const MASK64: &str = include_str!("../../data/ascend/more_samples_ceil_mask64.txt");
const MASK32: &str = include_str!("../../data/ascend/more_samples_ceil_mask32.txt");

fn parse(name: &'static str, call: &'static str, mask: u64, text: &str) -> LaneExample {
    let mut lines = text.lines();
    let mut next = || lines.next().unwrap_or_default().split_whitespace();
    // numpy prints float16 with the shortest decimal that round-trips; the nearest f16 to it
    // is the original value (parse to f64, then one rounding to f16).
    let src = next()
        .filter_map(|t| t.parse::<f64>().ok())
        .map(|x| {
            convert(
                x.to_bits(),
                Format::F64,
                Format::F16,
                &CastPolicy::new(RoundMode::Rint),
            ) as u16
        })
        .collect();
    let expected = next().filter_map(|t| t.parse::<i32>().ok()).collect();
    LaneExample {
        name,
        call,
        src,
        expected,
        mask,
    }
}

/// Both examples.
pub fn lane_examples() -> Vec<LaneExample> {
    vec![
        parse(
            "S2-mask64",
            "Cast(dst, src, CAST_CEIL, mask = 64, repeatTimes = 8, {1, 1, 8, 4})",
            64,
            MASK64,
        ),
        parse(
            "S2-mask32",
            "Cast(dst, src, CAST_CEIL, mask = 32, repeatTimes = 8, {1, 1, 8, 4})",
            32,
            MASK32,
        ),
    ]
}

/// Runs an example on an Atlas training core: the destination starts with the printed words on
/// the lanes the mask leaves alone (and a marker elsewhere), so a correct run reproduces all
/// 512 printed outputs. Returns the 512 outputs and the report.
pub fn run(example: &LaneExample) -> Result<(Vec<i32>, CastReport), AscendError> {
    let mut core = AiCore::new(Product::AtlasTraining);
    let n = example.src.len();
    let src = core.ub.tensor::<ty::Half>(0, n)?;
    let dst = core.ub.tensor::<ty::Int32>(4096, n)?;
    for (i, &h) in example.src.iter().enumerate() {
        core.ub.write(&src.view(), i, u64::from(h));
    }
    for (i, &d) in example.expected.iter().enumerate() {
        let prior = if (i % 64) as u64 >= example.mask {
            d as u32
        } else {
            0xDEAD_BEEF
        };
        core.ub.write(&dst.view(), i, u64::from(prior));
    }
    let report = core.cast(
        &dst,
        &src,
        RoundMode::Ceil,
        Mask::Contiguous(example.mask),
        (n / 64) as u32,
        UnaryRepeatParams::new(1, 1, 8, 4),
    )?;
    let out = core
        .ub
        .codes(&dst.view())
        .into_iter()
        .map(|c| c as u32 as i32)
        .collect();
    Ok((out, report))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_examples_parse_to_512_lanes() {
        for e in lane_examples() {
            assert_eq!((e.src.len(), e.expected.len()), (512, 512), "{}", e.name);
        }
    }
}
