//! What one PE's step may touch, apart from the rest of the simulation: the PE itself, the
//! grid's shape, its share of the trace (mixed into the hash directly, or logged to be mixed
//! in PE order after a parallel step), its events and the router changes it asks for
//! (applied after every PE stepped: routers act only in the next cycle's router phase).
//! PEs stepped apart can therefore be stepped on several threads at once.

use std::fmt;
use std::ops::{Index, IndexMut};

use super::error::SimError;
use super::pe_state::PeState;
use super::queue_reuse::QueueReusePolicy;
use super::run_ahead::AheadCount;
use super::stats::TraceHash;
use super::task::Task;
use super::trace::{EventKind, Thread, TraceEvent};
use crate::arch::Arch;
use crate::fabric::Color;
use crate::ids::{Channel, TaskId};

/// Something a trace is mixed into, a number or bytes at a time.
pub(crate) trait TraceMix {
    /// Mixes in bytes.
    fn mix_bytes(&mut self, bytes: &[u8]);

    /// Mixes in the bytes of `v`.
    fn add(&mut self, v: u64) {
        self.mix_bytes(&v.to_le_bytes());
    }

    /// Mixes in a string: its bytes, then its length.
    fn add_str(&mut self, s: &str) {
        self.mix_bytes(s.as_bytes());
        self.add(s.len() as u64);
    }
}

impl TraceMix for TraceHash {
    fn mix_bytes(&mut self, bytes: &[u8]) {
        self.add_bytes(bytes);
    }

    fn add(&mut self, v: u64) {
        TraceHash::add(self, v);
    }
}

/// A PE step's share of the trace: the hash itself (stepping one PE at a time) or what to
/// mix into it later, in PE order.
#[derive(Debug)]
pub(super) enum TraceSink {
    /// Mixed in as it comes.
    Hash(TraceHash),
    /// Logged.
    Log(TraceLog),
}

impl Default for TraceSink {
    fn default() -> TraceSink {
        TraceSink::Log(TraceLog::default())
    }
}

impl TraceMix for TraceSink {
    fn mix_bytes(&mut self, bytes: &[u8]) {
        match self {
            TraceSink::Hash(h) => h.add_bytes(bytes),
            TraceSink::Log(l) => l.mix_bytes(bytes),
        }
    }

    fn add(&mut self, v: u64) {
        match self {
            TraceSink::Hash(h) => h.add(v),
            TraceSink::Log(l) => l.add(v),
        }
    }
}

/// One entry of a [`TraceLog`].
#[derive(Clone, Copy, Debug)]
enum Logged {
    /// A number ([`TraceHash::add`]).
    Number(u64),
    /// Bytes `start..end` of the log's bytes.
    Bytes(u32, u32),
}

/// Trace to be mixed into the hash later, as it came: numbers kept as numbers (mixed in with
/// [`TraceHash::add`], which is quicker than their bytes), bytes as bytes.
#[derive(Debug, Default)]
pub(super) struct TraceLog {
    entries: Vec<Logged>,
    bytes: Vec<u8>,
}

impl TraceLog {
    /// Mixes everything logged into `hash`, in order, and empties the log (keeping its room).
    pub(super) fn drain_into(&mut self, hash: &mut TraceHash) {
        for e in &self.entries {
            match *e {
                Logged::Number(v) => hash.add(v),
                Logged::Bytes(start, end) => {
                    hash.add_bytes(&self.bytes[start as usize..end as usize]);
                }
            }
        }
        self.entries.clear();
        self.bytes.clear();
    }

    /// Entries logged so far.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// When the entries from `from` on are exactly `cycle, k, 0, n` (what an element of a
    /// synchronous operation adds): drops them and returns `n`.
    pub(super) fn take_element(&mut self, from: usize, cycle: u64, k: u64) -> Option<u64> {
        match self.entries.get(from..)? {
            [
                Logged::Number(c),
                Logged::Number(pe),
                Logged::Number(0),
                Logged::Number(n),
            ] if *c == cycle && *pe == k => {
                let n = *n;
                self.entries.truncate(from);
                Some(n)
            }
            _ => None,
        }
    }

    /// Gives the bytes of entries `from..` to `out`, in order (a number as its eight
    /// little-endian bytes: [`TraceHash::add`] mixes in the same), and drops them.
    pub(super) fn take_bytes(&mut self, from: usize, mut out: impl FnMut(&[u8])) {
        for e in self.entries.get(from..).unwrap_or(&[]) {
            match *e {
                Logged::Number(v) => out(&v.to_le_bytes()),
                Logged::Bytes(start, end) => out(&self.bytes[start as usize..end as usize]),
            }
        }
        self.entries.truncate(from);
        if self.entries.is_empty() {
            self.bytes.clear();
        }
    }

    /// Empties the log, keeping its room.
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.bytes.clear();
    }
}

impl TraceMix for TraceLog {
    fn mix_bytes(&mut self, bytes: &[u8]) {
        let start = self.bytes.len() as u32;
        self.bytes.extend_from_slice(bytes);
        self.entries
            .push(Logged::Bytes(start, self.bytes.len() as u32));
    }

    fn add(&mut self, v: u64) {
        self.entries.push(Logged::Number(v));
    }
}

/// The one PE a step may touch, indexed as the simulation's PEs are (`pes[k]`), and its
/// run-ahead counters.
pub(super) struct OnePe<'a> {
    k: usize,
    st: &'a mut PeState,
    ahead: &'a mut AheadCount,
}

impl OnePe<'_> {
    /// The PE's run-ahead counters.
    pub(super) fn ahead(&mut self) -> &mut AheadCount {
        self.ahead
    }

    /// The PE's state and its run-ahead counters at once.
    pub(super) fn with_ahead(&mut self) -> (&mut PeState, &mut AheadCount) {
        (self.st, self.ahead)
    }
}

impl Index<usize> for OnePe<'_> {
    type Output = PeState;
    fn index(&self, k: usize) -> &PeState {
        debug_assert_eq!(k, self.k);
        self.st
    }
}

impl IndexMut<usize> for OnePe<'_> {
    fn index_mut(&mut self, k: usize) -> &mut PeState {
        debug_assert_eq!(k, self.k);
        self.st
    }
}

/// The grid as a PE step sees it: coordinates, and router changes to apply after the step.
pub(super) struct GridView<'a> {
    width: u32,
    /// `(pe, color)`: the color's teardown mode ends on that router.
    pub(super) teardown_exits: &'a mut Vec<(usize, Color)>,
}

impl GridView<'_> {
    /// The coordinates of PE `k`.
    pub(super) fn coords(&self, k: usize) -> (u32, u32) {
        let w = self.width.max(1) as usize;
        ((k % w) as u32, (k / w) as u32)
    }

    /// Ends teardown mode of `color` on router `k` once the PEs stepped (`on` is always
    /// `false`: a task can only exit teardown).
    pub(super) fn set_teardown_at(&mut self, k: usize, color: Color, on: bool) {
        debug_assert!(!on);
        self.teardown_exits.push((k, color));
    }
}

/// One PE's step: the PE and what it may touch besides.
pub(super) struct PeStep<'a> {
    pub(super) pes: OnePe<'a>,
    pub(super) arch: Arch,
    pub(super) queue_reuse: QueueReusePolicy,
    pub(super) fabric: GridView<'a>,
    pub(super) trace: &'a mut TraceSink,
    pub(super) events: Option<&'a mut Vec<TraceEvent>>,
    /// The run's cycle limit: no element is done ahead at or past it (0: none is done
    /// ahead, see [`super::run_ahead`]).
    pub(super) until: u64,
}

impl<'a> PeStep<'a> {
    /// The step of PE `k` (`st`, its run-ahead counters `ahead`) of a grid `width` wide.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn new(
        k: usize,
        (st, ahead): (&'a mut PeState, &'a mut AheadCount),
        arch: Arch,
        queue_reuse: QueueReusePolicy,
        width: u32,
        teardown_exits: &'a mut Vec<(usize, Color)>,
        trace: &'a mut TraceSink,
        events: Option<&'a mut Vec<TraceEvent>>,
    ) -> PeStep<'a> {
        PeStep {
            pes: OnePe { k, st, ahead },
            arch,
            queue_reuse,
            fabric: GridView {
                width,
                teardown_exits,
            },
            trace,
            events,
            until: 0,
        }
    }

    /// Opens or closes `channel` of PE `k` to control wavelets; the channel must be a color
    /// on WSE-2 and an input queue on WSE-3.
    pub(super) fn set_channel(
        &mut self,
        k: usize,
        channel: Channel,
        open: bool,
    ) -> Result<(), SimError> {
        let what = match (self.arch, channel) {
            (Arch::Wse2, Channel::Color(_)) | (Arch::Wse3, Channel::Queue(_)) => None,
            (Arch::Wse2, Channel::Queue(q)) => Some(format!(
                "channel {q}: a channel is a color on {}",
                self.arch
            )),
            (Arch::Wse3, Channel::Color(c)) => Some(format!(
                "channel {c}: a channel is an input queue on {}",
                self.arch
            )),
        };
        if let Some(what) = what {
            let (x, y) = self.fabric.coords(k);
            return Err(SimError::Task { x, y, what });
        }
        let channel = channel.id();
        let open_channels = &mut self.pes[k].open_channels;
        open_channels.retain(|&c| c != channel);
        if open {
            open_channels.push(channel);
            open_channels.sort_unstable();
        }
        Ok(())
    }

    /// Applies `f` to the task bound at `id` on PE `k`; an error when none is.
    pub(super) fn set_task(
        &mut self,
        k: usize,
        id: TaskId,
        f: impl FnOnce(&mut Task),
    ) -> Result<(), SimError> {
        let (x, y) = self.fabric.coords(k);
        let st = &mut self.pes[k];
        match st.task_at(id) {
            Some(i) => {
                f(&mut st.tasks[i]);
                Ok(())
            }
            None => Err(SimError::Task {
                x,
                y,
                what: format!("no task is bound at {id}"),
            }),
        }
    }

    /// Records an event of PE `k` (when events are recorded).
    pub(super) fn event(
        &mut self,
        cycle: u64,
        k: usize,
        kind: EventKind,
        thread: Thread,
        text: impl FnOnce() -> String,
    ) {
        let (x, y) = self.fabric.coords(k);
        if let Some(ev) = &mut self.events {
            ev.push(TraceEvent {
                cycle,
                x,
                y,
                kind,
                thread: thread.to_string(),
                text: text(),
            });
        }
    }

    /// An operation's error on PE `k` at `cycle`, with what ran.
    pub(super) fn op_error(
        &self,
        k: usize,
        cycle: u64,
        what: impl fmt::Display,
        source: crate::ops::OpError,
    ) -> SimError {
        let (x, y) = self.fabric.coords(k);
        SimError::Op {
            x,
            y,
            cycle,
            what: what.to_string(),
            source: Box::new(source),
        }
    }
}
