//! What names an operation or action of a task in errors, deadlock reports, the trace and its
//! hash: `@fmacs async (task main, action 3)`. It is kept as parts and written out only when
//! a message, a trace event or the hash needs its text.

use std::fmt;
use std::sync::Arc;

use super::pe_step::TraceMix;
#[cfg(test)]
use super::stats::TraceHash;
use super::task::{Action, CALL_TEXT};
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
    /// Rust code.
    Call,
    /// Any other action (none of them holds more than a number).
    Other(Box<Action>),
}

/// The most bytes of a task's name a [`Label`] holds in itself.
const INLINE_NAME: usize = 22;

/// A task's name as a [`Label`] holds it: a short one in the label itself (its text lies with
/// the label, which a completion hashes, and no reference count is touched when the label is
/// made or dropped: the task's shared name is usually not in the cache by then), a longer
/// one shared with the task.
#[derive(Clone)]
enum TaskName {
    /// No task.
    None,
    /// The first `len` bytes of `bytes` (a whole name, so valid UTF-8).
    Inline { len: u8, bytes: [u8; INLINE_NAME] },
    /// Shared with the task.
    Shared(Arc<str>),
}

impl TaskName {
    /// The name of `task`, if any.
    fn of(task: Option<&Arc<str>>) -> TaskName {
        match task {
            None => TaskName::None,
            Some(name) if name.len() <= INLINE_NAME => {
                let mut bytes = [0u8; INLINE_NAME];
                bytes[..name.len()].copy_from_slice(name.as_bytes());
                TaskName::Inline {
                    len: name.len() as u8,
                    bytes,
                }
            }
            Some(name) => TaskName::Shared(Arc::clone(name)),
        }
    }

    /// The name as text, `?` without a task.
    fn text(&self) -> &str {
        match self {
            TaskName::None => "?",
            // the bytes of a whole `str`: always valid
            TaskName::Inline { len, bytes } => {
                std::str::from_utf8(&bytes[..usize::from(*len)]).unwrap_or("?")
            }
            TaskName::Shared(name) => name,
        }
    }
}

/// An action of a running task, with the task and the action's number in it (from 1).
#[derive(Clone)]
pub(crate) struct Label {
    head: Head,
    task: TaskName,
    action_no: usize,
}

impl Label {
    /// The label of `action`, number `action_no` of `task`; `name` gives the name of a task
    /// the action names.
    pub(crate) fn new(
        action: &Action,
        task: Option<&Arc<str>>,
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
            Action::Call(_) | Action::CallLocal(_) => Head::Call,
            other => Head::Other(Box::new(other.clone())),
        };
        Label {
            head,
            task: TaskName::of(task),
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
            Head::Call => f.write_str(CALL_TEXT)?,
            Head::Task { verb, target } => write!(f, "@{verb}({target})")?,
            Head::Other(a) => write!(f, "{a:?}")?,
        }
        write!(f, " (task {}, action {})", self.task.text(), self.action_no)
    }
}

/// Writes text into a trace hash as [`TraceHash::add_str`] would hash it, without building it:
/// each piece is mixed in as it comes (the hash of bytes is that of their pieces in order),
/// and the length at the end.
struct HashWriter<'a, H: TraceMix> {
    hash: &'a mut H,
    len: u64,
}

impl<'a, H: TraceMix> HashWriter<'a, H> {
    /// A writer into `hash`, empty.
    fn new(hash: &'a mut H) -> HashWriter<'a, H> {
        HashWriter { hash, len: 0 }
    }

    /// Appends `s` to the text.
    fn put(&mut self, s: &str) {
        self.hash.mix_bytes(s.as_bytes());
        self.len += s.len() as u64;
    }

    /// Appends the decimal digits of `n`.
    fn put_number(&mut self, mut n: u64) {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        loop {
            start -= 1;
            digits[start] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        // ASCII digits are always text
        if let Ok(text) = std::str::from_utf8(&digits[start..]) {
            self.put(text);
        }
    }

    /// Mixes in the text's length (as [`TraceHash::add_str`] ends).
    fn finish(self) {
        self.hash.add(self.len);
    }
}

impl<H: TraceMix> fmt::Write for HashWriter<'_, H> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        self.put(s);
        Ok(())
    }
}

/// Mixes the text of `v` into `hash` exactly as [`TraceHash::add_str`] mixes `v.to_string()`.
#[cfg(test)]
pub(crate) fn hash_display<H: TraceMix>(hash: &mut H, v: &impl fmt::Display) {
    use fmt::Write as _;
    let mut w = HashWriter::new(hash);
    // writing into the hash cannot fail
    let _ = write!(w, "{v}");
    w.finish();
}

impl Label {
    /// Mixes the label's text into `hash` as [`TraceHash::add_str`] mixes `self.to_string()`,
    /// its pieces put in directly instead of through the formatter (a completion hashes its
    /// label every operation).
    pub(crate) fn hash_into<H: TraceMix>(&self, hash: &mut H) {
        let mut w = HashWriter::new(hash);
        match &self.head {
            Head::Op { op, asynchronous } => {
                w.put("@");
                w.put(op.name());
                if *asynchronous {
                    w.put(" async");
                }
            }
            Head::Map => w.put("@map"),
            Head::Call => w.put(CALL_TEXT),
            Head::Task { verb, target } => {
                w.put("@");
                w.put(verb);
                w.put("(");
                w.put(target);
                w.put(")");
            }
            Head::Other(a) => {
                use fmt::Write as _;
                // writing into the hash cannot fail
                let _ = write!(w, "{a:?}");
            }
        }
        w.put(" (task ");
        w.put(self.task.text());
        w.put(", action ");
        w.put_number(self.action_no as u64);
        w.put(")");
        w.finish();
    }
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
        let l = Label::new(&op, Some(&task), 3, named);
        assert_eq!(l.to_string(), "@fmacs (task main, action 3)");
        let recv = LocalTaskId::new(12).unwrap();
        let l = Label::new(&Action::Activate(recv), None, 1, named);
        assert_eq!(l.to_string(), "@activate(recv) (task ?, action 1)");
    }

    #[test]
    fn hashing_a_label_is_hashing_its_text() {
        let q = OutputQueue::new(2).unwrap();
        let l = Label::new(&Action::QueueFlush(q), Some(&"t".into()), 7, |id| {
            id.to_string().into()
        });
        let mut streamed = TraceHash::default();
        hash_display(&mut streamed, &l);
        let mut text = TraceHash::default();
        text.add_str(&l.to_string());
        assert_eq!(streamed, text);
        // a label's own hashing is that of its text, for every kind of head
        let long: Arc<str> = "t".repeat(150).into();
        let actions = [
            Action::QueueFlush(q),
            Action::sync(
                Op::Fmacs,
                crate::ops::Operand::Fifo(crate::ops::FifoId(0)),
                vec![],
            ),
            Action::spawn(
                Op::Fadds,
                crate::ops::Operand::Fifo(crate::ops::FifoId(1)),
                vec![],
                crate::sched::AsyncConfig::default(),
            ),
            Action::map(vec![], None, |a| a[0]),
            Action::Activate(LocalTaskId::new(12).unwrap()),
            Action::Block(LocalTaskId::new(3).unwrap().into()),
        ];
        for a in &actions {
            // no task, names held in the label (up to its limit, and one not all ASCII) and
            // shared ones
            let tasks: [(Option<Arc<str>>, usize); 7] = [
                (None, 0),
                (Some("recv_x".into()), 2),
                (Some("".into()), 2),
                (Some("n".repeat(INLINE_NAME).into()), 3),
                (Some("n".repeat(INLINE_NAME + 1).into()), 4),
                (Some("tâche_réçue_ü".into()), 5),
                (Some(Arc::clone(&long)), 1_234_567),
            ];
            for (task, no) in tasks {
                let l = Label::new(a, task.as_ref(), no, |id| format!("task {id}").into());
                assert!(
                    l.to_string()
                        .contains(&format!("(task {}, ", task.as_deref().unwrap_or("?"))),
                    "{l}"
                );
                let mut direct = TraceHash::default();
                l.hash_into(&mut direct);
                let mut text = TraceHash::default();
                text.add_str(&l.to_string());
                assert_eq!(direct, text, "{l}");
            }
        }
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
