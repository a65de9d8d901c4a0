//! Microthreads (seed 004): which hardware microthread an asynchronous operation takes, and
//! the priorities the scheduler orders threads by.

use std::fmt;

use crate::arch::Arch;
use crate::dsd::Priority;
use crate::fabric::{QueueRef, QueueSide};
use crate::ids::MicrothreadId;

/// Microthread ids are 0..=7.
pub const MICROTHREADS: u8 = 8;

/// The microthread of an asynchronous operation whose fabric operands use `queues`
/// (operand position, 0 = destination, and queue), with an explicit `ut_id` if given:
///
/// * WSE-2: the fabout's output queue id if there is a fabout, else the first fabin's input
///   queue id; an explicit id is an error (WSE-2 has none).
/// * WSE-3: the explicit id, else the queue id of the first fabric operand in the order
///   destination, first source, second source.
pub fn microthread_of(
    arch: Arch,
    queues: &[(usize, QueueRef)],
    explicit: Option<MicrothreadId>,
) -> Result<u8, String> {
    let mut sorted = queues.to_vec();
    sorted.sort_by_key(|&(k, _)| k);
    match arch {
        Arch::Wse2 => {
            if explicit.is_some() {
                return Err("WSE-2 has no explicit microthread id (.ut_id)".into());
            }
            sorted
                .iter()
                .find(|(_, q)| q.side() == QueueSide::Output)
                .or_else(|| sorted.iter().find(|(_, q)| q.side() == QueueSide::Input))
                .map(|(_, q)| q.id())
                .ok_or_else(|| "an asynchronous operation needs a fabric operand".into())
        }
        Arch::Wse3 => {
            if let Some(u) = explicit {
                return Ok(u.id());
            }
            sorted
                .first()
                .map(|(_, q)| q.id())
                .ok_or_else(|| "an asynchronous operation needs a fabric operand".into())
        }
    }
}

/// The main thread's priority level (`<tile_config>.main_thread_priority`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum MainThreadPriority {
    /// Between medium and low microthreads (the default).
    #[default]
    MediumLow,
    /// With medium microthreads.
    Medium,
    /// Between high and medium microthreads.
    MediumHigh,
    /// With high microthreads.
    High,
}

/// A thread's place in the per-cycle order: higher ranks go first; on a tie microthreads go
/// before the main thread, and microthreads by ascending id.
pub const fn microthread_rank(p: Priority) -> u8 {
    match p {
        Priority::Low => 0,
        Priority::Medium => 2,
        Priority::High => 4,
    }
}

/// The main thread's rank on the scale of [`microthread_rank`].
pub const fn main_thread_rank(p: MainThreadPriority) -> u8 {
    match p {
        MainThreadPriority::MediumLow => 1,
        MainThreadPriority::Medium => 2,
        MainThreadPriority::MediumHigh => 3,
        MainThreadPriority::High => 4,
    }
}

/// The default priority of an asynchronous operation: low on WSE-2 (DSD chapter), high on
/// WSE-3.
pub const fn default_priority(arch: Arch) -> Priority {
    match arch {
        Arch::Wse2 => Priority::Low,
        Arch::Wse3 => Priority::High,
    }
}

impl fmt::Display for MainThreadPriority {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            MainThreadPriority::MediumLow => "MEDIUM_LOW",
            MainThreadPriority::Medium => "MEDIUM",
            MainThreadPriority::MediumHigh => "MEDIUM_HIGH",
            MainThreadPriority::High => "HIGH",
        })
    }
}
