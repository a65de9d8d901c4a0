//! Queue ids as CSL makes them (a fabric concept: the queues between a router and its compute
//! engine): `@get_input_queue(n)` and `@get_output_queue(n)`, 0..=7.

use std::fmt;

use super::id_error::IdError;
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

impl InputQueue {
    /// The eight input queues, 0..=7.
    pub const ALL: [InputQueue; 8] = [
        InputQueue(0),
        InputQueue(1),
        InputQueue(2),
        InputQueue(3),
        InputQueue(4),
        InputQueue(5),
        InputQueue(6),
        InputQueue(7),
    ];
}

impl OutputQueue {
    /// The eight output queue ids, 0..=7 (WSE-2 has 0..=5 only).
    pub const ALL: [OutputQueue; 8] = [
        OutputQueue(0),
        OutputQueue(1),
        OutputQueue(2),
        OutputQueue(3),
        OutputQueue(4),
        OutputQueue(5),
        OutputQueue(6),
        OutputQueue(7),
    ];
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
