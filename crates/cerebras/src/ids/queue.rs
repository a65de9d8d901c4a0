//! Queue ids as CSL makes them: `@get_input_queue(n)` and `@get_output_queue(n)`, 0..=7.

use std::fmt;

use super::error::IdError;
use crate::limits::QUEUE;

/// An input queue (`@get_input_queue(n)`), 0..=7: router to compute engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct InputQueue(u8);

impl InputQueue {
    /// `@get_input_queue(n)`, checked against 0..=7.
    pub fn new(n: i64) -> Result<InputQueue, IdError> {
        QUEUE.named("input queue").check(n.into())?;
        Ok(InputQueue(n as u8))
    }

    /// The queue's number.
    pub const fn id(self) -> u8 {
        self.0
    }
}

/// An output queue (`@get_output_queue(n)`), 0..=7: compute engine to router (WSE-2 has
/// 0..=5 only, checked where the queue is used).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OutputQueue(u8);

impl OutputQueue {
    /// `@get_output_queue(n)`, checked against 0..=7.
    pub fn new(n: i64) -> Result<OutputQueue, IdError> {
        QUEUE.named("output queue").check(n.into())?;
        Ok(OutputQueue(n as u8))
    }

    /// The queue's number.
    pub const fn id(self) -> u8 {
        self.0
    }
}

impl fmt::Display for InputQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "input queue {}", self.0)
    }
}

impl fmt::Display for OutputQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "output queue {}", self.0)
    }
}
