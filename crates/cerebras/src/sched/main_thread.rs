//! The main thread of a PE: one element of its `@map` or synchronous operation, the next
//! action of its task, or, idle, the start of the eligible task with the lowest id (a local,
//! data or control task, the teardown task of a drained flushed queue, a rotating task's
//! control task).

use std::sync::Arc;

use super::bound_tasks::TaskIdx;
use super::completion::FIFO_ACTIVATE;
use super::error::SimError;
use super::label::Label;
use super::pe_state::{MainThread, NextAction, PeCycle};
use super::pe_step::{PeStep, TraceMix};
use super::run_ahead::RunAhead;
use super::task::{Action, AsyncConfig, CallCtx, LocalCallCtx, TEARDOWN_TASK_ID, TaskKind};
use super::trace::{EventKind, Thread};
use crate::arch::Arch;
use crate::fabric::{Color, InputQueue, OutputQueue, QueueRef, Wavelet};
use crate::ops::{Op, Operand};
use crate::pe::{OpConfig, Outcome, Pe, Progress};

/// What the idle main thread starts: a task's name, its body and the wavelet it took.
struct TaskStart {
    name: Arc<str>,
    body: Arc<[Action]>,
    wavelet: Option<Wavelet>,
}

impl PeStep<'_> {
    /// The main thread's turn: one element of a `@map` or a synchronous operation in
    /// progress, else the next action of its task, else (idle) the start of the next task.
    pub(super) fn step_main(
        &mut self,
        k: usize,
        cycle: u64,
        out: &mut PeCycle,
    ) -> Result<(), SimError> {
        if let Some(map) = self.pes[k].main.map.take() {
            return self.step_map(k, cycle, map, out);
        }
        if self.pes[k].main.current.is_some() {
            return self.step_sync_op(k, cycle, out);
        }
        let st = &mut self.pes[k];
        if let Some(next) = st.main.next_action() {
            out.progressed = true;
            st.main.action_no += 1;
            let label = Label::new(
                next.action(),
                st.main.task.as_ref(),
                st.main.action_no,
                |id| st.task_name(id),
            );
            return match next {
                // an action Rust code returned runs once: its operands move into the operation
                NextAction::Pending(Action::Op {
                    op,
                    dest,
                    srcs,
                    cfg,
                    asynchronous,
                }) => {
                    let operands = OpOperands::Owned(dest, srcs);
                    self.run_op(
                        k,
                        cycle,
                        op,
                        operands,
                        &cfg,
                        asynchronous.as_ref(),
                        label,
                        out,
                    )
                }
                next => self.run_action(k, cycle, next.action(), label, out),
            };
        }
        if let Some(q) = self.pes[k].main.teardown.take() {
            self.teardown_ended(k, cycle, q)?;
        }
        self.pes[k].main.task = None;
        self.start_next_task(k, cycle, out)
    }

    /// One element of a `@map` in progress (`left` elements still to count).
    fn step_map(
        &mut self,
        k: usize,
        cycle: u64,
        (left, o, label): (u64, Outcome, Label),
        out: &mut PeCycle,
    ) -> Result<(), SimError> {
        out.progressed = true;
        let st = &mut self.pes[k];
        st.stats.elements += 1;
        if left > 1 {
            for v in [cycle, k as u64, 0, o.elements - left + 1] {
                self.trace.add(v);
            }
            self.pes[k].main.map = Some((left - 1, o, label));
        } else {
            self.complete(k, cycle, &label, &o, None, Thread::Main)?;
        }
        Ok(())
    }

    /// One element of the main thread's synchronous operation (advanced where it sits).
    fn step_sync_op(&mut self, k: usize, cycle: u64, out: &mut PeCycle) -> Result<(), SimError> {
        let (st, a) = self.pes.with_ahead();
        if let Some(e) = RunAhead::take_error(st, a) {
            let label = st.main.current.take().map(|(_, l, _)| l.to_string());
            return Err(self.op_error(k, cycle, label.unwrap_or_default(), e));
        }
        let Some((run, _, _)) = st.main.current.as_mut() else {
            return Ok(());
        };
        let before = run.elements();
        let progress = match st.pe.advance(run, 1) {
            Ok(p) => p,
            Err(e) => {
                let label = st.main.current.take().map(|(_, l, _)| l.to_string());
                return Err(self.op_error(k, cycle, label.unwrap_or_default(), e));
            }
        };
        let elements = run.elements();
        let activated = run.take_activated();
        st.stats.elements += elements - before;
        for t in activated {
            if let Err(e) = self.activate_local(k, cycle, t, FIFO_ACTIVATE) {
                self.pes[k].main.current = None;
                return Err(e);
            }
        }
        match progress {
            Progress::Stalled(w) => {
                let st = &mut self.pes[k];
                st.main.waiting = Some(w);
                st.stats.stalls += 1;
            }
            Progress::Paused => {
                out.progressed = true;
                for v in [cycle, k as u64, 0, elements] {
                    self.trace.add(v);
                }
                self.pes[k].main.waiting = None;
                self.run_ahead(k, cycle);
            }
            Progress::Done(o) => {
                out.progressed = true;
                let st = &mut self.pes[k];
                st.main.waiting = None;
                if let Some((_, label, qs)) = st.main.current.take() {
                    for (_, q) in qs {
                        if let QueueRef::Output(q) = q {
                            st.out_owner[usize::from(q.id())] = Some(label.clone());
                        }
                    }
                    self.complete(k, cycle, &label, &o, None, Thread::Main)?;
                }
            }
        }
        Ok(())
    }

    /// The idle main thread starts the eligible task with the lowest id: the teardown task of
    /// a drained flushed queue, a control task named by a control wavelet, a local or a data
    /// task.
    fn start_next_task(&mut self, k: usize, cycle: u64, out: &mut PeCycle) -> Result<(), SimError> {
        // the teardown task (system id 29) of a flushed queue that drained, when no eligible
        // task has a lower id
        let teardown = self.teardown_due(k);
        let (pick, channel) = self.eligible(k);
        let st = &self.pes[k];
        let lowest = match (channel, pick) {
            (Some((_, _, entry)), _) => Some(entry),
            (None, Some(ti)) => Some(st.tasks[ti].number()),
            (None, None) => None,
        };
        if let Some(q) = teardown.filter(|_| lowest.is_none_or(|id| id > TEARDOWN_TASK_ID)) {
            self.start_teardown(k, cycle, q, out);
            return Ok(());
        }
        let Some(TaskStart {
            name,
            body,
            wavelet,
        }) = self.take_task(k, cycle, channel, pick)?
        else {
            return Ok(());
        };
        let st = &mut self.pes[k];
        // the finished task's (empty) queue of returned actions keeps its room
        let mut pending = std::mem::take(&mut st.main.pending);
        pending.clear();
        st.main = MainThread {
            task: Some(Arc::clone(&name)),
            wavelet,
            body,
            pc: 0,
            pending,
            action_no: 0,
            current: None,
            waiting: None,
            teardown: None,
            map: None,
            ahead: RunAhead::default(),
        };
        st.stats.tasks_started += 1;
        out.progressed = true;
        self.trace.add(cycle);
        self.trace.add(k as u64);
        self.trace.add_str(&name);
        self.trace
            .add(wavelet.map_or(0, |w| u64::from(w.payload) | 1 << 32));
        self.event(cycle, k, EventKind::TaskStart, Thread::Main, || {
            name.to_string()
        });
        Ok(())
    }

    /// The task an idle main thread may start: the eligible bound task with the lowest id
    /// (an index into the PE's tasks), and a control wavelet at the head of an unblocked
    /// channel without a data task (channel, input queue, control task id) when its id is
    /// below that task's.
    fn eligible(&self, k: usize) -> (Option<TaskIdx>, Option<(u8, InputQueue, u8)>) {
        let st = &self.pes[k];
        let pick = st.tasks.position(|t| {
            !t.blocked
                && match t.kind() {
                    TaskKind::Local => t.active,
                    TaskKind::Data => data_queue(&st.pe, t.number())
                        .is_some_and(|q| st.pe.queues.input(q).is_some_and(|iq| !iq.is_empty())),
                    TaskKind::Control => false,
                }
        });
        // a control wavelet at the head of an unblocked channel without a data task, taken
        // when its control task id is below the picked task's
        let channel = st.open_channels.iter().find_map(|&ch| {
            if st
                .tasks
                .iter()
                .any(|t| t.kind() == TaskKind::Data && t.number() == ch)
            {
                return None;
            }
            let q = data_queue(&st.pe, ch)?;
            let w = st.pe.queues.input(q)?.peek(0)?;
            w.is_control().then_some((ch, q, control_entry(w.payload)))
        });
        let channel =
            channel.filter(|&(_, _, entry)| pick.is_none_or(|ti| entry < st.tasks[ti].number()));
        (pick, channel)
    }

    /// Starts the teardown task of flushed output queue `q`, now drained.
    fn start_teardown(&mut self, k: usize, cycle: u64, q: OutputQueue, out: &mut PeCycle) {
        {
            let body = self.teardown_body(k, q);
            let name: Arc<str> = format!("teardown ({q} drained)").into();
            let st = &mut self.pes[k];
            st.main = MainThread {
                task: Some(Arc::clone(&name)),
                body,
                teardown: Some(q),
                ..MainThread::default()
            };
            st.stats.tasks_started += 1;
            out.progressed = true;
            self.trace.add(cycle);
            self.trace.add(k as u64);
            self.trace.add_str(&name);
            self.event(cycle, k, EventKind::TaskStart, Thread::Main, || {
                name.to_string()
            });
        }
    }

    /// Takes what the main thread starts, as [`Sim::eligible`] found it: its name, body and
    /// wavelet (popped from its queue). A control wavelet on a data task's channel starts the
    /// control task it names instead, and so does every `limit`-th start of a rotating data
    /// task.
    fn take_task(
        &mut self,
        k: usize,
        cycle: u64,
        channel: Option<(u8, InputQueue, u8)>,
        pick: Option<TaskIdx>,
    ) -> Result<Option<TaskStart>, SimError> {
        let st = &mut self.pes[k];
        let (mut name, mut body, wavelet) = match (channel, pick) {
            (Some((ch, q, _)), _) => {
                let wavelet = st.pe.queues.input_mut(q).and_then(|iq| iq.pop());
                let name: Arc<str> = format!("channel {ch} (no data task)").into();
                (name, Arc::default(), wavelet)
            }
            (None, Some(ti)) => {
                let task = &mut st.tasks[ti];
                task.active = false;
                let (name, body, kind, id) = (
                    task.name.clone(),
                    task.body.clone(),
                    task.kind(),
                    task.number(),
                );
                let wavelet = match kind {
                    TaskKind::Data => data_queue(&st.pe, id)
                        .and_then(|q| st.pe.queues.input_mut(q))
                        .and_then(|iq| iq.pop()),
                    TaskKind::Local | TaskKind::Control => None,
                };
                (name, body, wavelet)
            }
            (None, None) => return Ok(None),
        };
        // a control wavelet on a data task's channel starts the control task it names
        if let Some(w) = wavelet.filter(|w| w.is_control()) {
            let entry = control_entry(w.payload);
            let Some(t) = st
                .tasks
                .of_kind(TaskKind::Control, entry)
                .map(|i| &st.tasks[i])
            else {
                let (x, y) = self.fabric.coords(k);
                return Err(SimError::UnexpectedControl {
                    x,
                    y,
                    cycle,
                    task: name.to_string(),
                    payload: w.payload,
                    entry,
                });
            };
            name = t.name.clone();
            body = t.body.clone();
        } else if let (None, Some(ti)) = (channel, pick)
            && st.tasks[ti].kind() == TaskKind::Data
        {
            // a rotating data task (WSE-3): every limit-th start runs its control task
            let id = st.tasks[ti].number();
            if let Some(control) = self.rotate(k, id)
                && let Some(i) = self.pes[k].tasks.of_kind(TaskKind::Control, control)
            {
                let t = &self.pes[k].tasks[i];
                name = t.name.clone();
                body = t.body.clone();
            }
        }
        Ok(Some(TaskStart {
            name,
            body,
            wavelet,
        }))
    }

    /// `@block(ut_id)` / `@unblock(ut_id)` (WSE-3 only).
    fn block_microthread(
        &mut self,
        k: usize,
        cycle: u64,
        label: Label,
        ut: u8,
        block: bool,
    ) -> Result<(), SimError> {
        let (x, y) = self.fabric.coords(k);
        match self.pes[k].blocked_uts.get_mut(usize::from(ut)) {
            Some(b) if self.arch == Arch::Wse3 => {
                *b = block;
                Ok(())
            }
            _ => Err(SimError::Async {
                x,
                y,
                cycle,
                what: label.to_string(),
                rule: format!("@block/@unblock of microthread {ut}: WSE-3 only, ids 0..=7"),
            }),
        }
    }

    fn run_action(
        &mut self,
        k: usize,
        cycle: u64,
        action: &Action,
        label: Label,
        out: &mut PeCycle,
    ) -> Result<(), SimError> {
        match action {
            Action::Activate(t) => self.set_task(k, (*t).into(), |t| t.active = true),
            Action::Block(t) => self.set_task(k, *t, |t| t.blocked = true),
            Action::Unblock(t) => self.set_task(k, *t, |t| t.blocked = false),
            Action::BlockMicrothread(u) => self.block_microthread(k, cycle, label, u.id(), true),
            Action::UnblockMicrothread(u) => self.block_microthread(k, cycle, label, u.id(), false),
            Action::UnblockChannel(c) => self.block_channel(k, *c, false),
            Action::BlockChannel(c) => self.block_channel(k, *c, true),
            Action::QueueFlush(q) => self.set_queue_flush(k, cycle, &label, *q, true),
            Action::ExitQueueFlush(q) => self.set_queue_flush(k, cycle, &label, *q, false),
            Action::ExitTeardown(c) => {
                self.fabric.set_teardown_at(k, *c, false);
                Ok(())
            }
            Action::InitializeOutputQueue(q, c) => {
                self.initialize_output_queue(k, cycle, &label, *q, *c)
            }
            Action::Map { inputs, output, f } => {
                let o = self.pes[k]
                    .pe
                    .map(inputs, output.as_ref(), |a| f(a))
                    .map_err(|e| self.op_error(k, cycle, &label, e))?;
                if o.elements == 0 {
                    return self.complete(k, cycle, &label, &o, None, Thread::Main);
                }
                self.pes[k].main.map = Some((o.elements, o, label));
                // the first element in this same cycle
                self.step_main(k, cycle, out)
            }
            Action::Call(f) => {
                let st = &mut self.pes[k];
                let mut ctx = CallCtx {
                    pe: &mut st.pe,
                    wavelet: st.main.wavelet,
                    cycle,
                };
                let more = f(&mut ctx).map_err(|e| self.op_error(k, cycle, &label, e))?;
                let st = &mut self.pes[k];
                for a in more.into_iter().rev() {
                    st.main.pending.push_front(a);
                }
                Ok(())
            }
            Action::CallLocal(f) => {
                let st = &mut self.pes[k];
                let mut ctx = LocalCallCtx {
                    mem: &mut st.pe.mem,
                    wavelet: st.main.wavelet,
                    cycle,
                };
                let more = f(&mut ctx).map_err(|e| self.op_error(k, cycle, &label, e))?;
                let st = &mut self.pes[k];
                for a in more.into_iter().rev() {
                    st.main.pending.push_front(a);
                }
                Ok(())
            }
            Action::Op {
                op,
                dest,
                srcs,
                cfg,
                asynchronous,
            } => {
                let operands = OpOperands::Borrowed(dest, srcs);
                self.run_op(
                    k,
                    cycle,
                    *op,
                    operands,
                    cfg,
                    asynchronous.as_ref(),
                    label,
                    out,
                )
            }
        }
    }

    /// Starts a DSD operation of the main thread: synchronous, its first element in this
    /// cycle; asynchronous, on a microthread.
    #[allow(clippy::too_many_arguments)]
    fn run_op(
        &mut self,
        k: usize,
        cycle: u64,
        op: Op,
        operands: OpOperands<'_>,
        cfg: &OpConfig,
        asynchronous: Option<&AsyncConfig>,
        label: Label,
        out: &mut PeCycle,
    ) -> Result<(), SimError> {
        let pe = &mut self.pes[k].pe;
        let started = match operands {
            OpOperands::Borrowed(dest, srcs) => pe.start(op, dest, srcs, cfg),
            OpOperands::Owned(dest, srcs) => pe.start_owned(op, dest, srcs, cfg),
        };
        let mut run = started.map_err(|e| self.op_error(k, cycle, &label, e))?;
        // the simulator reads no operation's cycle estimate
        run.estimate = false;
        let queues = run.fabric_queues();
        self.check_queues(k, cycle, &label, &queues, None, run.fabout_color())?;
        let (dest, srcs) = (run.dest(), run.srcs());
        let mut buf = [dest; 4];
        let many: Vec<&Operand>;
        let operands: &[&Operand] = if srcs.len() < buf.len() {
            for (b, s) in buf[1..].iter_mut().zip(srcs) {
                *b = s;
            }
            &buf[..=srcs.len()]
        } else {
            many = std::iter::once(dest).chain(srcs).collect();
            &many
        };
        match self.pes[k].effective_async(asynchronous.cloned(), operands) {
            None => {
                self.pes[k].main.current = Some((run, label, queues));
                // the first element in this same cycle
                self.step_main(k, cycle, out)
            }
            Some(acfg) => {
                self.check_async_targets(k, cycle, &acfg)?;
                run.asynchronous = true;
                run.on_control = acfg.on_control.is_some();
                self.spawn(k, cycle, run, acfg, label, queues)
            }
        }
    }
}

/// The operands of an operation to start: an action's own (shared by every start of its
/// task) or those of an action run once, which the operation takes.
enum OpOperands<'a> {
    /// Copied into the operation.
    Borrowed(&'a Operand, &'a [Operand]),
    /// Moved into it.
    Owned(Operand, Vec<Operand>),
}

/// The control task a control wavelet names: payload bits 16..=21 (the layout is not
/// published; a third-party note puts the entry point from bit 16, the data in bits 0..=15).
pub fn control_entry(payload: u32) -> u8 {
    ((payload >> 16) & 0x3F) as u8
}

/// The input queue of data task `id`: the queue bound to color `id` on WSE-2, queue `id` on
/// WSE-3.
fn data_queue(pe: &Pe, id: u8) -> Option<InputQueue> {
    match pe.arch() {
        Arch::Wse2 => Color::new(i64::from(id))
            .ok()
            .and_then(|c| pe.queues.input_of(c)),
        Arch::Wse3 => InputQueue::new(i64::from(id)).ok(),
    }
}
