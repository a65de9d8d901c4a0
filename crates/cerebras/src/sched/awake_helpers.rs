//! The helper threads of a threaded run, awake from its first cycle to its last: spawned once
//! per run, each waits for the next cycle's part ([`super::range_claims`]) by looking for
//! pool work, spinning for a bounded time since the last part it ran, then yielding its core
//! (never parking, which would cost a wake-up per cycle and let the loop's thread claim most
//! ranges before it came), and runs the part as soon as the cycle offers it. They leave when
//! the run ends, however it ends: nothing changed, the cycle limit, an error, or a panic.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::error::SimError;
use super::sim::Sim;
use super::stats::RunReport;

/// How long a helper looks for pool work spinning, since the last work it ran, before it
/// starts yielding its core between looks: longer than a cycle's serial part (the routers,
/// tens of microseconds on a 64 x 64 grid), so that a helper on a core of its own never
/// yields it during a run (yielding it on a loaded machine lets other processes take it for
/// a time slice, and the loop's thread steps the cycles' ranges alone meanwhile).
const SPIN_BEFORE_YIELD: Duration = Duration::from_millis(1);

impl Sim {
    /// The cycle loop of a threaded run on this pool thread, with the pool's other threads
    /// kept awake as helpers for the whole run.
    pub(super) fn run_with_awake_helpers(&mut self, limit: u64) -> Result<RunReport, SimError> {
        let helpers = self.threads.count.saturating_sub(1);
        let stop = AtomicBool::new(false);
        let loop_thread = rayon::current_thread_index();
        rayon::scope(|s| {
            for _ in 0..helpers {
                s.spawn(|_| stay_awake(&stop, loop_thread));
            }
            // the helpers leave when the loop returns, fails or panics
            let _stop = StopOnDrop(&stop);
            self.run_cycles(limit, true)
        })
    }
}

/// A helper's life: runs the pool work it finds (the cycles' parts) until `stop`. On the
/// loop's own thread (which takes a helper's job back when no other thread took it), it
/// leaves at once: the loop would otherwise wait for itself.
fn stay_awake(stop: &AtomicBool, loop_thread: Option<usize>) {
    if rayon::current_thread_index() == loop_thread {
        return;
    }

    let mut since = Instant::now();
    while !stop.load(Ordering::Acquire) {
        match rayon::yield_now() {
            Some(rayon::Yield::Executed) => since = Instant::now(),
            Some(rayon::Yield::Idle) if since.elapsed() < SPIN_BEFORE_YIELD => {
                std::hint::spin_loop();
            }
            Some(rayon::Yield::Idle) => std::thread::yield_now(),
            None => return,
        }
    }
}

/// Sets the flag when dropped: the run ended, however.
struct StopOnDrop<'a>(&'a AtomicBool);

impl Drop for StopOnDrop<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}
