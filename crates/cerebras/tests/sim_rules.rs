//! Resource and configuration rules of asynchronous operations and tasks.

use npusim_cerebras::dsd::{FabOut, Priority};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, QueueRef, QueueSide, Route};
use npusim_cerebras::sim::{Action, AsyncConfig, Sim, SimError, TaskKind, microthread_of};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

type Res = Result<(), Box<dyn std::error::Error>>;

fn q(side: QueueSide, id: u8) -> QueueRef {
    QueueRef { side, id }
}

#[test]
fn microthread_ids_follow_the_seed_per_architecture() {
    use QueueSide::{Input, Output};
    // WSE-2: the fabout's output queue, else the first fabin's input queue
    assert_eq!(
        microthread_of(Arch::Wse2, &[(1, q(Input, 3)), (0, q(Output, 5))], None),
        Ok(5)
    );
    assert_eq!(
        microthread_of(Arch::Wse2, &[(2, q(Input, 6)), (1, q(Input, 3))], None),
        Ok(3)
    );
    assert!(microthread_of(Arch::Wse2, &[(0, q(Output, 1))], Some(4)).is_err());
    // WSE-3: explicit id, else the first fabric operand (destination, source 0, source 1)
    assert_eq!(
        microthread_of(Arch::Wse3, &[(0, q(Output, 2))], Some(4)),
        Ok(4)
    );
    assert_eq!(
        microthread_of(Arch::Wse3, &[(2, q(Input, 6)), (1, q(Input, 3))], None),
        Ok(3)
    );
    assert_eq!(
        microthread_of(Arch::Wse3, &[(1, q(Input, 3)), (0, q(Output, 7))], None),
        Ok(7)
    );
    assert!(microthread_of(Arch::Wse3, &[(0, q(Output, 1))], Some(8)).is_err());
    // no fabric operand
    for arch in [Arch::Wse2, Arch::Wse3] {
        let e = microthread_of(arch, &[], None).expect_err("needs a fabric operand");
        assert!(e.contains("fabric operand"), "{e}");
    }
}

fn one_task(arch: Arch, body: Vec<Action>) -> Result<Sim, Box<dyn std::error::Error>> {
    let mut sim = Sim::new(arch, 1, 1)?;
    sim.bind_task(0, 0, TaskKind::Local, 10, "t", body)?;
    sim.activate(0, 0, "t")?;
    Ok(sim)
}

#[test]
fn an_async_op_without_a_fabric_operand_is_an_error() -> Res {
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    sim.pe_mut(0, 0)?.mem.declare("m", ElemTy::U16, &[2])?;
    let m = sim.pe(0, 0)?.mem.mem1d("|i|{2} -> m[i]")?;
    sim.bind_task(
        0,
        0,
        TaskKind::Local,
        10,
        "t",
        vec![Action::spawn(
            Op::Mov16,
            m,
            vec![Scalar::u16(1).into()],
            AsyncConfig::default(),
        )],
    )?;
    sim.activate(0, 0, "t")?;
    let e = sim.run(100).expect_err("no fabric operand");
    assert!(matches!(&e, SimError::Async { x: 0, y: 0, .. }), "{e}");
    assert!(
        e.to_string().contains("fabric operand") && e.to_string().contains("mov16"),
        "{e}"
    );
    Ok(())
}

#[test]
fn wse3_priority_belongs_on_the_dsd() -> Res {
    let out = FabOut::new(Arch::Wse3, 1, Some(0), None)?;
    let cfg = AsyncConfig {
        priority: Some(Priority::High),
        ..AsyncConfig::default()
    };
    let mut sim = one_task(
        Arch::Wse3,
        vec![Action::spawn(
            Op::Mov16,
            out,
            vec![Scalar::u16(1).into()],
            cfg,
        )],
    )?;
    sim.pe_mut(0, 0)?.queues.bind_output(0, Color::new(1)?)?;
    let e = sim.run(100).expect_err("priority on the op");
    assert!(e.to_string().contains("priority"), "{e}");
    Ok(())
}

#[test]
fn reusing_an_output_queue_that_still_holds_wavelets_names_both_operations() -> Res {
    // PE (0,0) sends 6 wavelets east to PE (1,0), whose input queue (2 wavelets) nobody
    // reads: the first op ends with wavelets left in output queue 2; a second op sending
    // another color through the same queue is a reuse (the same color would just continue
    // the stream).
    let color = Color::new(3)?;
    let mut sim = Sim::new(Arch::Wse2, 2, 1)?;
    sim.fabric_mut().set_color_config(
        0,
        0,
        color,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    sim.fabric_mut().set_color_config(
        1,
        0,
        color,
        ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
    )?;
    sim.pe_mut(1, 0)?.queues.bind_input(4, color)?;
    let out = FabOut::new(Arch::Wse2, 6, Some(2), Some(3))?;
    let one = FabOut::new(Arch::Wse2, 1, Some(2), Some(4))?;
    sim.bind_task(
        0,
        0,
        TaskKind::Local,
        10,
        "t",
        vec![
            Action::sync(Op::Mov16, out, vec![Scalar::u16(1).into()]),
            Action::sync(Op::Mov16, one, vec![Scalar::u16(2).into()]),
        ],
    )?;
    sim.activate(0, 0, "t")?;
    let e = sim.run(100).expect_err("queue reuse");
    let SimError::QueueReuse {
        x: 0,
        y: 0,
        queue,
        left,
        first,
        second,
        ..
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!(*queue, q(QueueSide::Output, 2));
    assert!(*left > 0);
    assert!(
        first.contains("action 1") && second.contains("action 2"),
        "{e}"
    );
    Ok(())
}

#[test]
fn task_ids_are_checked_per_architecture() -> Res {
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    let e = sim
        .bind_task(0, 0, TaskKind::Local, 5, "low", Vec::new())
        .expect_err("WSE-3 local ids start at 8");
    assert!(e.to_string().contains("8..=30"), "{e}");
    let e = sim
        .bind_task(0, 0, TaskKind::Data, 8, "d", Vec::new())
        .expect_err("WSE-3 data ids are queues 0..=7");
    assert!(e.to_string().contains("0..=7"), "{e}");
    sim.bind_task(0, 0, TaskKind::Local, 8, "a", Vec::new())?;
    let e = sim
        .bind_task(0, 0, TaskKind::Local, 9, "a", Vec::new())
        .expect_err("name taken");
    assert!(e.to_string().contains("clashes"), "{e}");
    let e = sim.activate(0, 0, "missing").expect_err("unknown task");
    assert!(e.to_string().contains("no task named missing"), "{e}");
    let e = sim.activate(3, 0, "a").expect_err("off the grid");
    assert!(e.to_string().contains("PE (3, 0)"), "{e}");
    Ok(())
}

#[test]
fn events_are_recorded_on_request_and_render_as_lines_and_chrome_json() -> Res {
    use npusim_cerebras::sim::EventKind;
    // off by default
    let mut quiet = one_task(Arch::Wse2, Vec::new())?;
    quiet.run(10)?;
    assert!(quiet.events().is_empty());
    // E3 with events: task starts, hops and completions, in cycle order
    use npusim_cerebras::programs::e3_gemv_routes_1 as e3;
    let mut sim = e3::build(Arch::Wse2)?;
    sim.record_events(true);
    sim.run(e3::CYCLE_LIMIT)?;
    let ev = sim.events();
    for kind in [EventKind::Hop, EventKind::TaskStart, EventKind::OpDone] {
        assert!(ev.iter().any(|e| e.kind == kind), "{kind:?}");
    }
    assert!(ev.windows(2).all(|w| w[0].cycle <= w[1].cycle));
    let hops = ev.iter().filter(|e| e.kind == EventKind::Hop).count();
    // 4 wavelets: PE (0,0) RAMP -> EAST, PE (1,0) WEST -> RAMP
    assert_eq!(hops, 8);
    let line = ev
        .iter()
        .find(|e| e.kind == EventKind::TaskStart)
        .map(ToString::to_string)
        .unwrap_or_default();
    assert!(line.contains("PE (0, 0) main task: compute"), "{line}");
    let json = sim.chrome_trace();
    assert!(json.starts_with("{\"traceEvents\":[{") && json.ends_with("}]}"));
    assert_eq!(json.matches("\"ph\":\"X\"").count(), ev.len());
    assert!(
        json.contains("\"tid\":\"ut 2\""),
        "the async ops run on microthread 2"
    );
    Ok(())
}

/// Two asynchronous producers wait on input queues 0 and 1 and write one value each into
/// the same FIFO; the host feeds both queues at once: the FIFO's order is the threads' order.
fn fifo_order(p0: Priority, p1: Priority) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    use npusim_cerebras::dsd::{FabIn, FifoConfig};
    use npusim_cerebras::fabric::Wavelet;
    let c = Color::new(2)?;
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("buf", ElemTy::U32, &[4])?;
    let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
    let cfg = |p| AsyncConfig {
        priority: Some(p),
        ..AsyncConfig::default()
    };
    let body = vec![
        Action::spawn(
            Op::Mov32,
            fifo,
            vec![FabIn::new(Arch::Wse2, 1, Some(0), None)?.into()],
            cfg(p0),
        ),
        Action::spawn(
            Op::Mov32,
            fifo,
            vec![FabIn::new(Arch::Wse2, 1, Some(1), None)?.into()],
            cfg(p1),
        ),
    ];
    sim.bind_task(0, 0, TaskKind::Local, 10, "t", body)?;
    sim.activate(0, 0, "t")?;
    let e = sim.run(100).expect_err("both wait");
    assert!(
        matches!(e, SimError::Deadlock { ref waits, .. } if waits.len() == 2),
        "{e}"
    );
    let pe = sim.pe_mut(0, 0)?;
    for (q, v) in [(0u8, 100u32), (1, 101)] {
        pe.queues
            .input_mut(q)
            .expect("iq")
            .push(Wavelet::data32(c, v))
            .expect("room");
    }
    sim.run(100)?;
    Ok(sim
        .pe(0, 0)?
        .fifo_contents(npusim_cerebras::ops::FifoId(0))?)
}

#[test]
fn higher_priority_microthreads_go_first_ties_by_id() -> Res {
    assert_eq!(fifo_order(Priority::Low, Priority::High)?, [101, 100]);
    assert_eq!(fifo_order(Priority::High, Priority::Low)?, [100, 101]);
    assert_eq!(fifo_order(Priority::Medium, Priority::Medium)?, [100, 101]);
    assert_eq!(fifo_order(Priority::Low, Priority::Medium)?, [101, 100]);
    Ok(())
}

#[test]
fn the_simulator_refuses_huge_grids() {
    let e = Sim::new(Arch::Wse2, 700, 900).err().expect("too many PEs");
    assert!(matches!(e, SimError::TooManyPes { max: 16_384, .. }), "{e}");
    assert!(Sim::new(Arch::Wse2, 16, 16).is_ok());
}

/// The main thread (a synchronous op) and one asynchronous op wait on input queues 1 and 0
/// and write into one FIFO; fed at once, the FIFO's order shows which thread went first.
fn main_vs_micro(
    main: npusim_cerebras::sim::MainThreadPriority,
    micro: Priority,
) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    use npusim_cerebras::dsd::{FabIn, FifoConfig};
    use npusim_cerebras::fabric::Wavelet;
    let c = Color::new(2)?;
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    sim.set_main_thread_priority(0, 0, main)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("buf", ElemTy::U32, &[4])?;
    let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
    let cfg = AsyncConfig {
        priority: Some(micro),
        ..AsyncConfig::default()
    };
    let body = vec![
        Action::spawn(
            Op::Mov32,
            fifo,
            vec![FabIn::new(Arch::Wse2, 1, Some(0), None)?.into()],
            cfg,
        ),
        Action::sync(
            Op::Mov32,
            fifo,
            vec![FabIn::new(Arch::Wse2, 1, Some(1), None)?.into()],
        ),
    ];
    sim.bind_task(0, 0, TaskKind::Local, 10, "t", body)?;
    sim.activate(0, 0, "t")?;
    sim.run(100).expect_err("both wait");
    let pe = sim.pe_mut(0, 0)?;
    for (q, v) in [(0u8, 100u32), (1, 200)] {
        pe.queues
            .input_mut(q)
            .expect("iq")
            .push(Wavelet::data32(c, v))
            .expect("room");
    }
    sim.run(100)?;
    Ok(sim
        .pe(0, 0)?
        .fifo_contents(npusim_cerebras::ops::FifoId(0))?)
}

#[test]
fn main_thread_priority_sits_between_microthread_levels() -> Res {
    use npusim_cerebras::sim::MainThreadPriority as M;
    // MEDIUM_LOW (default): after medium microthreads, before low ones
    assert_eq!(main_vs_micro(M::MediumLow, Priority::Low)?, [200, 100]);
    assert_eq!(main_vs_micro(M::MediumLow, Priority::Medium)?, [100, 200]);
    // MEDIUM_HIGH: before medium, after high; ties (HIGH vs high) go to the microthread
    assert_eq!(main_vs_micro(M::MediumHigh, Priority::Medium)?, [200, 100]);
    assert_eq!(main_vs_micro(M::MediumHigh, Priority::High)?, [100, 200]);
    assert_eq!(main_vs_micro(M::High, Priority::High)?, [100, 200]);
    Ok(())
}

#[test]
fn wse3_priority_comes_from_the_fabric_dsd_default_high() -> Res {
    use npusim_cerebras::dsd::{FabIn, FifoConfig};
    use npusim_cerebras::fabric::Wavelet;
    let order = |p0: Option<Priority>,
                 p1: Option<Priority>|
     -> Result<Vec<u32>, Box<dyn std::error::Error>> {
        let c = Color::new(2)?;
        let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("buf", ElemTy::U32, &[4])?;
        let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
        let fin = |q: i64, p: Option<Priority>| -> Result<FabIn, Box<dyn std::error::Error>> {
            let f = FabIn::new(Arch::Wse3, 1, Some(q), None)?;
            Ok(match p {
                Some(p) => f.with_priority(Arch::Wse3, p)?,
                None => f,
            })
        };
        let body = vec![
            Action::spawn(
                Op::Mov32,
                fifo,
                vec![fin(0, p0)?.into()],
                AsyncConfig::default(),
            ),
            Action::spawn(
                Op::Mov32,
                fifo,
                vec![fin(1, p1)?.into()],
                AsyncConfig::default(),
            ),
        ];
        sim.bind_task(0, 0, TaskKind::Local, 10, "t", body)?;
        sim.activate(0, 0, "t")?;
        sim.run(100).expect_err("both wait");
        let pe = sim.pe_mut(0, 0)?;
        for (q, v) in [(0u8, 100u32), (1, 101)] {
            pe.queues
                .input_mut(q)
                .expect("iq")
                .push(Wavelet::data32(c, v))
                .expect("room");
        }
        sim.run(100)?;
        Ok(sim
            .pe(0, 0)?
            .fifo_contents(npusim_cerebras::ops::FifoId(0))?)
    };
    assert_eq!(
        order(Some(Priority::Low), Some(Priority::High))?,
        [101, 100]
    );
    assert_eq!(
        order(Some(Priority::High), Some(Priority::Medium))?,
        [100, 101]
    );
    // omitted = high on WSE-3
    assert_eq!(order(Some(Priority::Medium), None)?, [101, 100]);
    Ok(())
}

/// The microthread a WSE-3 operation took, read from the deadlock report (it waits forever
/// on an empty input queue).
fn ut_taken(
    dest_dsr_ut: Option<Option<u8>>,
    src_dsr_ut: Option<Option<u8>>,
    op_ut: Option<u8>,
) -> Result<String, Box<dyn std::error::Error>> {
    use npusim_cerebras::dsd::{Dsd, FabIn};
    use npusim_cerebras::ops::DsrFile;
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    sim.pe_mut(0, 0)?.mem.declare("m", ElemTy::U16, &[2])?;
    sim.pe_mut(0, 0)?.queues.bind_output(2, Color::new(1)?)?;
    let cfg = |ut| AsyncConfig {
        ut_id: ut,
        ..AsyncConfig::default()
    };
    let fin = Dsd::FabIn(FabIn::new(Arch::Wse3, 2, Some(6), None)?);
    let dest: npusim_cerebras::Operand = match dest_dsr_ut {
        Some(ut) => {
            let out = Dsd::FabOut(FabOut::new(Arch::Wse3, 2, Some(2), None)?);
            sim.load_to_dsr_async(0, 0, DsrFile::Dest, &out, cfg(ut))?
                .into()
        }
        None => sim.pe(0, 0)?.mem.mem1d("|i|{2} -> m[i]")?.into(),
    };
    let src: npusim_cerebras::Operand = match src_dsr_ut {
        Some(ut) => sim
            .load_to_dsr_async(0, 0, DsrFile::Src1, &fin, cfg(ut))?
            .into(),
        None => fin.into(),
    };
    // the op itself is synchronous as written: the async DSR makes it asynchronous
    let action = match op_ut {
        Some(u) => Action::spawn(Op::Mov16, dest, vec![src], cfg(Some(u))),
        None => Action::sync(Op::Mov16, dest, vec![src]),
    };
    sim.bind_task(0, 0, TaskKind::Local, 10, "t", vec![action])?;
    sim.activate(0, 0, "t")?;
    let e = sim.run(100).expect_err("waits on input queue 6");
    let SimError::Deadlock { waits, .. } = e else {
        return Err(format!("{e}").into());
    };
    Ok(waits.join("; "))
}

#[test]
fn g51_wse3_ut_id_precedence_and_async_dsrs() -> Res {
    // out_dsr loaded with ut 2, op ut 4 => 2 (destination first)
    assert!(ut_taken(Some(Some(2)), None, Some(4))?.contains("microthread 2 "));
    // mov16(mem_dsd, in_dsr(ut 3); ut 4) => 4 (the DSD destination carries the op's id)
    assert!(ut_taken(None, Some(Some(3)), Some(4))?.contains("microthread 4 "));
    // an async DSR alone makes a synchronous-looking op asynchronous; its ut 3 is taken
    assert!(ut_taken(None, Some(Some(3)), None)?.contains("microthread 3 "));
    // no ut anywhere => the first fabric operand's queue (input queue 6)
    assert!(ut_taken(None, Some(None), None)?.contains("microthread 6 "));
    Ok(())
}

#[test]
fn wse3_blocked_microthreads_wait_for_unblock() -> Res {
    use npusim_cerebras::dsd::FabOut;
    use npusim_cerebras::fabric::{ColorConfig, Dir, Route};
    let c = Color::new(1)?;
    let build = |unblock: bool| -> Result<Sim, Box<dyn std::error::Error>> {
        let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
        sim.fabric_mut().open_edge(0, 0, Dir::East)?;
        sim.fabric_mut().set_color_config(
            0,
            0,
            c,
            ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
        )?;
        sim.pe_mut(0, 0)?.queues.bind_output(0, c)?;
        let out = FabOut::new(Arch::Wse3, 3, Some(0), None)?;
        let cfg = AsyncConfig {
            ut_id: Some(6),
            ..AsyncConfig::default()
        };
        let mut body = vec![
            Action::BlockMicrothread(6),
            Action::spawn(Op::Mov16, out, vec![Scalar::u16(9).into()], cfg),
        ];
        if unblock {
            body.push(Action::UnblockMicrothread(6));
        }
        sim.bind_task(0, 0, TaskKind::Local, 10, "t", body)?;
        sim.activate(0, 0, "t")?;
        Ok(sim)
    };
    let e = build(false)?.run(100).expect_err("blocked forever");
    assert!(
        e.to_string().contains("microthread 6") && e.to_string().contains("blocked"),
        "{e}"
    );
    let mut sim = build(true)?;
    sim.run(100)?;
    assert_eq!(sim.collected().len(), 3);
    // WSE-2 has no explicit microthread ids
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    sim.bind_task(
        0,
        0,
        TaskKind::Local,
        10,
        "t",
        vec![Action::BlockMicrothread(1)],
    )?;
    sim.activate(0, 0, "t")?;
    let e = sim.run(100).expect_err("WSE-3 only");
    assert!(e.to_string().contains("WSE-3 only"), "{e}");
    Ok(())
}

#[test]
fn same_color_leftovers_are_a_reuse_only_under_the_seed_policy() -> Res {
    use npusim_cerebras::sim::QueueReusePolicy;
    // PE (0,0) sends 6 wavelets east, then 1 more of the same color through the same queue,
    // to PE (1,0), whose 2-wavelet input queue nobody reads: the first op leaves wavelets.
    let build = |policy: QueueReusePolicy| -> Result<Sim, Box<dyn std::error::Error>> {
        let color = Color::new(3)?;
        let mut sim = Sim::new(Arch::Wse2, 2, 1)?;
        sim.set_queue_reuse_policy(policy);
        sim.fabric_mut().set_color_config(
            0,
            0,
            color,
            ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
        )?;
        sim.fabric_mut().set_color_config(
            1,
            0,
            color,
            ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
        )?;
        sim.pe_mut(1, 0)?.queues.bind_input(4, color)?;
        let out = FabOut::new(Arch::Wse2, 6, Some(2), Some(3))?;
        let more = FabOut::new(Arch::Wse2, 1, Some(2), Some(3))?;
        sim.bind_task(
            0,
            0,
            TaskKind::Local,
            10,
            "t",
            vec![
                Action::sync(Op::Mov16, out, vec![Scalar::u16(1).into()]),
                Action::sync(Op::Mov16, more, vec![Scalar::u16(2).into()]),
            ],
        )?;
        sim.activate(0, 0, "t")?;
        Ok(sim)
    };
    // default: the same color continues the stream; the run ends with the receiver full
    let e = build(QueueReusePolicy::OtherColor)?
        .run(100)
        .expect_err("the receiver never reads");
    assert!(matches!(e, SimError::Deadlock { .. }), "{e}");
    // the seed's wording: any element left is a reuse, naming both operations
    let e = build(QueueReusePolicy::Seed)?
        .run(100)
        .expect_err("queue reuse");
    let SimError::QueueReuse {
        queue,
        left,
        first,
        second,
        ..
    } = &e
    else {
        panic!("{e}");
    };
    assert_eq!(*queue, q(QueueSide::Output, 2));
    assert!(*left > 0);
    assert!(
        first.contains("action 1") && second.contains("action 2"),
        "{e}"
    );
    Ok(())
}
