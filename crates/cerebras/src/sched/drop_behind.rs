//! Freeing a large grid's PEs behind the caller's back: dropping 4096 PEs is tens of
//! thousands of frees (memories, queues, task tables: 6-9 ms of a `npusim bench` call on a
//! 64 x 64 grid, `docs/speed.md`), which a thread of their own does while the caller goes on.
//! At most one such thread runs at a time: the next drop first waits for the last, so memory
//! freed behind is bounded by one grid.

use std::sync::{Mutex, PoisonError};
use std::thread::JoinHandle;

/// Grids of fewer PEs than this are freed in place (a thread costs more than their frees).
pub(super) const MIN_PES_FREED_BEHIND: usize = 1024;

/// The thread freeing the last grid, if any.
static FREEING: Mutex<Option<JoinHandle<()>>> = Mutex::new(None);

/// Drops `what` on a thread of its own, after the last grid freed that way is gone; in place
/// when no thread can be started.
pub(super) fn drop_behind<T: Send + 'static>(what: T) {
    let mut freeing = FREEING.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(last) = freeing.take() {
        // a panic while freeing is that thread's; the values are gone either way
        let _ = last.join();
    }
    // when no thread can be started, the closure and `what` with it are dropped here
    if let Ok(handle) = std::thread::Builder::new()
        .name("npusim-free".into())
        .spawn(move || drop(what))
    {
        *freeing = Some(handle);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::{FREEING, PoisonError};
    use crate::arch::Arch;
    use crate::ids::LocalTaskId;
    use crate::sched::{Action, Sim};

    /// Waits for the thread freeing the last grid.
    fn wait_freed() {
        let last = FREEING
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(last) = last {
            assert!(last.join().is_ok(), "freeing a grid panicked");
        }
    }

    #[test]
    fn large_grids_are_freed_behind_and_small_ones_in_place()
    -> Result<(), Box<dyn std::error::Error>> {
        for (w, h, behind) in [
            (32, 32, true),
            (64, 16, true),
            (31, 33, true),
            (16, 16, false),
        ] {
            let held = Arc::new(());
            let mut sim = Sim::new(Arch::Wse2, w, h)?;
            let mine = Arc::clone(&held);
            let task = LocalTaskId::new(10)?;
            sim.bind_task(
                0,
                0,
                task,
                "t",
                vec![Action::call(move |_| {
                    let _ = &mine;
                    Ok(Vec::new())
                })],
            )?;
            drop(sim);
            if !behind {
                assert_eq!(Arc::strong_count(&held), 1, "{w} x {h} freed in place");
            }
            wait_freed();
            assert_eq!(Arc::strong_count(&held), 1, "{w} x {h} freed");
        }
        Ok(())
    }
}
