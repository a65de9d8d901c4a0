//! The board on which a threaded cycle's ranges of PEs are handed out ([`super::parallel`]):
//! the thread running the cycle loop publishes them once the routers moved, and claims them
//! from the first on; helper threads, offered their part at the start of the cycle, wait for
//! the ranges spinning and claim them from the last on. Nobody waits for a particular thread:
//! a helper that comes late (asleep, descheduled) finds nothing left, and the loop's thread
//! has stepped everything. The loop's thread steps a prefix of the ranges, so its trace goes
//! into the hash as it steps ([`HashedPrefix`]); what the helpers step is logged, and mixed
//! in by the next cycle's first range, with that cycle's hops, before its PEs.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};

use super::parallel::{HashedPrefix, Range, RangeOut, step_range};
use super::pe_step::TraceSink;
use super::queue_reuse::QueueReusePolicy;
use super::scale_profile::thread_cpu_ns;
use super::scheduler::mix_hops;
use crate::arch::Arch;
use crate::fabric::Hop;

/// What stepping a range needs besides the range.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RangeEnv {
    pub(super) cycle: u64,
    /// The run's cycle limit (0: no run-ahead).
    pub(super) until: u64,
    pub(super) windows: bool,
    pub(super) arch: Arch,
    pub(super) queue_reuse: QueueReusePolicy,
    /// The grid's width.
    pub(super) width: u32,
    /// Time each range's CPU ([`super::scale_profile`]).
    pub(super) profiling: bool,
}

/// What the loop's thread reports of a threaded cycle, for the merge after the join.
pub(super) struct CycleFront {
    /// Whether the routers (or, with no ranges, the PEs) changed anything.
    pub(super) changed: bool,
    /// The ranges published (0: the PEs were stepped on the loop's thread).
    pub(super) parts: usize,
    /// When profiling: the loop thread's CPU clock at publishing.
    pub(super) published_at: Option<u64>,
}

/// The published ranges and how to step them.
struct Published<'a> {
    ranges: Vec<Mutex<Option<Range<'a>>>>,
    env: RangeEnv,
}

/// One cycle's board.
pub(super) struct RangeClaims<'a> {
    published: OnceLock<Published<'a>>,
    /// The next range to claim from the front, and one past the next from the back.
    ends: Mutex<(usize, usize)>,
    /// Ranges `0..` that went into the hash as they were stepped.
    pub(super) prefix: HashedPrefix,
    /// What goes into the hash before the first range's PEs: the last parallel cycle's
    /// outputs (their logs) and this cycle's hops. Taken by whoever steps the first range.
    pending: Mutex<Option<(&'a mut [RangeOut], &'a [Hop])>>,
    profiling: bool,
    /// When profiling: the helpers' CPU nanoseconds spent waiting for the ranges.
    helper_wait: AtomicU64,
}

/// Spins a helper makes between two looks before it starts yielding its core.
const SPINS_BEFORE_YIELD: u32 = 64;

impl<'a> RangeClaims<'a> {
    /// An empty board.
    pub(super) fn new(profiling: bool) -> RangeClaims<'a> {
        RangeClaims {
            published: OnceLock::new(),
            ends: Mutex::new((0, 0)),
            prefix: HashedPrefix::default(),
            pending: Mutex::new(None),
            profiling,
            helper_wait: AtomicU64::new(0),
        }
    }

    /// Publishes the ranges (none: the helpers leave). Only the first call counts.
    pub(super) fn publish(&self, ranges: Vec<Mutex<Option<Range<'a>>>>, env: RangeEnv) {
        *self.ends.lock().unwrap_or_else(PoisonError::into_inner) = (0, ranges.len());
        let _ = self.published.set(Published { ranges, env });
    }

    /// Sets what goes into the hash before the first range's PEs: the logs of `outs`, then
    /// `hops`.
    pub(super) fn set_pending(&self, outs: &'a mut [RangeOut], hops: &'a [Hop]) {
        *self.pending.lock().unwrap_or_else(PoisonError::into_inner) = Some((outs, hops));
    }

    /// A guard that publishes no ranges when dropped before anything was published, so that
    /// the helpers leave whatever happens to the loop's thread.
    pub(super) fn publish_on_drop(&self) -> LeaveOnDrop<'_, 'a> {
        LeaveOnDrop(self)
    }

    /// A helper's part: waits for the ranges, then steps them from the last on.
    pub(super) fn help(&self) {
        let t0 = self.profiling.then(thread_cpu_ns);
        let mut spins = 0u32;
        while self.published.get().is_none() {
            if spins < SPINS_BEFORE_YIELD {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        if let Some(t0) = t0 {
            self.helper_wait
                .fetch_add(thread_cpu_ns() - t0, Ordering::Relaxed);
        }
        self.work(false);
    }

    /// Claims and steps ranges until none is left: from the front (the loop's thread) or from
    /// the back (a helper).
    pub(super) fn work(&self, front: bool) {
        let Some(p) = self.published.get() else {
            return;
        };
        loop {
            let i = {
                let mut ends = self.ends.lock().unwrap_or_else(PoisonError::into_inner);
                let (first, last) = &mut *ends;
                if *first >= *last {
                    return;
                }
                if front {
                    *first += 1;
                    *first - 1
                } else {
                    *last -= 1;
                    *last
                }
            };
            let Some(slot) = p.ranges.get(i) else {
                return;
            };
            let mut range = slot.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some(r) = range.as_mut() {
                if i == 0 {
                    self.mix_pending(&p.env);
                }
                step_claimed(r, &p.env, &self.prefix);
            }
        }
    }

    /// Mixes the pending logs and hops into the prefix's hash (before the first range).
    fn mix_pending(&self, env: &RangeEnv) {
        let pending = self
            .pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some((outs, hops)) = pending {
            self.prefix.mix(|hash| {
                for out in outs {
                    if let TraceSink::Log(log) = &mut out.trace {
                        log.drain_into(hash);
                    }
                }
                mix_hops(hash, env.cycle, hops);
            });
        }
    }

    /// The helpers' CPU nanoseconds spent waiting for the ranges (when profiling).
    pub(super) fn helper_wait_ns(&self) -> u64 {
        self.helper_wait.load(Ordering::Relaxed)
    }
}

/// Publishes no ranges when dropped, unless some were ([`RangeClaims::publish_on_drop`]).
pub(super) struct LeaveOnDrop<'b, 'a>(&'b RangeClaims<'a>);

impl Drop for LeaveOnDrop<'_, '_> {
    fn drop(&mut self) {
        if self.0.published.get().is_none() {
            self.0.publish(Vec::new(), RangeEnv::default());
        }
    }
}

/// Steps a claimed range: into the hash directly when every range before it is in it, else
/// into its log.
fn step_claimed(
    ((pes, ahead), (p, base), range_ks, out): &mut Range<'_>,
    env: &RangeEnv,
    prefix: &HashedPrefix,
) {
    let t0 = env.profiling.then(thread_cpu_ns);
    let direct = prefix.start(*p, out);
    step_range(
        pes,
        ahead,
        *base,
        range_ks,
        (env.cycle, env.until, env.windows),
        env.arch,
        env.queue_reuse,
        env.width,
        out,
    );
    if direct {
        prefix.end(*p, out);
    }
    if let Some(t0) = t0 {
        let thread = rayon::current_thread_index().unwrap_or(0);
        out.profile = (thread, thread_cpu_ns() - t0, range_ks.len() as u64);
    }
}
