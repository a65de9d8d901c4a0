//! The multi-PE simulator (spec §6, §7, §9): tasks, asynchronous operations on microthreads,
//! resource-conflict detection and a deterministic cycle-stepped scheduler with per-PE
//! statistics and a trace hash.

pub mod ending;
pub mod error;
mod label;
pub mod microthread;
pub mod queue_flush;
pub mod resources;
pub mod scheduler;
pub mod stats;
pub mod task;
pub mod task_tables;
pub mod trace;

pub use error::SimError;
pub use microthread::{MainThreadPriority, microthread_of};
pub use queue_flush::TEARDOWN_TASK_ID;
pub use resources::QueueReusePolicy;
pub use scheduler::{Sim, control_entry};
pub use stats::{PeStats, RunReport, TraceHash};
pub use task::{Action, AsyncConfig, CallCtx, Completion, MapFn, OnControl, Task, TaskKind};
pub use task_tables::{ControlTaskTable, MAX_ROTATING_PAIRS};
pub use trace::{EventKind, TraceEvent, chrome_trace};
