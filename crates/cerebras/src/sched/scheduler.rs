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
//! The run ends when a whole cycle changes nothing. Threads still waiting then are a
//! deadlock (reported with what each waits on), except asynchronous operations with an
//! unbounded extent, which is how streaming programs end. Every run has a cycle limit.

use super::completion::FIFO_ACTIVATE;
use super::error::SimError;
use super::microthread::main_thread_rank;
use super::pe_state::PeCycle;
use super::sim::Sim;
use super::stats::RunReport;
use super::trace::{EventKind, Thread, TraceEvent};
use crate::fabric::{PeQueues, QueueRef};
use crate::pe::Progress;

impl Sim {
    /// Runs until nothing changes, at most `limit` cycles.
    pub fn run(&mut self, limit: u64) -> Result<RunReport, SimError> {
        while self.cycle < limit {
            let cycle = self.cycle;
            let changed = self.step()?;
            self.cycle += 1;
            if !changed {
                return self.finish(cycle);
            }
        }
        Err(SimError::CycleLimit {
            limit,
            busy: self.busy(),
        })
    }

    /// One cycle; whether anything changed.
    fn step(&mut self) -> Result<bool, SimError> {
        let cycle = self.cycle;
        let hops = {
            let mut qs: Vec<&mut PeQueues> =
                self.pes.iter_mut().map(|p| &mut p.pe.queues).collect();
            self.fabric
                .step(cycle, &mut qs)
                .map_err(|source| SimError::Fabric { cycle, source })?
        };
        for h in &hops {
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
                self.trace.add(v);
            }
        }
        if let Some(ev) = &mut self.events {
            for h in &hops {
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
        let mut changed = self.fabric.changes() > 0;
        for k in 0..self.pes.len() {
            let r = self.step_pe(k, cycle)?;
            if r.progressed {
                self.pes[k].stats.busy_cycles += 1;
                changed = true;
            }
        }
        Ok(changed)
    }

    fn step_pe(&mut self, k: usize, cycle: u64) -> Result<PeCycle, SimError> {
        let mut out = PeCycle::default();
        let main_rank = main_thread_rank(self.pes[k].main_priority);
        let mut main_done = false;
        // the order is fixed at the start of the cycle; threads spawned now wait a cycle
        let order: Vec<(u8, u8)> = self.pes[k].micro.iter().map(|m| (m.ut, m.rank)).collect();
        for (ut, rank) in order {
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
