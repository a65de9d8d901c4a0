//! The ids a program names things by, as CSL makes them: tasks (`@get_local_task_id`,
//! `@get_data_task_id`, `@get_control_task_id`), queues (`@get_input_queue`,
//! `@get_output_queue`), microthreads and channels; colors are [`crate::fabric::Color`]
//! (`@get_color`). Each checked constructor refuses a number outside its limit with an
//! [`IdError`] naming the limit and the number. A task's name is given once, where it is
//! bound, and serves only messages and traces. Colors, queue ids and [`IdError`] live in
//! [`crate::fabric`] (the fabric knows nothing of tasks) and are re-exported here.

mod channel;
mod microthread;
mod task;

pub use crate::fabric::{Color, IdError, InputQueue, OutputQueue};
pub use channel::Channel;
pub use microthread::MicrothreadId;
pub use task::{ControlTaskId, DataTaskId, LocalTaskId, TaskId, TaskKind};
