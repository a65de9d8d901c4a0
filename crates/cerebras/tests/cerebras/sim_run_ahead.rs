//! Elements of PE-local operations done ahead of their cycles (`Sim::set_run_ahead`, on by
//! default) show nowhere: an element that fails does so at its own cycle (one element per
//! cycle, the first in the cycle of the operation's action), and a run stopped early (another
//! PE's error, the cycle limit) leaves every PE as doing each element in its cycle would,
//! from where a further run goes on as one run would have.

use std::error::Error;

use crate::common::local_task;
use npusim_cerebras::sched::Action;
use npusim_cerebras::sched::{RunReport, Sim, SimError};
use npusim_cerebras::{Arch, ElemTy, Op};

/// 16-bit words of a WSE-2 PE memory (48 KiB).
const WORDS: u64 = 24 * 1024;

/// The values PE `x` copies.
fn source(x: i64, len: u64) -> Vec<u16> {
    (0..len)
        .map(|i| (1000 + 100 * x as u64 + i) as u16)
        .collect()
}

/// PE `(x, 0)` copies `len` 16-bit words `src` to `v` with one synchronous `@mov16`, in a
/// local task activated by the host (it starts in cycle 0, the copy runs from cycle 1). With
/// `room`, `v` ends at the end of the memory after `room` words, so element `room` and those
/// after it fall outside the memory.
fn copier(sim: &mut Sim, x: i64, len: u64, room: Option<u64>) -> Result<(), Box<dyn Error>> {
    let pe = sim.pe_mut(x, 0)?;
    pe.mem.declare_with("src", &[len], &source(x, len))?;
    if let Some(room) = room {
        // `src` takes `len` words rounded up to the 4-byte alignment
        pe.mem.declare(
            "pad",
            ElemTy::U16,
            &[WORDS - room - len.next_multiple_of(2)],
        )?;
    }
    pe.mem.declare("v", ElemTy::U16, &[room.unwrap_or(len)])?;
    let v = pe.mem.mem1d(&format!("|i|{{{len}}} -> v[i]"))?;
    let src = pe.mem.mem1d(&format!("|i|{{{len}}} -> src[i]"))?;
    sim.bind_task(
        x,
        0,
        local_task(10),
        "copy",
        vec![Action::sync(Op::Mov16, v, vec![src.into()])],
    )?;
    sim.activate(x, 0, local_task(10))?;
    Ok(())
}

/// What `v` of PE `x` holds once `done` of `len` elements were copied.
fn copied(x: i64, len: u64, done: u64) -> Vec<u16> {
    let mut v = source(x, len);
    for w in v.iter_mut().skip(done as usize) {
        *w = 0;
    }
    v
}

#[test]
fn an_element_outside_the_memory_fails_in_its_own_cycle() -> Result<(), Box<dyn Error>> {
    let mut errors = Vec::new();
    for ahead in [true, false] {
        let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
        sim.set_run_ahead(ahead);
        copier(&mut sim, 0, 40, Some(10))?;
        let e = sim.run(1_000).err().ok_or("the copy past the memory ran")?;
        // element 10 is the first outside the memory: cycle 1 + 10
        assert!(matches!(e, SimError::Op { cycle: 11, .. }), "{e}");
        // the ten elements inside the memory were copied
        assert_eq!(sim.pe(0, 0)?.mem.read::<u16>("v")?, source(0, 10));
        errors.push(e.to_string());
    }
    assert_eq!(errors[0], errors[1]);
    Ok(())
}

#[test]
fn another_pes_error_leaves_a_pe_that_ran_ahead_at_the_errors_cycle() -> Result<(), Box<dyn Error>>
{
    let mut seen = Vec::new();
    for ahead in [true, false] {
        let mut sim = Sim::new(Arch::Wse2, 2, 1)?;
        sim.set_run_ahead(ahead);
        copier(&mut sim, 0, 60, None)?;
        copier(&mut sim, 1, 40, Some(10))?;
        let e = sim.run(1_000).err().ok_or("the copy past the memory ran")?;
        assert!(
            matches!(
                e,
                SimError::Op {
                    x: 1,
                    cycle: 11,
                    ..
                }
            ),
            "{e}"
        );
        // PE 0 is stepped before PE 1 in cycle 11: elements 0..=10 done, no more
        let v = sim.pe(0, 0)?.mem.read::<u16>("v")?;
        assert_eq!(v, copied(0, 60, 11), "run ahead {ahead}");
        seen.push((e.to_string(), v));
    }
    assert_eq!(seen[0], seen[1]);
    Ok(())
}

#[test]
fn a_run_stopped_at_its_cycle_limit_goes_on_as_one_run() -> Result<(), Box<dyn Error>> {
    let whole = |ahead: bool| -> Result<RunReport, Box<dyn Error>> {
        let mut sim = Sim::new(Arch::Wse2, 2, 1)?;
        sim.set_run_ahead(ahead);
        copier(&mut sim, 0, 60, None)?;
        copier(&mut sim, 1, 30, None)?;
        Ok(sim.run(1_000)?)
    };
    let one = whole(true)?;
    assert_eq!(one, whole(false)?);
    for ahead in [true, false] {
        let mut sim = Sim::new(Arch::Wse2, 2, 1)?;
        sim.set_run_ahead(ahead);
        copier(&mut sim, 0, 60, None)?;
        copier(&mut sim, 1, 30, None)?;
        // cycles 0..=19 run: elements 0..=18 of each copy
        let e = sim.run(20).err().ok_or("60 elements in 20 cycles")?;
        assert!(matches!(e, SimError::CycleLimit { limit: 20, .. }), "{e}");
        assert_eq!(sim.pe(0, 0)?.mem.read::<u16>("v")?, copied(0, 60, 19));
        assert_eq!(sim.pe(1, 0)?.mem.read::<u16>("v")?, copied(1, 30, 19));
        let rest = sim.run(1_000)?;
        assert_eq!(rest, one, "run ahead {ahead}");
        assert_eq!(sim.pe(0, 0)?.mem.read::<u16>("v")?, source(0, 60));
    }
    Ok(())
}

/// Runs stopped early on several threads (every cycle's PEs cut into ranges of one or a few
/// PEs, some stepped by other threads and hashed after the join): the error is the one of one
/// thread (the first PE in row-major order to fail), and a run stopped at its cycle limit goes
/// on to the report (trace hash included) of one whole run on one thread.
#[test]
fn stopped_runs_on_several_threads_are_those_of_one_thread() -> Result<(), Box<dyn Error>> {
    let build = |threads: usize, bad: bool| -> Result<Sim, Box<dyn Error>> {
        let mut sim = Sim::new(Arch::Wse2, 8, 1)?;
        sim.set_threads(threads)?;
        sim.set_min_parallel_pes(1);
        for x in 0..8 {
            // PEs 3 and 6 copy past the memory from element 12 (cycle 13) and 16 (cycle 17)
            let room = match x {
                3 if bad => Some(12),
                6 if bad => Some(16),
                _ => None,
            };
            copier(&mut sim, x, 30 + 4 * x as u64, room)?;
        }
        Ok(sim)
    };
    let one = build(1, false)?.run(1_000)?;
    let mut errors = Vec::new();
    for threads in [1, 2, 3, 5] {
        let mut sim = build(threads, true)?;
        let e = sim
            .run(1_000)
            .err()
            .ok_or("the copies past the memory ran")?;
        assert!(
            matches!(
                e,
                SimError::Op {
                    x: 3,
                    cycle: 13,
                    ..
                }
            ),
            "{threads} threads: {e}"
        );
        errors.push(e.to_string());
        let mut sim = build(threads, false)?;
        let e = sim.run(20).err().ok_or("the copies ran in 20 cycles")?;
        assert!(
            matches!(e, SimError::CycleLimit { limit: 20, .. }),
            "{threads} threads: {e}"
        );
        assert_eq!(sim.run(1_000)?, one, "{threads} threads, resumed");
        assert_eq!(build(threads, false)?.run(1_000)?, one, "{threads} threads");
    }
    assert!(errors.iter().all(|e| *e == errors[0]), "{errors:?}");
    Ok(())
}
