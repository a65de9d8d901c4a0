//! FIFO task activation on the simulator (seed 004): `activate_pop` fires only on a pop
//! after a full event, `activate_push` only on a push after an empty event; asynchronous
//! operations suspend on a full/empty FIFO (`test_or_suspend`).

use crate::common;

use crate::common::*;

use npusim_cerebras::dsd::{FabIn, FifoConfig};
use npusim_cerebras::fabric::{Color, Wavelet};
use npusim_cerebras::sched::{Action, AsyncConfig, Sim};
use npusim_cerebras::{Arch, ElemTy, Op};

type Res = Result<(), Box<dyn std::error::Error>>;

/// An async producer moves `n` wavelets from input queue 0 into a FIFO of `cap` elements;
/// a local task `drain` pops `take` elements synchronously when activated.
fn program(n: u32, cap: u64, take: u64) -> Result<Sim, Box<dyn std::error::Error>> {
    let color = Color::new(2)?;
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("buf", ElemTy::U32, &[cap])?;
    pe.mem.declare("out", ElemTy::U32, &[16])?;
    pe.mem.declare("pops", ElemTy::U32, &[1])?;
    pe.mem.declare("pushes", ElemTy::U32, &[1])?;
    pe.queues.bind_input(in_queue(0), color)?;
    for k in 0..n {
        pe.queues
            .input_mut(in_queue(0))
            .expect("iq")
            .push(Wavelet::data32(color, 100 + k))
            .expect("room");
    }
    let cfg = FifoConfig {
        activate_pop: Some(local_task(12)),
        activate_push: Some(local_task(13)),
        ..FifoConfig::default()
    };
    let fifo = pe.allocate_fifo("buf", cfg)?;
    let fin = FabIn::new(Arch::Wse2, i64::from(n), Some(in_queue(0)), None)?;
    let out = pe.mem.mem1d(&format!("|i|{{{take}}} -> out[i]"))?;
    common::fifo_producer_and_drain(&mut sim, fifo, fin, out)?;
    sim.bind_task(0, 0, local_task(12), "on_pop", counter("pops"))?;
    sim.bind_task(0, 0, local_task(13), "on_push", counter("pushes"))?;
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

#[test]
fn activate_pop_fires_once_after_a_full_event() -> Res {
    // 3 wavelets into a FIFO of 2: the producer hits full and waits
    let mut sim = program(3, 2, 2)?;
    let e = sim.run(100).expect_err("the producer waits forever");
    assert!(e.to_string().contains("room in FIFO 0"), "{e}");
    // the host activates the drain once the producer waits: two pops after the full event
    sim.activate(0, 0, local_task(11))?;
    sim.run(200)?;
    // on_pop ran once (the first pop clears the event; activation is one bit)
    let pe = sim.pe(0, 0)?;
    assert_eq!(pe.mem.read::<u32>("pops")?, [1]);
    assert_eq!(pe.mem.read::<u32>("out")?[..2], [100, 101]);
    assert_eq!(pe.fifo_contents(npusim_cerebras::ops::FifoId(0))?, [102]);
    // no empty event happened, so on_push never ran
    assert_eq!(pe.mem.read::<u32>("pushes")?, [0]);
    Ok(())
}

#[test]
fn no_full_event_no_activate_pop() -> Res {
    // 2 wavelets into a FIFO of 4: never full
    let mut sim = program(2, 4, 2)?;
    sim.run(100)?;
    sim.activate(0, 0, local_task(11))?;
    sim.run(200)?;
    let pe = sim.pe(0, 0)?;
    assert_eq!(pe.mem.read::<u32>("out")?[..2], [100, 101]);
    assert_eq!(pe.mem.read::<u32>("pops")?, [0]);
    Ok(())
}

#[test]
fn activate_push_fires_once_after_an_empty_event() -> Res {
    use npusim_cerebras::dsd::FabOut;
    use npusim_cerebras::fabric::{ColorConfig, Dir, Route};
    let color = Color::new(5)?;
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    sim.fabric_mut().open_edge(0, 0, Dir::East)?;
    sim.fabric_mut().set_color_config(
        0,
        0,
        color,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("buf", ElemTy::U32, &[4])?;
    pe.mem.declare_with("src", &[2], &[7u32, 8])?;
    pe.mem.declare("pushes", ElemTy::U32, &[1])?;
    let fifo = pe.allocate_fifo(
        "buf",
        FifoConfig {
            activate_push: Some(local_task(13)),
            ..FifoConfig::default()
        },
    )?;
    let out = FabOut::new(Arch::Wse2, 2, Some(out_queue(2)), Some(5))?;
    let src = pe.mem.mem1d("|i|{2} -> src[i]")?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "main",
        vec![Action::spawn(
            Op::Mov32,
            out,
            vec![fifo.into()],
            AsyncConfig::default(),
        )],
    )?;
    sim.bind_task(
        0,
        0,
        local_task(11),
        "fill",
        vec![Action::sync(Op::Mov32, fifo, vec![src.into()])],
    )?;
    sim.bind_task(0, 0, local_task(13), "on_push", counter("pushes"))?;
    sim.activate(0, 0, local_task(10))?;
    let e = sim
        .run(100)
        .expect_err("the consumer waits on the empty FIFO");
    assert!(e.to_string().contains("an element in FIFO 0"), "{e}");
    sim.activate(0, 0, local_task(11))?;
    sim.run(200)?;
    assert_eq!(sim.pe(0, 0)?.mem.read::<u32>("pushes")?, [1]);
    let sent: Vec<u32> = sim.collected().iter().map(|c| c.wavelet.payload).collect();
    assert_eq!(sent, [7, 8]);
    Ok(())
}

/// An asynchronous consumer of an empty FIFO on WSE-3 with each empty action.
fn empty_consumer(
    action: npusim_cerebras::dsd::FifoAction,
) -> Result<Sim, Box<dyn std::error::Error>> {
    use npusim_cerebras::dsd::FabOut;
    let color = Color::new(5)?;
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("buf", ElemTy::U32, &[4])?;
    pe.mem.declare("done", ElemTy::U32, &[1])?;
    pe.queues.bind_output(out_queue(2), color)?;
    let fifo = pe.allocate_fifo(
        "buf",
        FifoConfig {
            empty_action: Some(action),
            ..FifoConfig::default()
        },
    )?;
    let out = FabOut::new(Arch::Wse3, 2, Some(out_queue(2)), None)?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "main",
        vec![Action::spawn(
            Op::Mov32,
            out,
            vec![fifo.into()],
            AsyncConfig::activate(local_task(11)),
        )],
    )?;
    sim.bind_task(0, 0, local_task(11), "after", counter("done"))?;
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

#[test]
fn async_empty_actions_terminate_suspend_fault() -> Res {
    use npusim_cerebras::dsd::FifoAction;
    // terminate: the operation ends at once and its completion runs
    let mut sim = empty_consumer(FifoAction::Terminate)?;
    sim.run(100)?;
    assert_eq!(sim.pe(0, 0)?.mem.read::<u32>("done")?, [1]);
    // suspend and test_or_suspend: it waits (a deadlock here, nobody pushes)
    for a in [FifoAction::Suspend, FifoAction::TestOrSuspend] {
        let mut sim = empty_consumer(a)?;
        let e = sim.run(100).expect_err("waits");
        assert!(e.to_string().contains("an element in FIFO 0"), "{e}");
    }
    // fault: an error naming the PE, the cycle and the operation
    let mut sim = empty_consumer(FifoAction::Fault)?;
    let e = sim.run(100).expect_err("fault");
    let text = e.to_string();
    assert!(
        text.contains("PE (0, 0) cycle") && text.contains("fault") && text.contains("mov32"),
        "{text}"
    );
    Ok(())
}
