//! One Tensor Unit invocation as a method chain (the vendor's `BeginTensor` … `CommitTensor`
//! types folded into one run-time type): each method runs its engine on the stream, records
//! the engine for the schedule (§10.2), and the commit schedules the invocation on its context.
//!
//! The Fetch Engine's record is completed when the stream leaves the Fetch Adapter (at
//! `switch`, `collect` or a commit stage), because a following `fetch_cast` or
//! `fetch_table_lookup` limits the read size (§4.3) and adds its latency.

use std::ops::Range;

use thiserror::Error;

use super::TuContext;
use crate::dm::{DmError, DmTensor, DmTensorView};
use crate::engine::collect::CollectError;
use crate::engine::commit::CommitError;
use crate::engine::commit_cast::COMMIT_CAST_LATENCY;
use crate::engine::context::check_main_only;
use crate::engine::fetch::{FetchError, FetchPlan, begin};
use crate::engine::fetch_cast::FETCH_CAST_LATENCY;
use crate::engine::fetch_interleave::begin_interleaved;
use crate::engine::fetch_lift::LiftDim;
use crate::engine::fetch_mask::FETCH_MASK_LATENCY;
use crate::engine::fetch_table_lookup::FETCH_TABLE_LOOKUP_LATENCY;
use crate::engine::switch::{SwitchConfig, SwitchError};
use crate::engine::vector::ops::InterSliceReduceOp;
use crate::engine::vector::{VectorError, VectorTensor};
use crate::mapping::Mapping;
use crate::pipeline::EngineError;
use crate::schedule::{Engine, EngineRecord, InvocationSchedule};
use crate::{CastError, CastProfile, DType, Scalar, StreamTensor};

/// Why a chain stage is refused.
#[derive(Debug, Error)]
pub enum TuStreamError {
    /// An engine refused the stage.
    #[error(transparent)]
    Fetch(Box<FetchError>),
    /// An engine refused the stage.
    #[error(transparent)]
    Engine(Box<EngineError>),
    /// A stage where the chain cannot take it.
    #[error("`{method}` cannot be called {at} (rule: {rule})")]
    Order {
        /// The method.
        method: &'static str,
        /// Where the chain is.
        at: &'static str,
        /// What the chain accepts there.
        rule: &'static str,
    },
}

macro_rules! engine_error {
    ($($t:ty),*) => {$(
        impl From<$t> for TuStreamError {
            fn from(e: $t) -> TuStreamError {
                TuStreamError::Engine(Box::new(EngineError::from(e)))
            }
        }
    )*};
}
engine_error!(
    DmError,
    CollectError,
    SwitchError,
    VectorError,
    CastError,
    CommitError
);

impl From<FetchError> for TuStreamError {
    fn from(e: FetchError) -> TuStreamError {
        TuStreamError::Fetch(Box::new(e))
    }
}

/// What was fetched from.
#[derive(Clone, Debug)]
enum Source {
    View(Box<DmTensorView>),
    Interleaved(Box<(Mapping, DmTensorView, DmTensorView)>),
}

/// A fetch whose record waits for the end of the Fetch Adapter.
#[derive(Clone, Debug)]
struct PendingFetch {
    time: Mapping,
    packet: Mapping,
    cast_to: Option<DType>,
    latency: u64,
    lifted: Option<FetchPlan>,
}

#[derive(Debug)]
enum State {
    Begun(Source),
    Fetched(Box<(Source, StreamTensor, PendingFetch)>),
    Stream(StreamTensor),
    Vector(VectorTensor),
    Done,
}

/// An invocation under way on a context: `ctx.begin(view)` … `.commit(element)`.
#[derive(Debug)]
pub struct TuStream<'c> {
    ctx: &'c TuContext,
    state: State,
    records: Vec<EngineRecord>,
    reads: Vec<Range<usize>>,
    commit_latency: u64,
}

impl<'c> TuStream<'c> {
    pub(super) fn begin(ctx: &'c TuContext, view: DmTensorView) -> TuStream<'c> {
        TuStream {
            ctx,
            reads: vec![view.tensor().byte_range()],
            state: State::Begun(Source::View(Box::new(view))),
            records: Vec::new(),
            commit_latency: 0,
        }
    }

    pub(super) fn interleaved(
        ctx: &'c TuContext,
        axis: Mapping,
        lhs: DmTensorView,
        rhs: DmTensorView,
    ) -> TuStream<'c> {
        TuStream {
            ctx,
            reads: vec![lhs.tensor().byte_range(), rhs.tensor().byte_range()],
            state: State::Begun(Source::Interleaved(Box::new((axis, lhs, rhs)))),
            records: Vec::new(),
            commit_latency: 0,
        }
    }

    /// The stream tensor at this point of the chain (`None` before `fetch` and inside the
    /// Vector Engine).
    pub fn tensor(&self) -> Option<&StreamTensor> {
        match &self.state {
            State::Fetched(f) => Some(&f.1),
            State::Stream(t) => Some(t),
            _ => None,
        }
    }

    /// The engine records so far (the Fetch Engine's once the adapter is passed).
    pub fn records(&self) -> &[EngineRecord] {
        &self.records
    }

    fn order(method: &'static str, state: &State) -> TuStreamError {
        let (at, rule) = match state {
            State::Begun(_) => ("on a BeginTensor", "a BeginTensor goes on with fetch"),
            State::Fetched(..) | State::Stream(_) => (
                "on this stream",
                "the stream's position decides; see the engine table",
            ),
            State::Vector(_) => (
                "inside the Vector Engine",
                "leave the Vector Engine with vector_final",
            ),
            State::Done => ("after the commit", "a commit ends the invocation"),
        };
        TuStreamError::Order { method, at, rule }
    }

    /// `.fetch::<OutTime, OutPacket>()`.
    pub fn fetch(mut self, time: &Mapping, packet: &Mapping) -> Result<Self, TuStreamError> {
        let state = std::mem::replace(&mut self.state, State::Done);
        let State::Begun(source) = state else {
            return Err(Self::order("fetch", &state));
        };
        let stream = {
            let dm = self.ctx.dm();
            match &source {
                Source::View(view) => begin(&dm, view).fetch(time, packet)?,
                Source::Interleaved(i) => {
                    begin_interleaved(&dm, &i.0, &i.1, &i.2)?.fetch(time, packet)?
                }
            }
        };
        let pending = PendingFetch {
            time: time.clone(),
            packet: packet.clone(),
            cast_to: None,
            latency: 0,
            lifted: None,
        };
        self.state = State::Fetched(Box::new((source, stream, pending)));
        Ok(self)
    }

    fn lift(mut self, dim: LiftDim, out: &Mapping, time: &Mapping) -> Result<Self, TuStreamError> {
        let method = match dim {
            LiftDim::Chip => "fetch_chip_lift",
            LiftDim::Cluster => "fetch_cluster_lift",
            LiftDim::Slice => "fetch_slice_lift",
        };
        let state = std::mem::replace(&mut self.state, State::Done);
        let State::Fetched(f) = state else {
            return Err(Self::order(method, &state));
        };
        let (Source::View(view), stream, mut pending) = *f else {
            return Err(TuStreamError::Order {
                method,
                at: "on an interleaved fetch",
                rule: "a lift reads one replicated tensor",
            });
        };
        let (lifted, plan) = {
            let dm = self.ctx.dm();
            begin(&dm, &view).fetch_lift(stream, dim, out, time)?
        };
        pending.time = time.clone();
        pending.lifted = Some(plan.fetch);
        self.state = State::Fetched(Box::new((Source::View(view), lifted, pending)));
        Ok(self)
    }

    /// `.fetch_chip_lift::<OutChip, OutTime>()`.
    pub fn fetch_chip_lift(self, chip: &Mapping, time: &Mapping) -> Result<Self, TuStreamError> {
        self.lift(LiftDim::Chip, chip, time)
    }

    /// `.fetch_cluster_lift::<OutCluster, OutTime>()`.
    pub fn fetch_cluster_lift(
        self,
        cluster: &Mapping,
        time: &Mapping,
    ) -> Result<Self, TuStreamError> {
        self.lift(LiftDim::Cluster, cluster, time)
    }

    /// `.fetch_slice_lift::<OutSlice, OutTime>()`.
    pub fn fetch_slice_lift(self, slice: &Mapping, time: &Mapping) -> Result<Self, TuStreamError> {
        self.lift(LiftDim::Slice, slice, time)
    }

    /// Applies a Fetch Adapter stage.
    fn adapter(
        mut self,
        method: &'static str,
        cast_to: Option<DType>,
        latency: usize,
        f: impl FnOnce(StreamTensor) -> Result<StreamTensor, FetchError>,
    ) -> Result<Self, TuStreamError> {
        let state = std::mem::replace(&mut self.state, State::Done);
        let State::Fetched(fetched) = state else {
            return Err(Self::order(method, &state));
        };
        let (source, stream, mut pending) = *fetched;
        let stream = f(stream)?;
        if cast_to.is_some() {
            pending.cast_to = cast_to;
        }
        pending.latency += latency as u64;
        self.state = State::Fetched(Box::new((source, stream, pending)));
        Ok(self)
    }

    /// `.fetch_mask()`.
    pub fn fetch_mask(self) -> Result<Self, TuStreamError> {
        self.adapter("fetch_mask", None, FETCH_MASK_LATENCY, |s| s.fetch_mask())
    }

    /// `.fetch_table_lookup::<OutD>()` with the type given at run time (main context only).
    pub fn fetch_table_lookup_to(self, dtype: DType) -> Result<Self, TuStreamError> {
        check_main_only("fetch_table_lookup", self.ctx.context()).map_err(FetchError::from)?;
        self.adapter(
            "fetch_table_lookup",
            Some(dtype),
            FETCH_TABLE_LOOKUP_LATENCY,
            |s| s.fetch_table_lookup_to(dtype),
        )
    }

    /// `.fetch_table_lookup::<OutD>()`.
    pub fn fetch_table_lookup<D: Scalar>(self) -> Result<Self, TuStreamError> {
        self.fetch_table_lookup_to(D::DTYPE)
    }

    /// `.fetch_cast::<OutD>()` with the type given at run time.
    pub fn fetch_cast_to(self, dtype: DType) -> Result<Self, TuStreamError> {
        self.adapter("fetch_cast", Some(dtype), FETCH_CAST_LATENCY, |s| {
            s.fetch_cast_to(dtype)
        })
    }

    /// `.fetch_cast::<OutD>()`.
    pub fn fetch_cast<D: Scalar>(self) -> Result<Self, TuStreamError> {
        self.fetch_cast_to(D::DTYPE)
    }

    /// Ends the Fetch Adapter: records the fetch with its final read size and latency.
    fn leave_fetch(&mut self, method: &'static str) -> Result<StreamTensor, TuStreamError> {
        let state = std::mem::replace(&mut self.state, State::Done);
        match state {
            State::Fetched(f) => {
                let (source, stream, pending) = *f;
                let plan = match (pending.lifted, &source) {
                    (Some(plan), _) => plan,
                    (None, Source::View(view)) => {
                        let dm = self.ctx.dm();
                        let b = begin(&dm, view);
                        match pending.cast_to {
                            Some(out) => b.plan_cast(&pending.time, &pending.packet, out)?,
                            None => b.plan(&pending.time, &pending.packet)?,
                        }
                    }
                    (None, Source::Interleaved(i)) => {
                        let dm = self.ctx.dm();
                        begin_interleaved(&dm, &i.0, &i.1, &i.2)?
                            .plan(&pending.time, &pending.packet)?
                    }
                };
                let plan = plan.in_context(self.ctx.context());
                let base = match &source {
                    Source::View(view) => view.address(),
                    Source::Interleaved(i) => i.1.address(),
                };
                self.records.push(
                    EngineRecord::fetch(&plan, pending.latency)
                        .with_bank_run(plan.sequencer.bank_run(base) as u64),
                );
                Ok(stream)
            }
            State::Stream(stream) => Ok(stream),
            other => Err(Self::order(method, &other)),
        }
    }

    /// `.switch::<OutSlice, OutTime>(config)`.
    pub fn switch(
        mut self,
        out_slice: &Mapping,
        out_time: &Mapping,
        config: SwitchConfig,
    ) -> Result<Self, TuStreamError> {
        let stream = self.leave_fetch("switch")?;
        let plan = stream.switch_plan(out_slice, out_time, config)?;
        self.records.push(EngineRecord::new(
            Engine::Switch,
            plan.time_steps as u64,
            (plan.ring_size * plan.flits_per_packet) as u64,
        ));
        self.state = State::Stream(stream.switch(out_slice, out_time, config)?);
        Ok(self)
    }

    /// `.collect::<Time2, Packet2>()`.
    pub fn collect(mut self, time2: &Mapping, packet2: &Mapping) -> Result<Self, TuStreamError> {
        let stream = self.leave_fetch("collect")?;
        let c = stream.collect(time2, packet2)?;
        self.records
            .push(EngineRecord::collect(c.time().size() as u64));
        self.state = State::Stream(c);
        Ok(self)
    }

    /// `.vector_init()`: enters the Vector Engine.
    pub fn vector_init(mut self) -> Result<Self, TuStreamError> {
        let state = std::mem::replace(&mut self.state, State::Done);
        let State::Stream(stream) = state else {
            return Err(Self::order("vector_init", &state));
        };
        self.state = State::Vector(stream.vector_init()?);
        Ok(self)
    }

    /// Any Vector Engine stage: `f` is called with the `VectorTensor` (e.g.
    /// `|v| v.vector_intra_slice_branch(BranchMode::Unconditional)`).
    pub fn vector_stage(
        mut self,
        f: impl FnOnce(VectorTensor) -> Result<VectorTensor, VectorError>,
    ) -> Result<Self, TuStreamError> {
        let state = std::mem::replace(&mut self.state, State::Done);
        let State::Vector(v) = state else {
            return Err(Self::order("vector_stage", &state));
        };
        self.state = State::Vector(f(v)?);
        Ok(self)
    }

    /// `.vector_inter_slice_reduce::<OutSlice, OutTime>(op)`.
    pub fn vector_inter_slice_reduce(
        self,
        out_slice: &Mapping,
        out_time: &Mapping,
        op: impl Into<InterSliceReduceOp>,
    ) -> Result<Self, TuStreamError> {
        self.vector_stage(|v| v.vector_inter_slice_reduce(out_slice, out_time, op))
    }

    /// `.vector_final()`: leaves the Vector Engine (recorded with its stages).
    pub fn vector_final(mut self) -> Result<Self, TuStreamError> {
        let state = std::mem::replace(&mut self.state, State::Done);
        let State::Vector(v) = state else {
            return Err(Self::order("vector_final", &state));
        };
        self.records.push(EngineRecord::vector(v.trace()));
        self.state = State::Stream(v.vector_final()?);
        Ok(self)
    }

    fn stream(&mut self, method: &'static str) -> Result<StreamTensor, TuStreamError> {
        let state = std::mem::replace(&mut self.state, State::Done);
        match state {
            State::Stream(s) => Ok(s),
            State::Fetched(..) => {
                self.state = state;
                self.leave_fetch(method)
            }
            other => Err(Self::order(method, &other)),
        }
    }

    /// `.cast::<OutD, OutPacket>()` with the type given at run time (the Cast Engine).
    pub fn cast_to(mut self, dtype: DType, out_packet: &Mapping) -> Result<Self, TuStreamError> {
        let stream = self.stream("cast")?;
        let flits = stream.time().size() as u64;
        let c = stream.cast_to(dtype, out_packet, &CastProfile::default())?;
        self.records.push(EngineRecord::cast(flits));
        self.state = State::Stream(c);
        Ok(self)
    }

    /// `.cast::<OutD, OutPacket>()`.
    pub fn cast<D: Scalar>(self, out_packet: &Mapping) -> Result<Self, TuStreamError> {
        self.cast_to(D::DTYPE, out_packet)
    }

    /// `.commit_trim::<OutPacket>()`.
    pub fn commit_trim(mut self, packet: &Mapping) -> Result<Self, TuStreamError> {
        let stream = self.stream("commit_trim")?;
        self.state = State::Stream(stream.commit_trim(packet)?);
        Ok(self)
    }

    fn commit_cast_with(mut self, relu: bool) -> Result<Self, TuStreamError> {
        let method = if relu {
            "commit_cast_relu"
        } else {
            "commit_cast"
        };
        check_main_only(method, self.ctx.context()).map_err(CommitError::from)?;
        let stream = self.stream(method)?;
        let c = if relu {
            stream.commit_cast_relu()?
        } else {
            stream.commit_cast()?
        };
        self.commit_latency += COMMIT_CAST_LATENCY as u64;
        self.state = State::Stream(c);
        Ok(self)
    }

    /// `.commit_cast::<bf16>()` (main context only).
    pub fn commit_cast(self) -> Result<Self, TuStreamError> {
        self.commit_cast_with(false)
    }

    /// `.commit_cast_relu::<bf16>()` (main context only).
    pub fn commit_cast_relu(self) -> Result<Self, TuStreamError> {
        self.commit_cast_with(true)
    }

    /// `.commit::<Element>(address)` (0.3.0's form): a new `DmTensor` at `address`.
    pub fn commit_at(
        mut self,
        element: &Mapping,
        address: usize,
    ) -> Result<DmTensor, TuStreamError> {
        let stream = self.stream("commit")?;
        let (tensor, plan) = {
            let mut dm = self.ctx.dm();
            stream.commit_at(&mut dm, element, address)?
        };
        self.ctx.shared.note_placed(&tensor);
        self.end(plan, address, tensor.byte_range());
        Ok(tensor)
    }

    /// `.commit()` with the vendor's inferred `Element` as its argument: the new tensor goes
    /// at the lowest 8-byte-aligned address above every tensor the device has placed.
    pub fn commit(self, element: &Mapping) -> Result<DmTensor, TuStreamError> {
        let address = super::lock(&self.ctx.shared.placed_end).next_multiple_of(8);
        self.commit_at(element, address)
    }

    /// `.commit_view(dst)`: writes into an existing mutable view (a tensor or a tile).
    pub fn commit_view(mut self, dst: &DmTensorView) -> Result<(), TuStreamError> {
        let stream = self.stream("commit_view")?;
        let plan = {
            let mut dm = self.ctx.dm();
            stream.commit_view(&mut dm, dst)?
        };
        let bits = dst.tensor().dtype().bits();
        let end = dst.address() + ((plan.sequencer.last_offset() + 1) * bits).div_ceil(8);
        self.end(plan, dst.address(), dst.address()..end);
        Ok(())
    }

    /// Records the commit and schedules the invocation.
    fn end(
        &mut self,
        plan: crate::engine::commit::CommitPlan,
        address: usize,
        written: Range<usize>,
    ) {
        let plan = plan.in_context(self.ctx.context());
        self.records.push(
            EngineRecord::commit(&plan, self.commit_latency)
                .with_bank_run(plan.sequencer.bank_run(address) as u64),
        );
        let inv = InvocationSchedule::new(self.ctx.context(), &self.records)
            .with_ranges(std::mem::take(&mut self.reads), vec![written]);
        self.ctx.finish(inv);
    }
}
