//! Random small programs: the simulator never panics, always stops (result, error or cycle
//! limit), and two runs of one program end the same way.

use crate::common::*;
use npusim_cerebras::dsd::{FabIn, FabOut};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::sched::{Action, AsyncConfig, Sim};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};
use proptest::prelude::*;

/// One random action: (kind, queue, extent).
type Step = (u8, u8, u8);

fn build(
    arch: Arch,
    topology: u8,
    routes: &[(usize, usize)],
    steps: &[Vec<Step>],
) -> Result<Sim, Box<dyn std::error::Error>> {
    // color 0: host -> PE 0; color 1: PE 0 -> PE 1; color 2: PE 1 -> host
    let (c0, c1, c2) = (Color::new(0)?, Color::new(1)?, Color::new(2)?);
    let mut sim = Sim::new(arch, 2, 1)?;
    let f = sim.fabric_mut();
    f.open_edge(0, 0, Dir::West)?;
    f.open_edge(1, 0, Dir::East)?;
    let fixed = |rx: Dir, tx: &[Dir]| ColorConfig::fixed(Route::new(&[rx], tx));
    f.set_color_config(0, 0, c0, fixed(Dir::West, &[Dir::Ramp]))?;
    f.set_color_config(0, 0, c1, fixed(Dir::Ramp, &[Dir::East]))?;
    let pe1_tx: &[Dir] = match topology % 4 {
        0 => &[Dir::Ramp],
        1 => &[Dir::East],
        _ => &[Dir::Ramp, Dir::East],
    };
    f.set_color_config(1, 0, c1, fixed(Dir::West, pe1_tx))?;
    f.set_color_config(1, 0, c2, fixed(Dir::Ramp, &[Dir::East]))?;
    if topology % 4 == 3 {
        // a random (maybe broken) route for color 1 on PE 1
        let (rx, tx) = routes[0];
        f.set_color_config(1, 0, c1, fixed(Dir::ALL[rx % 5], &[Dir::ALL[tx % 5]]))?;
    }
    f.stream_in(0, 0, Dir::West, (0..5).map(|v| Wavelet::data32(c0, v)))?;
    for (k, body) in steps.iter().enumerate() {
        let x = k as i64;
        let pe = sim.pe_mut(x, 0)?;
        pe.mem.declare("m", ElemTy::U16, &[8])?;
        let (cin, cout) = if k == 0 { (c0, c1) } else { (c1, c2) };
        for q in 0..4u8 {
            pe.queues.bind_output(out_queue(q), cout)?;
        }
        pe.queues.bind_input(in_queue(1), cin)?;
        let mut actions = Vec::new();
        for &(kind, q, ext) in body {
            let q = i64::from(q % 4);
            let ext = i64::from(ext % 6 + 1);
            let m = pe.mem.mem1d(&format!("|i|{{{ext}}} -> m[i]"))?;
            actions.push(match kind % 6 {
                0 => Action::spawn(
                    Op::Mov16,
                    FabOut::new(arch, ext, Some(out_queue(q)), None)?,
                    vec![m.into()],
                    AsyncConfig::default(),
                ),
                1 => Action::spawn(
                    Op::Mov16,
                    m,
                    vec![FabIn::new(arch, ext, Some(in_queue(q)), None)?.into()],
                    AsyncConfig::activate(local_task(11)),
                ),
                2 => Action::sync(Op::Add16, m.clone(), vec![m.into(), Scalar::u16(1).into()]),
                3 => Action::sync(
                    Op::Mov16,
                    FabOut::new(arch, ext, Some(out_queue(q)), None)?,
                    vec![Scalar::u16(7).into()],
                ),
                4 => Action::Activate(local_task(11)),
                _ => Action::Block(local_task(11).into()),
            });
        }
        sim.bind_task(x, 0, local_task(10), "main", actions)?;
        sim.bind_task(
            x,
            0,
            local_task(11),
            "t",
            vec![Action::Unblock(local_task(11).into())],
        )?;
        sim.activate(x, 0, local_task(10))?;
    }
    Ok(sim)
}

fn outcome(arch: Arch, topology: u8, routes: &[(usize, usize)], steps: &[Vec<Step>]) -> String {
    outcome_stepping(arch, topology, routes, steps, (true, true))
}

/// The run's end, with its statistics and the PEs' memories (after an error too), skipping
/// idle PEs or stepping every PE every cycle, running PE-local operations ahead or not.
fn outcome_stepping(
    arch: Arch,
    topology: u8,
    routes: &[(usize, usize)],
    steps: &[Vec<Step>],
    (skip_idle, ahead): (bool, bool),
) -> String {
    match build(arch, topology, routes, steps) {
        Err(e) => format!("setup: {e}"),
        Ok(mut sim) => {
            sim.set_idle_skipping(skip_idle);
            sim.set_run_ahead(ahead);
            let run = sim.run(500);
            let memories: Vec<_> = (0..2)
                .map(|x| sim.pe(x, 0).map(|pe| pe.mem.read::<u16>("m")))
                .collect();
            match run {
                Ok(r) => format!(
                    "ok {} {:x} {:?} {:?} {memories:?}",
                    r.cycles,
                    r.trace_hash,
                    r.pes,
                    sim.collected()
                ),
                Err(e) => format!("error: {e} {memories:?}"),
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn random_programs_stop_and_repeat(
        wse3 in any::<bool>(),
        topology in any::<u8>(),
        routes in proptest::collection::vec((0usize..5, 0usize..5), 2),
        steps in proptest::collection::vec(proptest::collection::vec((any::<u8>(), any::<u8>(), any::<u8>()), 0..5), 2),
    ) {
        let arch = if wse3 { Arch::Wse3 } else { Arch::Wse2 };
        let first = outcome(arch, topology, &routes, &steps);
        let second = outcome(arch, topology, &routes, &steps);
        prop_assert_eq!(&first, &second);
        // skipping idle PEs changes nothing, statistics included
        let every_pe = outcome_stepping(arch, topology, &routes, &steps, (false, true));
        prop_assert_eq!(&first, &every_pe);
        // nor does doing each element in its own cycle
        let in_cycle = outcome_stepping(arch, topology, &routes, &steps, (true, false));
        prop_assert_eq!(first, in_cycle);
    }
}

/// A case the proptest found: PE 1's task starts a window whose last cycle leaves an `@add16`
/// running ahead, then a router error stops the run. Stepping cycle by cycle, PE 1's `m` is
/// `[2, 1, 0, ...]` at the error; the window's settling ended the operation's memory journal
/// instead of its own, so the operation's rewind undid the window's stores too (`[0, ...]`).
#[test]
fn a_router_error_after_a_window_keeps_the_windows_stores() -> Result<(), Box<dyn std::error::Error>>
{
    let steps = vec![
        vec![(40, 0, 0), (87, 0, 0)],
        vec![(14, 0, 163), (46, 0, 0), (158, 0, 15)],
    ];
    let mut seen = Vec::new();
    for (ahead, windows) in [(false, false), (true, false), (true, true)] {
        let mut sim = build(Arch::Wse2, 3, &[(0, 0), (0, 0)], &steps)?;
        sim.set_run_ahead(ahead);
        sim.set_windows(windows);
        let err = sim.run(500).err().ok_or("the broken route ran")?;
        assert!(err.to_string().contains("no route"), "{err}");
        let m: Vec<Vec<u16>> = (0..2)
            .map(|x| sim.pe(x, 0).map(|pe| pe.mem.read::<u16>("m")))
            .collect::<Result<Result<_, _>, _>>()??;
        seen.push(m);
    }
    assert_eq!(seen[0][1][..2], [2, 1], "{seen:?}");
    assert_eq!(seen[1], seen[0], "run-ahead");
    assert_eq!(seen[2], seen[0], "windows");
    Ok(())
}
