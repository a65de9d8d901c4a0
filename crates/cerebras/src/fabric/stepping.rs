//! One cycle of the routers (the rules are in [`super::grid`]'s documentation), at a cost
//! that follows the traffic, not the grid: only routers holding a wavelet are planned, the
//! arbitration is linear in the wavelets that want to move, and only the RAMP slots of PEs
//! with something to send are refilled.
//!
//! The arbitration gives exactly what the rule "repeat passes in processing order until none
//! changes" gives: a first pass in processing order (first come first served on every link,
//! queue room counted as wavelets are met), then the closure of "a wavelet whose target slot
//! stays occupied waits", followed backwards from each waiting wavelet to the one behind it.
//! Later passes can only add waits of that kind: a wavelet that passed the first pass is
//! never refused a link or queue room again, since fewer wavelets claim them.

use super::color::Color;
use super::direction::{Dir, DirSet};
use super::error::FabricError;
use super::grid::{Collected, Fabric, Hop};
use super::queue::PeQueues;
use super::wavelet::Wavelet;

/// The PEs' queues by row-major index, as one cycle of the routers reads and fills them.
pub trait QueueAccess {
    /// The queues of PE `k`.
    fn queues(&self, k: usize) -> Option<&PeQueues>;
    /// The queues of PE `k`, mutable.
    fn queues_mut(&mut self, k: usize) -> Option<&mut PeQueues>;
    /// Number of PEs.
    fn pe_count(&self) -> usize;
}

impl QueueAccess for [&mut PeQueues] {
    fn queues(&self, k: usize) -> Option<&PeQueues> {
        self.get(k).map(|q| &**q)
    }

    fn queues_mut(&mut self, k: usize) -> Option<&mut PeQueues> {
        self.get_mut(k).map(|q| &mut **q)
    }

    fn pe_count(&self) -> usize {
        self.len()
    }
}

/// Where a wavelet goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    Slot(usize, Dir),
    Ce(usize),
    Host(usize, Dir),
}

/// A wavelet that wants to move this cycle, with its targets (at most one per port).
#[derive(Clone, Copy, Debug)]
pub(super) struct Mover {
    pe: usize,
    port: Dir,
    wavelet: Wavelet,
    to: DirSet,
    targets: [Target; 5],
    n_targets: u8,
}

impl Mover {
    fn targets(&self) -> &[Target] {
        &self.targets[..usize::from(self.n_targets)]
    }
}

/// No mover.
const NONE: u32 = u32::MAX;
/// Claim bits of a router: its five slots, its compute engine, its four edge ports.
const CLAIM_CE: u16 = 1 << 5;

fn claim_bit(t: Target) -> (usize, u16) {
    match t {
        Target::Slot(k, d) => (k, 1 << d.index()),
        Target::Ce(k) => (k, CLAIM_CE),
        Target::Host(k, d) => (k, 1 << (8 + d.index())),
    }
}

/// The reusable buffers of one cycle (sized by the grid once, cleared as they are used).
#[derive(Clone, Debug, Default)]
pub(super) struct StepScratch {
    movers: Vec<Mover>,
    allowed: Vec<bool>,
    /// Per router: the claim bits taken this pass.
    claimed: Vec<u16>,
    /// Per router and port: the mover leaving that slot.
    leaver: Vec<u32>,
    /// Per router and input queue: wavelets counted against its room this pass.
    ce_used: Vec<u32>,
    /// Per router: its movers `start..end` in `movers`.
    range: Vec<(u32, u32)>,
    planned: Vec<usize>,
    touched_claims: Vec<usize>,
    touched_ce: Vec<usize>,
    worklist: Vec<usize>,
}

impl Fabric {
    /// One cycle of every router holding a wavelet: plan, arbitrate, move, then refill the
    /// RAMP slots of the PEs in `ramp` (every PE when `None`) from their output queues and
    /// the edge slots from host streams. Appends the hops taken, in processing order, to
    /// `hops`; PEs whose queues gained or lost a wavelet are then in [`Fabric::touched`].
    pub fn step_into<Q: QueueAccess + ?Sized>(
        &mut self,
        cycle: u64,
        queues: &mut Q,
        ramp: Option<&[usize]>,
        hops: &mut Vec<Hop>,
    ) -> Result<(), FabricError> {
        if queues.pe_count() != self.routers.len() {
            return Err(FabricError::QueueCount {
                given: queues.pe_count(),
                pes: self.routers.len(),
            });
        }
        self.touched.clear();
        let mut s = std::mem::take(&mut self.scratch);
        let r = self.step_with(cycle, queues, ramp, hops, &mut s);
        // leave the per-router tables clean for the next cycle, even after an error
        for &k in &s.planned {
            s.range[k] = (0, 0);
        }
        for m in &s.movers {
            s.leaver[m.pe * 5 + m.port.index()] = NONE;
        }
        s.planned.clear();
        s.movers.clear();
        self.scratch = s;
        r
    }

    fn step_with<Q: QueueAccess + ?Sized>(
        &mut self,
        cycle: u64,
        queues: &mut Q,
        ramp: Option<&[usize]>,
        hops: &mut Vec<Hop>,
        s: &mut StepScratch,
    ) -> Result<(), FabricError> {
        let n = self.routers.len();
        if s.claimed.len() != n {
            s.claimed = vec![0; n];
            s.leaver = vec![NONE; n * 5];
            s.ce_used = vec![0; n * 8];
            s.range = vec![(0, 0); n];
        }
        // plan the routers that hold a wavelet, in row-major order
        for w in 0..self.busy.len() {
            let mut bits = self.busy[w];
            while bits != 0 {
                let b = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                let k = w * 64 + b;
                if self.routers[k].slots.iter().all(Option::is_none) {
                    self.busy[w] &= !(1u64 << b);
                    continue;
                }
                let start = s.movers.len() as u32;
                self.plan_router(k, cycle, &mut s.movers)?;
                s.range[k] = (start, s.movers.len() as u32);
                s.planned.push(k);
            }
        }
        self.resolve(&*queues, s)?;
        let hops_before = hops.len();
        for (m, ok) in s.movers.iter().zip(&s.allowed) {
            if *ok {
                self.routers[m.pe].slots[m.port.index()] = None;
            }
        }
        for (m, ok) in s.movers.iter().zip(&s.allowed) {
            if *ok {
                hops.push(self.move_wavelet(m, cycle, queues));
            }
        }
        let changes = hops.len() - hops_before + self.refill(queues, ramp);
        self.changes = changes;
        Ok(())
    }

    /// Marks router `k` as holding a wavelet.
    pub(super) fn mark_busy(&mut self, k: usize) {
        if let Some(w) = self.busy.get_mut(k / 64) {
            *w |= 1u64 << (k % 64);
        }
    }

    /// PEs whose queues the last step changed (a wavelet delivered to an input queue or taken
    /// from an output queue), in the order it happened (a PE may appear more than once).
    pub fn touched(&self) -> &[usize] {
        &self.touched
    }

    /// Moves one wavelet the arbitration allowed: into its target slots, the PE's input
    /// queue or the host's collection (a WEST-received copy leaving EAST with its color's
    /// bit 0 toggled under `color_swap_x`), advancing its color's switch when it asked to.
    fn move_wavelet<Q: QueueAccess + ?Sized>(
        &mut self,
        m: &Mover,
        cycle: u64,
        queues: &mut Q,
    ) -> Hop {
        let w = Wavelet {
            advance_switch: false,
            ..m.wavelet
        };
        // color_swap_x: the copy leaving EAST of a wavelet received from WEST
        let swap = m.port == Dir::West && self.routers[m.pe].color_swap_x;
        let east = if swap { w.with_color_bit0_toggled() } else { w };
        for t in m.targets() {
            match *t {
                Target::Slot(k, Dir::West) => {
                    self.routers[k].slots[Dir::West.index()] = Some(east);
                    self.mark_busy(k);
                }
                Target::Host(k, Dir::East) => {
                    let (x, y) = self.coords(k);
                    self.collected.push(Collected {
                        x,
                        y,
                        dir: Dir::East,
                        cycle,
                        wavelet: east,
                    });
                }
                Target::Slot(k, d) => {
                    self.routers[k].slots[d.index()] = Some(w);
                    self.mark_busy(k);
                }
                Target::Ce(k) => {
                    if let Some(q) = queues.queues_mut(k) {
                        q.deliver(w);
                        self.touched.push(k);
                    }
                }
                Target::Host(k, dir) => {
                    let (x, y) = self.coords(k);
                    self.collected.push(Collected {
                        x,
                        y,
                        dir,
                        cycle,
                        wavelet: w,
                    });
                }
            }
        }
        if m.wavelet.advance_switch
            && m.port == Dir::Ramp
            && let Some(c) = self.routers[m.pe].colors[m.wavelet.color.index()].as_mut()
        {
            c.advance_switch();
        }
        let (x, y) = self.coords(m.pe);
        Hop {
            x,
            y,
            from: m.port,
            to: m.to,
            wavelet: m.wavelet,
        }
    }

    /// Refills empty RAMP slots from the output queues of the PEs in `ramp` (all when
    /// `None`) and empty edge slots from host streams; the number of slots filled.
    fn refill<Q: QueueAccess + ?Sized>(&mut self, queues: &mut Q, ramp: Option<&[usize]>) -> usize {
        let mut changes = 0;
        let mut one = |fabric: &mut Fabric, k: usize| {
            if fabric.routers[k].slots[Dir::Ramp.index()].is_none()
                && let Some(q) = queues.queues_mut(k)
                && let Some((id, _)) = q.peek_send()
            {
                fabric.routers[k].slots[Dir::Ramp.index()] = q.take_sent(id);
                fabric.mark_busy(k);
                fabric.touched.push(k);
                changes += 1;
            }
        };
        match ramp {
            Some(ks) => {
                for &k in ks {
                    if k < self.routers.len() {
                        one(self, k);
                    }
                }
            }
            None => {
                for k in 0..self.routers.len() {
                    one(self, k);
                }
            }
        }
        let streaming = std::mem::take(&mut self.streaming);
        let mut still = Vec::with_capacity(streaming.len());
        for &k in &streaming {
            let r = &mut self.routers[k];
            let mut filled = false;
            for d in Dir::ALL {
                if r.slots[d.index()].is_none()
                    && let Some(w) = r.streams[d.index()].pop_front()
                {
                    r.slots[d.index()] = Some(w);
                    changes += 1;
                    filled = true;
                }
            }
            if self.routers[k].streams.iter().any(|s| !s.is_empty()) {
                still.push(k);
            }
            if filled {
                self.mark_busy(k);
            }
        }
        self.streaming = still;
        changes
    }

    fn plan_router(
        &self,
        k: usize,
        cycle: u64,
        movers: &mut Vec<Mover>,
    ) -> Result<(), FabricError> {
        let (x, y) = self.coords(k);
        let r = &self.routers[k];
        let mut seen: [Option<Dir>; Color::COUNT] = [None; Color::COUNT];
        for port in Dir::ALL {
            let Some(w) = r.slots[port.index()] else {
                continue;
            };
            if r.teardown & (1 << w.color.index()) != 0 {
                // teardown mode: the color's traffic waits in the router
                continue;
            }
            let route = r.colors[w.color.index()].map(|c| c.route());
            let Some(route) = route.filter(|rt| rt.rx.contains(port)) else {
                return Err(FabricError::Unroutable {
                    x,
                    y,
                    color: w.color,
                    from: port,
                    rx: route.map_or(DirSet::EMPTY, |rt| rt.rx),
                });
            };
            if let Some(first) = seen[w.color.index()] {
                return Err(FabricError::Merge {
                    x,
                    y,
                    color: w.color,
                    cycle,
                    first,
                    second: port,
                });
            }
            seen[w.color.index()] = Some(port);
            let mut targets = [Target::Ce(k); 5];
            let mut n_targets = 0u8;
            for t in route.tx.iter() {
                let target = if t == Dir::Ramp {
                    Target::Ce(k)
                } else {
                    let (dx, dy) = t.offset();
                    match self.pe_index(i64::from(x) + dx, i64::from(y) + dy) {
                        Ok(n) => Target::Slot(n, t.opposite()),
                        Err(_) if r.open_edges.contains(t) => Target::Host(k, t),
                        Err(_) => {
                            return Err(FabricError::LeavesGrid {
                                x,
                                y,
                                color: w.color,
                                dir: t,
                            });
                        }
                    }
                };
                targets[usize::from(n_targets)] = target;
                n_targets += 1;
            }
            movers.push(Mover {
                pe: k,
                port,
                wavelet: w,
                to: route.tx,
                targets,
                n_targets,
            });
        }
        Ok(())
    }

    /// Which movers go this cycle (see the module documentation): `s.allowed`.
    fn resolve<Q: QueueAccess + ?Sized>(
        &self,
        queues: &Q,
        s: &mut StepScratch,
    ) -> Result<(), FabricError> {
        let StepScratch {
            movers,
            allowed,
            claimed,
            leaver,
            ce_used,
            range,
            touched_claims,
            touched_ce,
            worklist,
            ..
        } = s;
        allowed.clear();
        allowed.resize(movers.len(), true);
        for (i, m) in movers.iter().enumerate() {
            leaver[m.pe * 5 + m.port.index()] = i as u32;
        }
        worklist.clear();
        // the first pass, in processing order
        let result = (|| {
            for i in 0..movers.len() {
                let m = &movers[i];
                let mut ok = true;
                for &t in m.targets() {
                    let (ck, bit) = claim_bit(t);
                    if claimed[ck] & bit != 0 {
                        ok = false;
                        break;
                    }
                    match t {
                        Target::Slot(k, d) => {
                            let occupied = self.routers[k].slots[d.index()].is_some();
                            let l = leaver[k * 5 + d.index()];
                            let vacates = l != NONE && allowed[l as usize];
                            if occupied && !vacates {
                                ok = false;
                            }
                        }
                        Target::Ce(k)
                            if queues.queues(k).is_some_and(|q| !q.passes(&m.wavelet)) => {}
                        Target::Ce(k) => {
                            let (x, y) = self.coords(k);
                            let q = queues
                                .queues(k)
                                .and_then(|q| q.input_of(m.wavelet.color).map(|id| (q, id)));
                            let Some((q, id)) = q else {
                                return Err(FabricError::NoInputQueue {
                                    x,
                                    y,
                                    color: m.wavelet.color,
                                });
                            };
                            let room = q.input(id).map_or(0, |iq| iq.room());
                            let slot = k * 8 + usize::from(id.id());
                            if room <= ce_used[slot] {
                                ok = false;
                            } else {
                                if ce_used[slot] == 0 {
                                    touched_ce.push(slot);
                                }
                                ce_used[slot] += 1;
                            }
                        }
                        Target::Host(..) => {}
                    }
                }
                if ok {
                    for &t in m.targets() {
                        let (ck, bit) = claim_bit(t);
                        if claimed[ck] == 0 {
                            touched_claims.push(ck);
                        }
                        claimed[ck] |= bit;
                    }
                } else {
                    allowed[i] = false;
                    worklist.push(i);
                }
            }
            Ok(())
        })();
        for &k in touched_claims.iter() {
            claimed[k] = 0;
        }
        for &k in touched_ce.iter() {
            ce_used[k] = 0;
        }
        touched_claims.clear();
        touched_ce.clear();
        result?;
        // then: a wavelet whose target slot stays occupied waits, back along each chain
        while let Some(j) = worklist.pop() {
            let (k, d) = (movers[j].pe, movers[j].port);
            if d == Dir::Ramp {
                continue;
            }
            let (x, y) = self.coords(k);
            let (dx, dy) = d.offset();
            let Ok(behind) = self.pe_index(i64::from(x) + dx, i64::from(y) + dy) else {
                continue;
            };
            let (start, end) = range[behind];
            for i in start as usize..end as usize {
                if allowed[i] && movers[i].targets().contains(&Target::Slot(k, d)) {
                    allowed[i] = false;
                    worklist.push(i);
                }
            }
        }
        Ok(())
    }
}
