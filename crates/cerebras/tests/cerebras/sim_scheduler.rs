//! The multi-PE simulator: the E3 port, determinism, resource conflicts (seed 004's bad
//! examples), deadlock and cycle-limit reports, tasks and completions.

use crate::common::*;
use npusim_cerebras::dsd::{FabIn, FabOut};
use npusim_cerebras::fabric::{
    Color, ColorConfig, Dir, DirSet, QueueSide, Route, SwitchPos, Wavelet,
};
use npusim_cerebras::pe::DsrFile;
use npusim_cerebras::sched::{Action, AsyncConfig, OnControl, Sim, SimError};
use npusim_cerebras::{Arch, ElemTy, Op, Operand, Scalar};

use npusim_examples::cerebras::programs::e3_gemv_routes_1 as e3;

type Res = Result<(), Box<dyn std::error::Error>>;

fn c(k: i64) -> Color {
    Color::new(k).expect("color")
}

#[test]
fn e3_gemv_routes_1_on_both_architectures() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let r = e3::run(arch)?;
        assert_eq!(r.y, [17.0, 53.0, 89.0, 125.0], "{arch}");
        assert_eq!(r.exits, [1, 1], "each exit task runs once ({arch})");
        // the right PE received M wavelets through input queue 2
        assert!(r.report.pes[1].input_high_water[2] >= 1);
        assert_eq!(r.report.pes[0].tasks_started, 2);
        assert!(r.report.idle.is_empty());
    }
    Ok(())
}

#[test]
fn two_runs_give_the_same_cycles_memory_and_trace_hash() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let a = e3::run(arch)?;
        let b = e3::run(arch)?;
        assert_eq!(a.report, b.report, "{arch}");
        assert_eq!(a.y, b.y);
    }
    // the hash depends on the program: a different b gives a different trace
    let mut sim = e3::build(Arch::Wse2)?;
    sim.pe_mut(0, 0)?.mem.write("b", &[3.0f32; 4])?;
    let other = sim.run(e3::CYCLE_LIMIT)?;
    assert_ne!(other.trace_hash, e3::run(Arch::Wse2)?.report.trace_hash);
    assert_eq!(
        sim.pe(1, 0)?.mem.read::<f32>("y")?,
        [18.0, 54.0, 90.0, 126.0]
    );
    Ok(())
}

/// One PE with `y: u16[4]`, `z: u16[4]`, a local task `t` bound to `body` and activated.
fn one_pe(
    arch: Arch,
    body: impl FnOnce(&mut Sim) -> Result<Vec<Action>, Box<dyn std::error::Error>>,
) -> Result<Sim, Box<dyn std::error::Error>> {
    let mut sim = Sim::new(arch, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare_with("mem1", &[4], &[1u16, 2, 3, 4])?;
    pe.mem.declare("mem2", ElemTy::U16, &[4])?;
    pe.queues.bind_output(out_queue(0), c(1))?;
    pe.queues.bind_output(out_queue(1), c(1))?;
    pe.queues.bind_input(in_queue(0), c(2))?;
    let body = body(&mut sim)?;
    sim.bind_task(0, 0, local_task(10), "t", body)?;
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

#[test]
fn seed_bad_example_two_async_ops_on_one_output_queue() -> Res {
    let mut sim = one_pe(Arch::Wse2, |sim| {
        let pe = sim.pe_mut(0, 0)?;
        let out = FabOut::new(Arch::Wse2, 10, Some(out_queue(0)), None)?;
        let m1 = pe.mem.mem1d("|i|{4} -> mem1[i]")?;
        let m2 = pe.mem.mem1d("|i|{4} -> mem2[i]")?;
        Ok(vec![
            Action::spawn(
                Op::Mov16,
                out.clone(),
                vec![m1.into()],
                AsyncConfig::default(),
            ),
            Action::spawn(Op::Mov16, out, vec![m2.into()], AsyncConfig::default()),
        ])
    })?;
    let e = sim.run(1000).expect_err("queue conflict");
    let SimError::QueueConflict {
        x: 0,
        y: 0,
        cycle,
        queue,
        first,
        second,
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!((queue.side(), queue.id()), (QueueSide::Output, 0));
    assert!(
        first.contains("action 1") && second.contains("action 2"),
        "{e}"
    );
    assert!(*cycle >= 2, "{e}");
    let text = e.to_string();
    assert!(
        text.contains("PE (0, 0)") && text.contains("output queue 0") && text.contains("mov16"),
        "{text}"
    );
    Ok(())
}

#[test]
fn seed_bad_example_shared_microthread_on_wse2() -> Res {
    let mut sim = one_pe(Arch::Wse2, |sim| {
        let pe = sim.pe_mut(0, 0)?;
        let out = FabOut::new(Arch::Wse2, 10, Some(out_queue(0)), None)?;
        let fin = FabIn::new(Arch::Wse2, 10, Some(in_queue(0)), None)?;
        let m1 = pe.mem.mem1d("|i|{4} -> mem1[i]")?;
        let m2 = pe.mem.mem1d("|i|{4} -> mem2[i]")?;
        Ok(vec![
            Action::spawn(Op::Mov16, out, vec![m1.into()], AsyncConfig::default()),
            Action::spawn(Op::Mov16, m2, vec![fin.into()], AsyncConfig::default()),
        ])
    })?;
    let e = sim.run(1000).expect_err("microthread conflict");
    assert!(
        matches!(&e, SimError::MicrothreadConflict { microthread: 0, first, second, .. }
            if first.contains("action 1") && second.contains("action 2")),
        "{e}"
    );
    assert!(e.to_string().contains("microthread 0"), "{e}");
    Ok(())
}

#[test]
fn wse3_explicit_microthread_ids_let_the_same_two_ops_run() -> Res {
    // G51: different .ut_id on WSE-3 remove the conflict of the WSE-2 example
    let mut sim = one_pe(Arch::Wse3, |sim| {
        let pe = sim.pe_mut(0, 0)?;
        let out = FabOut::new(Arch::Wse3, 4, Some(out_queue(0)), None)?;
        let fin = FabIn::new(Arch::Wse3, 2, Some(in_queue(0)), None)?;
        let m1 = pe.mem.mem1d("|i|{4} -> mem1[i]")?;
        let m2 = pe.mem.mem1d("|i|{2} -> mem2[i]")?;
        let on_ut = |u: u8| AsyncConfig {
            ut_id: Some(ut(u)),
            ..AsyncConfig::default()
        };
        Ok(vec![
            Action::spawn(Op::Mov16, out, vec![m1.into()], on_ut(4)),
            Action::spawn(Op::Mov16, m2, vec![fin.into()], on_ut(5)),
        ])
    })?;
    {
        let iq = sim.pe_mut(0, 0)?.queues.input_mut(in_queue(0)).expect("iq");
        iq.push(Wavelet::data16(c(2), 0, 7)).expect("room");
        iq.push(Wavelet::data16(c(2), 0, 8)).expect("room");
    }
    sim.fabric_mut().open_edge(0, 0, Dir::East)?;
    sim.fabric_mut().set_color_config(
        0,
        0,
        c(1),
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    sim.run(1000)?;
    let sent: Vec<u32> = sim.collected().iter().map(|w| w.wavelet.payload).collect();
    assert_eq!(sent, [1, 2, 3, 4]);
    assert_eq!(sim.pe(0, 0)?.mem.read::<u16>("mem2")?[..2], [7, 8]);
    Ok(())
}

#[test]
fn a_sync_op_waiting_for_wavelets_that_never_come_is_a_deadlock() -> Res {
    let mut sim = one_pe(Arch::Wse2, |sim| {
        let pe = sim.pe_mut(0, 0)?;
        let fin = FabIn::new(Arch::Wse2, 4, Some(in_queue(0)), None)?;
        let m2 = pe.mem.mem1d("|i|{4} -> mem2[i]")?;
        Ok(vec![Action::sync(Op::Mov16, m2, vec![fin.into()])])
    })?;
    sim.pe_mut(0, 0)?
        .queues
        .input_mut(in_queue(0))
        .expect("iq")
        .push(Wavelet::data16(c(2), 0, 5))
        .expect("room");
    let e = sim.run(1000).expect_err("deadlock");
    let SimError::Deadlock { waits, .. } = &e else {
        panic!("{e}");
    };
    assert_eq!(waits.len(), 1, "{e}");
    assert!(
        waits[0].contains("PE (0, 0) main thread")
            && waits[0].contains("element 1")
            && waits[0].contains("input queue 0"),
        "{e}"
    );
    Ok(())
}

#[test]
fn every_run_has_a_cycle_limit() -> Res {
    let mut sim = one_pe(Arch::Wse2, |_| Ok(vec![Action::Activate(local_task(10))]))?;
    let e = sim.run(50).expect_err("runs forever");
    assert!(
        matches!(&e, SimError::CycleLimit { limit: 50, busy } if busy.iter().any(|b| b.contains("task t"))),
        "{e}"
    );
    Ok(())
}

#[test]
fn the_picker_takes_the_lowest_active_unblocked_id_and_activation_is_one_bit() -> Res {
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    sim.pe_mut(0, 0)?.mem.declare("log", ElemTy::U32, &[8])?;
    let log = |v: u32| {
        Action::call(move |ctx| {
            let mut l = ctx.pe.mem.read::<u32>("log")?;
            if let Some(slot) = l.iter().position(|&x| x == 0) {
                l[slot] = v;
            }
            ctx.pe.mem.write("log", &l)?;
            Ok(Vec::new())
        })
    };
    sim.bind_task(0, 0, local_task(20), "late", vec![log(20)])?;
    sim.bind_task(0, 0, local_task(12), "early", vec![log(12)])?;
    sim.bind_task(0, 0, local_task(15), "blocked", vec![log(15)])?;
    sim.bind_task(
        0,
        0,
        local_task(11),
        "main",
        vec![
            Action::Block(local_task(15).into()),
            Action::Activate(local_task(20)),
            Action::Activate(local_task(20)),
            Action::Activate(local_task(15)),
            Action::Activate(local_task(12)),
        ],
    )?;
    sim.activate(0, 0, local_task(11))?;
    sim.run(100)?;
    // "late" activated twice runs once; "blocked" never runs
    assert_eq!(
        sim.pe(0, 0)?.mem.read::<u32>("log")?,
        [12, 20, 0, 0, 0, 0, 0, 0]
    );
    Ok(())
}

#[test]
fn on_control_ends_an_unbounded_async_op_and_activates_its_task() -> Res {
    // G49 on the simulator
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare_with("mem", &[8], &[9u32; 8])?;
    pe.mem.declare("done", ElemTy::U32, &[1])?;
    pe.queues.bind_input(in_queue(1), c(3))?;
    let mem = pe.mem.mem1d("|i|{8} -> mem[i]")?;
    for w in [1, 2, 3]
        .map(|v| Wavelet::data32(c(3), v))
        .into_iter()
        .chain([Wavelet::control(c(3), 0)])
    {
        pe.queues
            .input_mut(in_queue(1))
            .expect("iq")
            .push(w)
            .expect("room");
    }
    let fin = FabIn::new(Arch::Wse2, 0x7fff, Some(in_queue(1)), None)?;
    let cfg = AsyncConfig {
        on_control: Some(OnControl::Activate(local_task(11))),
        ..AsyncConfig::default()
    };
    sim.bind_task(
        0,
        0,
        local_task(10),
        "t",
        vec![Action::spawn(Op::Mov32, mem, vec![fin.into()], cfg)],
    )?;
    sim.bind_task(
        0,
        0,
        local_task(11),
        "after",
        vec![Action::call(|ctx| {
            let n = ctx.pe.mem.read::<u32>("done")?[0];
            ctx.pe.mem.write("done", &[n + 1])?;
            Ok(Vec::new())
        })],
    )?;
    sim.activate(0, 0, local_task(10))?;
    let r = sim.run(100)?;
    assert!(r.idle.is_empty());
    assert_eq!(
        sim.pe(0, 0)?.mem.read::<u32>("mem")?,
        [1, 2, 3, 9, 9, 9, 9, 9]
    );
    assert_eq!(sim.pe(0, 0)?.mem.read::<u32>("done")?, [1]);
    Ok(())
}

#[test]
fn an_unbounded_async_op_idling_at_the_end_is_reported_not_a_deadlock() -> Res {
    let mut sim = one_pe(Arch::Wse2, |sim| {
        let pe = sim.pe_mut(0, 0)?;
        let fin = FabIn::new(Arch::Wse2, 0x7fff, Some(in_queue(0)), None)?;
        let m2 = pe.mem.mem1d("|i|{4} -> mem2[i]")?;
        Ok(vec![Action::spawn(
            Op::Mov16,
            m2,
            vec![fin.into()],
            AsyncConfig::default(),
        )])
    })?;
    let r = sim.run(100)?;
    assert_eq!(r.idle.len(), 1);
    assert!(
        r.idle[0].contains("microthread 0") && r.idle[0].contains("input queue 0"),
        "{:?}",
        r.idle
    );
    Ok(())
}

#[test]
fn data_tasks_receive_their_wavelet_and_advance_switch_redirects_g45() -> Res {
    // PE(0,0) sends [10, 11, 12] with advance_switch, then 99; its color switches from EAST
    // to SOUTH after the third wavelet. PE(1,0) and PE(0,1) store what their data task gets.
    let col = c(7);
    let mut sim = Sim::new(Arch::Wse2, 2, 2)?;
    let cfg = ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])).with_switches(
        Arch::Wse2,
        col,
        &[SwitchPos {
            rx: None,
            tx: Some(DirSet::of(&[Dir::South])),
        }],
        false,
    )?;
    sim.fabric_mut().set_color_config(0, 0, col, cfg)?;
    sim.fabric_mut().set_color_config(
        1,
        0,
        col,
        ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
    )?;
    sim.fabric_mut().set_color_config(
        0,
        1,
        col,
        ColorConfig::fixed(Route::new(&[Dir::North], &[Dir::Ramp])),
    )?;
    for (x, y) in [(1, 0), (0, 1)] {
        sim.pe_mut(x, y)?.mem.declare("got", ElemTy::U32, &[4])?;
        let store = Action::call(|ctx| {
            let v = ctx.wavelet.map_or(0, |w| w.payload);
            let mut got = ctx.pe.mem.read::<u32>("got")?;
            if let Some(slot) = got.iter().position(|&g| g == 0) {
                got[slot] = v;
            }
            ctx.pe.mem.write("got", &got)?;
            Ok(Vec::new())
        });
        sim.bind_task(x, y, data_task(7), "recv", vec![store])?;
    }
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare_with("v", &[3], &[10u32, 11, 12])?;
    let v = pe.mem.mem1d("|i|{3} -> v[i]")?;
    let mut out = FabOut::new(Arch::Wse2, 3, Some(out_queue(2)), Some(7))?;
    out.advance_switch = true;
    let one = FabOut::new(Arch::Wse2, 1, Some(out_queue(2)), Some(7))?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "send",
        vec![
            Action::sync(Op::Mov32, out, vec![v.into()]),
            Action::sync(Op::Mov32, one, vec![Scalar::u32(99).into()]),
        ],
    )?;
    sim.activate(0, 0, local_task(10))?;
    sim.run(200)?;
    assert_eq!(sim.pe(1, 0)?.mem.read::<u32>("got")?, [10, 11, 12, 0]);
    assert_eq!(sim.pe(0, 1)?.mem.read::<u32>("got")?, [99, 0, 0, 0]);
    assert_eq!(
        sim.fabric().color_config(0, 0, col)?.map(|c| c.current),
        Some(1)
    );
    Ok(())
}

#[test]
fn an_async_op_through_a_dsr_holding_a_fabout() -> Res {
    // seed: @load_to_dsr(dsr, fabout, .{.async = true}); @mov16(dsr, mem, .{.async = true})
    let mut sim = one_pe(Arch::Wse2, |sim| {
        let pe = sim.pe_mut(0, 0)?;
        let out = FabOut::new(Arch::Wse2, 4, Some(out_queue(1)), None)?;
        let dsr = pe.load_to_dsr(
            DsrFile::Dest,
            &npusim_cerebras::dsd::Dsd::FabOut(out),
            false,
        )?;
        let m1 = pe.mem.mem1d("|i|{4} -> mem1[i]")?;
        Ok(vec![Action::spawn(
            Op::Mov16,
            Operand::Dsr(dsr),
            vec![m1.into()],
            AsyncConfig::default(),
        )])
    })?;
    sim.fabric_mut().open_edge(0, 0, Dir::East)?;
    sim.fabric_mut().set_color_config(
        0,
        0,
        c(1),
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    sim.run(100)?;
    let got: Vec<u32> = sim.collected().iter().map(|w| w.wavelet.payload).collect();
    assert_eq!(got, [1, 2, 3, 4]);
    Ok(())
}
