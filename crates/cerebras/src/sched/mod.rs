//! The multi-PE simulator (spec §6, §7, §9): tasks, asynchronous operations on microthreads,
//! resource-conflict detection and a deterministic cycle-stepped scheduler with per-PE
//! statistics and a trace hash.
//!
//! * [`sim`]: the [`Sim`] (grid, routers, per-PE state) and how a program sets it up;
//!   [`scheduler`] runs it cycle by cycle (routers, then each PE's microthreads and main
//!   thread); [`ending`] says how a run ends.
//! * Inside: `pe_state` (one PE's tasks and threads), `bound_tasks` (its task table, found
//!   by id), `main_thread` (a task's actions and the start of the next task),
//!   `completion` (what a finished operation activates or unblocks), `label` (what names an
//!   action in messages, the trace and its hash, written only when needed).
//! * [`task`]: tasks, their bodies and completions; [`task_tables`] and [`table_settings`] the
//!   WSE-3 task-table features; [`microthread`] which microthread and rank an operation takes;
//!   [`resources`] and [`queue_reuse`] the conflicts an asynchronous operation may cause;
//!   [`queue_flush`] WSE-3 output-queue flushes.
//! * [`stats`] and [`trace`]: what a run reports and records.
//! * Speed: `idle` (PEs that changed nothing sleep until the routers touch their queues),
//!   `pe_step` (what one PE's step touches) and [`parallel`] (PEs stepped on several threads,
//!   merged in PE order): the results of one thread stepping every PE every cycle.

mod bound_tasks;
mod completion;
pub mod ending;
pub mod error;
mod idle;
mod label;
mod main_thread;
pub mod microthread;
pub mod parallel;
mod pe_state;
mod pe_step;
pub mod queue_flush;
pub mod queue_reuse;
mod range_claims;
pub mod resources;
mod run_ahead;
pub mod scale_profile;
pub mod scheduler;
pub mod sim;
pub mod stats;
pub mod table_settings;
pub mod task;
pub mod task_tables;
pub mod trace;
mod window;

pub use error::SimError;
pub use main_thread::control_entry;
pub use microthread::{MainThreadPriority, microthread_of};
pub use queue_reuse::QueueReusePolicy;
pub use scale_profile::{ScaleProfile, ThreadShare};
pub use sim::Sim;
pub use stats::{PeStats, RunReport, TraceHash};
pub use table_settings::{ControlTaskTable, MAX_ROTATING_PAIRS};
pub use task::{
    Action, AsyncConfig, CallCtx, Completion, LocalCallCtx, LocalCallFn, MapFn, OnControl,
    TEARDOWN_TASK_ID, Task, TaskKind,
};
pub use trace::{EventKind, TraceEvent, TraceFormat, chrome_trace};
