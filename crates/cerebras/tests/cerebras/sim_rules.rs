//! Resource and configuration rules of asynchronous operations and tasks.

use crate::common;

use crate::common::*;
use npusim_cerebras::dsd::{FabIn, FabOut, FifoConfig, Priority};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, QueueRef, QueueSide, Route, Wavelet};
use npusim_cerebras::ids::MicrothreadId;
use npusim_cerebras::ops::FifoId;
use npusim_cerebras::sched::{
    Action, AsyncConfig, MainThreadPriority, QueueReusePolicy, Sim, SimError, microthread_of,
};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

type Res = Result<(), Box<dyn std::error::Error>>;
type Built<T> = Result<T, Box<dyn std::error::Error>>;

fn q(side: QueueSide, id: u8) -> QueueRef {
    match side {
        QueueSide::Input => QueueRef::Input(in_queue(id)),
        QueueSide::Output => QueueRef::Output(out_queue(id)),
    }
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
    assert!(microthread_of(Arch::Wse2, &[(0, q(Output, 1))], Some(ut(4))).is_err());
    // WSE-3: explicit id, else the first fabric operand (destination, source 0, source 1)
    assert_eq!(
        microthread_of(Arch::Wse3, &[(0, q(Output, 2))], Some(ut(4))),
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
    let e = MicrothreadId::new(8).expect_err("microthread ids are 0..=7");
    assert_eq!(e.to_string(), "microthread id 8 is out of range [0, 7]");
    // no fabric operand
    for arch in [Arch::Wse2, Arch::Wse3] {
        let e = microthread_of(arch, &[], None).expect_err("needs a fabric operand");
        assert!(e.contains("fabric operand"), "{e}");
    }
}

/// The fixture of these tests: a `width` x 1 grid of `arch` whose PE (0, 0) has local task
/// `t` (id 10), with the body `setup` returns after configuring the simulation, activated.
fn task_sim(
    arch: Arch,
    width: u32,
    setup: impl FnOnce(&mut Sim) -> Built<Vec<Action>>,
) -> Built<Sim> {
    let mut sim = Sim::new(arch, width, 1)?;
    let body = setup(&mut sim)?;
    sim.bind_task(0, 0, local_task(10), "t", body)?;
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

/// [`task_sim`] on one PE with a fixed body.
fn one_task(arch: Arch, body: Vec<Action>) -> Built<Sim> {
    task_sim(arch, 1, |_| Ok(body))
}

/// Routes `color` on PE `(x, 0)` from `rx` to `tx`.
fn route(sim: &mut Sim, x: i64, color: Color, rx: Dir, tx: Dir) -> Res {
    sim.fabric_mut()
        .set_color_config(x, 0, color, ColorConfig::fixed(Route::new(&[rx], &[tx])))?;
    Ok(())
}

#[test]
fn an_async_op_without_a_fabric_operand_is_an_error() -> Res {
    let mut sim = task_sim(Arch::Wse2, 1, |sim| {
        sim.pe_mut(0, 0)?.mem.declare("m", ElemTy::U16, &[2])?;
        let m = sim.pe(0, 0)?.mem.mem1d("|i|{2} -> m[i]")?;
        Ok(vec![Action::spawn(
            Op::Mov16,
            m,
            vec![Scalar::u16(1).into()],
            AsyncConfig::default(),
        )])
    })?;
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
    let out = FabOut::new(Arch::Wse3, 1, Some(out_queue(0)), None)?;
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
    sim.pe_mut(0, 0)?
        .queues
        .bind_output(out_queue(0), Color::new(1)?)?;
    let e = sim.run(100).expect_err("priority on the op");
    assert!(e.to_string().contains("priority"), "{e}");
    Ok(())
}

/// PE (0, 0) sends 6 wavelets of color 3 east to PE (1, 0), whose input queue (2 wavelets)
/// nobody reads, so the first operation ends with wavelets left in output queue 2; then one
/// more wavelet of `second_color` through the same queue, under `policy`.
fn reuse_pair(policy: QueueReusePolicy, second_color: i64) -> Built<Sim> {
    task_sim(Arch::Wse2, 2, |sim| {
        let color = Color::new(3)?;
        sim.set_queue_reuse_policy(policy);
        route(sim, 0, color, Dir::Ramp, Dir::East)?;
        route(sim, 1, color, Dir::West, Dir::Ramp)?;
        sim.pe_mut(1, 0)?.queues.bind_input(in_queue(4), color)?;
        let out = FabOut::new(Arch::Wse2, 6, Some(out_queue(2)), Some(3))?;
        let more = FabOut::new(Arch::Wse2, 1, Some(out_queue(2)), Some(second_color))?;
        Ok(vec![
            Action::sync(Op::Mov16, out, vec![Scalar::u16(1).into()]),
            Action::sync(Op::Mov16, more, vec![Scalar::u16(2).into()]),
        ])
    })
}

/// The queue-reuse error names output queue 2 of PE (0, 0), what was left and both actions.
fn assert_reuse_of_queue_2(e: &SimError) {
    let SimError::QueueReuse {
        x: 0,
        y: 0,
        queue,
        left,
        first,
        second,
        ..
    } = e
    else {
        panic!("{e}");
    };
    assert_eq!(*queue, q(QueueSide::Output, 2));
    assert!(*left > 0);
    assert!(
        first.contains("action 1") && second.contains("action 2"),
        "{e}"
    );
}

#[test]
fn reusing_an_output_queue_that_still_holds_wavelets_names_both_operations() -> Res {
    // another color through the same queue is a reuse (the same color would just continue
    // the stream)
    let e = reuse_pair(QueueReusePolicy::OtherColor, 4)?
        .run(100)
        .expect_err("queue reuse");
    assert_reuse_of_queue_2(&e);
    Ok(())
}

#[test]
fn same_color_leftovers_are_a_reuse_only_under_the_seed_policy() -> Res {
    // default: the same color continues the stream; the run ends with the receiver full
    let e = reuse_pair(QueueReusePolicy::OtherColor, 3)?
        .run(100)
        .expect_err("the receiver never reads");
    assert!(matches!(e, SimError::Deadlock { .. }), "{e}");
    // the seed's wording: any element left is a reuse, naming both operations
    let e = reuse_pair(QueueReusePolicy::Seed, 3)?
        .run(100)
        .expect_err("queue reuse");
    assert_reuse_of_queue_2(&e);
    Ok(())
}

#[test]
fn task_ids_are_checked_per_architecture() -> Res {
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    let e = sim
        .bind_task(0, 0, local_task(5), "low", Vec::new())
        .expect_err("WSE-3 local ids start at 8");
    assert!(e.to_string().contains("8..=30"), "{e}");
    let e = sim
        .bind_task(0, 0, data_task(8), "d", Vec::new())
        .expect_err("WSE-3 data ids are queues 0..=7");
    assert!(e.to_string().contains("0..=7"), "{e}");
    sim.bind_task(0, 0, local_task(8), "a", Vec::new())?;
    let e = sim
        .bind_task(0, 0, local_task(9), "a", Vec::new())
        .expect_err("name taken");
    assert!(e.to_string().contains("clashes"), "{e}");
    let e = sim
        .activate(0, 0, local_task(20))
        .expect_err("unknown task");
    assert!(
        e.to_string()
            .contains("no task is bound at local task id 20"),
        "{e}"
    );
    let e = sim.activate(3, 0, local_task(9)).expect_err("off the grid");
    assert!(e.to_string().contains("PE (3, 0)"), "{e}");
    Ok(())
}

#[test]
fn events_are_recorded_on_request_and_render_as_lines_and_chrome_json() -> Res {
    use npusim_cerebras::sched::EventKind;
    // off by default
    let mut quiet = one_task(Arch::Wse2, Vec::new())?;
    quiet.run(10)?;
    assert!(quiet.events().is_empty());
    // E3 with events: task starts, hops and completions, in cycle order
    use npusim_examples::cerebras::programs::e3_gemv_routes_1 as e3;
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

/// One of the two writers of [`fifo_race`].
#[derive(Clone, Copy)]
enum Writer {
    /// An asynchronous operation with this priority (WSE-2: on the operation; WSE-3: on
    /// its fabin, `None` = the default).
    Micro(Option<Priority>),
    /// A synchronous operation of the main thread.
    Main,
}

/// Two writers wait on input queues 0 and 1 and move one value each (100 and 101) into
/// the same FIFO; the host feeds both queues at once, so the FIFO's order is the order in
/// which the threads went.
fn fifo_race(arch: Arch, main: MainThreadPriority, writers: [Writer; 2]) -> Built<Vec<u32>> {
    let c = Color::new(2)?;
    let mut sim = task_sim(arch, 1, |sim| {
        sim.set_main_thread_priority(0, 0, main)?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("buf", ElemTy::U32, &[4])?;
        let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
        let mut body = Vec::new();
        for (q, w) in (0i64..).zip(writers) {
            let fin = FabIn::new(arch, 1, Some(in_queue(q)), None)?;
            body.push(match w {
                Writer::Main => Action::sync(Op::Mov32, fifo, vec![fin.into()]),
                Writer::Micro(p) if arch == Arch::Wse2 => {
                    let cfg = AsyncConfig {
                        priority: p,
                        ..AsyncConfig::default()
                    };
                    Action::spawn(Op::Mov32, fifo, vec![fin.into()], cfg)
                }
                Writer::Micro(p) => {
                    let fin = match p {
                        Some(p) => fin.with_priority(arch, p)?,
                        None => fin,
                    };
                    Action::spawn(Op::Mov32, fifo, vec![fin.into()], AsyncConfig::default())
                }
            });
        }
        Ok(body)
    })?;
    sim.run(100).expect_err("both wait");
    let pe = sim.pe_mut(0, 0)?;
    for (q, v) in [(0u8, 100u32), (1, 101)] {
        pe.queues
            .input_mut(in_queue(q))
            .ok_or("input queue")?
            .push(Wavelet::data32(c, v))
            .map_err(|w| format!("input queue {q} has no room for {w}"))?;
    }
    sim.run(100)?;
    Ok(sim.pe(0, 0)?.fifo_contents(FifoId(0))?)
}

#[test]
fn higher_priority_microthreads_go_first_ties_by_id() -> Res {
    use Priority::{High, Low, Medium};
    let order = |a, b| {
        fifo_race(
            Arch::Wse2,
            MainThreadPriority::default(),
            [Writer::Micro(Some(a)), Writer::Micro(Some(b))],
        )
    };
    assert_eq!(order(Low, High)?, [101, 100]);
    assert_eq!(order(High, Low)?, [100, 101]);
    assert_eq!(order(Medium, Medium)?, [100, 101]);
    assert_eq!(order(Low, Medium)?, [101, 100]);
    // both waiting is a deadlock naming both threads
    let mut sim = task_sim(Arch::Wse2, 1, |sim| {
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("buf", ElemTy::U32, &[4])?;
        let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
        (0..2)
            .map(|q| -> Built<Action> {
                let fin = FabIn::new(Arch::Wse2, 1, Some(in_queue(q)), None)?;
                Ok(Action::spawn(
                    Op::Mov32,
                    fifo,
                    vec![fin.into()],
                    AsyncConfig::default(),
                ))
            })
            .collect()
    })?;
    let e = sim.run(100).expect_err("both wait");
    assert!(
        matches!(e, SimError::Deadlock { ref waits, .. } if waits.len() == 2),
        "{e}"
    );
    Ok(())
}

#[test]
fn the_simulator_refuses_huge_grids() {
    let e = Sim::new(Arch::Wse2, 700, 900).err().expect("too many PEs");
    assert!(matches!(e, SimError::TooManyPes { max: 16_384, .. }), "{e}");
    assert!(Sim::new(Arch::Wse2, 16, 16).is_ok());
}

#[test]
fn main_thread_priority_sits_between_microthread_levels() -> Res {
    use MainThreadPriority as M;
    // the microthread writes 100, the main thread 101
    let order = |m, p| fifo_race(Arch::Wse2, m, [Writer::Micro(Some(p)), Writer::Main]);
    // MEDIUM_LOW (default): after medium microthreads, before low ones
    assert_eq!(order(M::MediumLow, Priority::Low)?, [101, 100]);
    assert_eq!(order(M::MediumLow, Priority::Medium)?, [100, 101]);
    // MEDIUM_HIGH: before medium, after high; ties (HIGH vs high) go to the microthread
    assert_eq!(order(M::MediumHigh, Priority::Medium)?, [101, 100]);
    assert_eq!(order(M::MediumHigh, Priority::High)?, [100, 101]);
    assert_eq!(order(M::High, Priority::High)?, [100, 101]);
    Ok(())
}

#[test]
fn wse3_priority_comes_from_the_fabric_dsd_default_high() -> Res {
    let order = |a, b| {
        fifo_race(
            Arch::Wse3,
            MainThreadPriority::default(),
            [Writer::Micro(a), Writer::Micro(b)],
        )
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
) -> Built<String> {
    use npusim_cerebras::dsd::Dsd;
    use npusim_cerebras::pe::DsrFile;
    let cfg = |ut: Option<u8>| AsyncConfig {
        ut_id: ut.map(common::ut),
        ..AsyncConfig::default()
    };
    let mut sim = task_sim(Arch::Wse3, 1, |sim| {
        sim.pe_mut(0, 0)?.mem.declare("m", ElemTy::U16, &[2])?;
        sim.pe_mut(0, 0)?
            .queues
            .bind_output(out_queue(2), Color::new(1)?)?;
        let fin = Dsd::FabIn(FabIn::new(Arch::Wse3, 2, Some(in_queue(6)), None)?);
        let dest: npusim_cerebras::Operand = match dest_dsr_ut {
            Some(ut) => {
                let out = Dsd::FabOut(FabOut::new(Arch::Wse3, 2, Some(out_queue(2)), None)?);
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
        Ok(vec![match op_ut {
            Some(u) => Action::spawn(Op::Mov16, dest, vec![src], cfg(Some(u))),
            None => Action::sync(Op::Mov16, dest, vec![src]),
        }])
    })?;
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
    let c = Color::new(1)?;
    let build = |unblock: bool| {
        task_sim(Arch::Wse3, 1, |sim| {
            sim.fabric_mut().open_edge(0, 0, Dir::East)?;
            route(sim, 0, c, Dir::Ramp, Dir::East)?;
            sim.pe_mut(0, 0)?.queues.bind_output(out_queue(0), c)?;
            let out = FabOut::new(Arch::Wse3, 3, Some(out_queue(0)), None)?;
            let cfg = AsyncConfig {
                ut_id: Some(ut(6)),
                ..AsyncConfig::default()
            };
            let mut body = vec![
                Action::BlockMicrothread(ut(6)),
                Action::spawn(Op::Mov16, out, vec![Scalar::u16(9).into()], cfg),
            ];
            if unblock {
                body.push(Action::UnblockMicrothread(ut(6)));
            }
            Ok(body)
        })
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
    let e = one_task(Arch::Wse2, vec![Action::BlockMicrothread(ut(1))])?
        .run(100)
        .expect_err("WSE-3 only");
    assert!(e.to_string().contains("WSE-3 only"), "{e}");
    Ok(())
}
