//! What names an operation or action of a task in errors, deadlock reports, the trace and its
//! hash: `@fmacs async (task main, action 3)`. It is kept as parts and written out only when
//! a message, a trace event or the hash needs its text.

use std::fmt;
use std::sync::Arc;

use super::pe_step::TraceMix;
#[cfg(test)]
use super::stats::TraceHash;
use super::task::Action;
use crate::ids::TaskId;
use crate::ops::Op;

/// The action part of a [`Label`], written as the action's `Debug` form.
#[derive(Clone)]
enum Head {
    /// A DSD operation: `@name`, with ` async` when asynchronous.
    Op { op: Op, asynchronous: bool },
    /// `@map`.
    Map,
    /// `@activate` / `@block` / `@unblock` of a task, written with the task's name.
    Task {
        verb: &'static str,
        target: Arc<str>,
    },
    /// Any other action (none of them holds more than a number).
    Other(Box<Action>),
}

/// An action of a running task, with the task and the action's number in it (from 1).
#[derive(Clone)]
pub(crate) struct Label {
    head: Head,
    task: Option<Arc<str>>,
    action_no: usize,
}

impl Label {
    /// The label of `action`, number `action_no` of `task`; `name` gives the name of a task
    /// the action names.
    pub(crate) fn new(
        action: &Action,
        task: Option<Arc<str>>,
        action_no: usize,
        name: impl FnOnce(TaskId) -> Arc<str>,
    ) -> Label {
        let head = match action {
            Action::Op {
                op, asynchronous, ..
            } => Head::Op {
                op: *op,
                asynchronous: asynchronous.is_some(),
            },
            Action::Map { .. } => Head::Map,
            Action::Activate(t) => Head::Task {
                verb: "activate",
                target: name((*t).into()),
            },
            Action::Block(t) => Head::Task {
                verb: "block",
                target: name(*t),
            },
            Action::Unblock(t) => Head::Task {
                verb: "unblock",
                target: name(*t),
            },
            other => Head::Other(Box::new(other.clone())),
        };
        Label {
            head,
            task,
            action_no,
        }
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.head {
            Head::Op { op, asynchronous } => write!(
                f,
                "@{}{}",
                op.name(),
                if *asynchronous { " async" } else { "" }
            )?,
            Head::Map => f.write_str("@map")?,
            Head::Task { verb, target } => write!(f, "@{verb}({target})")?,
            Head::Other(a) => write!(f, "{a:?}")?,
        }
        write!(
            f,
            " (task {}, action {})",
            self.task.as_deref().unwrap_or("?"),
            self.action_no
        )
    }
}

/// Bytes a [`HashWriter`] gathers before mixing them in (a label's text fits).
const HASH_WRITER_BUFFER: usize = 96;

/// Writes text into a trace hash as [`TraceHash::add_str`] would hash it, without building it:
/// the pieces are gathered in a buffer and mixed in a buffer at a time.
struct HashWriter<'a, H: TraceMix> {
    hash: &'a mut H,
    buf: [u8; HASH_WRITER_BUFFER],
    used: usize,
    len: u64,
}

impl<H: TraceMix> HashWriter<'_, H> {
    /// Mixes in what the buffer holds.
    fn flush(&mut self) {
        self.hash.mix_bytes(&self.buf[..self.used]);
        self.used = 0;
    }
}

impl<H: TraceMix> fmt::Write for HashWriter<'_, H> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let bytes = s.as_bytes();
        if self.used + bytes.len() > self.buf.len() {
            self.flush();
        }
        if bytes.len() > self.buf.len() {
            self.hash.mix_bytes(bytes);
        } else {
            self.buf[self.used..self.used + bytes.len()].copy_from_slice(bytes);
            self.used += bytes.len();
        }
        self.len += bytes.len() as u64;
        Ok(())
    }
}

/// Mixes the text of `v` into `hash` exactly as [`TraceHash::add_str`] mixes `v.to_string()`.
pub(crate) fn hash_display<H: TraceMix>(hash: &mut H, v: &impl fmt::Display) {
    use fmt::Write as _;
    let mut w = HashWriter {
        hash,
        buf: [0; HASH_WRITER_BUFFER],
        used: 0,
        len: 0,
    };
    // writing into the hash cannot fail
    let _ = write!(w, "{v}");
    w.flush();
    let len = w.len;
    hash.add(len);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::{LocalTaskId, OutputQueue};

    #[test]
    fn a_label_reads_as_the_action_its_task_and_its_number() {
        let task: Arc<str> = "main".into();
        let op = Action::sync(
            Op::Fmacs,
            crate::ops::Operand::Fifo(crate::ops::FifoId(0)),
            vec![],
        );
        let named = |_: TaskId| -> Arc<str> { "recv".into() };
        let l = Label::new(&op, Some(Arc::clone(&task)), 3, named);
        assert_eq!(l.to_string(), "@fmacs (task main, action 3)");
        let recv = LocalTaskId::new(12).unwrap();
        let l = Label::new(&Action::Activate(recv), None, 1, named);
        assert_eq!(l.to_string(), "@activate(recv) (task ?, action 1)");
    }

    #[test]
    fn hashing_a_label_is_hashing_its_text() {
        let q = OutputQueue::new(2).unwrap();
        let l = Label::new(&Action::QueueFlush(q), Some("t".into()), 7, |id| {
            id.to_string().into()
        });
        let mut streamed = TraceHash::default();
        hash_display(&mut streamed, &l);
        let mut text = TraceHash::default();
        text.add_str(&l.to_string());
        assert_eq!(streamed, text);
        // texts longer than the writer's buffer, in pieces of every size
        for n in [0, 1, 95, 96, 97, 200, 1000] {
            let long = format!("{}|{}|{}", "a".repeat(n), "b".repeat(n / 2), n);
            let mut streamed = TraceHash::default();
            hash_display(&mut streamed, &long);
            let mut text = TraceHash::default();
            text.add_str(&long);
            assert_eq!(streamed, text, "{n}");
        }
    }
}
