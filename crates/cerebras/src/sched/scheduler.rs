//! The deterministic cycle-stepped simulator over a grid of PEs (spec §9).
//!
//! One cycle:
//! 1. every router moves wavelets ([`crate::fabric::Fabric::step`]: PEs row-major, ports N, E, S, W, RAMP);
//! 2. every PE in row-major order runs its threads once, in this order: microthreads ranked
//!    at or above the main thread (by rank, then microthread id), the main thread, then the
//!    lower-ranked microthreads. A microthread does at most one element. The main thread
//!    does one element of its current synchronous operation, or one action of its task, or,
//!    idle, starts the eligible task with the lowest id (a local task that is active and
//!    unblocked; a data task that is unblocked and has a wavelet in its queue). An
//!    asynchronous operation started in a cycle does its first element in the next one.
//!
//! A PE whose step changed nothing sleeps until the routers touch its queues ([`super::idle`]):
//! the same results as stepping it, at no cost.
//!
//! A PE whose step fails does not cut the cycle short: every PE steps it, and the run stops
//! after it with the first error in row-major order (at any thread count, the same state).
//!
//! The run ends when a whole cycle changes nothing. Threads still waiting then are a
//! deadlock (reported with what each waits on), except asynchronous operations with an
//! unbounded extent, which is how streaming programs end. Every run has a cycle limit.

use super::completion::FIFO_ACTIVATE;
use super::error::SimError;
use super::idle::{PeQueuesOf, set_bits};
use super::microthread::main_thread_rank;
use super::pe_state::PeCycle;
use super::pe_step::{PeStep, TraceMix};
use super::run_ahead::RunAhead;
use super::scale_profile::thread_cpu_ns;
use super::sim::Sim;
use super::stats::{RunReport, TraceHash};
use super::trace::{EventKind, Thread, TraceEvent};
use super::window::Window;
use crate::fabric::{Hop, QueueRef};
use crate::pe::Progress;

impl Sim {
    /// Runs until nothing changes, at most `limit` cycles.
    pub fn run(&mut self, limit: u64) -> Result<RunReport, SimError> {
        // with threads (and a grid large enough to use them), the cycle loop itself runs on
        // a thread of the pool: a cycle's first range of PEs is stepped by it, the others
        // taken by whichever pool thread is free (and by it too when none is), with no
        // wake-up of the loop between cycles
        match self.take_pool()? {
            Some(pool) => {
                let r = pool.install(|| self.run_cycles(limit, true));
                self.threads.pool = Some(pool);
                r
            }
            None => self.run_cycles(limit, false),
        }
    }

    /// [`Sim::run`] on the calling thread, stepping PEs on the pool's threads when `threaded`
    /// (the calling thread is then one of the pool's).
    fn run_cycles(&mut self, limit: u64, threaded: bool) -> Result<RunReport, SimError> {
        // the host may have changed anything since the last run: every PE steps at first
        self.idle.wake_all(self.pes.len());
        while self.cycle < limit {
            let cycle = self.cycle;
            let until = if self.idle.run_ahead { limit } else { 0 };
            let t0 = self.profile.is_some().then(thread_cpu_ns);
            let stepped = self.step(until, threaded);
            if let (Some(t0), Some(p)) = (t0, &mut self.profile) {
                p.cycles += 1;
                p.loop_ns += thread_cpu_ns() - t0;
            }
            let changed = match stepped {
                Ok(c) => c,
                Err(e) => {
                    self.settle_trace();
                    self.rewind_run_ahead();
                    self.settle_sleepers(cycle);
                    return Err(e);
                }
            };
            self.cycle += 1;
            if !changed {
                self.settle_trace();
                self.settle_windows();
                self.settle_sleepers(cycle);
                return self.finish(cycle);
            }
        }
        self.settle_trace();
        self.rewind_run_ahead();
        self.settle_sleepers(self.cycle.saturating_sub(1));
        Err(SimError::CycleLimit {
            limit,
            busy: self.busy(),
        })
    }

    /// Steps every PE every cycle (`false`) instead of skipping idle ones (`true`, the
    /// default). Both give the same results, statistics, cycles and trace hash; the full
    /// stepping is there to show it.
    pub fn set_idle_skipping(&mut self, on: bool) {
        self.idle.on = on;
    }

    /// Runs the elements of PE-local synchronous operations ahead of their cycles (`true`,
    /// the default) or each in its cycle (`false`). Both give the same results, statistics,
    /// cycles, events and trace hash, and leave the same state when a run stops early.
    pub fn set_run_ahead(&mut self, on: bool) {
        self.idle.run_ahead = on;
    }

    /// Steps the PE-local cycles that follow a task start at once, while the PE's state is in
    /// the cache (`true`, the default, with run-ahead on: [`Sim::set_run_ahead`]), or each in
    /// its turn (`false`). Both give the same results, statistics, cycles, events and trace
    /// hash, and leave the same state when a run stops early.
    pub fn set_windows(&mut self, on: bool) {
        self.idle.windows = on;
    }

    /// Settles the PEs whose windows' cycles all came (the end of a run).
    fn settle_windows(&mut self) {
        for (st, a) in self.pes.iter_mut().zip(&mut self.ahead) {
            Window::settle(st, a);
        }
    }

    /// Adds to each sleeping PE the stalls of the cycles it slept through up to `end`, and
    /// wakes it.
    fn settle_sleepers(&mut self, end: u64) {
        for k in 0..self.pes.len() {
            if !self.idle.is_awake(k) {
                let owed = self.idle.wake(k, end + 1);
                self.pes[k].stats.stalls += owed;
            }
        }
    }

    /// One cycle of a run limited to `until` cycles, PEs stepped on the pool's threads when
    /// `threaded` (this thread is then one of the pool's); whether anything changed.
    fn step(&mut self, until: u64, threaded: bool) -> Result<bool, SimError> {
        if threaded {
            return self.step_threaded(until);
        }
        let changed = self.routers()?;
        let cycle = self.cycle;
        mix_hops(&mut self.trace, cycle, &self.hops);
        Ok(changed | self.step_single(cycle, until)?)
    }

    /// The routers' part of a cycle: the routers move (their hops are left in `self.hops` for
    /// the trace: [`mix_hops`]), sleeping PEs the routers touched wake; whether the routers
    /// changed anything.
    pub(super) fn routers(&mut self) -> Result<bool, SimError> {
        let cycle = self.cycle;
        let mut hops = std::mem::take(&mut self.hops);
        hops.clear();
        let mut ramp = std::mem::take(&mut self.ramp);
        ramp.clear();
        let skip = self.idle.on;
        if skip {
            ramp.extend(set_bits(&self.idle.sending));
        }
        let t0 = self.profile.is_some().then(thread_cpu_ns);
        let stepped = self.fabric.step_into(
            cycle,
            &mut PeQueuesOf(&mut self.pes),
            skip.then_some(&ramp[..]),
            &mut hops,
        );
        if let (Some(t0), Some(p)) = (t0, &mut self.profile) {
            p.routers_ns += thread_cpu_ns() - t0;
        }
        let r = stepped
            .map_err(|source| SimError::Fabric { cycle, source })
            .map(|()| self.after_routers(cycle, &hops, &ramp));
        self.hops = hops;
        self.ramp = ramp;
        r
    }

    /// The rest of the routers' part once they moved: the hops' events, sleeping PEs the
    /// routers touched woken; whether the routers changed anything.
    fn after_routers(&mut self, cycle: u64, hops: &[Hop], ramp: &[usize]) -> bool {
        for &k in ramp {
            let sending = self.pes[k].pe.queues.peek_send().is_some();
            self.idle.set_sending(k, sending);
        }
        if let Some(ev) = &mut self.events {
            for h in hops {
                ev.push(TraceEvent {
                    cycle,
                    x: h.x,
                    y: h.y,
                    kind: EventKind::Hop,
                    thread: "router".into(),
                    text: format!("{} -> {} {}", h.from, h.to, h.wavelet),
                });
            }
        }
        let changed = self.fabric.changes() > 0;
        for i in 0..self.fabric.touched().len() {
            let k = self.fabric.touched()[i];
            let owed = self.idle.wake(k, cycle);
            self.pes[k].stats.stalls += owed;
        }
        changed
    }

    /// Steps the awake PEs one after the other on this thread (counted as such when
    /// profiling); whether any progressed.
    pub(super) fn step_single(&mut self, cycle: u64, until: u64) -> Result<bool, SimError> {
        let t0 = self.profile.is_some().then(thread_cpu_ns);
        let r = self.step_each(cycle, until);
        if let (Some(t0), Some(p)) = (t0, &mut self.profile) {
            p.single_ns += thread_cpu_ns() - t0;
        }
        r
    }

    /// Steps every awake PE (every PE when idle PEs are not skipped) one after the other;
    /// whether any progressed. A PE whose step fails does not stop the cycle: every PE steps
    /// (as every PE of the hardware runs the cycle), and the first error in row-major order is
    /// the cycle's. So a failed cycle leaves the same state however its PEs are cut into
    /// ranges and threads ([`super::parallel`]).
    fn step_each(&mut self, cycle: u64, until: u64) -> Result<bool, SimError> {
        let mut changed = false;
        let mut first = None;
        let mut one = |sim: &mut Sim, k: usize| match sim.step_one(k, cycle, until) {
            Ok(progressed) => changed |= progressed,
            Err(e) => {
                first.get_or_insert(e);
            }
        };
        if self.idle.on {
            for w in 0..self.idle.awake.len() {
                let mut bits = self.idle.awake[w];
                while bits != 0 {
                    let k = w * 64 + bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    one(self, k);
                }
            }
        } else {
            for k in 0..self.pes.len() {
                one(self, k);
            }
        }
        match first {
            Some(e) => Err(e),
            None => Ok(changed),
        }
    }

    /// Steps PE `k` in a run limited to `until` cycles; whether it progressed (else it sleeps
    /// until the routers touch it).
    fn step_one(&mut self, k: usize, cycle: u64, until: u64) -> Result<bool, SimError> {
        if self.ahead[k].window.left > 0 {
            self.ahead[k].window.visit(k, cycle, &mut self.trace);
            return Ok(true);
        }
        Window::settle(&mut self.pes[k], &mut self.ahead[k]);
        if self.ahead[k].left > 0 {
            if self.ahead[k].visit(k, cycle, &mut self.trace) {
                RunAhead::came(&mut self.pes[k], &mut self.ahead[k]);
            }
            return Ok(true);
        }
        let before = self.pes[k].stats.stalls;
        let r = self.with_step(k, |s| {
            s.until = until;
            s.step_pe(k, cycle)
        })?;
        let st = &mut self.pes[k];
        if r.progressed {
            st.stats.busy_cycles += 1;
        } else {
            let stalls = st.stats.stalls - before;
            self.idle.sleep(k, cycle, stalls);
        }
        // only a step that wrote to an output queue can have queued a wavelet to send
        if st.pe.queues.take_written() && self.idle.on {
            self.idle.set_sending(k, true);
        }
        if r.progressed && self.idle.windows && self.events.is_none() {
            let env = self.step_env();
            Window::open(k, cycle, until, &mut self.pes[k], &mut self.ahead[k], env);
        }
        Ok(r.progressed)
    }
}

impl PeStep<'_> {
    /// One cycle of PE `k`'s threads.
    pub(super) fn step_pe(&mut self, k: usize, cycle: u64) -> Result<PeCycle, SimError> {
        let mut out = PeCycle::default();
        let main_rank = main_thread_rank(self.pes[k].main_priority);
        let mut main_done = false;
        // the order is fixed at the start of the cycle; threads spawned now wait a cycle
        let micro = &self.pes[k].micro;
        let mut small = [(0u8, 0u8); 16];
        let many: Vec<(u8, u8)>;
        let order: &[(u8, u8)] = if micro.len() <= small.len() {
            for (o, m) in small.iter_mut().zip(micro) {
                *o = (m.ut, m.rank);
            }
            &small[..micro.len()]
        } else {
            many = micro.iter().map(|m| (m.ut, m.rank)).collect();
            &many
        };
        for &(ut, rank) in order {
            if !main_done && rank < main_rank {
                self.step_main(k, cycle, &mut out)?;
                main_done = true;
            }
            let Some(i) = self.pes[k].micro.iter().position(|m| m.ut == ut) else {
                continue;
            };
            if self.step_micro(k, i, cycle, &mut out)? {
                self.pes[k].micro.remove(i);
            }
        }
        if !main_done {
            self.step_main(k, cycle, &mut out)?;
        }
        Ok(out)
    }

    /// One element of microthread `i`; whether it finished.
    fn step_micro(
        &mut self,
        k: usize,
        i: usize,
        cycle: u64,
        out: &mut PeCycle,
    ) -> Result<bool, SimError> {
        let st = &mut self.pes[k];
        let m = &mut st.micro[i];
        if m.born == cycle {
            return Ok(false);
        }
        if st
            .blocked_uts
            .get(usize::from(m.ut))
            .copied()
            .unwrap_or(false)
        {
            st.stats.stalls += 1;
            return Ok(false);
        }
        let before = m.run.elements();
        let progress = match st.pe.advance(&mut m.run, 1) {
            Ok(p) => p,
            Err(e) => return Err(self.op_error(k, cycle, &self.pes[k].micro[i].label, e)),
        };
        let st = &mut self.pes[k];
        let m = &mut st.micro[i];
        let activated = m.run.take_activated();
        let done_elems = m.run.elements() - before;
        st.stats.elements += done_elems;
        let ut = m.ut;
        let finished = match progress {
            Progress::Stalled(w) => {
                m.waiting = Some(w);
                st.stats.stalls += 1;
                false
            }
            Progress::Paused => {
                m.waiting = None;
                out.progressed = true;
                false
            }
            Progress::Done(_) => {
                m.waiting = None;
                out.progressed = true;
                true
            }
        };
        if done_elems > 0 {
            for v in [cycle, k as u64, 1, u64::from(ut), m.run.elements()] {
                self.trace.add(v);
            }
        }
        for t in activated {
            self.activate_local(k, cycle, t, FIFO_ACTIVATE)?;
        }
        if let Progress::Done(o) = progress {
            let st = &mut self.pes[k];
            let m = &st.micro[i];
            let (cfg, label) = (m.cfg.clone(), m.label.clone());
            for (_, q) in &m.queues {
                if let QueueRef::Output(q) = q {
                    st.out_owner[usize::from(q.id())] = Some(label.clone());
                }
            }
            self.complete(k, cycle, &label, &o, Some(&cfg), Thread::Micro(ut))?;
        }
        Ok(finished)
    }
}

/// Mixes the hops of `cycle` into the trace, in processing order (what the routers add to it;
/// the PEs' steps come after).
pub(super) fn mix_hops(trace: &mut TraceHash, cycle: u64, hops: &[Hop]) {
    for h in hops {
        let to: u64 = h.to.iter().map(|d| 1u64 << d.index()).sum();
        for v in [
            cycle,
            u64::from(h.x),
            u64::from(h.y),
            h.from.index() as u64,
            to,
            u64::from(h.wavelet.color.id()),
            u64::from(h.wavelet.payload),
            u64::from(h.wavelet.is_control()),
        ] {
            trace.add(v);
        }
    }
}
