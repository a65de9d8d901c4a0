//! Stepping the PEs of one cycle on several threads, with the results of stepping them one
//! after the other: PEs are cut into contiguous row-major ranges, one per thread; each PE's
//! step touches only its own state ([`super::pe_step`]); what each range adds to the trace,
//! the events and the routers is kept apart and merged in range order, which is PE order.
//! The trace hash, statistics, cycles and outputs are those of one thread at any thread count.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use rayon::ThreadPool;

use super::error::SimError;
use super::idle::set_bits;
use super::pe_state::PeState;
use super::pe_step::{PeStep, TraceLog, TraceSink};
use super::range_claims::{CycleFront, RangeClaims, RangeEnv};
use super::run_ahead::{AheadCount, RunAhead};
use super::scale_profile::thread_cpu_ns;
use super::scheduler::mix_hops;
use super::sim::Sim;
use super::stats::TraceHash;
use super::trace::TraceEvent;
use super::window::{StepEnv, Window};
use crate::fabric::Color;

/// Below this many PEs to step in a cycle, one thread steps them by default (a fork costs
/// more than it saves). With the helpers waiting awake for the ranges
/// ([`super::range_claims`]), handing ranges over costs a few microseconds of the loop's
/// thread per cycle (`docs/speed.md`: 1-2 µs of CPU outside its ranges), and a PE's step
/// tens of nanoseconds (an element done ahead) to a few microseconds (a task start).
pub const MIN_PARALLEL_PES: usize = 64;

/// Below this many PEs in the grid, runs use one thread by default (no pool is started): a
/// cycle of an 8 x 8 grid is a few microseconds of work (`docs/speed.md`).
pub const MIN_PARALLEL_GRID: usize = 256;

/// What one thread's range of PEs did in a cycle. The ranges' outputs lie side by side and
/// each is written by its own thread at every PE it steps (the trace hash or log, whether it
/// progressed): each starts on its own pair of cache lines, so that two threads never write
/// to one line (which would move the line between their cores at every write).
#[derive(Default)]
#[repr(align(128))]
pub(super) struct RangeOut {
    /// The hash itself when the range was stepped right after the ranges before it were
    /// mixed in (see [`HashedPrefix`]), else its log.
    pub(super) trace: TraceSink,
    /// The log's room while the range mixes into the hash directly.
    spare: TraceLog,
    events: Option<Vec<TraceEvent>>,
    exits: Vec<(usize, Color)>,
    /// Whether a PE of the range progressed.
    progressed: bool,
    /// The PEs stepped that the merge has something to do for (one that did not progress
    /// sleeps, one that wrote to an output queue may send): `(pe, progressed, stalls
    /// counted, may send)`.
    stepped: Vec<(usize, bool, u64, bool)>,
    error: Option<SimError>,
    /// When profiling: the pool thread that stepped the range, its CPU nanoseconds, its PEs.
    pub(super) profile: (usize, u64, u64),
}

/// The threads a simulation steps its PEs on: a pool of `count` threads runs the cycle loop
/// on one of its threads and steps a cycle's ranges of PEs (any of its threads may take any
/// range, the loop's thread included, which matters on a machine whose cores are shared: a
/// range never waits for one particular thread).
pub(super) struct Threads {
    pub(super) count: usize,
    pub(super) pool: Option<ThreadPool>,
    /// Fewer PEs to step than this in a cycle: one thread steps them.
    pub(super) min_pes: usize,
    /// Fewer PEs in the grid than this: no pool, one thread.
    pub(super) min_grid: usize,
    /// The ranges' outputs, kept from cycle to cycle for their room.
    outs: Vec<RangeOut>,
    /// The last parallel cycle's outputs, whose logged trace is not in the hash yet: the
    /// next cycle's first range mixes it in before the hops and its own PEs (off the loop's
    /// serial part), or [`Sim::settle_trace`] does.
    pending: Vec<RangeOut>,
}

impl Default for Threads {
    fn default() -> Threads {
        Threads {
            count: 1,
            pool: None,
            min_pes: MIN_PARALLEL_PES,
            min_grid: MIN_PARALLEL_GRID,
            outs: Vec::new(),
            pending: Vec::new(),
        }
    }
}

impl Sim {
    /// Steps PEs on `threads` threads (1 by default: the calling thread). Any count gives the
    /// same results, statistics, cycles and trace hash; 0 is refused. The threads are started
    /// by the first run on a grid of at least [`Sim::set_min_parallel_pes`] PEs (a smaller
    /// grid never steps a cycle on several, and runs on the calling thread); failing to
    /// start them is that run's error. A run that fails in a PE's step steps that cycle on every
    /// PE and reports the first error in row-major order, on one thread as on several, so it
    /// leaves the same state and the runs after it report the same.
    pub fn set_threads(&mut self, threads: usize) -> Result<(), SimError> {
        if threads == 0 {
            return Err(SimError::Threads {
                threads,
                reason: "at least one thread steps the PEs".into(),
            });
        }
        if threads != self.threads.count {
            self.threads.pool = None;
        }
        self.threads.count = threads;
        Ok(())
    }

    /// The pool a run steps PEs on, taken out of the simulation for the run (started the
    /// first time): `None` with one thread, or a grid too small for several
    /// ([`MIN_PARALLEL_GRID`]).
    pub(super) fn take_pool(&mut self) -> Result<Option<ThreadPool>, SimError> {
        let threads = self.threads.count;
        if threads < 2 || self.pes.len() < self.threads.min_grid.max(1) {
            return Ok(None);
        }
        if let Some(pool) = self.threads.pool.take() {
            return Ok(Some(pool));
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map(Some)
            .map_err(|e| SimError::Threads {
                threads,
                reason: e.to_string(),
            })
    }

    /// Cycles with fewer PEs to step than `pes` step them on one thread even with several
    /// ([`MIN_PARALLEL_PES`] by default), and grids with fewer PEs than `pes` run on one
    /// thread ([`MIN_PARALLEL_GRID`] by default); the results are the same either way.
    pub fn set_min_parallel_pes(&mut self, pes: usize) {
        self.threads.min_pes = pes;
        self.threads.min_grid = pes;
    }

    /// The number of threads PEs are stepped on.
    pub fn threads(&self) -> usize {
        self.threads.count
    }

    /// One cycle on the pool's threads (this thread is one of them). The other threads are
    /// offered a helper's part at the start of the cycle, before this thread moves the
    /// routers, so that a helper that has to be woken has the routers' time to come (a helper
    /// that is awake waits spinning). Then this thread claims ranges of PEs from the first on
    /// and the helpers from the last on, until they meet; a helper that comes late finds
    /// nothing left. (A pool thread that parked between cycles still comes late: see the
    /// Cerebras section of `docs/speed.md`.)
    /// A cycle with fewer PEs to step than [`Sim::set_min_parallel_pes`] steps them here.
    /// Whether anything changed.
    pub(super) fn step_threaded(&mut self, until: u64) -> Result<bool, SimError> {
        let helpers = self.threads.count.saturating_sub(1);
        let profiling = self.profile.is_some();
        let mut outs = std::mem::take(&mut self.threads.outs);
        let mut ks = std::mem::take(&mut self.stepping);
        let (front, helper_wait) = {
            let claims = RangeClaims::new(profiling);
            let front = rayon::scope(|s| {
                for _ in 0..helpers {
                    s.spawn(|_| claims.help());
                }
                // the helpers leave even when this part fails or panics
                let _leave = claims.publish_on_drop();
                self.routers_then_ranges(until, &mut ks, &mut outs, &claims)
            });
            (front, claims.helper_wait_ns())
        };
        let joined = profiling.then(thread_cpu_ns);
        let r = front.and_then(|front| {
            let changed = front.changed;
            if front.parts == 0 {
                return Ok(changed);
            }
            let r = self.merge_ranges(&mut outs[..front.parts]);
            if let (Some(t0), Some(t1), Some(p)) = (front.published_at, joined, &mut self.profile) {
                let me = rayon::current_thread_index().unwrap_or(0);
                let ranges = outs[..front.parts].iter().map(|o| o.profile);
                p.parallel_cycle(me, t1 - t0, thread_cpu_ns() - t1, ranges);
                p.helper_wait_ns += helper_wait;
            }
            if r.is_ok() {
                // the logs are mixed in by the next cycle: this cycle's outputs wait, the
                // last cycle's (mixed in by this one's first range) take their place
                std::mem::swap(&mut outs, &mut self.threads.pending);
            }
            r.map(|progressed| changed | progressed)
        });
        self.threads.outs = outs;
        self.stepping = ks;
        r
    }

    /// This thread's part of a threaded cycle: the routers, then the PEs to step cut into
    /// ranges, published in `claims` and stepped with the helpers (or stepped here, when too
    /// few).
    fn routers_then_ranges<'a>(
        &'a mut self,
        until: u64,
        ks: &'a mut Vec<usize>,
        outs: &'a mut Vec<RangeOut>,
        claims: &RangeClaims<'a>,
    ) -> Result<CycleFront, SimError> {
        let changed = self.routers()?;
        let cycle = self.cycle;
        self.to_step(ks);
        if ks.len() < self.threads.min_pes.max(1) {
            claims.publish(Vec::new(), RangeEnv::default());
            self.settle_trace();
            mix_hops(&mut self.trace, cycle, &self.hops);
            let progressed = self.step_single(cycle, until)?;
            return Ok(CycleFront {
                changed: changed | progressed,
                parts: 0,
                published_at: None,
            });
        }
        let ks: &'a [usize] = ks;
        let parts = (self.threads.count * RANGES_PER_THREAD).min(ks.len());
        let recording = self.events.is_some();
        let env = RangeEnv {
            cycle,
            until,
            windows: self.idle.windows,
            arch: self.arch,
            queue_reuse: self.queue_reuse,
            width: self.fabric.dims().0,
            profiling: self.profile.is_some(),
        };
        claims.prefix.reset(self.trace);
        outs.resize_with(parts, RangeOut::default);
        for out in outs.iter_mut() {
            if !matches!(out.trace, TraceSink::Log(_)) {
                out.trace = TraceSink::Log(std::mem::take(&mut out.spare));
            }
            out.events = recording.then(Vec::new);
            out.exits.clear();
            out.stepped.clear();
            out.progressed = false;
            out.error = None;
        }
        // contiguous ranges of the PEs to step, as even as the count allows, split at the
        // first PE of each range
        let cuts: Vec<usize> = (0..parts).map(|p| p * ks.len() / parts).collect();
        let Sim {
            pes,
            ahead,
            hops,
            threads,
            ..
        } = self;
        claims.set_pending(&mut threads.pending, hops);
        let mut rest: &'a mut [PeState] = pes;
        let mut rest_ahead: &'a mut [AheadCount] = ahead;
        let mut base = 0usize;
        let mut work = Vec::with_capacity(parts);
        for (p, out) in outs.iter_mut().enumerate() {
            let end = cuts.get(p + 1).map_or(rest.len() + base, |&c| ks[c]);
            let (mine, tail) = rest.split_at_mut(end - base);
            let (mine_ahead, tail_ahead) = rest_ahead.split_at_mut(end - base);
            let range_ks = &ks[cuts[p]..cuts.get(p + 1).copied().unwrap_or(ks.len())];
            work.push(Mutex::new(Some((
                (mine, mine_ahead),
                (p, base),
                range_ks,
                out,
            ))));
            rest = tail;
            rest_ahead = tail_ahead;
            base = end;
        }
        let published_at = env.profiling.then(thread_cpu_ns);
        claims.publish(work, env);
        claims.work(true);
        Ok(CycleFront {
            changed,
            parts,
            published_at,
        })
    }

    /// Mixes into the hash what the last parallel cycle logged and is not in it yet (before
    /// anything else goes into the hash, and before it is read).
    pub(super) fn settle_trace(&mut self) {
        for out in &mut self.threads.pending {
            if let TraceSink::Log(log) = &mut out.trace {
                log.drain_into(&mut self.trace);
            }
        }
    }

    /// Merges the ranges' outputs in range order, which is PE order: events, router changes,
    /// sleeping and sending PEs; the first error. The trace of the ranges that went into the
    /// hash directly (a prefix) becomes the hash; the logs of the others are left for the
    /// next cycle's first range ([`Threads::pending`]), unless a range failed: then they are
    /// mixed in now. Every range was stepped whole (a PE's error does not stop the cycle, as
    /// on one thread), so a failed cycle is merged whole too. Whether a PE progressed.
    fn merge_ranges(&mut self, outs: &mut [RangeOut]) -> Result<bool, SimError> {
        let cycle = self.cycle;
        let failed = outs.iter().any(|o| o.error.is_some());
        let mut changed = false;
        let mut first = None;
        for out in outs {
            changed |= out.progressed;
            match &mut out.trace {
                TraceSink::Hash(h) => self.trace = *h,
                TraceSink::Log(log) if failed => log.drain_into(&mut self.trace),
                TraceSink::Log(_) => {}
            }
            if let (Some(all), Some(mine)) = (&mut self.events, out.events.take()) {
                all.extend(mine);
            }
            for &(k, c) in &out.exits {
                self.fabric.set_teardown_at(k, c, false);
            }
            for &(k, progressed, stalls, sending) in &out.stepped {
                if progressed {
                    changed = true;
                } else {
                    self.idle.sleep(k, cycle, stalls);
                }
                if sending && self.idle.on {
                    self.idle.set_sending(k, true);
                }
            }
            if let Some(e) = out.error.take() {
                first.get_or_insert(e);
            }
        }
        match first {
            Some(e) => Err(e),
            None => Ok(changed),
        }
    }

    /// The PEs to step this cycle: the awake ones, or all when idle PEs are not skipped.
    pub(super) fn to_step(&self, into: &mut Vec<usize>) {
        into.clear();
        if self.idle.on {
            into.extend(set_bits(&self.idle.awake));
        } else {
            into.extend(0..self.pes.len());
        }
    }
}

/// A range of PEs to step: its PEs and their run-ahead counters, (its number, its first PE),
/// the ones to step, and its output.
pub(super) type Range<'a> = (
    (&'a mut [PeState], &'a mut [AheadCount]),
    (usize, usize),
    &'a [usize],
    &'a mut RangeOut,
);

/// Ranges a cycle's PEs are cut into per thread: a thread that starts late (woken late, or
/// descheduled on a shared machine) leaves ranges to the others instead of holding up the
/// cycle by a whole half.
const RANGES_PER_THREAD: usize = 4;

/// The ranges already mixed into the trace hash, and the hash after them. A range that starts
/// when every range before it was mixed in mixes its own trace in directly, instead of logging
/// it for after the join (where it would be mixed in on one thread): the thread that runs the
/// cycle loop steps the first ranges in order, so what it steps is mostly hashed as it goes,
/// and only what other threads step is logged. Such ranges are always a prefix of the ranges.
#[derive(Default)]
pub(super) struct HashedPrefix {
    /// Ranges `0..ranges` are in `hash`.
    ranges: AtomicUsize,
    hash: Mutex<TraceHash>,
}

impl HashedPrefix {
    /// A new cycle: no range mixed in yet, the hash `hash`.
    pub(super) fn reset(&self, hash: TraceHash) {
        *self.hash.lock().unwrap_or_else(PoisonError::into_inner) = hash;
        self.ranges.store(0, Ordering::Release);
    }

    /// Mixes something into the hash before any range starts.
    pub(super) fn mix(&self, f: impl FnOnce(&mut TraceHash)) {
        f(&mut self.hash.lock().unwrap_or_else(PoisonError::into_inner));
    }

    /// Range `p` starts: whether it mixes into the hash directly (`out.trace` is then the
    /// hash, its log kept aside).
    pub(super) fn start(&self, p: usize, out: &mut RangeOut) -> bool {
        if self.ranges.load(Ordering::Acquire) != p {
            return false;
        }
        let hash = *self.hash.lock().unwrap_or_else(PoisonError::into_inner);
        if let TraceSink::Log(log) = std::mem::replace(&mut out.trace, TraceSink::Hash(hash)) {
            out.spare = log;
        }
        true
    }

    /// Range `p`, which mixed into the hash directly, ended: the next range may do so too,
    /// unless a PE of this one failed (the merge then mixes the later ranges' logs in).
    pub(super) fn end(&self, p: usize, out: &RangeOut) {
        if let (TraceSink::Hash(h), None) = (&out.trace, &out.error) {
            *self.hash.lock().unwrap_or_else(PoisonError::into_inner) = *h;
            self.ranges.store(p + 1, Ordering::Release);
        }
    }
}

/// Steps the PEs `ks` of `pes` (PE `base` first, their run-ahead counters `ahead`), in order,
/// into `out`, at `cycle` of a run limited to `until` cycles; a PE's error is kept (the first)
/// and the other PEs step on, as on one thread.
#[allow(clippy::too_many_arguments)]
pub(super) fn step_range(
    pes: &mut [PeState],
    ahead: &mut [AheadCount],
    base: usize,
    ks: &[usize],
    (cycle, until, windows): (u64, u64, bool),
    arch: crate::arch::Arch,
    queue_reuse: super::queue_reuse::QueueReusePolicy,
    width: u32,
    out: &mut RangeOut,
) {
    for &k in ks {
        let (Some(st), Some(a)) = (pes.get_mut(k - base), ahead.get_mut(k - base)) else {
            continue;
        };
        if a.window.left > 0 {
            a.window.visit(k, cycle, &mut out.trace);
            out.progressed = true;
            continue;
        }
        Window::settle(st, a);
        if a.left > 0 {
            if a.visit(k, cycle, &mut out.trace) {
                RunAhead::came(st, a);
            }
            out.progressed = true;
            continue;
        }
        let before = st.stats.stalls;
        let r = {
            let mut step = PeStep::new(
                k,
                (st, a),
                arch,
                queue_reuse,
                width,
                &mut out.exits,
                &mut out.trace,
                out.events.as_mut(),
            );
            step.until = until;
            step.step_pe(k, cycle)
        };
        let st = &mut pes[k - base];
        match r {
            Ok(r) => {
                if r.progressed {
                    st.stats.busy_cycles += 1;
                }
                let stalls = st.stats.stalls - before;
                // only a step that wrote to an output queue can have queued a wavelet to send
                let sending = st.pe.queues.take_written();
                out.progressed |= r.progressed;
                if !r.progressed || sending {
                    out.stepped.push((k, r.progressed, stalls, sending));
                }
                if r.progressed && windows && out.events.is_none() {
                    let env = StepEnv {
                        arch,
                        queue_reuse,
                        width,
                    };
                    Window::open(k, cycle, until, st, &mut ahead[k - base], env);
                }
            }
            Err(e) => {
                // the cycle goes on on the other PEs; the range's first error is kept
                out.error.get_or_insert(e);
            }
        }
    }
}
