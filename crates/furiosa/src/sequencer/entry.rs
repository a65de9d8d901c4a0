//! One loop of the sequencer.

use std::fmt;

use serde::Serialize;

/// One loop of the sequencer: `size` iterations `stride` elements apart (stride 0 = broadcast).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Entry {
    /// Iterations.
    pub size: usize,
    /// Elements between iterations (0 = broadcast).
    pub stride: usize,
}

impl Entry {
    /// `size : stride`.
    pub const fn new(size: usize, stride: usize) -> Entry {
        Entry { size, stride }
    }
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.size, self.stride)
    }
}

/// `[8:32, 8:256, 16:1]`.
pub(crate) fn list(entries: &[Entry]) -> String {
    let items: Vec<String> = entries.iter().map(Entry::to_string).collect();
    format!("[{}]", items.join(", "))
}
