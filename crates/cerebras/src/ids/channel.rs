//! What `@block(channel)` / `@unblock(channel)` and `.unblock = channel` name: a color on
//! WSE-2, an input queue on WSE-3.

use std::fmt;

use crate::fabric::Color;
use crate::fabric::InputQueue;

/// A channel wavelets reach a PE's compute engine on: a color (WSE-2) or an input queue
/// (WSE-3); using one on the other architecture is an error where it is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Channel {
    /// A color (WSE-2).
    Color(Color),
    /// An input queue (WSE-3).
    Queue(InputQueue),
}

impl Channel {
    /// The channel's number (the color's or the queue's).
    pub const fn id(self) -> u8 {
        match self {
            Channel::Color(c) => c.id(),
            Channel::Queue(q) => q.id(),
        }
    }
}

impl From<Color> for Channel {
    fn from(c: Color) -> Channel {
        Channel::Color(c)
    }
}

impl From<InputQueue> for Channel {
    fn from(q: InputQueue) -> Channel {
        Channel::Queue(q)
    }
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Channel::Color(c) => c.fmt(f),
            Channel::Queue(q) => q.fmt(f),
        }
    }
}
