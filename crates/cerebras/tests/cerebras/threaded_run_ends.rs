//! Whatever ends a threaded run (its cycle limit, an error of a PE's step, a panic in a
//! task's call) ends its helper threads' part too: the run returns (or the panic reaches the
//! caller) instead of waiting for them, and the simulation runs again afterwards. Grids of 4 x 4 PEs with every grid and
//! cycle threaded (`set_min_parallel_pes(1)`), on 2, 3 and 5 threads.

use crate::common::*;
use npusim_cerebras::Arch;
use npusim_cerebras::ops::OpError;
use npusim_cerebras::sched::{Action, Sim, SimError};

type Res = Result<(), Box<dyn std::error::Error>>;

/// A 4 x 4 grid whose every PE runs local task 10, with body `body`, on `threads` threads,
/// every cycle threaded.
fn grid(threads: usize, body: impl Fn() -> Vec<Action>) -> Result<Sim, SimError> {
    let mut sim = Sim::new(Arch::Wse2, 4, 4)?;
    for y in 0..4 {
        for x in 0..4 {
            sim.bind_task(x, y, local_task(10), "t", body())?;
            sim.activate(x, y, local_task(10))?;
        }
    }
    sim.set_threads(threads)?;
    sim.set_min_parallel_pes(1);
    Ok(sim)
}

#[test]
fn a_threaded_run_stopped_at_its_cycle_limit_returns_and_runs_again() -> Res {
    for threads in [2, 3, 5] {
        let mut sim = grid(threads, || vec![Action::Activate(local_task(10))])?;
        for limit in [40, 80] {
            let e = sim.run(limit).expect_err("runs forever");
            assert!(
                matches!(&e, SimError::CycleLimit { limit: l, busy } if *l == limit && busy.len() == 16),
                "{threads} threads: {e}"
            );
        }
    }
    Ok(())
}

#[test]
fn a_threaded_run_failing_in_a_pe_step_returns_the_error_and_runs_again() -> Res {
    let failing = || {
        vec![Action::call(|_| {
            Err(OpError::Form {
                op: "probe",
                form: "D".into(),
                accepted: "S".into(),
            })
        })]
    };
    let mut one = grid(1, failing)?;
    let want = one.run(100).expect_err("a call that fails").to_string();
    assert!(
        want.contains("PE (0, 0) cycle 1") && want.contains("@probe does not accept"),
        "{want}"
    );
    for threads in [2, 3, 5] {
        let mut sim = grid(threads, failing)?;
        let e = sim.run(100).expect_err("a call that fails");
        assert_eq!(e.to_string(), want, "{threads} threads");
        // the next run starts and returns too (what it reports after a failed run is not
        // pinned here: PEs past the failed one may have been stepped by a helper)
        let _ = sim.run(100);
    }
    Ok(())
}

#[test]
fn a_panic_in_a_task_call_of_a_threaded_run_reaches_the_caller() -> Res {
    for threads in [2, 3, 5] {
        let mut sim = grid(threads, || {
            vec![Action::call(|_| panic!("a task's call panicked"))]
        })?;
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sim.run(100)));
        let payload = caught.expect_err("the call's panic reaches the caller");
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        assert_eq!(text, "a task's call panicked", "{threads} threads");
    }
    Ok(())
}
