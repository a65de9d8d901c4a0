//! Every worked example of Furiosa's documentation pages "Cast Engine" and "Inter-Slice Block"
//! (npusim's seeds 000 and 003) as data: the page's chain of calls, run on concrete input, and
//! every output cell compared with an oracle written over logical coordinates (not over buffer
//! positions). The tour and the tests run the same rows; the pipeline files of
//! npusim-furiosa's `examples/pipelines/` write the same chains.
//!
//! Inputs are filled cell by cell from a function of the logical coordinates; padding input
//! cells hold a marker value that no oracle uses, so a run that read padding would fail.
//! Expected values of dead output cells follow Furiosa's CPU reference interpreter: the Cast
//! Engine leaves 0 there, a reducer leaves its identity, and a later elementwise stage applies
//! to them too.

use std::collections::BTreeMap;

use npusim_hw::CycleEstimate;
use thiserror::Error;

use npusim_furiosa::engine::vector::ops::{
    BranchMode, FxpBinaryOp, InterSliceReduceOp, InterSliceReduceOpF32, InterSliceReduceOpI32,
};
use npusim_furiosa::mapping::{Axes, AxesError, Final, ParseError};
use npusim_furiosa::tensor::{Position, TensorError};
use npusim_furiosa::timing::estimate_cast;
use npusim_furiosa::{CastError, DType, Mapping, StreamTensor, VectorError};

/// Logical coordinates of a cell (axis name → coordinate; absent axes are 0).
pub type Coords = BTreeMap<String, usize>;

/// Why a document example could not run (an engine refused what the page says it accepts).
#[derive(Debug, Error)]
pub enum ExampleError {
    /// The axes declaration.
    #[error(transparent)]
    Axes(#[from] AxesError),
    /// A mapping does not parse.
    #[error(transparent)]
    Mapping(#[from] Box<ParseError>),
    /// The input stream is invalid.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// The Cast Engine refused.
    #[error(transparent)]
    Cast(#[from] CastError),
    /// The Vector Engine refused.
    #[error(transparent)]
    Vector(#[from] VectorError),
}

/// One worked example of a documentation page.
#[derive(Clone, Copy, Debug)]
pub struct DocumentExample {
    /// The Furiosa documentation page the example is from: "Cast Engine" or "Inter-Slice Block".
    pub page: &'static str,
    /// The page's function name (`cast_i32_to_i8`, `inter_slice_add`, ...).
    pub name: &'static str,
    /// The page's heading for it.
    pub title: &'static str,
    /// The page's chain of calls, shortened.
    pub chain: &'static str,
    /// The pipeline file under `examples/pipelines/` that writes the same chain.
    pub pipeline_file: &'static str,
    /// That file's text.
    pub pipeline: &'static str,
    /// Runs the example and compares every output cell with the oracle.
    pub run: fn() -> Result<ExampleRun, ExampleError>,
}

/// What running a document example gave.
#[derive(Clone, Debug)]
pub struct ExampleRun {
    /// The output stream (type, position and mappings).
    pub output: String,
    /// Output cells compared (live and dead).
    pub checked: usize,
    /// How many differed.
    pub mismatches: usize,
    /// The first live output cell off the origin: `{A: 3} expected 1 got 1`.
    pub sample: String,
    /// The first differing cell, in the same form.
    pub first_mismatch: Option<String>,
    /// The cycle estimate of the engine (model `furiosa-rngd-v1`), beside the result.
    pub estimate: CycleEstimate,
    /// The input codes, one per physical input position (to replay the pipeline file).
    pub input: Vec<u64>,
    /// The output codes, one per physical output position.
    pub codes: Vec<u64>,
}

impl ExampleRun {
    /// Whether every output cell matched.
    pub fn pass(&self) -> bool {
        self.mismatches == 0 && self.checked > 0
    }
}

/// Every example of the two pages, in the pages' order.
pub const DOCUMENT_EXAMPLES: [DocumentExample; 7] = [
    DocumentExample {
        page: "Cast Engine",
        name: "cast_i32_to_i8",
        title: "Single-flit packet",
        chain: "i32 Time [B] Packet [A] -> cast::<i8> Packet [A # 32]",
        pipeline_file: "cast_engine_cast_i32_to_i8.toml",
        pipeline: include_str!(
            "../../../furiosa/examples/pipelines/cast_engine_cast_i32_to_i8.toml"
        ),
        run: cast_i32_to_i8,
    },
    DocumentExample {
        page: "Cast Engine",
        name: "cast_padded",
        title: "Padded input packet",
        chain: "i32 Packet [A # 8] -> cast::<i8> Packet [A # 32]",
        pipeline_file: "cast_engine_cast_padded.toml",
        pipeline: include_str!("../../../furiosa/examples/pipelines/cast_engine_cast_padded.toml"),
        run: cast_padded,
    },
    DocumentExample {
        page: "Inter-Slice Block",
        name: "inter_slice_add",
        title: "Dummy Replacement",
        chain: "i32 Slice [A / 8, R] -> inter_slice_reduce AddSat -> Slice [A / 8, 1 # 4]",
        pipeline_file: "inter_slice_dummy.toml",
        pipeline: include_str!("../../../furiosa/examples/pipelines/inter_slice_dummy.toml"),
        run: inter_slice_add,
    },
    DocumentExample {
        page: "Inter-Slice Block",
        name: "broadcast_into_x",
        title: "Broadcast Into a New Slice Axis",
        chain: "f32 Slice [W, R] -> inter_slice_reduce Add -> Slice [W, X]",
        pipeline_file: "inter_slice_broadcast.toml",
        pipeline: include_str!("../../../furiosa/examples/pipelines/inter_slice_broadcast.toml"),
        run: broadcast_into_x,
    },
    DocumentExample {
        page: "Inter-Slice Block",
        name: "axis_promotion",
        title: "Promotion from Time into SliceOut",
        chain: "f32 Slice [W, R] Time [T0, T2, T1] -> Add -> Slice [W, T2] Time [T0, T1]",
        pipeline_file: "inter_slice_promotion.toml",
        pipeline: include_str!("../../../furiosa/examples/pipelines/inter_slice_promotion.toml"),
        run: axis_promotion,
    },
    DocumentExample {
        page: "Inter-Slice Block",
        name: "reduce_then_add",
        title: "Inter-Slice Reduce with AddSat, Then Intra-Slice",
        chain: "AddSat over R, then branch(Unconditional), fxp(AddFxp, 100)",
        pipeline_file: "inter_slice_reduce_then_add.toml",
        pipeline: include_str!(
            "../../../furiosa/examples/pipelines/inter_slice_reduce_then_add.toml"
        ),
        run: reduce_then_add,
    },
    DocumentExample {
        page: "Inter-Slice Block",
        name: "add_then_reduce",
        title: "Intra-Slice Then Inter-Slice Reduce with AddSat",
        chain: "branch(Unconditional), fxp(AddFxp, 100), then AddSat over R",
        pipeline_file: "inter_slice_add_then_reduce.toml",
        pipeline: include_str!(
            "../../../furiosa/examples/pipelines/inter_slice_add_then_reduce.toml"
        ),
        run: add_then_reduce,
    },
];

/// Marker stored in padding input cells: an oracle never reads it.
const PAD_I32: i32 = 0x5a5a_5a5a;
/// Marker stored in padding input cells of f32 streams (a NaN).
const PAD_F32: u32 = 0x7fa5_a5a5;

fn parse(axes: &Axes, text: &str) -> Result<Mapping, ExampleError> {
    Mapping::parse(text, axes).map_err(|e| ExampleError::Mapping(Box::new(e)))
}

fn dims(axes: &Axes, texts: [&str; 5]) -> Result<[Mapping; 5], ExampleError> {
    let [a, b, c, d, e] = texts;
    Ok([
        parse(axes, a)?,
        parse(axes, b)?,
        parse(axes, c)?,
        parse(axes, d)?,
        parse(axes, e)?,
    ])
}

fn coord(c: &Coords, axis: &str) -> usize {
    c.get(axis).copied().unwrap_or(0)
}

/// A deterministic spread of values from coordinates: `h(k)` in `0..2^24`.
fn hash(k: usize) -> u64 {
    ((k as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) & 0xff_ffff
}

/// An input stream of `dtype` at Collect whose live cells hold `value(coords)` and whose
/// padding cells hold the marker.
fn stream(
    dtype: DType,
    dims: [Mapping; 5],
    value: impl Fn(&Coords) -> u64,
) -> Result<StreamTensor, ExampleError> {
    let pad = match dtype {
        DType::F32 => u64::from(PAD_F32),
        _ => u64::from(PAD_I32 as u32),
    };
    // The cells of the combined mappings, from a stream of the same shape holding zeros.
    let positions = dims.iter().map(Mapping::size).product();
    let shape =
        StreamTensor::from_dims(dtype, Position::Collect, dims.clone(), vec![0; positions])?;
    let data = shape
        .cells()
        .iter()
        .map(|c| match c {
            Final::Live(coords) => value(coords),
            _ => pad,
        })
        .collect();
    Ok(StreamTensor::from_dims(
        dtype,
        Position::Collect,
        dims,
        data,
    )?)
}

fn show(dtype: DType, code: u64) -> String {
    match dtype {
        DType::F32 => format!("{:?}", f32::from_bits(code as u32)),
        _ => {
            let bits = dtype.bits() as u32;
            (((code << (64 - bits)) as i64) >> (64 - bits)).to_string()
        }
    }
}

/// Compares every output cell with `live(coords)` (live cells) or `dead` (padding cells).
fn compare(
    input: Vec<u64>,
    out: &StreamTensor,
    live: impl Fn(&Coords) -> u64,
    dead: u64,
    estimate: CycleEstimate,
) -> ExampleRun {
    let dtype = out.dtype();
    let mut run = ExampleRun {
        output: out.to_string(),
        checked: 0,
        mismatches: 0,
        sample: String::new(),
        first_mismatch: None,
        estimate,
        input,
        codes: out.codes().to_u64(),
    };
    for (cell, got) in out.cells().iter().zip(out.codes()) {
        let want = match cell {
            Final::Live(c) => live(c),
            _ => dead,
        };
        let line = || {
            format!(
                "{cell} expected {} got {}",
                show(dtype, want),
                show(dtype, got)
            )
        };
        if run.sample.is_empty() && matches!(cell, Final::Live(c) if !c.is_empty()) {
            run.sample = line();
        }
        run.checked += 1;
        if got != want {
            run.mismatches += 1;
            if run.first_mismatch.is_none() {
                run.first_mismatch = Some(line());
            }
        }
    }
    run
}

/// i32 codes as stored.
fn i32c(v: i32) -> u64 {
    u64::from(v as u32)
}

/// f32 codes as stored.
fn f32c(v: f32) -> u64 {
    u64::from(v.to_bits())
}

/// The input of the i32 cast examples: values that wrap when narrowed to i8.
fn cast_value(c: &Coords) -> i32 {
    let k = coord(c, "B") * 8 + coord(c, "A");
    (hash(k) as i32 - (1 << 23)) * 97
}

/// Seed 000, `cast_i32_to_i8`.
fn cast_i32_to_i8() -> Result<ExampleRun, ExampleError> {
    let ax = npusim_furiosa::axes![B = 4, A = 8]?;
    let input = stream(DType::I32, dims(&ax, ["1", "1", "1", "B", "A"])?, |c| {
        i32c(cast_value(c))
    })?;
    let flits = input.time().size() as u64;
    let codes = input.codes().to_u64();
    let out = input.cast::<i8>(&parse(&ax, "A # 32")?)?;
    // Narrowing wraps: keep the low 8 bits.
    Ok(compare(
        codes,
        &out,
        |c| u64::from(cast_value(c) as u8),
        0,
        estimate_cast(flits),
    ))
}

/// Seed 000, `cast_padded`.
fn cast_padded() -> Result<ExampleRun, ExampleError> {
    let ax = npusim_furiosa::axes![A = 4]?;
    let input = stream(DType::I32, dims(&ax, ["1", "1", "1", "1", "A # 8"])?, |c| {
        i32c(cast_value(c))
    })?;
    let flits = input.time().size() as u64;
    let codes = input.codes().to_u64();
    let out = input.cast::<i8>(&parse(&ax, "A # 32")?)?;
    Ok(compare(
        codes,
        &out,
        |c| u64::from(cast_value(c) as u8),
        0,
        estimate_cast(flits),
    ))
}

/// Seed 003's i32 input: values up to ±2·10^9 so that four-term sums saturate both ways.
fn big(c: &Coords) -> i32 {
    let k = coord(c, "A") * 4 + coord(c, "R");
    ((hash(k) % 4001) as i32 - 2000) * 1_000_000
}

/// Seed 003's f32 input: magnitudes 1e8 and 1 mixed, so the fold order shows in the sums.
fn float(c: &Coords, keys: &[&str]) -> f32 {
    let k = keys.iter().fold(0, |acc, a| acc * 64 + coord(c, a));
    let h = hash(k);
    let scale = [1e8f32, 1.0, -1e8, 0.5][(h % 4) as usize];
    scale * ((h % 97) as f32 + 1.0)
}

/// `fold(op, r = 0..4)` of `value(coords with R = r)`: the oracle of every seed-003 reduction
/// (the reduced factor R has 4 slices; the fold starts at the identity, r ascending).
fn fold_r(op: InterSliceReduceOp, c: &Coords, value: impl Fn(&Coords) -> u64) -> u64 {
    let mut acc = u64::from(op.identity());
    for r in 0..4 {
        let mut at = c.clone();
        at.insert("R".into(), r);
        acc = u64::from(op.step(acc as u32, value(&at) as u32));
    }
    acc
}

const DUMMY_DIMS: [&str; 5] = ["1", "1 # 2", "A / 8, R", "1", "A % 8"];

/// Seed 003, "Dummy Replacement" (`inter_slice_add`).
fn inter_slice_add() -> Result<ExampleRun, ExampleError> {
    let ax = npusim_furiosa::axes![R = 4, A = 512]?;
    let op = InterSliceReduceOpI32::AddSat;
    let (codes, v) = input_vector(&ax, DType::I32, DUMMY_DIMS, |c| i32c(big(c)))?;
    let v = v.vector_inter_slice_reduce(&parse(&ax, "A / 8, 1 # 4")?, &parse(&ax, "1")?, op)?;
    let op = InterSliceReduceOp::from(op);
    finish(
        codes,
        v,
        |c| fold_r(op, c, |x| i32c(big(x))),
        u64::from(op.identity()),
    )
}

/// `vector_init()` of an input stream; also returns the input codes.
fn input_vector(
    ax: &Axes,
    dtype: DType,
    texts: [&str; 5],
    value: impl Fn(&Coords) -> u64,
) -> Result<(Vec<u64>, npusim_furiosa::VectorTensor), ExampleError> {
    let input = stream(dtype, dims(ax, texts)?, value)?;
    Ok((input.codes().to_u64(), input.vector_init()?))
}

/// Runs `v` to `vector_final()` and compares every output cell with `live` or `dead`, with
/// the cycle estimate of the chain as run.
fn finish(
    codes: Vec<u64>,
    v: npusim_furiosa::VectorTensor,
    live: impl Fn(&Coords) -> u64,
    dead: u64,
) -> Result<ExampleRun, ExampleError> {
    let estimate = v.estimate(1);
    let out = v.vector_final()?;
    Ok(compare(codes, &out, live, dead, estimate))
}

/// Seed 003, "Broadcast Into a New Slice Axis" (`broadcast_into_x`).
fn broadcast_into_x() -> Result<ExampleRun, ExampleError> {
    let ax = npusim_furiosa::axes![W = 64, R = 4, X = 4, P = 8]?;
    let keys = ["W", "R", "P"];
    let op = InterSliceReduceOpF32::Add;
    let (codes, v) = input_vector(&ax, DType::F32, ["1", "1 # 2", "W, R", "1", "P"], |c| {
        f32c(float(c, &keys))
    })?;
    let v = v.vector_inter_slice_reduce(&parse(&ax, "W, X")?, &parse(&ax, "1")?, op)?;
    let op = InterSliceReduceOp::from(op);
    // X is fresh: every X position holds the same reduced value (the oracle ignores X).
    finish(
        codes,
        v,
        |c| fold_r(op, c, |x| f32c(float(x, &keys))),
        u64::from(op.identity()),
    )
}

/// Seed 003, "Promotion from Time into SliceOut" (`axis_promotion`).
fn axis_promotion() -> Result<ExampleRun, ExampleError> {
    let ax = npusim_furiosa::axes![W = 32, R = 4, T0 = 2, T2 = 4, T1 = 2, P = 8]?;
    let keys = ["W", "R", "T0", "T2", "T1", "P"];
    let op = InterSliceReduceOpF32::Add;
    let (codes, v) = input_vector(
        &ax,
        DType::F32,
        ["1", "1 # 2", "W, R", "T0, T2, T1", "P"],
        |c| f32c(float(c, &keys)),
    )?;
    let v = v.vector_inter_slice_reduce(&parse(&ax, "W, T2")?, &parse(&ax, "T0, T1")?, op)?;
    let op = InterSliceReduceOp::from(op);
    finish(
        codes,
        v,
        |c| fold_r(op, c, |x| f32c(float(x, &keys))),
        u64::from(op.identity()),
    )
}

/// Seed 003, "Inter-Slice Reduce with AddSat, Then Intra-Slice" (`reduce_then_add`).
fn reduce_then_add() -> Result<ExampleRun, ExampleError> {
    let ax = npusim_furiosa::axes![R = 4, A = 512]?;
    let op = InterSliceReduceOpI32::AddSat;
    let (codes, v) = input_vector(&ax, DType::I32, DUMMY_DIMS, |c| i32c(big(c)))?;
    let v = v
        .vector_inter_slice_reduce(&parse(&ax, "A / 8, 1 # 4")?, &parse(&ax, "1")?, op)?
        .vector_intra_slice_branch(BranchMode::Unconditional)?
        .vector_fxp(FxpBinaryOp::AddFxp, 100)?;
    let op = InterSliceReduceOp::from(op);
    let plus100 = |x: u64| i32c((x as u32 as i32).wrapping_add(100));
    // The dummy positions hold the identity 0, then +100 like every physical cell.
    finish(
        codes,
        v,
        |c| plus100(fold_r(op, c, |x| i32c(big(x)))),
        plus100(u64::from(op.identity())),
    )
}

/// Seed 003, "Intra-Slice Then Inter-Slice Reduce with AddSat" (`add_then_reduce`).
fn add_then_reduce() -> Result<ExampleRun, ExampleError> {
    let ax = npusim_furiosa::axes![R = 4, A = 512]?;
    let op = InterSliceReduceOpI32::AddSat;
    let (codes, v) = input_vector(&ax, DType::I32, DUMMY_DIMS, |c| i32c(big(c)))?;
    let v = v
        .vector_intra_slice_branch(BranchMode::Unconditional)?
        .vector_fxp(FxpBinaryOp::AddFxp, 100)?
        .vector_inter_slice_reduce(&parse(&ax, "A / 8, 1 # 4")?, &parse(&ax, "1")?, op)?;
    let op = InterSliceReduceOp::from(op);
    finish(
        codes,
        v,
        |c| fold_r(op, c, |x| i32c(big(x).wrapping_add(100))),
        u64::from(op.identity()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_seed_example_passes() {
        for ex in DOCUMENT_EXAMPLES {
            let run = (ex.run)().unwrap_or_else(|e| panic!("{}: {e}", ex.name));
            assert!(
                run.pass(),
                "{}: {} of {} cells differ, first {:?}",
                ex.name,
                run.mismatches,
                run.checked,
                run.first_mismatch
            );
        }
    }

    #[test]
    fn the_oracles_see_saturation_and_order() {
        // The i32 data saturates some sums at either end and, in others, saturates part way
        // and comes back, so AddSat's step-by-step order shows.
        let op = InterSliceReduceOp::from(InterSliceReduceOpI32::AddSat);
        let wrap = InterSliceReduceOp::from(InterSliceReduceOpI32::Add);
        let (mut high, mut low, mut midway) = (false, false, false);
        for a in 0..512 {
            let c: Coords = [("A".to_string(), a)].into();
            let s = fold_r(op, &c, |x| i32c(big(x))) as u32 as i32;
            let w = fold_r(wrap, &c, |x| i32c(big(x))) as u32 as i32;
            high |= s == i32::MAX;
            low |= s == i32::MIN;
            midway |= s != i32::MAX && s != i32::MIN && s != w;
        }
        assert!(high && low && midway);
    }

    #[test]
    fn a_wrong_cell_is_reported() {
        let ax = npusim_furiosa::axes![A = 8].expect("axes");
        let d = dims(&ax, ["1", "1", "1", "1", "A"]).expect("dims");
        let t = stream(DType::I32, d, |c| i32c(coord(c, "A") as i32)).expect("stream");
        let run = compare(
            Vec::new(),
            &t,
            |c| i32c(coord(c, "A") as i32 % 7),
            0,
            estimate_cast(1),
        );
        assert_eq!((run.checked, run.mismatches), (8, 1));
        assert!(!run.pass());
        assert_eq!(
            run.first_mismatch.as_deref(),
            Some("{A: 7} expected 0 got 7")
        );
    }
}
