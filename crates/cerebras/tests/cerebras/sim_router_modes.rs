//! Router modes and filters beyond routes (spec §8): a color's teardown mode, the WSE-2
//! color swap, and the counter filters npusim refuses (their behaviour is unpublished).

use crate::common::*;
use npusim_cerebras::dsd::FabIn;
use npusim_cerebras::fabric::{
    Color, ColorConfig, CounterFilter, Dir, FabricError, PeQueues, Route, SwapAxis, Wavelet,
};
use npusim_cerebras::sched::{Action, Sim, SimError};
use npusim_cerebras::{Arch, ElemTy, Op};

type Res = Result<(), Box<dyn std::error::Error>>;

/// `(color, payload)` of each wavelet an input queue holds.
type Received = Vec<(u8, u32)>;

fn route(sim: &mut Sim, x: i64, color: Color, rx: Dir, tx: &[Dir]) -> Res {
    sim.fabric_mut()
        .set_color_config(x, 0, color, ColorConfig::fixed(Route::new(&[rx], tx)))?;
    Ok(())
}

#[test]
fn counter_and_sparse_counter_filters_are_refused_as_unpublished() {
    let mut q = PeQueues::new(Arch::Wse2);
    let c = Color::new(3).unwrap_or_else(|e| panic!("{e}"));
    let counter = CounterFilter {
        count_data: true,
        limit1: 4,
        ..CounterFilter::default()
    };
    for (filter, kind) in [
        (counter, "counter filter on color 3"),
        (
            CounterFilter {
                limit2: Some(9),
                ..counter
            },
            "sparse_counter filter on color 3",
        ),
    ] {
        let e = q.set_counter_filter(c, filter).expect_err("unpublished");
        assert!(matches!(e, FabricError::Unsupported { .. }), "{e}");
        let msg = e.to_string();
        assert!(
            msg.starts_with("unsupported: ") && msg.contains(kind) && msg.contains("unpublished"),
            "{msg}"
        );
    }
}

/// A 2×1 WSE-2 grid: the host streams `values` on color 0 into PE (0, 0) from the west;
/// PE (0, 0) forwards color 0 east (and, with `also_ramp`, to its own ramp too) with
/// `color_swap_x` on or off; PE (1, 0) takes color 1 to its ramp. Returns the colors and
/// payloads each PE's input queue 0 received.
fn swap_run(swap: bool, also_ramp: bool) -> Result<[Received; 2], Box<dyn std::error::Error>> {
    let (red, blue) = (Color::new(0)?, Color::new(1)?);
    let mut sim = Sim::new(Arch::Wse2, 2, 1)?;
    let tx: &[Dir] = if also_ramp {
        &[Dir::East, Dir::Ramp]
    } else {
        &[Dir::East]
    };
    route(&mut sim, 0, red, Dir::West, tx)?;
    route(&mut sim, 1, blue, Dir::West, &[Dir::Ramp])?;
    let f = sim.fabric_mut();
    f.set_color_swap(0, 0, SwapAxis::X, swap)?;
    f.open_edge(0, 0, Dir::West)?;
    f.stream_in(
        0,
        0,
        Dir::West,
        (0..3).map(|k| Wavelet::data32(red, 10 + k)),
    )?;
    sim.pe_mut(0, 0)?.queues.bind_input(in_queue(0), red)?;
    sim.pe_mut(1, 0)?.queues.bind_input(in_queue(0), blue)?;
    sim.run(100)?;
    let got = |x: i64| -> Result<Received, Box<dyn std::error::Error>> {
        let q = sim
            .pe(x, 0)?
            .queues
            .input(in_queue(0))
            .ok_or("input queue 0")?;
        Ok((0..q.len() as usize)
            .filter_map(|i| q.peek(i))
            .map(|w| (w.color.id(), w.payload))
            .collect())
    };
    Ok([got(0)?, got(1)?])
}

#[test]
fn color_swap_x_toggles_the_lowest_color_bit_from_west_to_east() -> Res {
    let blue: Vec<(u8, u32)> = (0..3).map(|k| (1, 10 + k)).collect();
    let red: Vec<(u8, u32)> = (0..3).map(|k| (0, 10 + k)).collect();
    assert_eq!(swap_run(true, false)?, [vec![], blue.clone()]);
    // the copy to the PE's own ramp keeps its color; only the EAST copy swaps
    assert_eq!(swap_run(true, true)?, [red, blue]);
    // without the swap color 0 reaches PE (1, 0), which has no route for it
    let e = swap_run(false, false).expect_err("color 0 is not routed on PE (1, 0)");
    assert!(e.to_string().contains("color 0"), "{e}");
    Ok(())
}

#[test]
fn color_swap_is_wse2_x_only() -> Res {
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    let e = sim
        .fabric_mut()
        .set_color_swap(0, 0, SwapAxis::X, true)
        .expect_err("WSE-3");
    assert!(
        matches!(
            e,
            FabricError::Arch {
                arch: Arch::Wse3,
                ..
            }
        ),
        "{e}"
    );
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let e = sim
        .fabric_mut()
        .set_color_swap(0, 0, SwapAxis::Y, true)
        .expect_err("unpublished");
    assert!(
        e.to_string().starts_with("unsupported: color_swap_y"),
        "{e}"
    );
    Ok(())
}

/// A 1×1 grid whose color 2 is in teardown mode at start; the host streams 3 wavelets in on
/// it and task `t` runs `body`, then reads them with a synchronous `@mov16`.
fn teardown_run(arch: Arch, body: Vec<Action>) -> Result<Sim, Box<dyn std::error::Error>> {
    let c = Color::new(2)?;
    let mut sim = Sim::new(arch, 1, 1)?;
    route(&mut sim, 0, c, Dir::West, &[Dir::Ramp])?;
    let f = sim.fabric_mut();
    f.open_edge(0, 0, Dir::West)?;
    f.stream_in(
        0,
        0,
        Dir::West,
        (0..3).map(|k| Wavelet::data16(c, 0, 70 + k)),
    )?;
    f.set_teardown(0, 0, c, true)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("mem", ElemTy::U16, &[3])?;
    pe.queues.bind_input(in_queue(1), c)?;
    let fin = FabIn::new(arch, 3, Some(in_queue(1)), None)?;
    let mem = pe.mem.mem1d("|i|{3} -> mem[i]")?;
    let mut body = body;
    body.push(Action::sync(Op::Mov16, mem, vec![fin.into()]));
    sim.bind_task(0, 0, local_task(10), "t", body)?;
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

#[test]
fn a_color_in_teardown_mode_moves_nothing_until_the_program_exits_it() -> Res {
    let c = Color::new(2)?;
    for arch in [Arch::Wse2, Arch::Wse3] {
        // never exited: the reader waits, the wavelets wait in the router
        let mut sim = teardown_run(arch, Vec::new())?;
        let e = sim.run(100).expect_err("deadlock");
        assert!(matches!(e, SimError::Deadlock { .. }), "{e}");
        assert!(e.to_string().contains("input queue 1"), "{e}");
        assert_eq!(
            sim.pe(0, 0)?.queues.input(in_queue(1)).map(|q| q.len()),
            Some(0)
        );
        assert!(sim.fabric().in_teardown(0, 0, c)?);
        // exited first: the traffic flows
        let mut sim = teardown_run(arch, vec![Action::ExitTeardown(c)])?;
        sim.run(100)?;
        assert_eq!(sim.pe(0, 0)?.mem.read::<u16>("mem")?, [70, 71, 72]);
        assert!(!sim.fabric().in_teardown(0, 0, c)?);
    }
    Ok(())
}

#[test]
fn set_teardown_handler_is_refused_as_unpublished() -> Res {
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let e = sim
        .set_teardown_handler(0, 0, Color::new(4)?, Vec::new())
        .expect_err("unpublished");
    let msg = e.to_string();
    assert!(
        msg.contains("unsupported: @set_teardown_handler on color 4")
            && msg.contains("unpublished"),
        "{msg}"
    );
    Ok(())
}
