//! What happens when an operation completes or a task is named: FIFO activations and the
//! `.activate` / `.unblock` / `.on_control` completion actions, the task kinds each may name
//! (seed 004), and blocking a channel's data task.

use super::error::SimError;
use super::label::Label;
use super::pe_step::{PeStep, TraceMix};
use super::task::{AsyncConfig, Completion, OnControl, TaskKind};
use super::trace::{EventKind, Thread};
use crate::ids::{Channel, LocalTaskId, TaskId};
use crate::pe::Outcome;

/// The field a FIFO's task activation comes from.
pub(super) const FIFO_ACTIVATE: &str = "the FIFO's .activate_push / .activate_pop";

/// The task kinds an `.unblock` may name (seed 004: "bound as a data or local task").
const UNBLOCKABLE: &[TaskKind] = &[TaskKind::Data, TaskKind::Local];

impl PeStep<'_> {
    /// Applies an operation's outcome: FIFO activations, switch advances, completion actions.
    pub(super) fn complete(
        &mut self,
        k: usize,
        cycle: u64,
        label: &Label,
        o: &Outcome,
        cfg: Option<&AsyncConfig>,
        thread: Thread,
    ) -> Result<(), SimError> {
        self.trace.add(cycle);
        self.trace.add(k as u64);
        label.hash_into(&mut *self.trace);
        self.trace.add(o.elements);
        self.event(cycle, k, EventKind::OpDone, thread, || {
            format!("{label} ({} elements)", o.elements)
        });
        for &t in &o.activated {
            self.activate_local(k, cycle, t, FIFO_ACTIVATE)?;
        }
        let Some(cfg) = cfg else {
            return Ok(());
        };
        let (action, field) = if o.control_ended {
            let action = match &cfg.on_control {
                Some(OnControl::Activate(t)) => Some(Completion::Activate(*t)),
                Some(OnControl::Unblock(t)) => Some(Completion::Unblock(*t)),
                Some(OnControl::UnblockChannel(c)) => Some(Completion::UnblockChannel(*c)),
                Some(OnControl::Terminate) | None => None,
            };
            (action, ".on_control")
        } else {
            (cfg.on_done.clone(), "")
        };
        match action {
            Some(Completion::Activate(t)) => {
                let field = if field.is_empty() {
                    ".activate"
                } else {
                    ".on_control = .{ .activate }"
                };
                self.activate_local(k, cycle, t, field)
            }
            Some(Completion::Unblock(t)) => {
                let field = if field.is_empty() {
                    ".unblock"
                } else {
                    ".on_control = .{ .unblock }"
                };
                self.check_kind(k, cycle, t, field, UNBLOCKABLE)?;
                self.set_task(k, t, |t| t.blocked = false)
            }
            Some(Completion::UnblockChannel(c)) => self.block_channel(k, c, false),
            None => Ok(()),
        }
    }

    /// Activates the task `.activate` (or a FIFO's `activate_push` / `activate_pop`) names,
    /// which seed 004 requires to be bound as a local task.
    pub(super) fn activate_local(
        &mut self,
        k: usize,
        cycle: u64,
        id: LocalTaskId,
        field: &'static str,
    ) -> Result<(), SimError> {
        let id = TaskId::from(id);
        self.check_kind(k, cycle, id, field, &[TaskKind::Local])?;
        self.set_task(k, id, |t| t.active = true)
    }

    /// [`SimError::TaskKind`] when the task bound at `id` has a kind not in `allowed` (on
    /// WSE-2 one table holds every kind, so a local task id may name a data task's slot); an
    /// id bound to no task is left to the caller's own error.
    pub(super) fn check_kind(
        &self,
        k: usize,
        cycle: u64,
        id: impl Into<TaskId>,
        field: &'static str,
        allowed: &[TaskKind],
    ) -> Result<(), SimError> {
        let st = &self.pes[k];
        let Some(t) = st.task_at(id.into()).map(|i| &st.tasks[i]) else {
            return Ok(());
        };
        if allowed.contains(&t.kind()) {
            return Ok(());
        }
        let (x, y) = self.fabric.coords(k);
        Err(SimError::TaskKind {
            x,
            y,
            cycle,
            task: t.name.to_string(),
            kind: t.kind(),
            field,
            must: if allowed == [TaskKind::Local] {
                "a local task"
            } else {
                "a data or local task"
            },
        })
    }

    /// Checks the tasks an asynchronous operation's completion names when it starts: an
    /// `.activate` needs a local task, an `.unblock` a data or local task.
    pub(super) fn check_async_targets(
        &self,
        k: usize,
        cycle: u64,
        cfg: &AsyncConfig,
    ) -> Result<(), SimError> {
        match &cfg.on_done {
            Some(Completion::Activate(t)) => {
                self.check_kind(k, cycle, *t, ".activate", &[TaskKind::Local])?
            }
            Some(Completion::Unblock(t)) => {
                self.check_kind(k, cycle, *t, ".unblock", UNBLOCKABLE)?
            }
            Some(Completion::UnblockChannel(_)) | None => {}
        }
        match &cfg.on_control {
            Some(OnControl::Activate(t)) => self.check_kind(
                k,
                cycle,
                *t,
                ".on_control = .{ .activate }",
                &[TaskKind::Local],
            ),
            Some(OnControl::Unblock(t)) => {
                self.check_kind(k, cycle, *t, ".on_control = .{ .unblock }", UNBLOCKABLE)
            }
            _ => Ok(()),
        }
    }

    /// `@block(channel)` / `@unblock(channel)` with a color (WSE-2) or an input queue
    /// (WSE-3): the data task bound to the channel is blocked or unblocked; the channel's
    /// opening to control wavelets follows too (it matters only without a data task).
    pub(super) fn block_channel(
        &mut self,
        k: usize,
        channel: Channel,
        block: bool,
    ) -> Result<(), SimError> {
        self.set_channel(k, channel, !block)?;
        let tasks = &mut self.pes[k].tasks;
        if let Some(i) = tasks.of_kind(TaskKind::Data, channel.id()) {
            tasks[i].blocked = block;
        }
        Ok(())
    }
}
