//! Windows of PE-local cycles (`Sim::set_windows`, on by default): the cycles after a task
//! start whose steps touch only the PE are stepped at once, and nothing shows it. A window
//! ends before the next task start, which reads the input queues: a wavelet that arrives
//! inside a window for a task with a lower id is started first, as the scheduler's rule says
//! ("the idle main thread starts the eligible task with the lowest id"), and a run stopped at
//! any cycle inside a window (its limit, another PE's error) leaves the PE as stepping cycle by
//! cycle would, from where a further run goes on as one run would have.

use std::error::Error;

use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::sched::{Action, RunReport, Sim, SimError};
use npusim_cerebras::{Arch, ElemTy, Op};

use crate::common::data_task;

/// Color (and data task id) of the `a` wavelets.
const A: i64 = 5;
/// Color (and data task id) of the `b` wavelet: a lower id than `A`.
const B: i64 = 3;

/// Words each `a` task copies with one synchronous `@mov16` after its Rust code.
const COPY: u64 = 12;

/// A data task body: Rust code that sees only the memory appends `payload + add` to `log`
/// (at `count`, then counts) and declares a one-word array named after the count; then, with
/// `copy`, a synchronous `@mov16` of `COPY` words.
fn logging_body(
    add: u32,
    copy: Option<(npusim_cerebras::dsd::Mem1d, npusim_cerebras::dsd::Mem1d)>,
) -> Vec<Action> {
    let mut body = vec![Action::call_local(move |ctx| {
        let n = ctx.mem.read::<u32>("count")?[0];
        let payload = ctx.wavelet.map_or(0, |w| w.payload);
        let mut log = ctx.mem.read::<u32>("log")?;
        if let Some(slot) = log.get_mut(n as usize) {
            *slot = payload + add;
        }
        ctx.mem.write("log", &log)?;
        ctx.mem.write("count", &[n + 1])?;
        ctx.mem.declare(&format!("seen{n}"), ElemTy::U16, &[1])?;
        Ok(Vec::new())
    })];
    if let Some((dst, src)) = copy {
        body.push(Action::sync(Op::Mov16, dst, vec![src.into()]));
    }
    body
}

/// One PE fed from the west edge with `input`: data task `A` logs and copies, data task `B`
/// logs (payload + 1000).
fn fed(input: Vec<Wavelet>, windows: bool) -> Result<Sim, Box<dyn Error>> {
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    sim.set_windows(windows);
    let f = sim.fabric_mut();
    for c in [A, B] {
        f.set_color_config(
            0,
            0,
            Color::new(c)?,
            ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
        )?;
    }
    f.open_edge(0, 0, Dir::West)?;
    f.stream_in(0, 0, Dir::West, input)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("log", ElemTy::U32, &[8])?;
    pe.mem.declare("count", ElemTy::U32, &[1])?;
    let src: Vec<u16> = (0..COPY as u16).map(|i| 7 + i).collect();
    pe.mem.declare_with("src", &[COPY], &src)?;
    pe.mem.declare("dst", ElemTy::U16, &[COPY])?;
    let dst = pe.mem.mem1d(&format!("|i|{{{COPY}}} -> dst[i]"))?;
    let src = pe.mem.mem1d(&format!("|i|{{{COPY}}} -> src[i]"))?;
    sim.bind_task(0, 0, data_task(A), "a", logging_body(0, Some((dst, src))))?;
    sim.bind_task(0, 0, data_task(B), "b", logging_body(1000, None))?;
    Ok(sim)
}

/// `a` wavelets 1 and 2, then `b` wavelet 3: the second `a` is queued when the first `a`
/// task starts, the `b` arrives while it runs.
fn a_a_b() -> Result<Vec<Wavelet>, Box<dyn Error>> {
    Ok(vec![
        Wavelet::data32(Color::new(A)?, 1),
        Wavelet::data32(Color::new(A)?, 2),
        Wavelet::data32(Color::new(B)?, 3),
    ])
}

#[test]
fn a_wavelet_that_arrives_inside_a_window_starts_its_lower_id_task_first()
-> Result<(), Box<dyn Error>> {
    let mut seen = Vec::new();
    for windows in [true, false] {
        let mut sim = fed(a_a_b()?, windows)?;
        let report = sim.run(1_000)?;
        let log = sim.pe(0, 0)?.mem.read::<u32>("log")?;
        // the first `a` task runs 1 + COPY cycles; the `b` (id 3) is in its queue when it
        // ends, and starts before the second `a` (id 5) although that one was queued first: a
        // window stepping on into the next task start, with the queues as they were when it
        // opened, would run the second `a` first
        assert_eq!(&log[..3], &[1, 1003, 2], "windows {windows}");
        seen.push((report, sim.pe(0, 0)?.mem.clone()));
    }
    assert_eq!(seen[0].0, seen[1].0);
    assert!(seen[0].1 == seen[1].1, "the memories differ");
    Ok(())
}

/// A window never reaches past the run's last cycle, so a run stopped at its limit leaves
/// nothing stepped ahead.
#[test]
fn a_run_stopped_at_any_cycle_inside_a_window_goes_on_as_one_run() -> Result<(), Box<dyn Error>> {
    let whole = |windows: bool| -> Result<RunReport, Box<dyn Error>> {
        Ok(fed(a_a_b()?, windows)?.run(1_000)?)
    };
    let one = whole(false)?;
    assert_eq!(whole(true)?, one);
    for limit in 1..one.cycles {
        let mut stopped = Vec::new();
        for windows in [true, false] {
            let mut sim = fed(a_a_b()?, windows)?;
            let e = sim.run(limit).err().ok_or("the run ended early")?;
            assert!(matches!(e, SimError::CycleLimit { .. }), "{e}");
            // the memory (words and declared arrays) as stepping cycle by cycle left it
            stopped.push(sim.pe(0, 0)?.mem.clone());
            assert_eq!(sim.run(1_000)?, one, "limit {limit}, windows {windows}");
        }
        assert!(
            stopped[0] == stopped[1],
            "limit {limit}: the memories differ"
        );
    }
    Ok(())
}

#[test]
fn another_pes_error_inside_a_window_leaves_the_pe_at_the_errors_cycle()
-> Result<(), Box<dyn Error>> {
    // PE 1 (east of the fed PE) fails at cycle `at` with an `@mov16` past its memory; PE 0
    // is then inside a window
    let build = |windows: bool, room: u64| -> Result<Sim, Box<dyn Error>> {
        let mut sim = Sim::new(Arch::Wse2, 2, 1)?;
        sim.set_windows(windows);
        let f = sim.fabric_mut();
        f.set_color_config(
            0,
            0,
            Color::new(A)?,
            ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
        )?;
        f.open_edge(0, 0, Dir::West)?;
        f.stream_in(0, 0, Dir::West, [Wavelet::data32(Color::new(A)?, 9)])?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("log", ElemTy::U32, &[8])?;
        pe.mem.declare("count", ElemTy::U32, &[1])?;
        pe.mem
            .declare_with("src", &[COPY], &vec![5u16; COPY as usize])?;
        pe.mem.declare("dst", ElemTy::U16, &[COPY])?;
        let dst = pe.mem.mem1d(&format!("|i|{{{COPY}}} -> dst[i]"))?;
        let src = pe.mem.mem1d(&format!("|i|{{{COPY}}} -> src[i]"))?;
        sim.bind_task(0, 0, data_task(A), "a", logging_body(0, Some((dst, src))))?;
        // PE 1: a local task copying 40 words into `room` words at the memory's end
        let words = 24 * 1024u64;
        let pe = sim.pe_mut(1, 0)?;
        pe.mem.declare("s", ElemTy::U16, &[40])?;
        pe.mem.declare("pad", ElemTy::U16, &[words - room - 40])?;
        pe.mem.declare("v", ElemTy::U16, &[room])?;
        let v = pe.mem.mem1d("|i|{40} -> v[i]")?;
        let s = pe.mem.mem1d("|i|{40} -> s[i]")?;
        let t = crate::common::local_task(10);
        sim.bind_task(
            1,
            0,
            t,
            "copy",
            vec![Action::sync(Op::Mov16, v, vec![s.into()])],
        )?;
        sim.activate(1, 0, t)?;
        Ok(sim)
    };
    // `v` starts at an even word: even rooms, failing at cycles 3, 5, ..., 17
    for room in (2..=COPY + 4).step_by(2) {
        let mut seen = Vec::new();
        for windows in [true, false] {
            let mut sim = build(windows, room)?;
            let e = sim.run(1_000).err().ok_or("the copy past the memory ran")?;
            assert!(matches!(e, SimError::Op { x: 1, .. }), "{e}");
            seen.push((e.to_string(), sim.pe(0, 0)?.mem.clone()));
        }
        assert_eq!(seen[0].0, seen[1].0, "room {room}");
        assert!(seen[0].1 == seen[1].1, "room {room}: the memories differ");
    }
    Ok(())
}
