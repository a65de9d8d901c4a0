//! Running a kernel file from DM to DM: its DM tensors are placed and loaded (from `.npy`
//! files or a ramp), its stages run invocation by invocation, every committed tensor is kept by
//! name, and every invocation is scheduled (§10.2).

use std::ops::Range;
use std::path::{Path, PathBuf};

use thiserror::Error;

use super::kernel::{DmSpec, Kernel};
use super::schedule::{PipelineError, mapping, vector_stage};
use super::{StageSpec, TileSpec};
use crate::dm::{Dm, DmError, DmTensor, DmTensorView, TileError};
use crate::engine::collect::CollectError;
use crate::engine::commit::CommitError;
use crate::engine::commit_cast::COMMIT_CAST_LATENCY;
use crate::engine::context::check_main_only;
use crate::engine::fetch::{FetchError, begin};
use crate::engine::fetch_cast::FETCH_CAST_LATENCY;
use crate::engine::fetch_interleave::begin_interleaved;
use crate::engine::fetch_lift::LiftDim;
use crate::engine::fetch_mask::FETCH_MASK_LATENCY;
use crate::engine::fetch_table_lookup::FETCH_TABLE_LOOKUP_LATENCY;
use crate::engine::switch::{SwitchConfig, SwitchError};
use crate::engine::vector::{VectorError, VectorTensor};
use crate::mapping::Mapping;
use crate::schedule::{Context, Engine, EngineRecord, InvocationSchedule, Schedule};
use crate::{CastError, CastProfile, DType, StreamTensor};

/// Why an engine of a kernel refused.
#[derive(Debug, Error)]
pub enum EngineError {
    /// DM placement or access.
    #[error(transparent)]
    Dm(#[from] DmError),
    /// The Fetch Engine or its adapter.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The Collect Engine.
    #[error(transparent)]
    Collect(#[from] CollectError),
    /// The Switch Engine.
    #[error(transparent)]
    Switch(#[from] SwitchError),
    /// The Vector Engine.
    #[error(transparent)]
    Vector(#[from] VectorError),
    /// The Cast Engine.
    #[error(transparent)]
    Cast(#[from] CastError),
    /// The Commit Adapter or the Commit Engine.
    #[error(transparent)]
    Commit(#[from] CommitError),
    /// A tile cannot be cut from a view.
    #[error(transparent)]
    Tile(#[from] TileError),
}

/// Why a kernel cannot run.
#[derive(Debug, Error)]
pub enum KernelError {
    /// A mapping does not parse, or a Vector Engine stage refused.
    #[error(transparent)]
    Pipeline(Box<PipelineError>),
    /// A DM tensor cannot be placed, loaded or saved.
    #[error("DM tensor `{name}`: {error}")]
    Tensor {
        /// The tensor.
        name: String,
        /// Why.
        error: Box<EngineError>,
    },
    /// An engine refused a stage.
    #[error("stage {index} ({name}): {error}")]
    Stage {
        /// Stage number (1-based).
        index: usize,
        /// Stage name.
        name: &'static str,
        /// Why.
        error: Box<EngineError>,
    },
    /// A stage where it cannot be.
    #[error("stage {index} ({name}): {reason}")]
    Order {
        /// Stage number (1-based).
        index: usize,
        /// Stage name.
        name: &'static str,
        /// Why.
        reason: String,
    },
    /// A name that is no DM tensor.
    #[error("no DM tensor is named `{name}` (tensors: {known})")]
    UnknownTensor {
        /// The name.
        name: String,
        /// The tensors, comma-separated.
        known: String,
    },
    /// The stages end inside an invocation.
    #[error(
        "the kernel ends inside the invocation begun at stage {begun}: end it with a commit stage"
    )]
    Unfinished {
        /// The invocation's `begin` stage.
        begun: usize,
    },
}

impl From<PipelineError> for KernelError {
    fn from(e: PipelineError) -> KernelError {
        KernelError::Pipeline(Box::new(e))
    }
}

/// The data of one DM tensor given to a kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KernelInput {
    /// A `.npy` file of the tensor's logical shape.
    Npy(PathBuf),
    /// One code per logical element, in the tensor's logical order.
    Codes(Vec<u64>),
}

/// A named DM tensor of a run and its `.npy` axis order.
#[derive(Clone, Debug)]
pub struct NamedTensor {
    /// Its name.
    pub name: String,
    /// The tensor.
    pub tensor: DmTensor,
    /// Its logical axis order.
    pub order: Vec<String>,
}

/// What a kernel run leaves: the DM, every tensor by name, a line per stage, the schedule.
#[derive(Debug)]
pub struct KernelRun {
    /// The data memory after the run.
    pub dm: Dm,
    /// The declared tensors, then the committed ones, in order.
    pub tensors: Vec<NamedTensor>,
    /// Per stage: its number, name and the layout it produced.
    pub stages: Vec<String>,
    /// The schedule of the invocations.
    pub schedule: Schedule,
    /// Warnings of the run: a commit that writes over another tensor's bytes (§2.2).
    pub warnings: Vec<String>,
}

impl KernelRun {
    /// The tensor named `name`.
    pub fn tensor(&self, name: &str) -> Result<&NamedTensor, KernelError> {
        self.tensors
            .iter()
            .rev()
            .find(|t| t.name == name)
            .ok_or_else(|| unknown(name, &self.tensors))
    }

    /// The last tensor a commit produced, if any.
    pub fn last_committed(&self) -> Option<&NamedTensor> {
        self.tensors.last()
    }

    /// The logical codes of tensor `name`, in its logical order.
    pub fn values(&self, name: &str) -> Result<Vec<u64>, KernelError> {
        let t = self.tensor(name)?;
        let order: Vec<&str> = t.order.iter().map(String::as_str).collect();
        t.tensor
            .read_logical(&self.dm, &order)
            .map_err(|e| tensor_error(name, e))
    }

    /// Saves tensor `name` as `.npy` at `path` (atomically; nothing is written on error).
    pub fn save(&self, name: &str, path: &Path) -> Result<(), KernelError> {
        let t = self.tensor(name)?;
        let order: Vec<&str> = t.order.iter().map(String::as_str).collect();
        t.tensor
            .save_npy(&self.dm, path, &order)
            .map_err(|e| tensor_error(name, e))
    }
}

fn unknown(name: &str, tensors: &[NamedTensor]) -> KernelError {
    let known: Vec<&str> = tensors.iter().map(|t| t.name.as_str()).collect();
    KernelError::UnknownTensor {
        name: name.to_string(),
        known: known.join(", "),
    }
}

fn tensor_error(name: &str, e: impl Into<EngineError>) -> KernelError {
    KernelError::Tensor {
        name: name.to_string(),
        error: Box::new(e.into()),
    }
}

/// The ramp a tensor without input holds: logical element i is i (f32: i as a float; bf16:
/// the top half of that float; other types: i's low bits).
fn ramp(dtype: DType, count: usize) -> Vec<u64> {
    let mask = if dtype.bits() >= 64 {
        u64::MAX
    } else {
        (1u64 << dtype.bits()) - 1
    };
    (0..count)
        .map(|i| match dtype {
            DType::F32 => u64::from((i as f32).to_bits()),
            DType::BF16 => u64::from((i as f32).to_bits() >> 16),
            _ => i as u64 & mask,
        })
        .collect()
}

/// Where an invocation is.
enum State {
    Idle,
    Begun(DmTensorView),
    /// `begin_interleaved`: the axis `I`, lhs and rhs.
    Interleaved(Box<(Mapping, DmTensorView, DmTensorView)>),
    /// Fetched from one view, with a lift stage next: the view and the stream.
    Lifting(Box<(DmTensorView, StreamTensor)>),
    Stream(StreamTensor),
    Vector(VectorTensor),
}

/// One invocation under way: its `begin` stage, context, DM read ranges and engine records.
struct Invocation {
    begun: usize,
    context: Context,
    interleaved: bool,
    reads: Vec<Range<usize>>,
    records: Vec<EngineRecord>,
    commit_latency: u64,
}

impl Kernel {
    /// Places the DM tensors, loads each from `inputs` (by name) or with the ramp, and runs
    /// the stages.
    pub fn run(&self, inputs: &[(String, KernelInput)]) -> Result<KernelRun, KernelError> {
        self.run_with(inputs, false)
    }

    /// Runs the stages of a kernel under construction, as [`Kernel::run`] does, except that
    /// they may end inside an invocation: every stage so far is checked (its mappings, its
    /// order, its context's rules and its engine's rules on the real data), and the open
    /// invocation is neither committed nor scheduled. What a chain built call by call (the
    /// Python `Device`) checks at each call.
    pub fn run_prefix(&self, inputs: &[(String, KernelInput)]) -> Result<KernelRun, KernelError> {
        self.run_with(inputs, true)
    }

    fn run_with(
        &self,
        inputs: &[(String, KernelInput)],
        open_end: bool,
    ) -> Result<KernelRun, KernelError> {
        let chips = self.chips()?;
        let mut dm = Dm::new(chips);
        dm.fill_undefined(self.fill_undefined);
        let mut tensors = Vec::with_capacity(self.tensors.len());
        for spec in &self.tensors {
            tensors.push(self.place(&dm, spec)?);
        }
        if let Some((name, _)) = inputs
            .iter()
            .find(|(n, _)| !tensors.iter().any(|t: &NamedTensor| &t.name == n))
        {
            return Err(unknown(name, &tensors));
        }
        for t in &tensors {
            let order: Vec<&str> = t.order.iter().map(String::as_str).collect();
            let loaded = match inputs.iter().find(|(n, _)| n == &t.name) {
                Some((_, KernelInput::Npy(path))) => t.tensor.load_npy(&mut dm, path, &order),
                Some((_, KernelInput::Codes(codes))) => {
                    t.tensor.write_logical(&mut dm, &order, codes)
                }
                None => t
                    .tensor
                    .logical_shape(&order)
                    .map(|shape| ramp(t.tensor.dtype(), shape.iter().product()))
                    .and_then(|codes| t.tensor.write_logical(&mut dm, &order, &codes)),
            };
            loaded.map_err(|e| tensor_error(&t.name, e))?;
        }
        let mut run = KernelRun {
            dm,
            tensors,
            stages: Vec::new(),
            schedule: Schedule::new(),
            warnings: Vec::new(),
        };
        self.run_stages(&mut run, open_end)?;
        Ok(run)
    }

    /// The chips the DM needs: the largest `chip` mapping of the tensors (at least 1).
    fn chips(&self) -> Result<usize, KernelError> {
        let mut chips = 1;
        for spec in &self.tensors {
            let m = mapping(&self.axes, &format!("dm `{}` chip", spec.name), &spec.chip)?;
            chips = chips.max(m.size());
        }
        Ok(chips)
    }

    fn place(&self, dm: &Dm, spec: &DmSpec) -> Result<NamedTensor, KernelError> {
        let field = |key: &str| format!("dm `{}` {key}", spec.name);
        let chip = mapping(&self.axes, &field("chip"), &spec.chip)?;
        let cluster = mapping(&self.axes, &field("cluster"), &spec.cluster)?;
        let slice = mapping(&self.axes, &field("slice"), &spec.slice)?;
        let element = mapping(&self.axes, &field("element"), &spec.element)?;
        let tensor = DmTensor::from_addr(
            dm,
            spec.dtype,
            &chip,
            &cluster,
            &slice,
            &element,
            spec.address,
        )
        .map_err(|e| tensor_error(&spec.name, e))?;
        let order = self.order(&tensor, spec.logical.as_deref());
        Ok(NamedTensor {
            name: spec.name.clone(),
            tensor,
            order,
        })
    }

    /// A tensor's `.npy` axis order: `logical` split at commas, or the declaration order.
    fn order(&self, tensor: &DmTensor, logical: Option<&str>) -> Vec<String> {
        match logical {
            Some(text) => text.split(',').map(|a| a.trim().to_string()).collect(),
            None => tensor.logical_order(&self.axes),
        }
    }

    /// The Fetch Adapter stages right after stage `i` (0-based): the type their cast or
    /// lookup ends in, and their added latency.
    fn adapter_after(&self, i: usize) -> (Option<DType>, u64) {
        let (mut out, mut latency) = (None, 0u64);
        for stage in &self.stages[i + 1..] {
            match stage {
                StageSpec::FetchMask => latency += FETCH_MASK_LATENCY as u64,
                StageSpec::FetchTableLookup { dtype } => {
                    out = Some(*dtype);
                    latency += FETCH_TABLE_LOOKUP_LATENCY as u64;
                }
                StageSpec::FetchCast { dtype } => {
                    out = Some(*dtype);
                    latency += FETCH_CAST_LATENCY as u64;
                }
                _ => break,
            }
        }
        (out, latency)
    }

    /// Whether stage `i + 1` (0-based) is a lift.
    fn lift_follows(&self, i: usize) -> bool {
        self.stages
            .get(i + 1)
            .is_some_and(|s| lift_dim(s).is_some())
    }

    /// `view`, or its tile `tile` (the mappings read at stage `index`).
    fn tile_of(
        &self,
        index: usize,
        view: DmTensorView,
        tile: Option<&TileSpec>,
    ) -> Result<DmTensorView, TileOr> {
        let Some(tile) = tile else {
            return Ok(view);
        };
        let m = |key: &str, text: &str| {
            mapping(&self.axes, &format!("stage {index} tile {key}"), text)
                .map_err(|e| TileOr::Kernel(e.into()))
        };
        let (idx, element) = (m("index", &tile.index)?, m("element", &tile.element)?);
        view.tile(&idx, tile.len, &element, tile.start)
            .map_err(TileOr::Tile)
    }

    fn run_stages(&self, run: &mut KernelRun, open_end: bool) -> Result<(), KernelError> {
        let mut state = State::Idle;
        let mut inv: Option<Invocation> = None;
        for (i, stage) in self.stages.iter().enumerate() {
            let index = i + 1;
            let name = stage.name();
            let engine = |e: EngineError| KernelError::Stage {
                index,
                name,
                error: Box::new(e),
            };
            let order = |reason: &str| KernelError::Order {
                index,
                name,
                reason: reason.to_string(),
            };
            let m = |key: &str, text: &str| {
                mapping(&self.axes, &format!("stage {index} ({name}) {key}"), text)
            };
            let mut line = None;
            state = match (state, stage) {
                (
                    State::Idle,
                    StageSpec::Begin {
                        tensor,
                        context,
                        tile,
                    },
                ) => {
                    let context = context.unwrap_or(Context::Main);
                    let t = run.tensor(tensor)?;
                    let view = self
                        .tile_of(index, t.tensor.view(), tile.as_ref())
                        .map_err(|e| match e {
                            TileOr::Tile(e) => engine(e.into()),
                            TileOr::Kernel(e) => e,
                        })?;
                    inv = Some(Invocation {
                        begun: index,
                        context,
                        interleaved: false,
                        reads: vec![t.tensor.byte_range()],
                        records: Vec::new(),
                        commit_latency: 0,
                    });
                    line = Some(match tile {
                        Some(_) => format!(
                            "BeginTensor of a tile of `{tensor}` (m![{}] from byte {})",
                            view.element().m_notation(),
                            view.address()
                        ),
                        None => format!("BeginTensor of `{tensor}`"),
                    });
                    State::Begun(view)
                }
                (
                    State::Idle,
                    StageSpec::BeginInterleaved {
                        axis,
                        lhs,
                        rhs,
                        context,
                    },
                ) => {
                    let axis = m("axis", axis)?;
                    let (l, r) = (run.tensor(lhs)?, run.tensor(rhs)?);
                    let (lv, rv) = (l.tensor.view(), r.tensor.view());
                    begin_interleaved(&run.dm, &axis, &lv, &rv).map_err(|e| engine(e.into()))?;
                    inv = Some(Invocation {
                        begun: index,
                        context: context.unwrap_or(Context::Main),
                        interleaved: true,
                        reads: vec![l.tensor.byte_range(), r.tensor.byte_range()],
                        records: Vec::new(),
                        commit_latency: 0,
                    });
                    line = Some(format!(
                        "BeginTensor of `{lhs}` and `{rhs}` interleaved along m![{}]",
                        axis.m_notation()
                    ));
                    State::Interleaved(Box::new((axis, lv, rv)))
                }
                (State::Idle, _) => {
                    return Err(order("needs an invocation: start one with a begin stage"));
                }
                (_, StageSpec::Begin { .. } | StageSpec::BeginInterleaved { .. }) => {
                    return Err(order(
                        "the previous invocation has not ended with a commit stage",
                    ));
                }
                (State::Interleaved(b), StageSpec::Fetch { time, packet }) => {
                    let (time, packet) = (m("time", time)?, m("packet", packet)?);
                    let (axis, lhs, rhs) = *b;
                    let bi = begin_interleaved(&run.dm, &axis, &lhs, &rhs)
                        .map_err(|e| engine(e.into()))?;
                    let plan = bi
                        .plan(&time, &packet)
                        .map_err(|e| engine(e.into()))?
                        .in_context(context_of(&inv));
                    let bank_run = plan.sequencer.bank_run(lhs.address()) as u64;
                    let t = bi.fetch(&time, &packet).map_err(|e| engine(e.into()))?;
                    let (_, latency) = self.adapter_after(i);
                    push(
                        &mut inv,
                        EngineRecord::fetch(&plan, latency).with_bank_run(bank_run),
                    );
                    State::Stream(t)
                }
                (State::Interleaved(_), _) => {
                    return Err(order("a BeginTensor goes on with fetch"));
                }
                (State::Lifting(b), lift) if lift_dim(lift).is_some() => {
                    let (view, stream) = *b;
                    let Some((dim, out, time)) = lift_dim(lift) else {
                        return Err(order("is not a lift"));
                    };
                    let (out, time) = (m(dim_key(dim), out)?, m("time", time)?);
                    let (lifted, plan) = begin(&run.dm, &view)
                        .fetch_lift(stream, dim, &out, &time)
                        .map_err(|e| engine(e.into()))?;
                    if self.lift_follows(i) {
                        State::Lifting(Box::new((view, lifted)))
                    } else {
                        let plan = plan.fetch.in_context(context_of(&inv));
                        let bank_run = plan.sequencer.bank_run(view.address()) as u64;
                        let (_, latency) = self.adapter_after(i);
                        push(
                            &mut inv,
                            EngineRecord::fetch(&plan, latency).with_bank_run(bank_run),
                        );
                        State::Stream(lifted)
                    }
                }
                (State::Lifting(_), _) => {
                    return Err(order("is not a lift; a fetch_*_lift stage was expected"));
                }
                (State::Stream(t), lift) if lift_dim(lift).is_some() => {
                    t.position()
                        .check_transition(name)
                        .map_err(|e| engine(FetchError::from(e).into()))?;
                    return Err(order(if inv.as_ref().is_some_and(|v| v.interleaved) {
                        "a lift reads one replicated tensor, not an interleaved fetch"
                    } else {
                        "a lift follows the fetch of one tensor directly, or another lift"
                    }));
                }
                (State::Begun(view), StageSpec::Fetch { time, packet }) => {
                    let (time, packet) = (m("time", time)?, m("packet", packet)?);
                    let b = begin(&run.dm, &view);
                    let (out, latency) = self.adapter_after(i);
                    let plan = match out {
                        Some(out) => b.plan_cast(&time, &packet, out),
                        None => b.plan(&time, &packet),
                    }
                    .map_err(|e| engine(e.into()))?
                    .in_context(context_of(&inv));
                    let bank_run = plan.sequencer.bank_run(view.address()) as u64;
                    let t = b.fetch(&time, &packet).map_err(|e| engine(e.into()))?;
                    if self.lift_follows(i) {
                        // The lifts set the loops; the last one records the fetch.
                        State::Lifting(Box::new((view, t)))
                    } else {
                        push(
                            &mut inv,
                            EngineRecord::fetch(&plan, latency).with_bank_run(bank_run),
                        );
                        State::Stream(t)
                    }
                }
                (State::Begun(_), _) => return Err(order("a BeginTensor goes on with fetch")),
                (State::Stream(t), StageSpec::FetchMask) => {
                    State::Stream(t.fetch_mask().map_err(|e| engine(e.into()))?)
                }
                (State::Stream(t), StageSpec::FetchTableLookup { dtype }) => {
                    check_main_only("fetch_table_lookup", context_of(&inv))
                        .map_err(|e| engine(FetchError::from(e).into()))?;
                    State::Stream(
                        t.fetch_table_lookup_to(*dtype)
                            .map_err(|e| engine(e.into()))?,
                    )
                }
                (State::Stream(t), StageSpec::FetchCast { dtype }) => {
                    State::Stream(t.fetch_cast_to(*dtype).map_err(|e| engine(e.into()))?)
                }
                (
                    State::Stream(t),
                    StageSpec::Switch {
                        slice,
                        time,
                        config,
                        slice1,
                        slice0,
                        time0,
                        ring_size,
                    },
                ) => {
                    let (slice, time) = (m("slice", slice)?, m("time", time)?);
                    let config = switch_config(config, *slice1, *slice0, *time0, *ring_size)
                        .map_err(|reason| order(&reason))?;
                    let plan = t
                        .switch_plan(&slice, &time, config)
                        .map_err(|e| engine(e.into()))?;
                    push(
                        &mut inv,
                        EngineRecord::new(
                            Engine::Switch,
                            plan.time_steps as u64,
                            (plan.ring_size * plan.flits_per_packet) as u64,
                        ),
                    );
                    State::Stream(
                        t.switch(&slice, &time, config)
                            .map_err(|e| engine(e.into()))?,
                    )
                }
                (State::Stream(t), StageSpec::Collect { time, packet }) => {
                    let (time, packet) = (m("time", time)?, m("packet", packet)?);
                    let c = t.collect(&time, &packet).map_err(|e| engine(e.into()))?;
                    push(&mut inv, EngineRecord::collect(c.time().size() as u64));
                    State::Stream(c)
                }
                (State::Stream(t), StageSpec::VectorInit) => {
                    State::Vector(t.vector_init().map_err(|e| engine(e.into()))?)
                }
                (State::Stream(t), StageSpec::Cast { dtype, out_packet }) => {
                    let out = m("out_packet", out_packet)?;
                    let flits = t.time().size() as u64;
                    let c = t
                        .cast_to(*dtype, &out, &CastProfile::default())
                        .map_err(|e| engine(e.into()))?;
                    push(&mut inv, EngineRecord::cast(flits));
                    State::Stream(c)
                }
                (State::Stream(t), StageSpec::CommitTrim { packet }) => {
                    let packet = m("packet", packet)?;
                    State::Stream(t.commit_trim(&packet).map_err(|e| engine(e.into()))?)
                }
                (State::Stream(t), StageSpec::CommitCast | StageSpec::CommitCastRelu) => {
                    let method = if matches!(stage, StageSpec::CommitCast) {
                        "commit_cast"
                    } else {
                        "commit_cast_relu"
                    };
                    check_main_only(method, context_of(&inv))
                        .map_err(|e| engine(CommitError::from(e).into()))?;
                    let c = if matches!(stage, StageSpec::CommitCast) {
                        t.commit_cast()
                    } else {
                        t.commit_cast_relu()
                    };
                    if let Some(inv) = inv.as_mut() {
                        inv.commit_latency += COMMIT_CAST_LATENCY as u64;
                    }
                    State::Stream(c.map_err(|e| engine(e.into()))?)
                }
                (
                    State::Stream(t),
                    StageSpec::Commit {
                        element,
                        name: out,
                        address,
                        logical,
                    },
                ) => {
                    let element = m("element", element)?;
                    let address = address.unwrap_or_else(|| next_free(&run.tensors));
                    let (y, plan) = t
                        .commit_at(&mut run.dm, &element, address)
                        .map_err(|e| engine(e.into()))?;
                    let plan = plan.in_context(context_of(&inv));
                    let Some(mut done) = inv.take() else {
                        return Err(order("needs an invocation: start one with a begin stage"));
                    };
                    done.records.push(
                        EngineRecord::commit(&plan, done.commit_latency)
                            .with_bank_run(plan.sequencer.bank_run(address) as u64),
                    );
                    let range = y.byte_range();
                    overlap_warnings(run, index, out, &range);
                    run.schedule.push(
                        InvocationSchedule::new(done.context, &done.records)
                            .with_ranges(done.reads, vec![range.clone()]),
                    );
                    line = Some(format!(
                        "DmTensor `{out}` = {}<m![{}], m![{}], m![{}], m![{}]> at bytes {}..{}",
                        y.dtype(),
                        y.chip().m_notation(),
                        y.cluster().m_notation(),
                        y.slice().m_notation(),
                        y.element().m_notation(),
                        range.start,
                        range.end
                    ));
                    let order = self.order(&y, logical.as_deref());
                    run.tensors.push(NamedTensor {
                        name: out.clone(),
                        tensor: y,
                        order,
                    });
                    State::Idle
                }
                (State::Stream(t), StageSpec::CommitView { tensor, tile }) => {
                    let dst = run.tensor(tensor)?.tensor.clone();
                    let view = self
                        .tile_of(index, dst.view_mut(), tile.as_ref())
                        .map_err(|e| match e {
                            TileOr::Tile(e) => engine(e.into()),
                            TileOr::Kernel(e) => e,
                        })?;
                    let bits = dst.dtype().bits();
                    let plan = t
                        .commit_view(&mut run.dm, &view)
                        .map_err(|e| engine(e.into()))?
                        .in_context(context_of(&inv));
                    let Some(mut done) = inv.take() else {
                        return Err(order("needs an invocation: start one with a begin stage"));
                    };
                    done.records.push(
                        EngineRecord::commit(&plan, done.commit_latency)
                            .with_bank_run(plan.sequencer.bank_run(view.address()) as u64),
                    );
                    let end =
                        view.address() + ((plan.sequencer.last_offset() + 1) * bits).div_ceil(8);
                    let range = view.address()..end;
                    overlap_warnings(run, index, tensor, &range);
                    run.schedule.push(
                        InvocationSchedule::new(done.context, &done.records)
                            .with_ranges(done.reads, vec![range.clone()]),
                    );
                    line = Some(format!(
                        "commit_view into `{tensor}` (m![{}]) at bytes {}..{}",
                        view.element().m_notation(),
                        range.start,
                        range.end
                    ));
                    State::Idle
                }
                (State::Stream(_), _) => {
                    return Err(order(
                        "is not a stage of a stream outside the Vector Engine (fetch adapter, switch, collect, vector_init, cast, commit_trim, commit_cast, commit, commit_view)",
                    ));
                }
                (State::Vector(v), StageSpec::VectorFinal) => {
                    push(&mut inv, EngineRecord::vector(v.trace()));
                    State::Stream(v.vector_final().map_err(|e| engine(e.into()))?)
                }
                (State::Vector(v), stage) => {
                    State::Vector(vector_stage(&self.axes, index, v, stage)?)
                }
            };
            let layout = line.unwrap_or_else(|| match &state {
                State::Stream(t) => t.to_string(),
                State::Vector(v) => v.to_string(),
                State::Lifting(b) => b.1.to_string(),
                State::Begun(_) | State::Interleaved(_) | State::Idle => String::new(),
            });
            run.stages.push(format!("{index:>2} {name:<19} {layout}"));
        }
        match inv {
            Some(inv) if !open_end => Err(KernelError::Unfinished { begun: inv.begun }),
            _ => Ok(()),
        }
    }
}

/// A lift stage's dimension, output mapping and OutTime (`None`: not a lift).
fn lift_dim(stage: &StageSpec) -> Option<(LiftDim, &str, &str)> {
    match stage {
        StageSpec::FetchChipLift { chip, time } => Some((LiftDim::Chip, chip, time)),
        StageSpec::FetchClusterLift { cluster, time } => Some((LiftDim::Cluster, cluster, time)),
        StageSpec::FetchSliceLift { slice, time } => Some((LiftDim::Slice, slice, time)),
        _ => None,
    }
}

/// The key of a lift stage's output mapping.
fn dim_key(dim: LiftDim) -> &'static str {
    match dim {
        LiftDim::Chip => "chip",
        LiftDim::Cluster => "cluster",
        LiftDim::Slice => "slice",
    }
}

/// The switch configuration a `switch` stage names, with the sizes its variant takes.
fn switch_config(
    name: &str,
    slice1: Option<usize>,
    slice0: Option<usize>,
    time0: Option<usize>,
    ring_size: Option<usize>,
) -> Result<SwitchConfig, String> {
    let need = |v: Option<usize>, key: &str| {
        v.ok_or_else(|| format!("config {name} needs the key `{key}`"))
    };
    Ok(match name {
        "Broadcast01" => SwitchConfig::Broadcast01 {
            slice1: need(slice1, "slice1")?,
            slice0: need(slice0, "slice0")?,
            time0: need(time0, "time0")?,
        },
        "Broadcast1" => SwitchConfig::Broadcast1 {
            slice1: need(slice1, "slice1")?,
            slice0: need(slice0, "slice0")?,
        },
        "Transpose" => SwitchConfig::Transpose {
            slice1: need(slice1, "slice1")?,
            slice0: need(slice0, "slice0")?,
        },
        "InterTranspose" => SwitchConfig::InterTranspose {
            slice1: need(slice1, "slice1")?,
            slice0: need(slice0, "slice0")?,
            time0: need(time0, "time0")?,
        },
        "TransposedBroadcast1" => SwitchConfig::TransposedBroadcast1 {
            slice1: need(slice1, "slice1")?,
            slice0: need(slice0, "slice0")?,
        },
        "CustomBroadcast" => SwitchConfig::CustomBroadcast {
            ring_size: need(ring_size, "ring_size")?,
        },
        other => {
            return Err(format!(
                "unknown config `{other}` (one of Broadcast01, Broadcast1, Transpose, InterTranspose, TransposedBroadcast1, CustomBroadcast)"
            ));
        }
    })
}

/// The context of the invocation under way (main outside one).
fn context_of(inv: &Option<Invocation>) -> Context {
    inv.as_ref().map_or(Context::Main, |i| i.context)
}

/// A tile that cannot be cut, or a mapping that does not parse.
enum TileOr {
    Tile(TileError),
    Kernel(KernelError),
}

/// Warns when the bytes `written` (by stage `index` into tensor `dest`) overlap another
/// tensor's bytes (§2.2, decision "overlap": allowed, reported).
fn overlap_warnings(run: &mut KernelRun, index: usize, dest: &str, written: &Range<usize>) {
    for t in &run.tensors {
        let r = t.tensor.byte_range();
        if t.name == dest || r.end <= written.start || written.end <= r.start {
            continue;
        }
        let (from, to) = (r.start.max(written.start), r.end.min(written.end));
        let warning = format!(
            "warning: stage {index} writes `{dest}` at bytes {}..{}, over bytes {from}..{to} of `{}` (tensors may overlap; the later write clobbers the earlier tensor)",
            written.start, written.end, t.name
        );
        if !run.warnings.contains(&warning) {
            run.warnings.push(warning);
        }
    }
}

/// Records `record` in the invocation under way.
fn push(inv: &mut Option<Invocation>, record: EngineRecord) {
    if let Some(inv) = inv.as_mut() {
        inv.records.push(record);
    }
}

/// The lowest 8-byte-aligned address above every tensor (`commit` without an address:
/// `docs/furiosa-engines.md` §8.2, "allocation").
fn next_free(tensors: &[NamedTensor]) -> usize {
    tensors
        .iter()
        .map(|t| t.tensor.byte_range().end)
        .max()
        .unwrap_or(0)
        .next_multiple_of(8)
}
