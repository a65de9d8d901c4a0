//! Fabric DSDs written as the vendor documentation writes them: a `fabin_dsd` with both
//! `.fabric_color` and `.input_queue` (seed 004's `control_transform` relay, every SDK
//! example), a `fabout_dsd` with both `.fabric_color` and `.output_queue`, and on WSE-3 the
//! same DSDs after `@initialize_queue(q, .{ .color = c })`. No queue is bound by hand beyond
//! what the CSL itself says.

use crate::common;

use crate::common::*;

use npusim_cerebras::dsd::{DsdError, FabIn, FabOut, FifoConfig};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::sched::{Action, AsyncConfig, Sim, SimError};
use npusim_cerebras::{Arch, ElemTy, Op};

type Res = Result<(), Box<dyn std::error::Error>>;

const RECV: u8 = 6;
const SEND: u8 = 7;

/// A 1×1 grid: `recv_channel` streamed in from the west edge to the ramp, `send_channel`
/// from the ramp out of the east edge; every tenth of the 100 wavelets is a control wavelet.
fn relay_grid(arch: Arch) -> Result<(Sim, Vec<Wavelet>), Box<dyn std::error::Error>> {
    let (recv, send) = (Color::new(RECV.into())?, Color::new(SEND.into())?);
    let input = common::relay_input(recv);
    let sim = common::host_pipe(arch, recv, send, input.clone())?;
    Ok((sim, input))
}

/// Seed 004's relay, line for line:
///
/// ```text
/// var in_dsd = @get_dsd(fabin_dsd, .{ .fabric_color = recv_channel,
///     .extent = 100, .input_queue = @get_input_queue(0), .control_transform = true });
/// const out_dsd = @get_dsd(fabout_dsd, .{ .extent = 100, .fabric_color = send_channel,
///     .output_queue = @get_output_queue(1), .control_transform = true });
/// var buf = @zeros([5]u32);
/// const fifo = @allocate_fifo(buf);
/// task buffer() void {
///   @mov32(fifo, in_dsd, .{ .async = true });
///   @mov32(out_dsd, fifo, .{ .async = true });
/// }
/// ```
///
/// `initialize_queues` adds WSE-3's `@initialize_queue(@get_input_queue(0), .{ .color =
/// recv_channel })` and `@initialize_queue(@get_output_queue(1), .{ .color = send_channel })`.
fn seed_relay(arch: Arch, initialize_queues: bool) -> Res {
    let (mut sim, input) = relay_grid(arch)?;
    let pe = sim.pe_mut(0, 0)?;
    let mut in_dsd = FabIn::new(arch, 100, Some(in_queue(0)), Some(RECV.into()))?;
    in_dsd.control_transform = true;
    let mut out_dsd = FabOut::new(arch, 100, Some(out_queue(1)), Some(SEND.into()))?;
    out_dsd.control_transform = true;
    pe.mem.declare("buf", ElemTy::U32, &[5])?;
    let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
    if initialize_queues {
        pe.queues
            .bind_input(in_queue(0), Color::new(RECV.into())?)?;
        pe.queues
            .bind_output(out_queue(1), Color::new(SEND.into())?)?;
    }
    let (report, got) = common::run_relay(&mut sim, fifo, in_dsd, out_dsd)?;
    let want: Vec<(u32, bool)> = input.iter().map(|w| (w.payload, w.is_control())).collect();
    assert_eq!(
        got, want,
        "{arch}: the relay passes all 100 wavelets in order"
    );
    assert!(report.idle.is_empty());
    assert_eq!(report.pes[0].elements, 200, "100 wavelets in, 100 out");
    Ok(())
}

#[test]
fn seed_control_transform_relay_runs_as_written_on_wse2() -> Res {
    seed_relay(Arch::Wse2, false)
}

#[test]
fn seed_control_transform_relay_runs_as_written_on_wse3_after_initialize_queue() -> Res {
    seed_relay(Arch::Wse3, true)
}

/// WSE-3: a color alone is still refused (seed 004: "On WSE-2, fabric_color can be used
/// instead of input_queue"); a color beside a queue initialized to another color, or to none,
/// is an error naming both (the SDK's runtime fault), never a silent reroute.
#[test]
fn wse3_color_must_match_the_initialized_queue() -> Res {
    let e = FabIn::new(Arch::Wse3, 5, None, Some(3)).unwrap_err();
    assert!(matches!(e, DsdError::Arch { .. }), "{e}");
    let e = FabOut::new(Arch::Wse3, 5, None, Some(3)).unwrap_err();
    assert!(matches!(e, DsdError::Arch { .. }), "{e}");

    // the output queue is initialized to color 5, the fabout names 7
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("v", ElemTy::U32, &[4])?;
    pe.queues.bind_output(out_queue(1), Color::new(5)?)?;
    let v = pe.mem.mem1d("|i|{4} -> v[i]")?;
    let out = FabOut::new(Arch::Wse3, 4, Some(out_queue(1)), Some(SEND.into()))?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "send",
        vec![Action::spawn(
            Op::Mov32,
            out,
            vec![v.into()],
            AsyncConfig::default(),
        )],
    )?;
    sim.activate(0, 0, local_task(10))?;
    let e = sim.run(1_000).unwrap_err();
    assert!(matches!(e, SimError::Op { .. }), "{e}");
    let text = e.to_string();
    for needle in ["fabric_color 7", "output queue 1", "initialized to color 5"] {
        assert!(text.contains(needle), "{text}");
    }

    // the input queue is initialized to no color
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("v", ElemTy::U32, &[4])?;
    let v = pe.mem.mem1d("|i|{4} -> v[i]")?;
    let fin = FabIn::new(Arch::Wse3, 4, Some(in_queue(2)), Some(RECV.into()))?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "recv",
        vec![Action::spawn(
            Op::Mov32,
            &v,
            vec![fin.into()],
            AsyncConfig::default(),
        )],
    )?;
    sim.activate(0, 0, local_task(10))?;
    let text = sim.run(1_000).unwrap_err().to_string();
    for needle in ["fabric_color 6", "input queue 2", "initialized to no color"] {
        assert!(text.contains(needle), "{text}");
    }
    Ok(())
}

/// The reduce step of the SDK's `gemv-07-routes-2` on a 2×1 grid, as written: the left PE
/// sends its `y` east with
/// `@fmovs(@get_dsd(fabout_dsd, .{ .fabric_color = ax_color, .extent = M, .output_queue =
/// ax_color_oq }), y_dsd, .{ .async = true, .activate = exit_task_id })`, the right PE adds
/// it with `@fadds(y_dsd, y_dsd, @get_dsd(fabin_dsd, .{ .fabric_color = ax_color, .extent =
/// M, .input_queue = ax_color_iq }), .{ .async = true, .activate = exit_task_id })`; on WSE-3
/// only, `@initialize_queue(ax_color_oq, .{ .color = ax_color })` and
/// `@initialize_queue(ax_color_iq, .{ .color = ax_color })`.
fn reduce_as_written(arch: Arch) -> Res {
    const M: i64 = 4;
    let ax = Color::new(4)?;
    let (oq, iq) = (2u8, 2u8);
    let mut sim = Sim::new(arch, 2, 1)?;
    for x in 0..2i64 {
        let route = if x == 0 {
            Route::new(&[Dir::Ramp], &[Dir::East])
        } else {
            Route::new(&[Dir::West], &[Dir::Ramp])
        };
        sim.fabric_mut()
            .set_color_config(x, 0, ax, ColorConfig::fixed(route))?;
        let pe = sim.pe_mut(x, 0)?;
        let y0: Vec<f32> = (0..M).map(|i| (10 * x + i) as f32 + 0.5).collect();
        pe.mem.declare_with("y", &[M as u64], &y0)?;
        pe.mem.declare("exits", ElemTy::U32, &[1])?;
        if arch == Arch::Wse3 {
            pe.queues.bind_output(out_queue(oq), ax)?;
            pe.queues.bind_input(in_queue(iq), ax)?;
        }
        let y = pe.mem.mem1d(&format!("|i|{{{M}}} -> y[i]"))?;
        let reduce = if x == 0 {
            let out = FabOut::new(arch, M, Some(out_queue(oq)), Some(ax.id().into()))?;
            Action::spawn(
                Op::Fmovs,
                out,
                vec![(&y).into()],
                AsyncConfig::activate(local_task(9)),
            )
        } else {
            let fin = FabIn::new(arch, M, Some(in_queue(iq)), Some(ax.id().into()))?;
            Action::spawn(
                Op::Fadds,
                &y,
                vec![(&y).into(), fin.into()],
                AsyncConfig::activate(local_task(9)),
            )
        };
        let exit = vec![Action::call(|ctx| {
            let n = ctx.pe.mem.read::<u32>("exits")?[0];
            ctx.pe.mem.write("exits", &[n + 1])?;
            Ok(Vec::new())
        })];
        sim.bind_task(x, 0, local_task(9), "exit_task", exit)?;
        sim.bind_task(x, 0, local_task(10), "reduce", vec![reduce])?;
        sim.activate(x, 0, local_task(10))?;
    }
    sim.run(10_000)?;
    // y(right) = y(left) + y(right): (i + 0.5) + (10 + i + 0.5), exact in f32
    let want: Vec<f32> = (0..M).map(|i| (2 * i + 11) as f32).collect();
    assert_eq!(sim.pe(1, 0)?.mem.read::<f32>("y")?, want, "{arch}");
    for x in 0..2 {
        assert_eq!(sim.pe(x, 0)?.mem.read::<u32>("exits")?, vec![1], "{arch}");
    }
    Ok(())
}

#[test]
fn wse3_initialize_queue_program_runs_as_written() -> Res {
    reduce_as_written(Arch::Wse3)
}

#[test]
fn wse2_same_program_without_initialize_queue_runs_as_written() -> Res {
    reduce_as_written(Arch::Wse2)
}
