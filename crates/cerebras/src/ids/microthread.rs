//! Microthread ids (WSE-3 `.ut_id`, `@block(ut_id)`), 0..=7.

use std::fmt;

use crate::fabric::IdError;
use crate::limits::MICROTHREAD_ID;

/// A microthread id, 0..=7 (WSE-3; WSE-2 picks microthreads itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MicrothreadId(u8);

impl MicrothreadId {
    /// The microthread `n`, checked against 0..=7.
    pub fn new(n: i64) -> Result<MicrothreadId, IdError> {
        MICROTHREAD_ID.check(n.into())?;
        Ok(MicrothreadId(n as u8))
    }

    /// The id's number.
    pub const fn id(self) -> u8 {
        self.0
    }
}

impl fmt::Display for MicrothreadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ut {}", self.0)
    }
}
