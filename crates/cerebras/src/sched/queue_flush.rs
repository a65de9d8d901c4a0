//! WSE-3 output-queue flush (spec §6, EX topic-16): an output queue serves one color; to move
//! it to another color it must drain first. `@queue_flush(q)` arranges for the teardown task
//! (system id 29) to run once the queue is empty; it runs the handler set with
//! `@set_empty_queue_handler`, which must clear the flush state (`Action::ExitQueueFlush`).
//! Rebinding a WSE-3 queue that still holds wavelets (`Action::InitializeOutputQueue`) is an
//! error.

use std::fmt;
use std::sync::Arc;

use super::error::SimError;
use super::label::Label;
use super::pe_step::PeStep;
use super::sim::Sim;
use super::task::Action;
use crate::arch::Arch;
use crate::fabric::Color;
use crate::ids::OutputQueue;

impl Sim {
    /// `@set_empty_queue_handler(handler, q)` on PE `(x, y)` (WSE-3): the teardown task runs
    /// `body` when a flushed output queue `queue` is empty; `body` must clear the flush state
    /// with [`Action::ExitQueueFlush`].
    pub fn set_empty_queue_handler(
        &mut self,
        x: i64,
        y: i64,
        queue: OutputQueue,
        body: Vec<Action>,
    ) -> Result<(), SimError> {
        let k = self.fabric.pe_index(x, y)?;
        self.with_step(k, |s| {
            s.flushable(k, None, &"@set_empty_queue_handler", queue)
        })?;
        let handlers = &mut self.pes[k].empty_handlers;
        handlers.retain(|(q, _)| *q != queue);
        handlers.push((queue, body.into()));
        Ok(())
    }
}

impl PeStep<'_> {
    /// Checks `queue` is an output queue of a WSE-3 PE.
    fn flushable(
        &self,
        k: usize,
        cycle: Option<u64>,
        what: &dyn fmt::Display,
        queue: OutputQueue,
    ) -> Result<(), SimError> {
        let (x, y) = self.fabric.coords(k);
        let rule = if self.arch != Arch::Wse3 {
            format!("{what} is WSE-3 only (WSE-2 output queues are not tied to a color)")
        } else if self.pes[k].pe.queues.output(queue).is_none() {
            format!("{what}: {queue} does not exist (0..=7)")
        } else {
            return Ok(());
        };
        Err(match cycle {
            Some(cycle) => SimError::Async {
                x,
                y,
                cycle,
                what: what.to_string(),
                rule,
            },
            None => SimError::Task { x, y, what: rule },
        })
    }

    /// `@queue_flush(q)` (`on = true`) or the handler's exit from the flush state.
    pub(super) fn set_queue_flush(
        &mut self,
        k: usize,
        cycle: u64,
        label: &Label,
        queue: OutputQueue,
        on: bool,
    ) -> Result<(), SimError> {
        self.flushable(k, Some(cycle), label, queue)?;
        self.pes[k].flushing[usize::from(queue.id())] = on;
        Ok(())
    }

    /// `@initialize_queue(q, .{ .color = c })` at run time: on WSE-3 refused while the queue
    /// still holds wavelets of the color it served (WSE-2 output queues may mix colors).
    pub(super) fn initialize_output_queue(
        &mut self,
        k: usize,
        cycle: u64,
        label: &Label,
        queue: OutputQueue,
        color: Color,
    ) -> Result<(), SimError> {
        let (x, y) = self.fabric.coords(k);
        let queues = &mut self.pes[k].pe.queues;
        let left = queues.output(queue).map_or(0, |q| q.len());
        if self.arch == Arch::Wse3 && left > 0 && queues.output_color(queue) != Some(color) {
            return Err(SimError::Async {
                x,
                y,
                cycle,
                what: label.to_string(),
                rule: format!(
                    "{queue} still holds {left} wavelet(s) of color {}; drain it first (@queue_flush)",
                    queues
                        .output_color(queue)
                        .map_or("?".to_string(), |c| c.id().to_string())
                ),
            });
        }
        queues.bind_output(queue, color)?;
        Ok(())
    }

    /// The flushed output queue whose teardown task is due (the lowest empty one).
    pub(super) fn teardown_due(&self, k: usize) -> Option<OutputQueue> {
        let st = &self.pes[k];
        OutputQueue::ALL.into_iter().find(|&q| {
            st.flushing[usize::from(q.id())]
                && st.pe.queues.output(q).is_some_and(|oq| oq.is_empty())
        })
    }

    /// The body of the teardown task for `queue`: its handler, else nothing (the flush state
    /// is then cleared by the system).
    pub(super) fn teardown_body(&mut self, k: usize, queue: OutputQueue) -> Arc<[Action]> {
        let st = &mut self.pes[k];
        match st.empty_handlers.iter().find(|(q, _)| *q == queue) {
            Some((_, body)) => Arc::clone(body),
            None => {
                st.flushing[usize::from(queue.id())] = false;
                Arc::default()
            }
        }
    }

    /// After the teardown task for `queue` ended: its handler must have cleared the flush
    /// state (else the task would run again and again).
    pub(super) fn teardown_ended(
        &self,
        k: usize,
        cycle: u64,
        queue: OutputQueue,
    ) -> Result<(), SimError> {
        if !self.pes[k].flushing[usize::from(queue.id())] {
            return Ok(());
        }
        let (x, y) = self.fabric.coords(k);
        Err(SimError::Async {
            x,
            y,
            cycle,
            what: format!("the empty-queue handler of {queue}"),
            rule: "it must clear the flush state (Action::ExitQueueFlush)".into(),
        })
    }
}

impl Sim {
    /// Flushes still waiting for their queue to drain, for a deadlock report.
    pub(super) fn pending_flushes(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (k, st) in self.pes.iter().enumerate() {
            let (x, y) = self.fabric.coords(k);
            for q in OutputQueue::ALL {
                let left = st.pe.queues.output(q).map_or(0, |oq| oq.len());
                if st.flushing[usize::from(q.id())] && left > 0 {
                    out.push(format!(
                        "PE ({x}, {y}) @queue_flush({}): waits for {q} to drain ({left} wavelet(s) left)",
                        q.id()
                    ));
                }
            }
        }
        out
    }
}
