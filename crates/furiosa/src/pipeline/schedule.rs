//! The whole-pipeline schedule: the stages run in order over the input stream, each engine's
//! estimate reported beside its result.

use npusim_hw::{CycleEstimate, LimitError};

use crate::limits::STREAM_POSITIONS;
use thiserror::Error;

use super::{Pipeline, StageSpec};
use crate::engine::vector::ops::{
    BranchMode, InterSliceReduceOp, InterSliceReduceOpF32, InterSliceReduceOpI32,
    IntraSliceReduceOp, IntraSliceReduceOpF32, IntraSliceReduceOpI32,
};
use crate::engine::vector::{ClipOperand, VectorError, VectorTensor};
use crate::mapping::{Axes, ParseError};
use crate::schedule::{Context, Engine, EngineRecord, InvocationSchedule};
use crate::tensor::{Position, TensorError};
use crate::timing::estimate_cast;
use crate::{CastError, CastProfile, DType, Mapping, StreamTensor};

/// Why a pipeline cannot run.
#[derive(Debug, Error)]
pub enum PipelineError {
    /// A mapping does not parse.
    #[error("{field}: {error}")]
    Mapping {
        /// Which field.
        field: String,
        /// The parse error (with its column).
        error: Box<ParseError>,
    },
    /// The input stream has more positions than npusim holds.
    #[error("the input stream m![{dims}] has {positions} positions: {error}")]
    TooLarge {
        /// The five mappings, comma-separated.
        dims: String,
        /// Its positions as the product of the five sizes (`2 × 1 × 256 × ..`).
        positions: String,
        /// The limit broken.
        error: LimitError,
    },
    /// The input stream is invalid.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// The Cast Engine refused.
    #[error("stage {index} (cast): {error}")]
    Cast {
        /// Stage number (1-based).
        index: usize,
        /// Why.
        error: CastError,
    },
    /// The Vector Engine refused.
    #[error("stage {index} ({name}): {error}")]
    Vector {
        /// Stage number (1-based).
        index: usize,
        /// Stage name.
        name: &'static str,
        /// Why.
        error: VectorError,
    },
    /// A stage at a place it cannot be.
    #[error("stage {index} ({name}): {reason}")]
    Order {
        /// Stage number (1-based).
        index: usize,
        /// Stage name.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// The pipeline ends inside the Vector Engine.
    #[error("the pipeline ends inside the Vector Engine: add a vector_final stage")]
    Unfinished,
}

/// What one stage produced: its layout and, for engines that end there, a cycle estimate.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageReport {
    /// Stage name.
    pub name: &'static str,
    /// The stream after the stage (type, position and mappings).
    pub layout: String,
    /// The estimate of the engine the stage completes (`cast`, `vector_final`).
    pub estimate: Option<CycleEstimate>,
    /// For a `vector_final` after an inter-slice reducer: cycles until its first reduced output
    /// settles (about one ring traversal).
    pub first_output: Option<u64>,
    /// The schedule record of the engine the stage completes (`cast`, `vector_final`).
    pub record: Option<EngineRecord>,
}

/// The estimate of a whole run: its engines stream concurrently, so the total is the slowest
/// engine's streaming time plus the ring tail plus every engine's latency
/// ([`crate::timing::estimate_pipeline`]).
pub fn total_estimate(reports: &[StageReport]) -> CycleEstimate {
    crate::timing::estimate_pipeline(reports.iter().filter_map(|r| r.estimate.as_ref()))
}

impl Pipeline {
    /// The schedule of a run (§10.2): the input stream arriving one flit every
    /// `upstream_cycles_per_flit` cycles, then the engines the stages completed, streaming
    /// concurrently. Its total equals [`total_estimate`]'s for these pipelines.
    pub fn schedule(&self, reports: &[StageReport]) -> Result<InvocationSchedule, PipelineError> {
        let [_, _, _, time, _] = self.input_dims()?;
        let upstream = EngineRecord::new(
            Engine::Upstream,
            time.size() as u64,
            self.upstream_cycles_per_flit,
        );
        let records: Vec<EngineRecord> = std::iter::once(upstream)
            .chain(reports.iter().filter_map(|r| r.record))
            .collect();
        Ok(InvocationSchedule::new(Context::Main, &records))
    }
}

enum Current {
    Stream(StreamTensor),
    Vector(VectorTensor),
}

fn reduce_op(name: &str, dtype: DType) -> Option<InterSliceReduceOp> {
    match dtype {
        DType::I32 => InterSliceReduceOpI32::parse(name).map(Into::into),
        DType::F32 => InterSliceReduceOpF32::parse(name).map(Into::into),
        _ => None,
    }
}

fn intra_op(name: &str, dtype: DType) -> Option<IntraSliceReduceOp> {
    match dtype {
        DType::I32 => IntraSliceReduceOpI32::parse(name).map(Into::into),
        DType::F32 => IntraSliceReduceOpF32::parse(name).map(Into::into),
        _ => None,
    }
}

impl Pipeline {
    fn mapping(&self, field: &str, text: &str) -> Result<Mapping, PipelineError> {
        mapping(&self.axes, field, text)
    }

    /// The input stream's five mappings `[Chip, Cluster, Slice, Time, Packet]`.
    pub fn input_dims(&self) -> Result<[Mapping; 5], PipelineError> {
        let [chip, cluster, slice, time, packet] = &self.dims;
        Ok([
            self.mapping("chip", chip)?,
            self.mapping("cluster", cluster)?,
            self.mapping("slice", slice)?,
            self.mapping("time", time)?,
            self.mapping("packet", packet)?,
        ])
    }

    /// The number of physical input positions (one code each), checked against
    /// [`STREAM_POSITIONS`] before anything is allocated.
    pub fn input_positions(&self) -> Result<usize, PipelineError> {
        let dims = self.input_dims()?;
        let n = dims
            .iter()
            .fold(1i128, |n, m| n.saturating_mul(m.size() as i128));
        STREAM_POSITIONS
            .check(n)
            .map_err(|error| PipelineError::TooLarge {
                dims: dims
                    .iter()
                    .map(Mapping::m_notation)
                    .collect::<Vec<_>>()
                    .join("], m!["),
                positions: dims
                    .iter()
                    .map(|m| m.size().to_string())
                    .collect::<Vec<_>>()
                    .join(" × "),
                error,
            })?;
        Ok(n as usize)
    }

    /// Runs the pipeline on `codes` (one per physical input position); returns the output
    /// stream and a report per stage.
    pub fn run(&self, codes: Vec<u64>) -> Result<(StreamTensor, Vec<StageReport>), PipelineError> {
        self.input_positions()?;
        let dims = self.input_dims()?;
        let input = StreamTensor::from_dims(self.dtype, Position::Collect, dims, codes)?;
        let mut current = Current::Stream(input);
        let mut reports = Vec::new();
        for (i, stage) in self.stages.iter().enumerate() {
            let index = i + 1;
            let name = stage.name();
            let vector = |error: VectorError| PipelineError::Vector { index, name, error };
            let order = |reason: &str| PipelineError::Order {
                index,
                name,
                reason: reason.to_string(),
            };
            let mut estimate = None;
            let mut first_output = None;
            let mut record = None;
            current = match (current, stage) {
                (Current::Stream(t), StageSpec::Cast { dtype, out_packet }) => {
                    let out = self.mapping(&format!("stage {index} out_packet"), out_packet)?;
                    let flits = t.time().size() as u64;
                    let c = t
                        .cast_to(*dtype, &out, &CastProfile::default())
                        .map_err(|error| PipelineError::Cast { index, error })?;
                    estimate = Some(estimate_cast(flits));
                    record = Some(EngineRecord::cast(flits));
                    Current::Stream(c)
                }
                (Current::Stream(t), StageSpec::VectorInit) => {
                    Current::Vector(t.vector_init().map_err(vector)?)
                }
                (_, stage) if stage.is_dm() => {
                    return Err(order(
                        "moves data between DM and a stream: declare the DM tensors with [[dm]] tables",
                    ));
                }
                (Current::Stream(_), _) => {
                    return Err(order(
                        "needs a tensor inside the Vector Engine (after vector_init)",
                    ));
                }
                (Current::Vector(_), StageSpec::Cast { .. } | StageSpec::VectorInit) => {
                    return Err(order("the Vector Engine must end with vector_final first"));
                }
                (Current::Vector(v), StageSpec::VectorFinal) => {
                    estimate = Some(v.estimate(self.upstream_cycles_per_flit));
                    first_output = v.first_output(self.upstream_cycles_per_flit);
                    record = Some(EngineRecord::vector(v.trace()));
                    Current::Stream(v.vector_final().map_err(vector)?)
                }
                (Current::Vector(v), stage) => {
                    Current::Vector(vector_stage(&self.axes, index, v, stage)?)
                }
            };
            let layout = match &current {
                Current::Stream(t) => t.to_string(),
                Current::Vector(v) => v.to_string(),
            };
            reports.push(StageReport {
                name,
                layout,
                estimate,
                first_output,
                record,
            });
        }
        match current {
            Current::Stream(t) => Ok((t, reports)),
            Current::Vector(_) => Err(PipelineError::Unfinished),
        }
    }
}

/// Parses `text` over `axes`; a parse error names `field`.
pub(super) fn mapping(axes: &Axes, field: &str, text: &str) -> Result<Mapping, PipelineError> {
    Mapping::parse(text, axes).map_err(|error| PipelineError::Mapping {
        field: field.to_string(),
        error: Box::new(error),
    })
}

/// Runs one stage inside the Vector Engine (stage `index`, 1-based).
pub(super) fn vector_stage(
    axes: &Axes,
    index: usize,
    v: VectorTensor,
    stage: &StageSpec,
) -> Result<VectorTensor, PipelineError> {
    let name = stage.name();
    let order = |reason: &str| PipelineError::Order {
        index,
        name,
        reason: reason.to_string(),
    };
    match stage {
        StageSpec::Branch => v.vector_intra_slice_branch(BranchMode::Unconditional),
        StageSpec::Logic { op, operand } => v.vector_logic(*op, *operand),
        StageSpec::Fxp { op, operand } => v.vector_fxp(*op, *operand),
        StageSpec::FxpToFp { int_width } => v.vector_fxp_to_fp(*int_width),
        StageSpec::Fp { op, operand } => v.vector_fp_binary(*op, *operand),
        StageSpec::FpToFxp { int_width } => v.vector_fp_to_fxp(*int_width),
        StageSpec::FpDiv { operand } => v.vector_fp_div(*operand),
        StageSpec::NarrowSplit { time2, packet2 } => {
            let t = mapping(axes, &format!("stage {index} time2"), time2)?;
            let p = mapping(axes, &format!("stage {index} packet2"), packet2)?;
            v.vector_narrow_split(&t, &p)
        }
        StageSpec::WidenConcat { time2, packet2 } => {
            let t = mapping(axes, &format!("stage {index} time2"), time2)?;
            let p = mapping(axes, &format!("stage {index} packet2"), packet2)?;
            v.vector_widen_concat(&t, &p)
        }
        StageSpec::WidenPad { packet2 } => {
            let p = mapping(axes, &format!("stage {index} packet2"), packet2)?;
            v.vector_widen_pad(&p)
        }
        StageSpec::IntraSliceReduce {
            axis,
            op,
            out_time,
            out_packet,
        } => {
            let dtype = v.tensor().dtype();
            let Some(op) = intra_op(op, dtype) else {
                return Err(order(&format!(
                    "`{op}` is not an intra-slice op for {dtype} (i32: {}; f32: {})",
                    IntraSliceReduceOpI32::names().join(", "),
                    IntraSliceReduceOpF32::names().join(", ")
                )));
            };
            let t = mapping(axes, &format!("stage {index} out_time"), out_time)?;
            let p = mapping(axes, &format!("stage {index} out_packet"), out_packet)?;
            v.vector_intra_slice_reduce(axis, &t, &p, op)
        }
        StageSpec::Clip { op, operand } => {
            let operand = match v.tensor().dtype() {
                DType::F32 => ClipOperand::F32(*operand as f32),
                _ => ClipOperand::I32(*operand as i32),
            };
            v.vector_clip(*op, operand)
        }
        StageSpec::InterSliceReduce {
            op,
            out_slice,
            out_time,
        } => {
            let dtype = v.tensor().dtype();
            let Some(op) = reduce_op(op, dtype) else {
                return Err(order(&format!(
                    "`{op}` is not an inter-slice op for {dtype} (i32: {}; f32: {})",
                    InterSliceReduceOpI32::names().join(", "),
                    InterSliceReduceOpF32::names().join(", ")
                )));
            };
            let s = mapping(axes, &format!("stage {index} out_slice"), out_slice)?;
            let t = mapping(axes, &format!("stage {index} out_time"), out_time)?;
            v.vector_inter_slice_reduce(&s, &t, op)
        }
        StageSpec::NarrowTrim { packet2 } => {
            let p = mapping(axes, &format!("stage {index} packet2"), packet2)?;
            v.vector_narrow_trim(&p)
        }
        _ => return Err(order("not a Vector Engine stage")),
    }
    .map_err(|error| PipelineError::Vector { index, name, error })
}
