//! What can go wrong in a multi-PE run: every error names the PE `(x, y)` and the cycle.

use thiserror::Error;

use crate::fabric::{FabricError, QueueRef};
use crate::ids::TaskKind;
use crate::ops::OpError;

/// A run that stopped on an error.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SimError {
    /// An operation failed.
    #[error("PE ({x}, {y}) cycle {cycle}: {what}: {source}")]
    Op {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The cycle.
        cycle: u64,
        /// Which operation (task and action).
        what: String,
        /// The error.
        source: Box<OpError>,
    },
    /// The fabric failed (unroutable color, a wavelet leaving the grid, ...).
    #[error("cycle {cycle}: {source}")]
    Fabric {
        /// The cycle.
        cycle: u64,
        /// The error.
        source: FabricError,
    },
    /// A configuration error before the run (no cycle yet).
    #[error(transparent)]
    Setup(#[from] FabricError),
    /// Two concurrent asynchronous operations on one queue (seed 004: the programmer's
    /// responsibility; npusim reports it).
    #[error(
        "PE ({x}, {y}) cycle {cycle}: {second} uses {queue}, which {first} (still running) uses"
    )]
    QueueConflict {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The cycle.
        cycle: u64,
        /// The queue.
        queue: QueueRef,
        /// The running operation.
        first: String,
        /// The operation started.
        second: String,
    },
    /// Two concurrent asynchronous operations on one microthread.
    #[error(
        "PE ({x}, {y}) cycle {cycle}: {second} needs microthread {microthread}, which {first} (still running) holds"
    )]
    MicrothreadConflict {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The cycle.
        cycle: u64,
        /// The microthread id.
        microthread: u8,
        /// The running operation.
        first: String,
        /// The operation started.
        second: String,
    },
    /// An operation reuses an output queue that still holds another operation's wavelets.
    #[error(
        "PE ({x}, {y}) cycle {cycle}: {second} reuses {queue}, which still holds {left} wavelet(s) of {first}"
    )]
    QueueReuse {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The cycle.
        cycle: u64,
        /// The queue.
        queue: QueueRef,
        /// Wavelets still in it.
        left: u32,
        /// The operation that filled it.
        first: String,
        /// The operation started.
        second: String,
    },
    /// An asynchronous operation that breaks a rule (no fabric operand, bad `ut_id`, ...).
    #[error("PE ({x}, {y}) cycle {cycle}: {what}: {rule}")]
    Async {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The cycle.
        cycle: u64,
        /// The operation.
        what: String,
        /// The rule.
        rule: String,
    },
    /// A task name or id that is not bound, or a bad binding.
    #[error("PE ({x}, {y}): {what}")]
    Task {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// What is wrong.
        what: String,
    },
    /// A task named where another kind of task is required (seed 004: the task an
    /// `.activate` names "must be bound as a local task"; an `.unblock` names a data or local
    /// task).
    #[error(
        "PE ({x}, {y}) cycle {cycle}: {field} names task {task}, which is bound as a {} task; it must be bound as {must}",
        kind_name(*kind)
    )]
    TaskKind {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The cycle.
        cycle: u64,
        /// The task named.
        task: String,
        /// How it is bound.
        kind: TaskKind,
        /// The field naming it (`.activate`, `.on_control = .{ .activate }`, ...).
        field: &'static str,
        /// What the field requires.
        must: &'static str,
    },
    /// Every thread waits and nothing is in flight.
    #[error("deadlock at cycle {cycle}: {}", waits.join("; "))]
    Deadlock {
        /// The cycle.
        cycle: u64,
        /// What each waiting thread waits on (`PE (x, y) <thread>: <what>`).
        waits: Vec<String>,
    },
    /// The threads to step PEs on could not be had.
    #[error("cannot step PEs on {threads} thread(s): {reason}")]
    Threads {
        /// The thread count asked for.
        threads: usize,
        /// Why not.
        reason: String,
    },
    /// The run reached its cycle limit.
    #[error("cycle limit {limit} reached; still busy: {}", busy.join("; "))]
    CycleLimit {
        /// The limit.
        limit: u64,
        /// What was still going on.
        busy: Vec<String>,
    },
    /// A control wavelet reached a data task's channel but no control task has its id.
    #[error(
        "PE ({x}, {y}) cycle {cycle}: control wavelet 0x{payload:08X} on the channel of task {task} names control task {entry}, which is not bound"
    )]
    UnexpectedControl {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The cycle.
        cycle: u64,
        /// The data task whose channel it came on.
        task: String,
        /// The payload.
        payload: u32,
        /// The control task id it names.
        entry: u8,
    },
    /// A grid with more PEs than the simulator takes.
    #[error("a {width}x{height} grid has more than {max} PEs, the simulator's limit")]
    TooManyPes {
        /// Width asked.
        width: u32,
        /// Height asked.
        height: u32,
        /// The limit.
        max: u64,
    },
    /// A feature the documentation names but does not describe precisely enough to model.
    #[error("PE ({x}, {y}): unsupported: {what} ({why})")]
    Unsupported {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The feature.
        what: String,
        /// What is unpublished.
        why: &'static str,
    },
}

/// A task kind as the CSL builtins name it (`@bind_data_task`, `@bind_local_task`, ...).
fn kind_name(kind: TaskKind) -> &'static str {
    match kind {
        TaskKind::Data => "data",
        TaskKind::Local => "local",
        TaskKind::Control => "control",
    }
}
