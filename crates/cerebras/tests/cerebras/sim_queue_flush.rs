//! WSE-3 output-queue flush (spec §6, EX topic-16): a queue moves to another color only after
//! it drained; `@queue_flush` runs the teardown task with the empty-queue handler once it has.

use crate::common::*;
use npusim_cerebras::dsd::FabOut;
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route};
use npusim_cerebras::sched::{Action, AsyncConfig, Sim, SimError};
use npusim_cerebras::{Arch, Op};

type Res = Result<(), Box<dyn std::error::Error>>;

fn col(k: i64) -> Color {
    Color::new(k).expect("color")
}

/// PE (0, 0) sends `first` values on color 1 through output queue 0 (async, then activates
/// `after`), and `second` on color 2 through the same queue in task `second`. With `stuck`
/// a second PE receives color 1 and never reads it; else both colors leave the east edge.
fn build(
    arch: Arch,
    first: &[u16],
    second: &[u16],
    after: Vec<Action>,
    handler: Option<Vec<Action>>,
    stuck: bool,
) -> Result<Sim, Box<dyn std::error::Error>> {
    let (a, b) = (col(1), col(2));
    let mut sim = Sim::new(arch, if stuck { 2 } else { 1 }, 1)?;
    let f = sim.fabric_mut();
    for c in [a, b] {
        f.set_color_config(
            0,
            0,
            c,
            ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
        )?;
    }
    if stuck {
        f.set_color_config(
            1,
            0,
            a,
            ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
        )?;
    } else {
        f.open_edge(0, 0, Dir::East)?;
    }
    if stuck {
        sim.pe_mut(1, 0)?.queues.bind_input(in_queue(2), a)?;
    }
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare_with("first", &[first.len() as u64], first)?;
    pe.mem
        .declare_with("second", &[second.len() as u64], second)?;
    pe.queues.bind_output(out_queue(0), a)?;
    let m1 = pe
        .mem
        .mem1d(&format!("|i|{{{}}} -> first[i]", first.len()))?;
    let m2 = pe
        .mem
        .mem1d(&format!("|i|{{{}}} -> second[i]", second.len()))?;
    let o1 = FabOut::new(arch, first.len() as i64, Some(out_queue(0)), None)?;
    let o2 = FabOut::new(arch, second.len() as i64, Some(out_queue(0)), None)?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "first",
        vec![Action::spawn(
            Op::Mov16,
            o1,
            vec![m1.into()],
            AsyncConfig::activate(local_task(11)),
        )],
    )?;
    sim.bind_task(0, 0, local_task(11), "after", after)?;
    sim.bind_task(
        0,
        0,
        local_task(12),
        "second",
        vec![Action::sync(Op::Mov16, o2, vec![m2.into()])],
    )?;
    if let Some(h) = handler {
        sim.set_empty_queue_handler(0, 0, out_queue(0), h)?;
    }
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

fn handler() -> Vec<Action> {
    vec![
        Action::ExitQueueFlush(out_queue(0)),
        Action::InitializeOutputQueue(out_queue(0), col(2)),
        Action::Activate(local_task(12)),
    ]
}

#[test]
fn a_flushed_queue_moves_to_another_color_after_the_teardown_task() -> Res {
    for (n1, n2) in [(4usize, 3usize), (9, 1), (1, 12)] {
        let first: Vec<u16> = (0..n1 as u16).map(|k| 0x100 + k).collect();
        let second: Vec<u16> = (0..n2 as u16).map(|k| 0x200 + k).collect();
        let mut sim = build(
            Arch::Wse3,
            &first,
            &second,
            vec![Action::QueueFlush(out_queue(0))],
            Some(handler()),
            false,
        )?;
        sim.record_events(true);
        let report = sim.run(1000)?;
        let got: Vec<(u8, u16)> = sim
            .collected()
            .iter()
            .map(|c| (c.wavelet.color.id(), c.wavelet.low16()))
            .collect();
        let want: Vec<(u8, u16)> = first
            .iter()
            .map(|&v| (1, v))
            .chain(second.iter().map(|&v| (2, v)))
            .collect();
        assert_eq!(got, want, "{n1} then {n2}");
        // first, after, teardown, second
        assert_eq!(report.pes[0].tasks_started, 4);
        let teardown = sim
            .events()
            .iter()
            .find(|e| e.text.starts_with("teardown"))
            .map(|e| e.cycle)
            .ok_or("no teardown task")?;
        let last_first_hop = sim
            .events()
            .iter()
            .filter(|e| e.text.contains("RAMP ->") && e.text.contains("color 1"))
            .map(|e| e.cycle)
            .max()
            .ok_or("no hop")?;
        assert!(
            teardown >= last_first_hop,
            "teardown {teardown} before the queue drained {last_first_hop}"
        );
    }
    // without a handler the system clears the flush state; the queue keeps its color
    let mut sim = build(
        Arch::Wse3,
        &[1, 2],
        &[3],
        vec![
            Action::QueueFlush(out_queue(0)),
            Action::Activate(local_task(12)),
        ],
        None,
        false,
    )?;
    sim.run(1000)?;
    let colors: Vec<u8> = sim
        .collected()
        .iter()
        .map(|c| c.wavelet.color.id())
        .collect();
    assert_eq!(colors, [1, 1, 1]);
    Ok(())
}

#[test]
fn rebinding_a_queue_that_holds_wavelets_is_an_error_and_a_flush_that_never_drains_is_reported()
-> Res {
    let first: Vec<u16> = (0..10).collect();
    let e = build(
        Arch::Wse3,
        &first,
        &[7],
        vec![Action::InitializeOutputQueue(out_queue(0), col(2))],
        None,
        true,
    )?
    .run(1000)
    .expect_err("queue 0 still holds color 1");
    assert!(
        matches!(&e, SimError::Async { x: 0, y: 0, rule, .. } if rule.contains("output queue 0 still holds") && rule.contains("color 1")),
        "{e}"
    );
    // WSE-2 output queues may mix colors: the rebinding is accepted while wavelets are left
    // (7 wavelets: the op completes with one still in the 2-word output queue; the run then
    // ends with the receiver full)
    let mut sim = build(
        Arch::Wse2,
        &first[..7],
        &[7],
        vec![Action::InitializeOutputQueue(out_queue(0), col(2))],
        None,
        true,
    )?;
    let e = sim.run(1000).expect_err("the receiver never reads");
    assert!(matches!(e, SimError::Deadlock { .. }), "{e}");
    let pe = sim.pe(0, 0)?;
    assert!(
        pe.queues
            .output(out_queue(0))
            .is_some_and(|q| !q.is_empty())
    );
    assert_eq!(pe.queues.output_color(out_queue(0)), Some(col(2)));
    let e = build(
        Arch::Wse3,
        &first,
        &[7],
        vec![Action::QueueFlush(out_queue(0))],
        Some(handler()),
        true,
    )?
    .run(1000)
    .expect_err("the receiver never reads");
    let SimError::Deadlock { waits, .. } = &e else {
        panic!("{e}");
    };
    assert!(
        waits
            .iter()
            .any(|w| w.contains("@queue_flush(0)") && w.contains("PE (0, 0)")),
        "{waits:?}"
    );
    Ok(())
}

#[test]
fn flush_rules() -> Res {
    // a handler that leaves the flush state set
    let e = build(
        Arch::Wse3,
        &[1],
        &[2],
        vec![Action::QueueFlush(out_queue(0))],
        Some(Vec::new()),
        false,
    )?
    .run(1000)
    .expect_err("handler must clear the flush");
    assert!(e.to_string().contains("flush state"), "{e}");
    // WSE-2 output queues are not tied to a color: no flush
    let e = build(
        Arch::Wse2,
        &[1],
        &[2],
        vec![Action::QueueFlush(out_queue(0))],
        None,
        false,
    )?
    .run(1000)
    .expect_err("WSE-3 only");
    assert!(e.to_string().contains("WSE-3 only"), "{e}");
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    assert!(
        sim.set_empty_queue_handler(0, 0, out_queue(0), Vec::new())
            .is_err()
    );
    let e = npusim_cerebras::ids::OutputQueue::new(8).expect_err("queues 0..=7");
    assert_eq!(e.to_string(), "output queue 8 is out of range [0, 7]");
    Ok(())
}
