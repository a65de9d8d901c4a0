//! Whatever ends a threaded run (its cycle limit, an error of a PE's step, a panic in a
//! task's call) ends its helper threads' part too: the run returns (or the panic reaches the
//! caller) instead of waiting for them, and the simulation runs again afterwards. A run that
//! fails in a PE's step leaves the state a one-thread run leaves (the failing cycle is
//! stepped on every PE, the first error in row-major order is the run's), so the runs after
//! it report the same at any thread count. Grids of 4 x 4 PEs with every grid and cycle
//! threaded (`set_min_parallel_pes(1)`), on 2, 3 and 5 threads.

use crate::common::*;
use npusim_cerebras::ops::OpError;
use npusim_cerebras::sched::{Action, RunReport, Sim, SimError};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};
use proptest::prelude::*;

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
        // the next run starts and returns too
        let _ = sim.run(100);
    }
    Ok(())
}

/// A call that fails with a form error naming `what`.
fn probe_error(what: &'static str) -> OpError {
    OpError::Form {
        op: what,
        form: "D".into(),
        accepted: "S".into(),
    }
}

/// How a run ended, as text: the error, or the report's cycles, hash and statistics.
fn ending(r: &Result<RunReport, SimError>) -> String {
    match r {
        Ok(r) => format!(
            "ok {} cycles {:#x} {:?} {:?}",
            r.cycles, r.trace_hash, r.pes, r.idle
        ),
        Err(e) => format!("error: {e}"),
    }
}

#[test]
fn after_a_threaded_run_failing_on_every_pe_the_next_runs_report_as_on_one_thread() -> Res {
    // every PE's call fails in the same cycle: on one thread the run stopped at PE (0, 0)
    // and left the PEs after it unstepped (the next runs reported PE (1, 0), then (2, 0)),
    // while on two threads a helper had stepped some of them (the next run finished)
    let failing = || vec![Action::call(|_| Err(probe_error("probe")))];
    let endings = |threads: usize| -> Result<Vec<String>, SimError> {
        let mut sim = grid(threads, failing)?;
        Ok((0..4).map(|_| ending(&sim.run(100))).collect())
    };
    let want = endings(1)?;
    assert!(want[0].contains("PE (0, 0) cycle 1"), "{want:?}");
    for threads in [2, 3, 5] {
        assert_eq!(endings(threads)?, want, "{threads} threads");
    }
    Ok(())
}

/// A `w` x `h` grid on `threads` threads, every cycle threaded: each PE runs local task 10
/// `iterations` times; the task adds 1 to each word of `m` (a synchronous `@add16`, run ahead
/// of its cycles), then Rust code (PE-local on every other PE, so windows of cycles open)
/// counts the task in `c[0]`, notes the cycle in `c[1]`, fails in the runs of the task `fails`
/// names for the PE (`(PE, run of the task from 1)`, PEs row-major), and activates the task
/// again.
fn counting_grid(
    (w, h): (u32, u32),
    threads: usize,
    iterations: u32,
    fails: &[(usize, u32)],
    windows: bool,
) -> Result<Sim, Box<dyn std::error::Error>> {
    let mut sim = Sim::new(Arch::Wse2, w, h)?;
    for k in 0..(w * h) as usize {
        let (x, y) = ((k % w as usize) as i64, (k / w as usize) as i64);
        let pe = sim.pe_mut(x, y)?;
        pe.mem.declare("c", ElemTy::U32, &[2])?;
        pe.mem.declare("m", ElemTy::U16, &[6])?;
        let m = pe.mem.mem1d("|i|{6} -> m[i]")?;
        let mine: Vec<u32> = fails
            .iter()
            .filter(|(p, _)| *p == k)
            .map(|&(_, c)| c)
            .collect();
        let step = move |c: &mut [u32], cycle: u64| -> Result<Vec<Action>, OpError> {
            c[0] += 1;
            c[1] = cycle as u32;
            if mine.contains(&c[0]) {
                return Err(probe_error("probe"));
            }
            Ok(if c[0] < iterations {
                vec![Action::Activate(local_task(10))]
            } else {
                Vec::new()
            })
        };
        let call = if k % 2 == 0 {
            Action::call_local(move |ctx| {
                let mut c = ctx.mem.read::<u32>("c")?;
                let r = step(&mut c, ctx.cycle);
                ctx.mem.write("c", &c)?;
                r
            })
        } else {
            Action::call(move |ctx| {
                let mut c = ctx.pe.mem.read::<u32>("c")?;
                let r = step(&mut c, ctx.cycle);
                ctx.pe.mem.write("c", &c)?;
                r
            })
        };
        let add = Action::sync(Op::Add16, m.clone(), vec![m.into(), Scalar::u16(1).into()]);
        sim.bind_task(x, y, local_task(10), "count", vec![add, call])?;
        sim.activate(x, y, local_task(10))?;
    }
    sim.set_windows(windows);
    sim.set_threads(threads)?;
    sim.set_min_parallel_pes(1);
    Ok(sim)
}

/// Three runs of [`counting_grid`] in a row: how each ended and every PE's `c` and `m` after
/// it.
fn three_runs(
    dims: (u32, u32),
    threads: usize,
    fails: &[(usize, u32)],
    windows: bool,
) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let mut sim = counting_grid(dims, threads, 12, fails, windows)?;
    let mut out = Vec::new();
    for _ in 0..3 {
        let r = sim.run(2_000);
        let mut mems = Vec::new();
        for y in 0..i64::from(dims.1) {
            for x in 0..i64::from(dims.0) {
                let pe = sim.pe(x, y)?;
                mems.push((pe.mem.read::<u32>("c")?, pe.mem.read::<u16>("m")?));
            }
        }
        out.push(format!("{} {mems:?}", ending(&r)));
    }
    Ok(out)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// A threaded run failing at random PEs and cycles (several in one cycle too: the PEs run
    /// their tasks in step, so the same run of the task is the same cycle) reports
    /// the one-thread run's error, leaves its memories, and the runs after it report the
    /// same (cycles, trace hash, statistics) as on one thread.
    #[test]
    fn a_failed_threaded_run_leaves_the_one_thread_state(
        fails in proptest::collection::vec((0usize..20, 1u32..12), 1..4),
        same_cycle in any::<bool>(),
        windows in any::<bool>(),
    ) {
        let mut fails = fails;
        if same_cycle {
            let c = fails[0].1;
            for f in &mut fails {
                f.1 = c;
            }
        }
        let want = three_runs((5, 4), 1, &fails, windows).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(want[0].starts_with("error"), "{}", want[0]);
        for threads in [2, 3, 5] {
            let got = three_runs((5, 4), threads, &fails, windows).map_err(|e| TestCaseError::fail(e.to_string()))?;
            prop_assert_eq!(&got, &want, "{} threads", threads);
        }
    }
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
