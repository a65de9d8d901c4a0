//! Run-ahead of PE-local work: the main thread's synchronous operation whose every operand is
//! the PE's own memory, a scalar or a pointer does the elements of its coming cycles in one
//! visit, while the PE's memory is in the cache; the cycles themselves still come one by one
//! and add to the trace hash and the statistics exactly what stepping them would.
//!
//! It is exact because nothing can change what those elements do before their cycles come:
//! the operation waits on nothing and activates nothing, the PE has no microthread (and the
//! busy main thread starts none), and the routers touch only the PE's queues. What the
//! elements add to the trace is known without doing them (`cycle, PE, 0, elements done`), and
//! the last element is left to its own cycle, where the operation completes as usual.
//!
//! Two things could still show the difference, and are dealt with:
//! - an element that fails (an address outside the memory) is found early: its error is kept
//!   and returned at the cycle the element would have run;
//! - a run that stops in between (another PE's error): the PE goes back to the cycle the run
//!   stopped at ([`Sim::rewind_run_ahead`]): its memory words are put back from a journal of
//!   the stores, the operation to where it was (its element, registers and walks' places),
//!   and the elements of the cycles that did come are done again. Runs end at their cycle limit with no element done beyond it.

use super::pe_state::PeState;
use super::pe_step::{PeStep, TraceMix};
use super::sim::Sim;
use super::window::Window;
use crate::ops::OpError;
use crate::pe::{OpMark, Progress};

/// Fewer elements than this left to run ahead are stepped as they come (copying the
/// operation would cost more than it saves).
const MIN_RUN_AHEAD: u64 = 2;

/// The counters of a PE running ahead, read and written at each of the cycles that come:
/// kept in one dense array of the simulation, apart from the PE's state, so that such a
/// cycle touches 24 bytes of it and not the PE (whose state was last used a whole grid of
/// PEs ago, and is no longer in the cache).
#[derive(Debug, Default)]
#[repr(C, align(64))]
pub(super) struct AheadCount {
    /// Cycles whose element was done ahead and that have not come yet.
    pub(super) left: u64,
    /// The operation's elements done as of the last cycle that came.
    n: u64,
    /// Cycles that came since the run-ahead began: elements and busy cycles not yet in the
    /// PE's statistics.
    owed: u64,
    /// The cycles of the PE stepped ahead in a window ([`super::window`]).
    pub(super) window: Window,
}

impl AheadCount {
    /// Forgets the elements done ahead (the PE went back to before them).
    pub(super) fn clear_elements(&mut self) {
        self.left = 0;
        self.n = 0;
        self.owed = 0;
    }

    /// A cycle of PE `k`, running ahead, came at `cycle`: its element's trace. Whether it was
    /// the last cycle done ahead (the PE's state then settles, [`RunAhead::came`]).
    #[inline]
    pub(super) fn visit(&mut self, k: usize, cycle: u64, trace: &mut impl TraceMix) -> bool {
        self.left -= 1;
        self.n += 1;
        self.owed += 1;
        for v in [cycle, k as u64, 0, self.n] {
            trace.add(v);
        }
        self.left == 0
    }

    /// A cycle of the PE, running ahead, stepped in a window ([`super::window`]): the number
    /// of elements its trace would show, and whether it was the last cycle done ahead.
    pub(super) fn visit_quiet(&mut self) -> (u64, bool) {
        self.left -= 1;
        self.n += 1;
        self.owed += 1;
        (self.n, self.left == 0)
    }
}

/// A main thread's synchronous operation run ahead of its cycles: what is needed to go back,
/// and the error found ahead (the counters are the PE's [`AheadCount`]).
#[derive(Default)]
pub(super) struct RunAhead {
    /// Where the operation was before running ahead, to go back to.
    before: Option<OpMark>,
    /// The error the element after the run-ahead meets, returned at its cycle.
    error: Option<OpError>,
}

impl RunAhead {
    /// Whether nothing is run ahead.
    pub(super) fn is_clear(&self) -> bool {
        self.before.is_none() && self.error.is_none()
    }

    /// The last cycle PE `st` ran ahead of came (`a.left` is 0): the statistics get what the
    /// cycles owe, unless an error was found ahead (returned at its own cycle).
    pub(super) fn came(st: &mut PeState, a: &mut AheadCount) {
        if st.main.ahead.error.is_none() {
            RunAhead::settle(st, a);
        }
    }

    /// The elements done ahead stand: the statistics get what the cycles that came owe, the
    /// copy and the journal are dropped.
    fn settle(st: &mut PeState, a: &mut AheadCount) {
        st.stats.elements += a.owed;
        st.stats.busy_cycles += a.owed;
        a.owed = 0;
        st.main.ahead.before = None;
        st.pe.mem.journal_commit();
    }

    /// The error found ahead, when its cycle has come (all the cycles before it came).
    pub(super) fn take_error(st: &mut PeState, a: &mut AheadCount) -> Option<OpError> {
        if a.left > 0 {
            return None;
        }
        let e = st.main.ahead.error.take()?;
        RunAhead::settle(st, a);
        Some(e)
    }
}

impl PeStep<'_> {
    /// After an element of PE `k`'s synchronous operation at `cycle`: when the operation is
    /// PE-local and the PE has no microthread, does the elements of the coming cycles but the
    /// last, and none at or past the run's limit.
    pub(super) fn run_ahead(&mut self, k: usize, cycle: u64) {
        let last_cycle = self.until.saturating_sub(1);
        let st = &mut self.pes[k];
        if !st.micro.is_empty() {
            return;
        }
        let Some((run, _, _)) = st.main.current.as_mut() else {
            return;
        };
        let budget = run
            .len()
            .saturating_sub(run.elements())
            .saturating_sub(1)
            .min(last_cycle.saturating_sub(cycle));
        if budget < MIN_RUN_AHEAD || !run.is_pe_local() {
            return;
        }
        let Some(before) = run.mark() else {
            return;
        };
        let n = run.elements();
        st.pe.mem.journal_start();
        let error = match st.pe.advance(run, budget) {
            Ok(Progress::Paused) => None,
            Err(e) => Some(e),
            Ok(Progress::Done(_) | Progress::Stalled(_)) => {
                // not for an operation that waits on nothing, short of its last element:
                // put everything back and step it as it comes
                st.pe.mem.journal_undo();
                run.reset(&before);
                return;
            }
        };
        let left = run.elements() - n;
        st.main.ahead = RunAhead {
            before: Some(before),
            error,
        };
        let a = self.pes.ahead();
        a.left = left;
        a.n = n;
        a.owed = 0;
    }
}

impl Sim {
    /// A run stopped before cycles that PEs ran ahead of came: each goes back to where
    /// stepping cycle by cycle would have left it.
    pub(super) fn rewind_run_ahead(&mut self) {
        let env = self.step_env();
        for (k, (st, count)) in self.pes.iter_mut().zip(&mut self.ahead).enumerate() {
            if Window::rewind(k, st, count, env) {
                continue;
            }
            let a = std::mem::take(&mut st.main.ahead);
            let owed = count.owed;
            count.left = 0;
            count.n = 0;
            count.owed = 0;
            let Some(before) = a.before else {
                continue;
            };
            st.pe.mem.journal_undo();
            if let Some((run, _, _)) = st.main.current.as_mut() {
                run.reset(&before);
                if owed > 0 {
                    // the elements of the cycles that came succeeded when done ahead, on the
                    // same memory: they do again
                    let _ = st.pe.advance(run, owed);
                }
            }
            st.stats.elements += owed;
            st.stats.busy_cycles += owed;
        }
    }
}
