//! Task ids as CSL makes them: `@get_local_task_id(n)`, `@get_data_task_id(color or queue)`,
//! `@get_control_task_id(n)`; [`TaskId`] is any of them (what `@block` / `@unblock` take).

use std::fmt;

use crate::arch::Arch;
use crate::fabric::Color;
use crate::fabric::IdError;
use crate::fabric::InputQueue;
use crate::limits::{CONTROL_TASK_ID, LOCAL_TASK_ID};

/// How a task is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskKind {
    /// By a wavelet in the input queue of its color (WSE-2, id = color) or its queue (WSE-3,
    /// id = queue); the wavelet is the task's argument.
    Data,
    /// By `@activate` or a completion.
    Local,
    /// By a control wavelet naming its id (payload bits 16..=21) that reaches the head of a
    /// data task's channel, or of a channel unblocked with `@unblock(channel)`; the wavelet
    /// is the task's argument (its data in bits 0..=15).
    Control,
}

/// A local task id (`@get_local_task_id(n)`), 0..=30; binding checks the architecture's own
/// range (WSE-3 starts at 8).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LocalTaskId(u8);

impl LocalTaskId {
    /// `@get_local_task_id(n)`, checked against 0..=30.
    pub fn new(n: i64) -> Result<LocalTaskId, IdError> {
        LOCAL_TASK_ID.check(n.into())?;
        Ok(LocalTaskId(n as u8))
    }

    /// The id's number.
    pub const fn id(self) -> u8 {
        self.0
    }
}

/// A data task id (`@get_data_task_id(...)`): a color on WSE-2, an input queue on WSE-3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DataTaskId(u8);

impl DataTaskId {
    /// `@get_data_task_id(color)` (WSE-2: the task runs on wavelets of the color).
    pub const fn of_color(color: Color) -> DataTaskId {
        DataTaskId(color.id())
    }

    /// `@get_data_task_id(queue)` (WSE-3: the task runs on wavelets of the input queue).
    pub const fn of_queue(queue: InputQueue) -> DataTaskId {
        DataTaskId(queue.id())
    }

    /// The data task of wavelets of `color` arriving in input queue `queue` on `arch`: the
    /// color's on WSE-2, the queue's on WSE-3 (as a CSL program picks per target).
    pub const fn on(arch: Arch, color: Color, queue: InputQueue) -> DataTaskId {
        match arch {
            Arch::Wse2 => DataTaskId::of_color(color),
            Arch::Wse3 => DataTaskId::of_queue(queue),
        }
    }

    /// The id's number (the color's or the queue's).
    pub const fn id(self) -> u8 {
        self.0
    }
}

/// A control task id (`@get_control_task_id(n)`), 0..=63: the entry a control wavelet names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ControlTaskId(u8);

impl ControlTaskId {
    /// `@get_control_task_id(n)`, checked against 0..=63.
    pub fn new(n: i64) -> Result<ControlTaskId, IdError> {
        CONTROL_TASK_ID.check(n.into())?;
        Ok(ControlTaskId(n as u8))
    }

    /// The id's number.
    pub const fn id(self) -> u8 {
        self.0
    }
}

/// Any task id: what a task is bound at and what `@block` / `@unblock` name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TaskId {
    /// A local task.
    Local(LocalTaskId),
    /// A data task.
    Data(DataTaskId),
    /// A control task.
    Control(ControlTaskId),
}

impl TaskId {
    /// The kind of task the id is made for.
    pub const fn kind(self) -> TaskKind {
        match self {
            TaskId::Local(_) => TaskKind::Local,
            TaskId::Data(_) => TaskKind::Data,
            TaskId::Control(_) => TaskKind::Control,
        }
    }

    /// The id's number.
    pub const fn id(self) -> u8 {
        match self {
            TaskId::Local(t) => t.id(),
            TaskId::Data(t) => t.id(),
            TaskId::Control(t) => t.id(),
        }
    }
}

impl From<LocalTaskId> for TaskId {
    fn from(t: LocalTaskId) -> TaskId {
        TaskId::Local(t)
    }
}

impl From<DataTaskId> for TaskId {
    fn from(t: DataTaskId) -> TaskId {
        TaskId::Data(t)
    }
}

impl From<ControlTaskId> for TaskId {
    fn from(t: ControlTaskId) -> TaskId {
        TaskId::Control(t)
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = match self {
            TaskId::Local(_) => "local",
            TaskId::Data(_) => "data",
            TaskId::Control(_) => "control",
        };
        write!(f, "{kind} task id {}", self.id())
    }
}

impl fmt::Display for LocalTaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        TaskId::Local(*self).fmt(f)
    }
}

impl fmt::Display for DataTaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        TaskId::Data(*self).fmt(f)
    }
}

impl fmt::Display for ControlTaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        TaskId::Control(*self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn task_ids_are_checked_against_their_ranges() {
        assert_eq!(LocalTaskId::new(30).map(LocalTaskId::id), Ok(30));
        let e = LocalTaskId::new(31).unwrap_err();
        assert_eq!(e.to_string(), "local task id 31 is out of range [0, 30]");
        assert_eq!(ControlTaskId::new(63).map(ControlTaskId::id), Ok(63));
        let e = ControlTaskId::new(64).unwrap_err();
        assert_eq!(e.to_string(), "control task id 64 is out of range [0, 63]");
        assert!(LocalTaskId::new(-1).is_err());
    }

    #[test]
    fn a_data_task_id_is_its_color_on_wse2_and_its_queue_on_wse3() {
        let (c, q) = (Color::new(12).unwrap(), InputQueue::new(4).unwrap());
        assert_eq!(DataTaskId::on(Arch::Wse2, c, q).id(), 12);
        assert_eq!(DataTaskId::on(Arch::Wse3, c, q).id(), 4);
        let t = TaskId::from(DataTaskId::of_queue(q));
        assert_eq!(
            (t.kind(), t.to_string()),
            (TaskKind::Data, "data task id 4".into())
        );
    }
}
