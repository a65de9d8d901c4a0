//! One PE's scheduling state: its machine, bound tasks, main thread and microthreads, and the
//! per-PE settings the scheduler consults (priorities, blocked microthreads, open channels,
//! flushes, task tables).

use std::collections::VecDeque;
use std::sync::Arc;

use super::bound_tasks::BoundTasks;
use super::label::Label;
use super::microthread::MainThreadPriority;
use super::run_ahead::RunAhead;
use super::stats::PeStats;
use super::table_settings::{ControlTaskTable, Rotation};
use super::task::{Action, AsyncConfig};
use crate::fabric::{OutputQueue, QueueRef, Wavelet};
use crate::ids::TaskId;
use crate::ops::{DsrId, Operand};
use crate::pe::{Outcome, Pe, RunningOp, Wait};

/// An asynchronous operation running on a hardware microthread.
pub(super) struct Microthread {
    pub(super) ut: u8,
    pub(super) rank: u8,
    pub(super) label: Label,
    pub(super) run: RunningOp,
    pub(super) cfg: AsyncConfig,
    pub(super) queues: Vec<(usize, QueueRef)>,
    pub(super) born: u64,
    pub(super) waiting: Option<Wait>,
}

/// A synchronous operation in progress on the main thread.
pub(super) type SyncOp = (RunningOp, Label, Vec<(usize, QueueRef)>);

/// The PE's main thread: the running task, its remaining actions and its synchronous op.
#[derive(Default)]
pub(super) struct MainThread {
    pub(super) task: Option<Arc<str>>,
    pub(super) wavelet: Option<Wavelet>,
    /// The task's body, shared with its binding, and the index of its next action.
    pub(super) body: Arc<[Action]>,
    pub(super) pc: usize,
    /// Actions returned by Rust code ([`Action::Call`]), run before the rest of the body.
    pub(super) pending: VecDeque<Action>,
    pub(super) action_no: usize,
    pub(super) current: Option<SyncOp>,
    pub(super) waiting: Option<Wait>,
    /// The output queue whose teardown task this is.
    pub(super) teardown: Option<OutputQueue>,
    /// A `@map` in progress: elements still to count (one per cycle), its outcome and label.
    pub(super) map: Option<(u64, Outcome, Label)>,
    /// The synchronous operation's elements done ahead of their cycles.
    pub(super) ahead: RunAhead,
}

/// The next action of a task: one of its body (shared) or one Rust code returned.
pub(super) enum NextAction {
    /// Action `.1` of a body.
    Body(Arc<[Action]>, usize),
    /// An action returned by Rust code.
    Pending(Action),
}

impl NextAction {
    /// The action.
    pub(super) fn action(&self) -> &Action {
        match self {
            NextAction::Body(body, i) => &body[*i],
            NextAction::Pending(a) => a,
        }
    }
}

impl MainThread {
    /// Takes the next action of the running task: those Rust code returned first, then the
    /// body's.
    pub(super) fn next_action(&mut self) -> Option<NextAction> {
        if let Some(a) = self.pending.pop_front() {
            return Some(NextAction::Pending(a));
        }
        if self.pc < self.body.len() {
            self.pc += 1;
            return Some(NextAction::Body(Arc::clone(&self.body), self.pc - 1));
        }
        None
    }
}

/// One PE of the simulation: its machine, tasks, threads and statistics.
pub(super) struct PeState {
    pub(super) pe: Pe,
    pub(super) tasks: BoundTasks,
    pub(super) main: MainThread,
    pub(super) micro: Vec<Microthread>,
    pub(super) main_priority: MainThreadPriority,
    pub(super) stats: PeStats,
    pub(super) out_owner: [Option<Label>; 8],
    /// DSRs loaded with an asynchronous configuration (`@load_to_dsr(.., .{ .async = true })`).
    pub(super) dsr_async: Vec<(DsrId, AsyncConfig)>,
    /// WSE-3 microthreads blocked by `@block(ut_id)`.
    pub(super) blocked_uts: [bool; 8],
    /// Channels without a data task unblocked for control tasks, ascending.
    pub(super) open_channels: Vec<u8>,
    /// WSE-3 output queues being flushed (`@queue_flush`).
    pub(super) flushing: [bool; 8],
    /// Empty-queue handlers (`@set_empty_queue_handler`) by output queue.
    pub(super) empty_handlers: Vec<(OutputQueue, Arc<[Action]>)>,
    /// WSE-3 separate control-task table (`@set_control_task_table`).
    pub(super) control_table: Option<ControlTaskTable>,
    /// WSE-3 rotating data/control task pairs (`@bind_rotating_tasks`).
    pub(super) rotations: Vec<Rotation>,
    /// Where the PE was when its window of cycles stepped ahead began
    /// ([`super::window`]), to go back to when a run stops inside it.
    pub(super) window_start: Option<super::window::WindowStart>,
}

impl PeState {
    /// The task bound at `id` (see [`BoundTasks::at`]).
    pub(super) fn task_at(&self, id: TaskId) -> Option<super::bound_tasks::TaskIdx> {
        self.tasks.at(id, self.control_table.is_some())
    }

    /// The name of the task bound at `id`, or the id written out when none is.
    pub(super) fn task_name(&self, id: TaskId) -> Arc<str> {
        match self.task_at(id) {
            Some(i) => Arc::clone(&self.tasks[i].name),
            None => id.to_string().into(),
        }
    }

    /// The asynchronous configuration an operation runs with: its own, completed by those of
    /// DSR operands loaded with `.async = true` (which make it asynchronous on their own).
    /// Completion actions and priority: the operation's, else the first DSR's (destination,
    /// then sources). `ut_id` (WSE-3): the first operand in that order that carries one, a DSD
    /// operand carrying the operation's own (spec §6).
    pub(super) fn effective_async(
        &self,
        op_cfg: Option<AsyncConfig>,
        operands: &[&Operand],
    ) -> Option<AsyncConfig> {
        let dsr_cfg = |o: &Operand| match o {
            Operand::Dsr(id) => self.dsr_async.iter().find(|(d, _)| d == id).map(|(_, c)| c),
            _ => None,
        };
        let dsrs: Vec<&AsyncConfig> = operands.iter().filter_map(|o| dsr_cfg(o)).collect();
        if dsrs.is_empty() {
            return op_cfg;
        }
        let own = op_cfg.unwrap_or_default();
        let ut_id = operands.iter().find_map(|o| match o {
            Operand::Dsr(_) => dsr_cfg(o).and_then(|c| c.ut_id),
            Operand::Dsd(_) => own.ut_id,
            _ => None,
        });
        Some(AsyncConfig {
            on_done: own
                .on_done
                .clone()
                .or_else(|| dsrs.iter().find_map(|c| c.on_done.clone())),
            on_control: own
                .on_control
                .clone()
                .or_else(|| dsrs.iter().find_map(|c| c.on_control.clone())),
            ut_id: ut_id.or(own.ut_id),
            priority: own
                .priority
                .or_else(|| dsrs.iter().find_map(|c| c.priority)),
        })
    }
}

/// What one PE did in one cycle.
#[derive(Default)]
pub(super) struct PeCycle {
    pub(super) progressed: bool,
}
