//! The tasks bound on one PE: kept in ascending id order (the order an idle main thread looks
//! for an eligible task in), and found by id, by kind and id, or by a [`TaskIdx`] in O(1).

use std::ops::{Index, IndexMut};

use super::task::{Task, TaskKind};
use crate::ids::TaskId;

/// A bound task's place among its PE's [`BoundTasks`]; valid until the next binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct TaskIdx(usize);

/// One PE's bound tasks. Ids are unique within a task table (binding refuses a clash): one
/// table for all kinds, or, with a separate control-task table, one for control tasks and
/// one for the others.
#[derive(Debug, Default)]
pub(super) struct BoundTasks {
    tasks: Vec<Task>,
}

impl BoundTasks {
    /// Adds a task (its id must be free in its table) and keeps the tasks in ascending id order, tasks of
    /// one id in binding order.
    pub(super) fn bind(&mut self, task: Task) {
        self.tasks.push(task);
        self.tasks.sort_by_key(|t| t.number());
    }

    /// The task bound at `id`'s slot of its table: any kind with that number, or, with a
    /// separate control-task table, a task of the same table (control or not). The kind may
    /// differ from `id`'s (a local task id naming a data task's slot on WSE-2); callers check
    /// the kind they need.
    pub(super) fn at(&self, id: TaskId, separate_control: bool) -> Option<TaskIdx> {
        let control = id.kind() == TaskKind::Control;
        self.position(|t| {
            t.number() == id.id()
                && (!separate_control || (t.kind() == TaskKind::Control) == control)
        })
    }

    /// The first task (in id order) of `kind` with id `id`.
    pub(super) fn of_kind(&self, kind: TaskKind, id: u8) -> Option<TaskIdx> {
        self.position(|t| t.kind() == kind && t.number() == id)
    }

    /// The first task (in id order) for which `pred` holds.
    pub(super) fn position(&self, pred: impl FnMut(&Task) -> bool) -> Option<TaskIdx> {
        self.tasks.iter().position(pred).map(TaskIdx)
    }

    /// The tasks in id order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Task> {
        self.tasks.iter()
    }

    /// The tasks in id order, to change.
    pub(super) fn iter_mut(&mut self) -> impl Iterator<Item = &mut Task> {
        self.tasks.iter_mut()
    }

    /// How many tasks are bound.
    pub(super) fn len(&self) -> usize {
        self.tasks.len()
    }
}

impl Index<TaskIdx> for BoundTasks {
    type Output = Task;

    fn index(&self, i: TaskIdx) -> &Task {
        &self.tasks[i.0]
    }
}

impl IndexMut<TaskIdx> for BoundTasks {
    fn index_mut(&mut self, i: TaskIdx) -> &mut Task {
        &mut self.tasks[i.0]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(name: &str, id: impl Into<TaskId>) -> Task {
        Task {
            name: name.into(),
            id: id.into(),
            body: std::sync::Arc::default(),
            active: false,
            blocked: false,
        }
    }

    #[test]
    fn tasks_stay_in_id_order_and_are_found_by_id_after_every_binding() {
        use crate::fabric::InputQueue;
        use crate::ids::{ControlTaskId, DataTaskId, LocalTaskId};
        let mut t = BoundTasks::default();
        t.bind(task("late", LocalTaskId::new(9).unwrap()));
        t.bind(task(
            "early",
            DataTaskId::of_queue(InputQueue::new(2).unwrap()),
        ));
        t.bind(task("ctrl", ControlTaskId::new(2).unwrap()));
        let ids: Vec<(u8, &str)> = t.iter().map(|x| (x.number(), x.name.as_ref())).collect();
        assert_eq!(ids, [(2, "early"), (2, "ctrl"), (9, "late")]);
        let name = |id: TaskId, separate: bool| t.at(id, separate).map(|i| t[i].name.to_string());
        let local = |n| TaskId::from(LocalTaskId::new(n).unwrap());
        let control = |n| TaskId::from(ControlTaskId::new(n).unwrap());
        assert_eq!(name(local(9), false).as_deref(), Some("late"));
        // one table: slot 2 is the first task bound at 2, whatever its kind
        assert_eq!(name(local(2), false).as_deref(), Some("early"));
        // a separate control table: control ids have their own slots
        assert_eq!(name(control(2), true).as_deref(), Some("ctrl"));
        assert_eq!(name(local(2), true).as_deref(), Some("early"));
        assert_eq!(name(local(3), false), None);
        let c = t
            .of_kind(TaskKind::Control, 2)
            .map(|i| t[i].name.to_string());
        assert_eq!(c.as_deref(), Some("ctrl"));
    }
}
