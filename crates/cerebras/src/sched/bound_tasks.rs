//! The tasks bound on one PE: kept in ascending id order (the order an idle main thread looks
//! for an eligible task in), and found by name, by kind and id, or by a [`TaskIdx`] in O(1).

use std::collections::HashMap;
use std::ops::{Index, IndexMut};
use std::rc::Rc;

use super::task::{Task, TaskKind};

/// A bound task's place among its PE's [`BoundTasks`]; valid until the next binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct TaskIdx(usize);

/// One PE's bound tasks. Names are unique (binding refuses a clash) and never change once
/// bound, which keeps the name index valid.
#[derive(Debug, Default)]
pub(super) struct BoundTasks {
    tasks: Vec<Task>,
    by_name: HashMap<Rc<str>, TaskIdx>,
}

impl BoundTasks {
    /// Adds a task (its name must be new) and keeps the tasks in ascending id order, tasks of
    /// one id in binding order.
    pub(super) fn bind(&mut self, task: Task) {
        self.tasks.push(task);
        self.tasks.sort_by_key(|t| t.id);
        self.by_name = self
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| (Rc::clone(&t.name), TaskIdx(i)))
            .collect();
    }

    /// The task named `name`.
    pub(super) fn named(&self, name: &str) -> Option<TaskIdx> {
        self.by_name.get(name).copied()
    }

    /// The first task (in id order) of `kind` with id `id`.
    pub(super) fn of_kind(&self, kind: TaskKind, id: u8) -> Option<TaskIdx> {
        self.position(|t| t.kind == kind && t.id == id)
    }

    /// The first task (in id order) for which `pred` holds.
    pub(super) fn position(&self, pred: impl FnMut(&Task) -> bool) -> Option<TaskIdx> {
        self.tasks.iter().position(pred).map(TaskIdx)
    }

    /// The tasks in id order.
    pub(super) fn iter(&self) -> impl Iterator<Item = &Task> {
        self.tasks.iter()
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

    fn task(name: &str, id: u8, kind: TaskKind) -> Task {
        Task {
            name: name.into(),
            id,
            kind,
            body: Rc::default(),
            active: false,
            blocked: false,
        }
    }

    #[test]
    fn tasks_stay_in_id_order_and_are_found_by_name_after_every_binding() {
        let mut t = BoundTasks::default();
        t.bind(task("late", 9, TaskKind::Local));
        t.bind(task("early", 2, TaskKind::Data));
        t.bind(task("ctrl", 2, TaskKind::Control));
        let ids: Vec<(u8, &str)> = t.iter().map(|x| (x.id, x.name.as_ref())).collect();
        assert_eq!(ids, [(2, "early"), (2, "ctrl"), (9, "late")]);
        for name in ["late", "early", "ctrl"] {
            let i = t.named(name).map(|i| t[i].name.to_string());
            assert_eq!(i.as_deref(), Some(name));
        }
        assert_eq!(t.named("none"), None);
        let c = t
            .of_kind(TaskKind::Control, 2)
            .map(|i| t[i].name.to_string());
        assert_eq!(c.as_deref(), Some("ctrl"));
    }
}
