//! Idle PEs cost nothing: a PE whose step changed nothing sleeps until the routers touch its
//! queues (a wavelet delivered to an input queue, or taken from an output queue), the only
//! way anything outside a PE changes what its next step does. While it sleeps each skipped
//! cycle would have counted the same stalls as the step it slept after (nothing it waits on
//! changed), so they are added when it wakes or the run ends: statistics, trace hash and
//! cycles are those of stepping every PE every cycle ([`super::Sim::set_idle_skipping`]
//! turns skipping off, which the tests use to show it).

use super::pe_state::PeState;
use crate::fabric::{PeQueues, QueueAccess};

/// Which PEs are awake, and what a sleeping PE owes its statistics.
#[derive(Clone, Debug, Default)]
pub(super) struct IdleSkip {
    /// Skip idle PEs (on by default).
    pub(super) on: bool,
    /// Run PE-local operations ahead of their cycles (on by default, [`super::run_ahead`]).
    pub(super) run_ahead: bool,
    /// Step PE-local cycles after a task start at once (on by default, [`super::window`]).
    pub(super) windows: bool,
    /// Awake PEs (bit per PE, row-major).
    pub(super) awake: Vec<u64>,
    /// PEs that may have a wavelet in an output queue (bit per PE).
    pub(super) sending: Vec<u64>,
    /// Per PE: the cycle of the step it fell asleep after.
    asleep_at: Vec<u64>,
    /// Per PE: the stalls that step counted, owed for every cycle it sleeps.
    stalls_per_cycle: Vec<u64>,
}

/// The indices of the set bits of `bits`, ascending.
pub(super) fn set_bits(bits: &[u64]) -> impl Iterator<Item = usize> + '_ {
    bits.iter().enumerate().flat_map(|(w, &word)| {
        let mut b = word;
        std::iter::from_fn(move || {
            if b == 0 {
                return None;
            }
            let i = b.trailing_zeros() as usize;
            b &= b - 1;
            Some(w * 64 + i)
        })
    })
}

fn get(bits: &[u64], k: usize) -> bool {
    bits.get(k / 64)
        .is_some_and(|w| w & (1u64 << (k % 64)) != 0)
}

fn set(bits: &mut [u64], k: usize, on: bool) {
    if let Some(w) = bits.get_mut(k / 64) {
        if on {
            *w |= 1u64 << (k % 64);
        } else {
            *w &= !(1u64 << (k % 64));
        }
    }
}

impl IdleSkip {
    /// Skipping on, for `n` PEs, all awake.
    pub(super) fn new(n: usize) -> IdleSkip {
        let words = n.div_ceil(64);
        let mut s = IdleSkip {
            on: true,
            run_ahead: true,
            windows: true,
            awake: vec![0; words],
            sending: vec![0; words],
            asleep_at: vec![0; n],
            stalls_per_cycle: vec![0; n],
        };
        s.wake_all(n);
        s
    }

    /// Marks all `n` PEs awake and maybe sending (the start of a run: the host may have
    /// changed anything since the last one). Sleepers must have been settled.
    pub(super) fn wake_all(&mut self, n: usize) {
        for w in 0..self.awake.len() {
            let bits = if (w + 1) * 64 <= n {
                u64::MAX
            } else {
                (1u64 << (n % 64)) - 1
            };
            self.awake[w] = bits;
            self.sending[w] = bits;
        }
    }

    /// Whether PE `k` is awake.
    pub(super) fn is_awake(&self, k: usize) -> bool {
        !self.on || get(&self.awake, k)
    }

    /// PE `k`, stepped at `cycle` without progress after counting `stalls`, sleeps.
    pub(super) fn sleep(&mut self, k: usize, cycle: u64, stalls: u64) {
        if !self.on {
            return;
        }
        set(&mut self.awake, k, false);
        self.asleep_at[k] = cycle;
        self.stalls_per_cycle[k] = stalls;
    }

    /// Wakes PE `k` to be stepped at `cycle`: the stalls of the cycles it slept through.
    pub(super) fn wake(&mut self, k: usize, cycle: u64) -> u64 {
        if self.is_awake(k) {
            return 0;
        }
        set(&mut self.awake, k, true);
        cycle.saturating_sub(self.asleep_at[k] + 1) * self.stalls_per_cycle[k]
    }

    /// Records whether PE `k` may have a wavelet to send.
    pub(super) fn set_sending(&mut self, k: usize, on: bool) {
        set(&mut self.sending, k, on);
    }
}

/// The PEs' queues, for the routers.
pub(super) struct PeQueuesOf<'a>(pub(super) &'a mut [PeState]);

impl QueueAccess for PeQueuesOf<'_> {
    fn queues(&self, k: usize) -> Option<&PeQueues> {
        self.0.get(k).map(|p| &p.pe.queues)
    }

    fn queues_mut(&mut self, k: usize) -> Option<&mut PeQueues> {
        self.0.get_mut(k).map(|p| &mut p.pe.queues)
    }

    fn pe_count(&self) -> usize {
        self.0.len()
    }
}
