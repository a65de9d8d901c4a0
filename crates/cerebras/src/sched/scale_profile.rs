//! Where a run's CPU time goes between the part that threads share and the part one thread
//! does (routers, hops, merging the threads' outputs, cycles with few PEs to step), read from
//! each thread's own CPU clock, which the load of a shared machine does not change. Off by
//! default ([`Sim::set_scale_profile`]); off, it costs one branch per cycle.
//!
//! From it, the speed-up two quiet cores would give: the one-thread run's CPU time over
//! [`ScaleProfile::two_core_ns`] (Amdahl's law with the parallel phases' real balance).

use super::sim::Sim;

/// CPU nanoseconds used so far by the calling thread (`CLOCK_THREAD_CPUTIME_ID`; elsewhere
/// than Linux, wall-clock nanoseconds since the first call).
pub(super) fn thread_cpu_ns() -> u64 {
    #[cfg(target_os = "linux")]
    {
        let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        u64::try_from(t.tv_sec).unwrap_or(0) * 1_000_000_000 + u64::try_from(t.tv_nsec).unwrap_or(0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
        let start = *START.get_or_init(std::time::Instant::now);
        u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }
}

/// One pool thread's share of the parallel phases.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ThreadShare {
    /// CPU nanoseconds stepping ranges of PEs.
    pub parallel_ns: u64,
    /// Ranges stepped.
    pub ranges: u64,
    /// PEs stepped (awake PEs of its ranges).
    pub pes: u64,
}

/// A run's CPU time split into serial and parallel parts ([`Sim::set_scale_profile`]).
/// Accumulates over the runs since profiling was turned on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScaleProfile {
    /// Cycles run.
    pub cycles: u64,
    /// Cycles whose PEs were stepped on several threads: one fork and one join (a barrier)
    /// each.
    pub parallel_cycles: u64,
    /// CPU nanoseconds of the thread running the cycle loop, over all cycles.
    pub loop_ns: u64,
    /// Of `loop_ns`: inside the parallel phases (its own ranges, forking, stealing and
    /// waiting at the join). The rest of `loop_ns` is the serial part.
    pub inside_ns: u64,
    /// Of the serial part: the routers' step.
    pub routers_ns: u64,
    /// Of the serial part: merging the ranges' outputs after each join (trace logs, events,
    /// sleeping PEs, router changes).
    pub merge_ns: u64,
    /// Of the serial part: PEs stepped on one thread in cycles with too few to fork.
    pub single_ns: u64,
    /// The pool index of the thread running the cycle loop.
    pub loop_thread: usize,
    /// CPU nanoseconds the helper threads spent waiting (spinning) for the ranges of the
    /// parallel cycles while the loop's thread did the serial part.
    pub helper_wait_ns: u64,
    /// Per pool thread, by its index in the pool.
    pub threads: Vec<ThreadShare>,
    /// Over the parallel cycles, the CPU time of the thread that stepped the most in each:
    /// the parallel phases' length with the ranges as this run's threads shared them.
    pub critical_ns: u64,
    /// Over the parallel cycles, the longer side of the best cut of each cycle's ranges (in
    /// order) into two: the parallel phases' length on two threads that share them well.
    pub balanced2_ns: u64,
}

impl ScaleProfile {
    /// The serial part: CPU nanoseconds of the loop's thread outside the parallel phases.
    pub fn serial_ns(&self) -> u64 {
        self.loop_ns.saturating_sub(self.inside_ns)
    }

    /// CPU nanoseconds of all threads stepping ranges.
    pub fn parallel_ns(&self) -> u64 {
        self.threads.iter().map(|t| t.parallel_ns).sum()
    }

    /// Of the loop thread's time inside the parallel phases, what was not its own ranges:
    /// forking, stealing and waiting at the joins (spinning counts as CPU time).
    pub fn join_ns(&self) -> u64 {
        let own = self
            .threads
            .get(self.loop_thread)
            .map_or(0, |t| t.parallel_ns);
        self.inside_ns.saturating_sub(own)
    }

    /// The run's length on two quiet cores: the serial part plus the parallel phases as two
    /// threads that share each cycle's ranges well would step them (barrier latency not
    /// counted).
    pub fn two_core_ns(&self) -> u64 {
        self.serial_ns() + self.balanced2_ns
    }

    /// A parallel cycle: the loop thread (pool index `me`) spent `inside` nanoseconds in it
    /// and `merge` merging; each range `(thread, cpu ns, PEs)`.
    pub(super) fn parallel_cycle(
        &mut self,
        me: usize,
        inside: u64,
        merge: u64,
        ranges: impl Iterator<Item = (usize, u64, u64)>,
    ) {
        self.parallel_cycles += 1;
        self.loop_thread = me;
        self.inside_ns += inside;
        self.merge_ns += merge;
        let mut per_thread = [0u64; 8];
        let mut costs = [0u64; 64];
        let mut n = 0;
        for (thread, ns, pes) in ranges {
            if self.threads.len() <= thread.max(me) {
                self.threads
                    .resize(thread.max(me) + 1, ThreadShare::default());
            }
            let share = &mut self.threads[thread];
            share.parallel_ns += ns;
            share.ranges += 1;
            share.pes += pes;
            if let Some(t) = per_thread.get_mut(thread) {
                *t += ns;
            }
            if let Some(c) = costs.get_mut(n) {
                *c = ns;
                n += 1;
            }
        }
        self.critical_ns += per_thread.iter().copied().max().unwrap_or(0);
        let total: u64 = costs[..n].iter().sum();
        let mut prefix = 0;
        let mut best = total;
        for &c in &costs[..n] {
            prefix += c;
            best = best.min(prefix.max(total - prefix));
        }
        self.balanced2_ns += best;
    }

    /// The profile as lines of text: the parts, the barriers per cycle, each thread's share,
    /// and the speed-up two quiet cores would give over `one_thread_ns` (the CPU time of the
    /// same run on one thread, when known).
    pub fn report(&self, one_thread_ns: Option<u64>) -> String {
        let ms = |ns: u64| ns as f64 / 1e6;
        let mut s = format!(
            "cycles {}, parallel (barriers) {} = {:.3} per cycle\n\
             serial {:.2} ms (routers {:.2}, merge {:.2}, one-thread cycles {:.2}, other {:.2}); \
             loop thread in parallel phases {:.2} ms, of which fork/steal/join {:.2} ms; \
             helpers waiting for the ranges {:.2} ms\n",
            self.cycles,
            self.parallel_cycles,
            self.parallel_cycles as f64 / self.cycles.max(1) as f64,
            ms(self.serial_ns()),
            ms(self.routers_ns),
            ms(self.merge_ns),
            ms(self.single_ns),
            ms(self
                .serial_ns()
                .saturating_sub(self.routers_ns + self.merge_ns + self.single_ns)),
            ms(self.inside_ns),
            ms(self.join_ns()),
            ms(self.helper_wait_ns),
        );
        for (i, t) in self.threads.iter().enumerate() {
            s += &format!(
                "thread {i}{}: parallel {:.2} ms, {} ranges, {} PEs\n",
                if i == self.loop_thread { " (loop)" } else { "" },
                ms(t.parallel_ns),
                t.ranges,
                t.pes
            );
        }
        s += &format!(
            "parallel total {:.2} ms, critical path as shared {:.2} ms, best two-way {:.2} ms; \
             two quiet cores: {:.2} ms",
            ms(self.parallel_ns()),
            ms(self.critical_ns),
            ms(self.balanced2_ns),
            ms(self.two_core_ns()),
        );
        if let Some(t1) = one_thread_ns {
            s += &format!(
                " = {:.2}x the one-thread run's {:.2} ms",
                t1 as f64 / self.two_core_ns().max(1) as f64,
                ms(t1)
            );
        }
        s
    }
}

impl Sim {
    /// Splits the CPU time of the runs that follow into serial and parallel parts per
    /// thread (`true`; a new, empty profile), or stops (`false`, the default). Results are
    /// the same either way; profiling reads each thread's CPU clock a few times per cycle.
    pub fn set_scale_profile(&mut self, on: bool) {
        self.profile = on.then(Box::default);
    }

    /// The profile of the runs since [`Sim::set_scale_profile`] turned it on.
    pub fn scale_profile(&self) -> Option<&ScaleProfile> {
        self.profile.as_deref()
    }
}
