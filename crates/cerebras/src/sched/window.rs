//! Windows of PE-local cycles: right after a PE's main thread started a task, while the PE's
//! state is in the cache, the cycles that follow are stepped at once as long as each is
//! PE-local; the cycles themselves still come one by one, and each mixes into the trace hash,
//! at the PE's place in the cycle, what its step logged. Statistics, cycles, memories and the
//! trace hash are those of stepping the PE in every cycle.
//!
//! **Why it is exact.** A step is PE-local when it reads and writes only the PE's own state
//! (its memory, its tasks' activation and block bits, its main thread) and neither reads nor
//! writes a queue: with no microthread, the main thread's next step is
//! - an element of a synchronous operation whose operands are all memory walks, scalars or
//!   pointers (which waits on nothing and activates nothing), or its completion;
//! - the start of such an operation (every operand a `mem1d` / `mem4d` DSD, a scalar or a
//!   pointer, not asynchronous);
//! - `@activate`, `@block` or `@unblock` of a task (bits of the PE's task table);
//! - Rust code that sees only the PE's memory ([`super::Action::CallLocal`]).
//!
//! Nothing outside the PE reads or writes that state: the routers touch only the PE's queues
//! (a delivery into an input queue, a wavelet taken from an output queue), other PEs reach it
//! only through the routers, and the host only between runs. And the routers' own decisions
//! read of the PE only its queues' fill and heads, which these steps leave as they are. So
//! a PE-local step gives the same result whenever it is done, and the routers the same
//! results whether it was done before or after them: the window's steps and the routers'
//! cycles commute. (The routers' arbitration walks back along chains of blocked wavelets
//! within a cycle, so a queue emptied in one cycle lets wavelets move several routers back
//! in the next: the one-hop-per-cycle bound says nothing about when a PE's queue may change,
//! which is why a window relies on not touching queues at all, not on distances.)
//!
//! A window ends before the first step that is not PE-local: the end of the task (the
//! next task start reads the input queues, whose contents the routers change at every
//! cycle), an operation on a FIFO, a DSR or the fabric, an asynchronous operation, any other
//! action, or the run's last cycle. A step of the window that fails or does not progress
//! ends it too: the PE goes back to where the task start left it (the stores are undone from
//! a journal) and steps cycle by cycle, so the error comes at its own cycle. A run that stops
//! inside a window (another PE's error) puts the PE back to the task start and steps again
//! the cycles that came, as stepping would have left it. Events are recorded in stepping
//! order only, so no window opens while events are recorded.

use super::pe_state::PeState;
use super::pe_step::{PeStep, TraceLog, TraceMix, TraceSink};
use super::queue_reuse::QueueReusePolicy;
use super::run_ahead::{AheadCount, RunAhead};
use super::task::Action;
use crate::arch::Arch;
use crate::dsd::Dsd;
use crate::memory::ArraysMark;
use crate::ops::Operand;

/// A run of cycles of a window: `count` cycles, and what each adds to the trace.
#[derive(Clone, Copy, Debug, Default)]
struct Seg {
    count: u32,
    /// [`SILENT`]; [`LOGGED`] with the end of the cycle's entries in the log (one cycle);
    /// else the elements done as of the run's first cycle (an element per cycle: `cycle, PE,
    /// 0, elements`, as a synchronous operation's element adds).
    what: u32,
}

/// A cycle that adds nothing to the trace.
const SILENT: u32 = u32::MAX;
/// A cycle whose trace was logged.
const LOGGED: u32 = 1 << 31;
/// Runs of cycles a window holds (a window ends when they are used up).
const SEGS: usize = 4;

/// The cycles of a PE stepped ahead, as runs of cycles that add nothing, add an element's
/// numbers (known without a log) or add what was logged: a cycle that comes reads 64 bytes of
/// it, and the log only when it logged something.
#[derive(Debug, Default)]
#[repr(C)]
pub(super) struct Window {
    /// Cycles stepped ahead that have not come yet.
    pub(super) left: u32,
    /// The run of the next cycle to come.
    at: u32,
    segs: [Seg; SEGS],
    /// Runs in use.
    used: u32,
    /// Entries of the log mixed in so far.
    log_at: u32,
    /// Cycles that came.
    came: u32,
    /// Every cycle came: the PE's state settles at its next real step, which touches that
    /// state anyway ([`Window::settle`]), not in the cycle loop's visit.
    pub(super) settle_due: bool,
    /// The first cycle stepped ahead.
    first: u64,
    /// The trace of the cycles that logged theirs, in order, as bytes.
    log: ByteLog,
    /// Where a step's trace goes before it is noted (kept for its room).
    scratch: TraceLog,
}

/// Bytes kept in place when they are few (a completion's label and numbers, next to the
/// window's counters), else on the heap.
#[derive(Debug)]
struct ByteLog {
    inline: [u8; INLINE],
    len: u32,
    heap: Vec<u8>,
}

/// Bytes a window keeps in place.
const INLINE: usize = 96;

impl Default for ByteLog {
    fn default() -> ByteLog {
        ByteLog {
            inline: [0; INLINE],
            len: 0,
            heap: Vec::new(),
        }
    }
}

impl ByteLog {
    fn push(&mut self, bytes: &[u8]) {
        let len = self.len as usize;
        if self.heap.is_empty() && len + bytes.len() <= INLINE {
            self.inline[len..len + bytes.len()].copy_from_slice(bytes);
        } else {
            if self.heap.is_empty() {
                self.heap.extend_from_slice(&self.inline[..len]);
            }
            self.heap.extend_from_slice(bytes);
        }
        self.len += bytes.len() as u32;
    }

    fn get(&self, from: usize, to: usize) -> &[u8] {
        let all = if self.heap.is_empty() {
            &self.inline[..self.len as usize]
        } else {
            &self.heap[..]
        };
        all.get(from..to).unwrap_or(&[])
    }

    fn clear(&mut self) {
        self.len = 0;
        self.heap.clear();
    }
}

/// Where a PE was when its window began (just after a task start), to go back to.
#[derive(Debug)]
pub(super) struct WindowStart {
    busy_cycles: u64,
    stalls: u64,
    elements: u64,
    tasks_started: u64,
    /// The tasks' activation bits (task `i` of the table at bit `i`).
    active: u64,
    /// The tasks' block bits.
    blocked: u64,
    arrays: ArraysMark,
    /// Memory recordings going on before the window's own.
    journal_depth: usize,
}

/// The settings a PE's step needs besides the PE.
#[derive(Clone, Copy)]
pub(super) struct StepEnv {
    pub(super) arch: Arch,
    pub(super) queue_reuse: QueueReusePolicy,
    pub(super) width: u32,
}

impl Window {
    /// The next cycle of PE `k`'s window came at `cycle`: its trace into `trace`. Whether
    /// it was the last.
    #[inline]
    pub(super) fn visit(&mut self, k: usize, cycle: u64, trace: &mut impl TraceMix) -> bool {
        let seg = &mut self.segs[self.at as usize];
        match seg.what {
            SILENT => {}
            w if w & LOGGED != 0 => {
                let end = w & !LOGGED;
                trace.mix_bytes(self.log.get(self.log_at as usize, end as usize));
                self.log_at = end;
            }
            n => {
                for v in [cycle, k as u64, 0, u64::from(n)] {
                    trace.add(v);
                }
                seg.what = n + 1;
            }
        }
        seg.count -= 1;
        if seg.count == 0 {
            self.at += 1;
        }
        self.came += 1;
        self.left -= 1;
        if self.left == 0 {
            self.settle_due = true;
        }
        self.left == 0
    }

    /// Adds a cycle that adds `what` to the trace ([`Seg::what`]).
    fn push(&mut self, what: u32) {
        if let Some(last) = self.used.checked_sub(1).map(|i| &mut self.segs[i as usize]) {
            let follows = match what {
                SILENT => last.what == SILENT,
                w if w & LOGGED != 0 => false,
                n => last.what & LOGGED == 0 && last.what.checked_add(last.count) == Some(n),
            };
            if follows {
                last.count += 1;
                self.left += 1;
                return;
            }
        }
        self.segs[self.used as usize] = Seg { count: 1, what };
        self.used += 1;
        self.left += 1;
    }

    /// Every cycle of PE `st`'s window came: its steps stand (the memory's journal ends).
    /// Done before the PE's next real step, before a window opens and when a run ends.
    pub(super) fn settle(st: &mut PeState, a: &mut AheadCount) {
        if !a.window.settle_due {
            return;
        }
        // the window's recording, not the innermost: an operation the window left running
        // ahead records its own stores inside it, to undo them alone if the run stops
        if let Some(start) = st.window_start.take() {
            st.pe.mem.journal_commit_at(start.journal_depth);
        }
        a.window.clear();
    }

    fn clear(&mut self) {
        self.settle_due = false;
        self.left = 0;
        self.at = 0;
        self.used = 0;
        self.log_at = 0;
        self.came = 0;
        self.log.clear();
    }

    /// After PE `k`'s step at `cycle` (of a run limited to `until` cycles) progressed: when
    /// it started a task, steps the PE-local cycles that follow, up to the run's last cycle.
    pub(super) fn open(
        k: usize,
        cycle: u64,
        until: u64,
        st: &mut PeState,
        a: &mut AheadCount,
        env: StepEnv,
    ) {
        Window::settle(st, a);
        let last = until.saturating_sub(1);
        if cycle >= last || !fresh_task(st, a) || st.tasks.len() > 64 || !next_is_local(st, a) {
            return;
        }
        let start = WindowStart::of(st);
        st.pe.mem.journal_start();
        a.window.clear();
        let mut scratch = std::mem::take(&mut a.window.scratch);
        scratch.clear();
        let mut sink = TraceSink::Log(scratch);
        let mut exits = Vec::new();
        let mut c = cycle + 1;
        let mut ok = true;
        // a cycle may need a run of its own: the window stops before the runs are used up
        while c <= last && (a.window.used as usize) < SEGS && next_is_local(st, a) {
            let what = if a.left > 0 {
                // an element done ahead: its cycle adds `cycle, k, 0, n`
                let (n, last_ahead) = a.visit_quiet();
                if last_ahead {
                    RunAhead::came(st, a);
                }
                u32::try_from(n).ok().filter(|&n| n < LOGGED)
            } else {
                let TraceSink::Log(log) = &sink else {
                    break;
                };
                let from = log.len();
                if !step_ahead(k, c, until, st, a, &mut sink, &mut exits, env) {
                    ok = false;
                    break;
                }
                let TraceSink::Log(log) = &mut sink else {
                    break;
                };
                if log.len() == from {
                    Some(SILENT)
                } else if let Some(n) = log.take_element(from, c, k as u64) {
                    u32::try_from(n).ok().filter(|&n| n < LOGGED)
                } else {
                    let bytes = &mut a.window.log;
                    log.take_bytes(from, |b| bytes.push(b));
                    Some(bytes.len)
                        .filter(|&e| e < LOGGED - 1)
                        .map(|e| e | LOGGED)
                }
            };
            let Some(what) = what else {
                // too many elements or entries to note: go back
                ok = false;
                break;
            };
            a.window.push(what);
            c += 1;
        }
        if let TraceSink::Log(log) = sink {
            a.window.scratch = log;
        }
        if !ok || a.window.left == 0 || !exits.is_empty() {
            start.restore(st, a);
            a.window.clear();
            return;
        }
        a.window.first = cycle + 1;
        st.window_start = Some(start);
    }

    /// A run stopped inside PE `k`'s window: the PE goes back to the window's start and
    /// steps again the cycles that came. Whether it had a window.
    pub(super) fn rewind(k: usize, st: &mut PeState, a: &mut AheadCount, env: StepEnv) -> bool {
        if a.window.settle_due {
            // every cycle came: nothing to go back to
            Window::settle(st, a);
            return false;
        }
        let Some(start) = st.window_start.take() else {
            return false;
        };
        let (first, came) = (a.window.first, u64::from(a.window.came));
        start.restore(st, a);
        a.window.clear();
        let mut sink = TraceSink::Log(TraceLog::default());
        let mut exits = Vec::new();
        for c in first..first + came {
            // these steps succeeded when done ahead, on the same state: they do again (none
            // runs elements ahead: the run's limit is 0)
            step_ahead(k, c, 0, st, a, &mut sink, &mut exits, env);
        }
        true
    }
}

impl WindowStart {
    /// Where `st` is now.
    fn of(st: &PeState) -> WindowStart {
        let (mut active, mut blocked) = (0u64, 0u64);
        for (i, t) in st.tasks.iter().enumerate() {
            active |= u64::from(t.active) << i;
            blocked |= u64::from(t.blocked) << i;
        }
        WindowStart {
            busy_cycles: st.stats.busy_cycles,
            stalls: st.stats.stalls,
            elements: st.stats.elements,
            tasks_started: st.stats.tasks_started,
            active,
            blocked,
            arrays: st.pe.mem.arrays_mark(),
            journal_depth: st.pe.mem.journal_depth(),
        }
    }

    /// Puts `st` back where it was (a task just started), its memory from the journal.
    fn restore(&self, st: &mut PeState, a: &mut AheadCount) {
        while st.pe.mem.journal_depth() > self.journal_depth {
            st.pe.mem.journal_undo();
        }
        st.pe.mem.arrays_back_to(self.arrays);
        st.stats.busy_cycles = self.busy_cycles;
        st.stats.stalls = self.stalls;
        st.stats.elements = self.elements;
        st.stats.tasks_started = self.tasks_started;
        for (i, t) in st.tasks.iter_mut().enumerate() {
            t.active = self.active >> i & 1 != 0;
            t.blocked = self.blocked >> i & 1 != 0;
        }
        let m = &mut st.main;
        m.pc = 0;
        m.action_no = 0;
        m.pending.clear();
        m.current = None;
        m.waiting = None;
        m.map = None;
        m.ahead = RunAhead::default();
        a.clear_elements();
    }
}

/// One cycle of PE `k` as the scheduler steps it, its trace into `sink`: whether it
/// progressed without an error.
#[allow(clippy::too_many_arguments)]
fn step_ahead(
    k: usize,
    cycle: u64,
    until: u64,
    st: &mut PeState,
    a: &mut AheadCount,
    sink: &mut TraceSink,
    exits: &mut Vec<(usize, crate::fabric::Color)>,
    env: StepEnv,
) -> bool {
    if a.left > 0 {
        if a.visit(k, cycle, sink) {
            RunAhead::came(st, a);
        }
        return true;
    }
    let r = {
        let mut step = PeStep::new(
            k,
            (&mut *st, &mut *a),
            env.arch,
            env.queue_reuse,
            env.width,
            exits,
            sink,
            None,
        );
        step.until = until;
        step.step_pe(k, cycle)
    };
    match r {
        Ok(r) if r.progressed => {
            st.stats.busy_cycles += 1;
            true
        }
        _ => false,
    }
}

/// Whether the main thread of `st` just started a task (nothing of it ran yet).
fn fresh_task(st: &PeState, a: &AheadCount) -> bool {
    let m = &st.main;
    m.task.is_some()
        && m.pc == 0
        && m.action_no == 0
        && m.pending.is_empty()
        && m.current.is_none()
        && m.map.is_none()
        && m.teardown.is_none()
        && m.waiting.is_none()
        && m.ahead.is_clear()
        && st.micro.is_empty()
        && a.left == 0
        && a.window.left == 0
        && st.window_start.is_none()
}

/// Whether the next step of `st` is PE-local (module docs).
fn next_is_local(st: &PeState, a: &AheadCount) -> bool {
    if !st.micro.is_empty() || st.main.map.is_some() || st.main.teardown.is_some() {
        return false;
    }
    if a.left > 0 {
        return true;
    }
    if let Some((run, _, _)) = &st.main.current {
        return run.is_pe_local();
    }
    let next = st
        .main
        .pending
        .front()
        .or_else(|| st.main.body.get(st.main.pc));
    match next {
        Some(
            Action::CallLocal(_) | Action::Activate(_) | Action::Block(_) | Action::Unblock(_),
        ) => true,
        Some(Action::Op {
            asynchronous: None,
            dest,
            srcs,
            ..
        }) => std::iter::once(dest).chain(srcs).all(|o| {
            matches!(
                o,
                Operand::Dsd(Dsd::Mem1d(_) | Dsd::Mem4d(_)) | Operand::Scalar(_) | Operand::Ptr(_)
            )
        }),
        _ => false,
    }
}
