//! The simulation: a grid of PEs with their routers, tasks and threads, as a program sets it
//! up (binding tasks, DSRs loaded for asynchronous use, channels, activations) and reads it
//! back (PEs, events, collected wavelets). [`super::scheduler`] runs it.

use std::fmt;

use super::bound_tasks::BoundTasks;
use super::error::SimError;
use super::idle::IdleSkip;
use super::microthread::MainThreadPriority;
use super::parallel::Threads;
use super::pe_state::{MainThread, PeState};
use super::pe_step::{PeStep, TraceSink};
use super::queue_reuse::QueueReusePolicy;
use super::run_ahead::AheadCount;
use super::scale_profile::ScaleProfile;
use super::stats::{PeStats, TraceHash};
use super::task::{Action, AsyncConfig, Task, TaskKind};
use super::trace::{TraceEvent, TraceFormat, chrome_trace};
use super::window::StepEnv;
use crate::arch::Arch;
use crate::dsd::Dsd;
use crate::fabric::{Collected, Color, Fabric, Hop};
use crate::ids::{Channel, LocalTaskId, TaskId};
use crate::ops::{DsrId, Operand};
use crate::pe::{DsrFile, Pe};

/// A grid of PEs, their routers and their tasks, run cycle by cycle.
pub struct Sim {
    pub(super) arch: Arch,
    pub(super) fabric: Fabric,
    pub(super) pes: Vec<PeState>,
    /// The run-ahead counters of each PE ([`super::run_ahead`]), apart from its state.
    pub(super) ahead: Vec<AheadCount>,
    pub(super) cycle: u64,
    pub(super) trace: TraceHash,
    pub(super) events: Option<Vec<TraceEvent>>,
    pub(super) queue_reuse: QueueReusePolicy,
    pub(super) idle: IdleSkip,
    /// Buffers reused from cycle to cycle: the hops, the PEs whose RAMP may be refilled.
    pub(super) hops: Vec<Hop>,
    pub(super) ramp: Vec<usize>,
    /// The PEs to step this cycle (reused).
    pub(super) stepping: Vec<usize>,
    pub(super) threads: Threads,
    /// Where the runs' CPU time goes, when asked ([`Sim::set_scale_profile`]).
    pub(super) profile: Option<Box<ScaleProfile>>,
}

impl Sim {
    /// At most this many PEs per simulation: each PE holds its 48 KiB memory, so a larger grid
    /// is refused rather than exhausting the host (a policy, not a hardware limit).
    pub const MAX_PES: u64 = 16_384;

    /// A `width` x `height` grid of empty PEs of `arch` (at most [`Sim::MAX_PES`]).
    pub fn new(arch: Arch, width: u32, height: u32) -> Result<Sim, SimError> {
        let pes = u64::from(width) * u64::from(height);
        if pes > Sim::MAX_PES {
            return Err(SimError::TooManyPes {
                width,
                height,
                max: Sim::MAX_PES,
            });
        }
        let fabric = Fabric::new(arch, width, height)?;
        let n = fabric.len();
        let pes = (0..fabric.len())
            .map(|k| {
                let (x, y) = fabric.coords(k);
                PeState {
                    pe: Pe::new(arch),
                    tasks: BoundTasks::default(),
                    main: MainThread::default(),
                    micro: Vec::new(),
                    main_priority: MainThreadPriority::default(),
                    stats: PeStats {
                        x,
                        y,
                        ..PeStats::default()
                    },
                    out_owner: Default::default(),
                    dsr_async: Vec::new(),
                    blocked_uts: [false; 8],
                    open_channels: Vec::new(),
                    flushing: [false; 8],
                    empty_handlers: Vec::new(),
                    control_table: None,
                    rotations: Vec::new(),
                    window_start: None,
                }
            })
            .collect();
        Ok(Sim {
            arch,
            fabric,
            pes,
            ahead: (0..n).map(|_| AheadCount::default()).collect(),
            cycle: 0,
            trace: TraceHash::default(),
            events: None,
            queue_reuse: QueueReusePolicy::default(),
            idle: IdleSkip::new(n),
            hops: Vec::new(),
            ramp: Vec::new(),
            stepping: Vec::new(),
            threads: Threads::default(),
            profile: None,
        })
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// The routers.
    pub fn fabric(&self) -> &Fabric {
        &self.fabric
    }

    /// The routers, to configure routes and host streams.
    pub fn fabric_mut(&mut self) -> &mut Fabric {
        &mut self.fabric
    }

    /// PE `(x, y)`.
    pub fn pe(&self, x: i64, y: i64) -> Result<&Pe, SimError> {
        let k = self.fabric.pe_index(x, y)?;
        Ok(&self.pes[k].pe)
    }

    /// PE `(x, y)`, to declare arrays, FIFOs, DSRs and queue bindings.
    pub fn pe_mut(&mut self, x: i64, y: i64) -> Result<&mut Pe, SimError> {
        let k = self.fabric.pe_index(x, y)?;
        Ok(&mut self.pes[k].pe)
    }

    /// Records events (hops, task starts, operation ends) for a trace; off by default.
    pub fn record_events(&mut self, on: bool) {
        self.events = on.then(Vec::new);
    }

    /// The recorded events (empty unless [`Sim::record_events`] is on).
    pub fn events(&self) -> &[TraceEvent] {
        self.events.as_deref().unwrap_or(&[])
    }

    /// The recorded events as Chrome trace-event JSON.
    pub fn chrome_trace(&self) -> String {
        chrome_trace(self.events(), self.fabric.dims().0)
    }

    /// The recorded events as a trace file's text in `format`.
    pub fn trace_text(&self, format: TraceFormat) -> String {
        match format {
            TraceFormat::Chrome => self.chrome_trace(),
            TraceFormat::Lines => self.events().iter().map(|e| format!("{e}\n")).collect(),
        }
    }

    /// Wavelets collected at open edge ports.
    pub fn collected(&self) -> &[Collected] {
        self.fabric.collected()
    }

    /// Sets the main thread's priority on PE `(x, y)`.
    pub fn set_main_thread_priority(
        &mut self,
        x: i64,
        y: i64,
        p: MainThreadPriority,
    ) -> Result<(), SimError> {
        let k = self.fabric.pe_index(x, y)?;
        self.pes[k].main_priority = p;
        Ok(())
    }

    /// `@bind_local_task` / `@bind_data_task` / `@bind_control_task` on PE `(x, y)`: binds
    /// task `name` (used in messages and traces only) at `id`. A data task's id is its color
    /// on WSE-2 (its input queue is the color's default queue) and its input queue on WSE-3
    /// (bound to a color with [`crate::fabric::PeQueues::bind_input`]); local task ids are
    /// 0..=30 on WSE-2, 8..=30 on WSE-3. Names and ids are unique per PE (ids per table).
    pub fn bind_task(
        &mut self,
        x: i64,
        y: i64,
        id: impl Into<TaskId>,
        name: &str,
        body: Vec<Action>,
    ) -> Result<(), SimError> {
        let task_id = id.into();
        let (kind, id) = (task_id.kind(), task_id.id());
        let k = self.fabric.pe_index(x, y)?;
        let (px, py) = self.fabric.coords(k);
        let bad = |what: String| SimError::Task { x: px, y: py, what };
        let st = &mut self.pes[k];
        let range = match (kind, self.arch) {
            (TaskKind::Data, Arch::Wse2) => 0..=23,
            (TaskKind::Data, Arch::Wse3) => 0..=7,
            (TaskKind::Local, Arch::Wse2) => 0..=30,
            (TaskKind::Local, Arch::Wse3) => 8..=30,
            (TaskKind::Control, _) => 0..=63,
        };
        if !range.contains(&id) {
            return Err(bad(format!(
                "{kind:?} task id {id} is outside {}..={} on {}",
                range.start(),
                range.end(),
                self.arch
            )));
        }
        // a separate control-task table (WSE-3) gives control ids their own space
        let separate = st.control_table.is_some();
        let same_table = |other: TaskKind| {
            !separate || (other == TaskKind::Control) == (kind == TaskKind::Control)
        };
        if let Some(t) = st
            .tasks
            .iter()
            .find(|t| (t.number() == id && same_table(t.kind())) || t.name.as_ref() == name)
        {
            return Err(bad(format!(
                "task {name} (id {id}) clashes with task {} (id {})",
                t.name,
                t.number()
            )));
        }
        if kind == TaskKind::Data && self.arch == Arch::Wse2 {
            let c = Color::new(i64::from(id))?;
            if st.pe.queues.default_input(c).is_none() {
                return Err(bad(format!("no free input queue for data task color {id}")));
            }
        }
        // WSE-2 fabins naming only a color get their default input queue now, as the
        // compiler fixes it, so wavelets arriving before the operation starts find it
        for a in &body {
            if let Action::Op { dest, srcs, op, .. } = a {
                // DSD operands only: a DSR may be loaded later, at run time
                let all: Vec<&Operand> = std::iter::once(dest)
                    .chain(srcs)
                    .filter(|o| matches!(o, Operand::Dsd(_)))
                    .collect();
                st.pe
                    .bind_fabric_defaults(&all)
                    .map_err(|e| bad(format!("@{}: {e}", op.name())))?;
            }
        }
        st.tasks.bind(Task {
            name: name.into(),
            id: task_id,
            body: body.into(),
            active: false,
            blocked: false,
        });
        Ok(())
    }

    /// `@load_to_dsr(dsr, dsd, .{ .async = true, ... })` on PE `(x, y)`: operations on the
    /// DSR run asynchronously with `cfg` (spec §6).
    pub fn load_to_dsr_async(
        &mut self,
        x: i64,
        y: i64,
        file: DsrFile,
        dsd: &Dsd,
        cfg: AsyncConfig,
    ) -> Result<DsrId, SimError> {
        let k = self.fabric.pe_index(x, y)?;
        let id = self.pes[k]
            .pe
            .load_to_dsr(file, dsd, false)
            .map_err(|e| self.op_error(k, self.cycle, "@load_to_dsr", e))?;
        self.pes[k].dsr_async.push((id, cfg));
        Ok(id)
    }

    /// Host-side (comptime) `@unblock(channel)` on PE `(x, y)`: control wavelets reaching the
    /// head of a channel no data task is bound to (a color on WSE-2, an input queue on WSE-3)
    /// start the control task they name.
    pub fn unblock_channel(
        &mut self,
        x: i64,
        y: i64,
        channel: impl Into<Channel>,
    ) -> Result<(), SimError> {
        let k = self.fabric.pe_index(x, y)?;
        self.with_step(k, |s| s.block_channel(k, channel.into(), false))
    }

    /// Host-side (comptime) `@block(task)` on PE `(x, y)`: the bound task does not start
    /// until an `@unblock` of it.
    pub fn block(&mut self, x: i64, y: i64, task: impl Into<TaskId>) -> Result<(), SimError> {
        let k = self.fabric.pe_index(x, y)?;
        self.with_step(k, |s| s.set_task(k, task.into(), |t| t.blocked = true))
    }

    /// Host-side `@activate(task)` on PE `(x, y)` (the port of an RPC `launch`).
    pub fn activate(&mut self, x: i64, y: i64, task: LocalTaskId) -> Result<(), SimError> {
        let k = self.fabric.pe_index(x, y)?;
        self.with_step(k, |s| s.set_task(k, task.into(), |t| t.active = true))
    }

    /// Runs `f` on the step of PE `k` (its trace into the hash, its events recorded, its
    /// router changes applied after).
    pub(super) fn with_step<R>(&mut self, k: usize, f: impl FnOnce(&mut PeStep<'_>) -> R) -> R {
        let mut exits = Vec::new();
        let mut sink = TraceSink::Hash(self.trace);
        let width = self.fabric.dims().0;
        let r = {
            let mut step = PeStep::new(
                k,
                (&mut self.pes[k], &mut self.ahead[k]),
                self.arch,
                self.queue_reuse,
                width,
                &mut exits,
                &mut sink,
                self.events.as_mut(),
            );
            f(&mut step)
        };
        if let TraceSink::Hash(h) = sink {
            self.trace = h;
        }
        for (k, c) in exits {
            self.fabric.set_teardown_at(k, c, false);
        }
        r
    }

    /// The settings a PE's step needs besides the PE.
    pub(super) fn step_env(&self) -> StepEnv {
        StepEnv {
            arch: self.arch,
            queue_reuse: self.queue_reuse,
            width: self.fabric.dims().0,
        }
    }

    /// An operation's error on PE `k` at `cycle`, with what ran.
    pub(super) fn op_error(
        &self,
        k: usize,
        cycle: u64,
        what: impl fmt::Display,
        source: crate::ops::OpError,
    ) -> SimError {
        let (x, y) = self.fabric.coords(k);
        SimError::Op {
            x,
            y,
            cycle,
            what: what.to_string(),
            source: Box::new(source),
        }
    }
}
