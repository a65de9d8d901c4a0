//! Task kinds named by completion fields (seed 004): the task an `.activate` names (an
//! asynchronous operation's, `on_control`'s, a FIFO's `activate_push` / `activate_pop`) "must
//! be bound as a local task"; an `.unblock` names a data or local task, or a color (WSE-2) /
//! an input queue (WSE-3), and `@block` / `@unblock` of a channel act on its data task.

use crate::common;

use crate::common::*;

use npusim_cerebras::dsd::{FabIn, FabOut, FifoConfig};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::ids::{Channel, DataTaskId};
use npusim_cerebras::sched::{Action, AsyncConfig, Completion, OnControl, Sim, SimError, TaskKind};
use npusim_cerebras::{Arch, ElemTy, Op};

type Res = Result<(), Box<dyn std::error::Error>>;

const SEND: u8 = 7;
const DATA: u8 = 3;
/// The control task's id: a slot of the one WSE-2 task table that a local task id can name.
const CTL: u8 = 20;

/// A WSE-2 1×1 grid sending on color 7 out of the east edge, a data task `recv` on color 3
/// and a control task `ctl`; `main` sends four words asynchronously with `cfg`.
fn sender(cfg: AsyncConfig) -> Result<Sim, Box<dyn std::error::Error>> {
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let send = Color::new(SEND.into())?;
    let f = sim.fabric_mut();
    f.set_color_config(
        0,
        0,
        send,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    f.open_edge(0, 0, Dir::East)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare_with("v", &[4], &[1u32, 2, 3, 4])?;
    pe.mem.declare("n", ElemTy::U32, &[1])?;
    let v = pe.mem.mem1d("|i|{4} -> v[i]")?;
    let out = FabOut::new(Arch::Wse2, 4, Some(out_queue(1)), Some(SEND.into()))?;
    sim.bind_task(0, 0, data_task(DATA), "recv", counter("n"))?;
    sim.bind_task(0, 0, control_task(CTL), "ctl", counter("n"))?;
    sim.bind_task(0, 0, local_task(12), "done", counter("n"))?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "main",
        vec![Action::spawn(Op::Mov32, out, vec![v.into()], cfg)],
    )?;
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

fn kind_error(e: &SimError, task: &str, kind: TaskKind, field: &str) {
    match e {
        SimError::TaskKind {
            task: t,
            kind: k,
            field: f,
            ..
        } => {
            assert_eq!((t.as_str(), *k, *f), (task, kind, field), "{e}");
        }
        other => panic!("expected a task-kind error, got {other}"),
    }
}

/// On WSE-2 one task table holds every kind, so a local task id can name the slot a data or
/// control task is bound at; `.activate` of such a slot is the seed's error.
#[test]
fn activate_naming_a_data_task_is_an_error() -> Res {
    let e = sender(AsyncConfig::activate(local_task(DATA)))?
        .run(1_000)
        .unwrap_err();
    kind_error(&e, "recv", TaskKind::Data, ".activate");
    let text = e.to_string();
    assert!(text.contains("bound as a data task"), "{text}");
    assert!(text.contains("must be bound as a local task"), "{text}");
    // a control task is no local task either
    let e = sender(AsyncConfig::activate(local_task(CTL)))?
        .run(1_000)
        .unwrap_err();
    kind_error(&e, "ctl", TaskKind::Control, ".activate");
    // a local task is what the seed asks for
    let mut sim = sender(AsyncConfig::activate(local_task(12)))?;
    sim.run(1_000)?;
    assert_eq!(sim.pe(0, 0)?.mem.read::<u32>("n")?, vec![1]);
    Ok(())
}

#[test]
fn on_control_activate_naming_a_data_task_is_an_error() -> Res {
    let cfg = AsyncConfig {
        on_control: Some(OnControl::Activate(local_task(DATA))),
        ..AsyncConfig::default()
    };
    let e = sender(cfg)?.run(1_000).unwrap_err();
    kind_error(&e, "recv", TaskKind::Data, ".on_control = .{ .activate }");
    Ok(())
}

#[test]
fn unblock_naming_a_control_task_is_an_error() -> Res {
    let e = sender(AsyncConfig::unblock(control_task(CTL)))?
        .run(1_000)
        .unwrap_err();
    kind_error(&e, "ctl", TaskKind::Control, ".unblock");
    assert!(e.to_string().contains("a data or local task"), "{e}");
    // a data task may be unblocked
    sender(AsyncConfig::unblock(data_task(DATA)))?.run(1_000)?;
    Ok(())
}

/// A producer moves 3 wavelets into a FIFO of 2 and hits the full event; the drain's pop
/// then fires `activate_pop`, which names a data task.
#[test]
fn fifo_activate_pop_naming_a_data_task_is_an_error() -> Res {
    let color = Color::new(2)?;
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("buf", ElemTy::U32, &[2])?;
    pe.mem.declare("out", ElemTy::U32, &[2])?;
    pe.mem.declare("n", ElemTy::U32, &[1])?;
    pe.queues.bind_input(in_queue(0), color)?;
    for k in 0..3 {
        pe.queues
            .input_mut(in_queue(0))
            .ok_or("no input queue 0")?
            .push(Wavelet::data32(color, 100 + k))
            .map_err(|_| "input queue full")?;
    }
    let cfg = FifoConfig {
        activate_pop: Some(local_task(DATA)),
        ..FifoConfig::default()
    };
    let fifo = pe.allocate_fifo("buf", cfg)?;
    let fin = FabIn::new(Arch::Wse2, 3, Some(in_queue(0)), None)?;
    let out = pe.mem.mem1d("|i|{2} -> out[i]")?;
    common::fifo_producer_and_drain(&mut sim, fifo, fin, out)?;
    sim.bind_task(0, 0, data_task(DATA), "recv", counter("n"))?;
    sim.activate(0, 0, local_task(10))?;
    assert!(sim.run(100).is_err(), "the producer waits on the full FIFO");
    sim.activate(0, 0, local_task(11))?;
    let e = sim.run(200).unwrap_err();
    kind_error(
        &e,
        "recv",
        TaskKind::Data,
        "the FIFO's .activate_push / .activate_pop",
    );
    Ok(())
}

/// The SDK's FIFO tutorial pattern on WSE-2: a data task on `out_color` blocks its own color
/// (`@block(out_color)`, "to avoid re-entry") and sends its result asynchronously with
/// `.unblock = out_color`; on WSE-3 the channel is the data task's input queue. Every
/// wavelet is processed once, one at a time.
fn unblock_channel(arch: Arch) -> Res {
    let color = Color::new(DATA.into())?;
    let send = Color::new(SEND.into())?;
    let mut sim = common::host_pipe(
        arch,
        color,
        send,
        (0..3u32)
            .map(|k| Wavelet::data32(color, 10 + k))
            .collect::<Vec<_>>(),
    )?;
    // the channel: the color on WSE-2, the data task's input queue on WSE-3
    let (channel, id): (Channel, _) = match arch {
        Arch::Wse2 => (color.into(), data_task(DATA)),
        Arch::Wse3 => (in_queue(1).into(), DataTaskId::of_queue(in_queue(1))),
    };
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("buf", ElemTy::U32, &[1])?;
    if arch == Arch::Wse3 {
        pe.queues.bind_input(in_queue(1), color)?;
        pe.queues.bind_output(out_queue(2), send)?;
    }
    let buf = pe.mem.mem1d("|i|{1} -> buf[i]")?;
    let out = FabOut::new(arch, 1, Some(out_queue(2)), Some(SEND.into()))?;
    let body = vec![
        Action::BlockChannel(channel),
        Action::call(|ctx| {
            let w = ctx
                .wavelet
                .ok_or(npusim_cerebras::ops::OpError::FabricRule {
                    op: "task",
                    rule: "no wavelet",
                })?;
            ctx.pe.mem.write("buf", &[w.payload * 3])?;
            Ok(Vec::new())
        }),
        Action::spawn(
            Op::Mov32,
            out,
            vec![buf.into()],
            AsyncConfig {
                on_done: Some(Completion::UnblockChannel(channel)),
                ..AsyncConfig::default()
            },
        ),
    ];
    sim.bind_task(0, 0, id, "process_task", body)?;
    let report = sim.run(1_000)?;
    let got: Vec<u32> = sim.collected().iter().map(|c| c.wavelet.payload).collect();
    assert_eq!(got, vec![30, 33, 36], "{arch}");
    assert_eq!(report.pes[0].tasks_started, 3, "{arch}");
    Ok(())
}

#[test]
fn unblock_a_color_on_wse2() -> Res {
    unblock_channel(Arch::Wse2)
}

#[test]
fn unblock_an_input_queue_on_wse3() -> Res {
    unblock_channel(Arch::Wse3)
}

/// `@block(color)` of a data task's own color keeps it from starting again (before, blocking
/// a channel that has a data task did nothing and all three wavelets started it).
#[test]
fn block_of_a_data_tasks_color_blocks_the_task() -> Res {
    let color = Color::new(DATA.into())?;
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("n", ElemTy::U32, &[1])?;
    let mut body = vec![Action::BlockChannel(color.into())];
    body.extend(counter("n"));
    sim.bind_task(0, 0, data_task(DATA), "recv", body)?;
    let pe = sim.pe_mut(0, 0)?;
    let q = pe.queues.input_of(color).ok_or("no queue bound")?;
    for k in 0..3 {
        pe.queues
            .input_mut(q)
            .ok_or("no input queue")?
            .push(Wavelet::data32(color, k))
            .map_err(|_| "input queue full")?;
    }
    sim.run(1_000)?;
    assert_eq!(sim.pe(0, 0)?.mem.read::<u32>("n")?, vec![1]);
    Ok(())
}
