//! Tasks and their bodies (spec §7): a task is a list of actions the PE's main thread runs in
//! order: DSD operations (synchronous, one element per cycle, or asynchronous on a
//! microthread), `@activate` / `@block` / `@unblock`, and Rust code that may look at the
//! task's wavelet and the PE's memory and return further actions.

use std::fmt;
use std::sync::Arc;

use crate::dsd::Priority;
use crate::fabric::{Color, Wavelet};
use crate::ids::{Channel, LocalTaskId, MicrothreadId, OutputQueue, TaskId};
use crate::memory::PeMemory;
use crate::ops::{Op, OpError, Operand, Scalar};
use crate::pe::{OpConfig, Pe};

/// What Rust code in a task body sees.
pub struct CallCtx<'a> {
    /// The PE.
    pub pe: &'a mut Pe,
    /// The wavelet that started a data task (`None` for local and control tasks).
    pub wavelet: Option<Wavelet>,
    /// The simulator's cycle the call runs in.
    pub cycle: u64,
}

/// Rust code in a task body: runs in one cycle and returns actions to run next (shareable
/// between threads: PEs may be stepped on several).
pub type CallFn = Arc<dyn Fn(&mut CallCtx<'_>) -> Result<Vec<Action>, OpError> + Send + Sync>;

/// What Rust code that touches only its PE's memory sees ([`Action::call_local`]).
pub struct LocalCallCtx<'a> {
    /// The PE's memory.
    pub mem: &'a mut PeMemory,
    /// The wavelet that started a data task (`None` for local and control tasks).
    pub wavelet: Option<Wavelet>,
    /// The simulator's cycle the call runs in.
    pub cycle: u64,
}

/// Rust code in a task body that reads and writes only its PE's memory (no queue, DSR or
/// FIFO): runs in one cycle and returns actions to run next.
pub type LocalCallFn =
    Arc<dyn Fn(&mut LocalCallCtx<'_>) -> Result<Vec<Action>, OpError> + Send + Sync>;

/// The function `@map` applies to each element's arguments (inputs in order).
pub type MapFn = Arc<dyn Fn(&[Scalar]) -> Scalar + Send + Sync>;

/// What an asynchronous operation does when it completes (`.activate` / `.unblock`).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Completion {
    /// Activate this local task.
    Activate(LocalTaskId),
    /// Unblock this task.
    Unblock(TaskId),
    /// Unblock a channel: a color (WSE-2) or an input queue (WSE-3), as `.unblock = color`
    /// (seed 004). It unblocks the data task bound to the channel, or, with none, opens the
    /// channel to control wavelets as [`Action::UnblockChannel`] does.
    UnblockChannel(Channel),
}

/// `.on_control`: what a control wavelet at the head of the op's fabric input does.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OnControl {
    /// End the operation.
    Terminate,
    /// End it and activate this local task.
    Activate(LocalTaskId),
    /// End it and unblock this task.
    Unblock(TaskId),
    /// End it and unblock a channel (a color on WSE-2, an input queue on WSE-3), as
    /// [`Completion::UnblockChannel`].
    UnblockChannel(Channel),
}

/// The asynchronous part of an operation's configuration (`.async = true, ...`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct AsyncConfig {
    /// `.activate` or `.unblock` on completion.
    pub on_done: Option<Completion>,
    /// `.on_control`.
    pub on_control: Option<OnControl>,
    /// WSE-3 `.ut_id`.
    pub ut_id: Option<MicrothreadId>,
    /// WSE-2 `.priority` (WSE-3 takes it from the fabric DSD or FIFO).
    pub priority: Option<Priority>,
}

impl AsyncConfig {
    /// `.async = true, .activate = task`.
    pub fn activate(task: LocalTaskId) -> AsyncConfig {
        AsyncConfig {
            on_done: Some(Completion::Activate(task)),
            ..AsyncConfig::default()
        }
    }

    /// `.async = true, .unblock = task`.
    pub fn unblock(task: impl Into<TaskId>) -> AsyncConfig {
        AsyncConfig {
            on_done: Some(Completion::Unblock(task.into())),
            ..AsyncConfig::default()
        }
    }
}

/// One step of a task body.
#[derive(Clone)]
pub enum Action {
    /// A DSD operation; asynchronous when `asynchronous` is given.
    Op {
        /// The builtin.
        op: Op,
        /// Destination.
        dest: Operand,
        /// Sources.
        srcs: Vec<Operand>,
        /// `.index`.
        cfg: OpConfig,
        /// `.async = true` and its settings.
        asynchronous: Option<AsyncConfig>,
    },
    /// `@activate(task)`.
    Activate(LocalTaskId),
    /// `@block(task)`.
    Block(TaskId),
    /// `@unblock(task)`.
    Unblock(TaskId),
    /// `@block(ut_id)` (WSE-3): the microthread does no element until unblocked.
    BlockMicrothread(MicrothreadId),
    /// `@unblock(ut_id)` (WSE-3).
    UnblockMicrothread(MicrothreadId),
    /// `@unblock(channel)` with a color (WSE-2) or an input queue (WSE-3): unblocks the data
    /// task bound to the channel; a channel no data task is bound to is opened to control
    /// wavelets, which start the control task they name when they reach its head.
    UnblockChannel(Channel),
    /// `@block(channel)`: blocks the channel's data task, or closes a channel opened by
    /// [`Action::UnblockChannel`].
    BlockChannel(Channel),
    /// `@queue_flush(q)` (WSE-3): the teardown task runs once output queue `q` is empty.
    QueueFlush(OutputQueue),
    /// Leaves the flush state of output queue `q` (what an empty-queue handler must do).
    ExitQueueFlush(OutputQueue),
    /// `@initialize_queue(q, .{ .color = c })` at run time: binds output queue `q` to a
    /// color; on WSE-3 an error while it still holds wavelets of another color.
    InitializeOutputQueue(OutputQueue, Color),
    /// `<tile_config>`'s teardown exit for a color: the color leaves teardown mode on this
    /// PE's router and its traffic moves again.
    ExitTeardown(Color),
    /// `@map(f, inputs..., output)` (spec §4.6): a synchronous DSD operation of the main
    /// thread, one element per cycle (its statistics and cycles count like any other; its
    /// results are written when it starts, as nothing else on the PE reads them meanwhile).
    Map {
        /// The inputs: DSDs, DSRs, scalars or pointers.
        inputs: Vec<Operand>,
        /// The output, if any.
        output: Option<Operand>,
        /// The function.
        f: MapFn,
    },
    /// Rust code (one cycle) returning further actions, run before the rest of the body.
    Call(CallFn),
    /// Rust code as [`Action::Call`] that sees only its PE's memory: the simulator may run it
    /// ahead of its cycle (nothing outside the PE can change what it does), with the same
    /// results, trace and statistics as [`Action::Call`].
    CallLocal(LocalCallFn),
}

impl Action {
    /// A synchronous operation.
    pub fn sync(op: Op, dest: impl Into<Operand>, srcs: Vec<Operand>) -> Action {
        Action::Op {
            op,
            dest: dest.into(),
            srcs,
            cfg: OpConfig::default(),
            asynchronous: None,
        }
    }

    /// An asynchronous operation.
    pub fn spawn(op: Op, dest: impl Into<Operand>, srcs: Vec<Operand>, cfg: AsyncConfig) -> Action {
        Action::Op {
            op,
            dest: dest.into(),
            srcs,
            cfg: OpConfig::default(),
            asynchronous: Some(cfg),
        }
    }

    /// `@map(f, inputs..., output)`.
    pub fn map(
        inputs: Vec<Operand>,
        output: Option<Operand>,
        f: impl Fn(&[Scalar]) -> Scalar + Send + Sync + 'static,
    ) -> Action {
        Action::Map {
            inputs,
            output,
            f: Arc::new(f),
        }
    }

    /// Rust code.
    pub fn call(
        f: impl Fn(&mut CallCtx<'_>) -> Result<Vec<Action>, OpError> + Send + Sync + 'static,
    ) -> Action {
        Action::Call(Arc::new(f))
    }

    /// Rust code that reads and writes only its PE's memory ([`Action::CallLocal`]).
    pub fn call_local(
        f: impl Fn(&mut LocalCallCtx<'_>) -> Result<Vec<Action>, OpError> + Send + Sync + 'static,
    ) -> Action {
        Action::CallLocal(Arc::new(f))
    }
}

impl fmt::Debug for Action {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Action::Op {
                op, asynchronous, ..
            } => write!(
                f,
                "@{}{}",
                op.name(),
                if asynchronous.is_some() { " async" } else { "" }
            ),
            Action::Activate(t) => write!(f, "@activate({t})"),
            Action::Block(t) => write!(f, "@block({t})"),
            Action::Unblock(t) => write!(f, "@unblock({t})"),
            Action::BlockMicrothread(u) => write!(f, "@block(ut {})", u.id()),
            Action::UnblockMicrothread(u) => write!(f, "@unblock(ut {})", u.id()),
            Action::UnblockChannel(c) => write!(f, "@unblock(channel {})", c.id()),
            Action::BlockChannel(c) => write!(f, "@block(channel {})", c.id()),
            Action::QueueFlush(q) => write!(f, "@queue_flush({})", q.id()),
            Action::ExitQueueFlush(q) => write!(f, "exit flush({})", q.id()),
            Action::InitializeOutputQueue(q, c) => {
                write!(
                    f,
                    "@initialize_queue({}, .{{ .color = {} }})",
                    q.id(),
                    c.id()
                )
            }
            Action::ExitTeardown(c) => write!(f, "exit teardown({c})"),
            Action::Map { .. } => f.write_str("@map"),
            Action::Call(_) | Action::CallLocal(_) => f.write_str(CALL_TEXT),
        }
    }
}

/// How an [`Action::Call`] reads in messages and traces.
pub(crate) const CALL_TEXT: &str = "<rust code>";

/// The teardown task's id (spec §1.3: system id 29).
pub const TEARDOWN_TASK_ID: u8 = 29;

pub use crate::ids::TaskKind;

/// A bound task.
#[derive(Clone, Debug)]
pub struct Task {
    /// Its name (for messages and traces only).
    pub name: Arc<str>,
    /// Its id, which says its kind (data, local or control).
    pub id: TaskId,
    /// Its body, shared by every start of the task.
    pub body: Arc<[Action]>,
    /// The activation bit (single: activating twice runs once).
    pub active: bool,
    /// Blocked tasks never start.
    pub blocked: bool,
}

impl Task {
    /// Data, local or control.
    pub const fn kind(&self) -> TaskKind {
        self.id.kind()
    }

    /// The id's number (its slot in the task table).
    pub const fn number(&self) -> u8 {
        self.id.id()
    }
}
