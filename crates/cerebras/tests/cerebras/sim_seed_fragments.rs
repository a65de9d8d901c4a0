//! Seed 004's fabric fragments run on the simulator as written (asynchronous forms).

use crate::common;

use crate::common::*;

use npusim_cerebras::dsd::{FabIn, FabOut, FifoConfig};
use npusim_cerebras::fabric::{Color, Wavelet};
use npusim_cerebras::sched::{Action, AsyncConfig, Sim};
use npusim_cerebras::{Arch, ElemTy, Op};

type Res = Result<(), Box<dyn std::error::Error>>;

/// The seed's control-wavelet relay:
///
/// ```text
/// var in_dsd = @get_dsd(fabin_dsd, .{ .fabric_color = recv_channel, .extent = 100,
///     .input_queue = @get_input_queue(0), .control_transform = true });
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
/// with extent 100 wavelets streamed through a 5-element FIFO, every tenth a control
/// wavelet: they leave in order, control wavelets still control wavelets (spec G47).
#[test]
fn control_transform_relay_through_a_fifo() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let (recv, send) = (Color::new(6)?, Color::new(7)?);
        let input = common::relay_input(recv);
        let mut sim = common::host_pipe(arch, recv, send, input.clone())?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("buf", ElemTy::U32, &[5])?;
        let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
        pe.queues.bind_input(in_queue(0), recv)?;
        pe.queues.bind_output(out_queue(1), send)?;
        let mut in_dsd = FabIn::new(arch, 100, Some(in_queue(0)), None)?;
        in_dsd.control_transform = true;
        let mut out_dsd = FabOut::new(arch, 100, Some(out_queue(1)), None)?;
        out_dsd.control_transform = true;
        let (report, got) = common::run_relay(&mut sim, fifo, in_dsd, out_dsd)?;
        let want: Vec<(u32, bool)> = input.iter().map(|w| (w.payload, w.is_control())).collect();
        assert_eq!(got, want, "{arch}");
        assert!(report.idle.is_empty());
        assert_eq!(report.pes[0].elements, 200, "100 wavelets in, 100 out");
    }
    Ok(())
}

/// `const inDsd = @get_dsd(fabin_dsd, .{ .extent = 5, .fabric_color = trigger });` (WSE-2):
/// an operation reading it takes exactly 5 of the wavelets arriving on `trigger`.
#[test]
fn seed_fabin_of_5_wavelets_on_color_trigger() -> Res {
    let trigger = Color::new(4)?;
    let input: Vec<Wavelet> = (0..7)
        .map(|k| Wavelet::data16(trigger, 0, 30 + k))
        .collect();
    let mut sim = common::host_pipe(Arch::Wse2, trigger, Color::new(5)?, input)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("mem", ElemTy::U16, &[7])?;
    let in_dsd = FabIn::new(Arch::Wse2, 5, None, Some(trigger.id().into()))?;
    let mem = pe.mem.mem1d("|i|{7} -> mem[i]")?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "t",
        vec![Action::sync(Op::Mov16, mem, vec![in_dsd.into()])],
    )?;
    sim.activate(0, 0, local_task(10))?;
    sim.run(200)?;
    assert_eq!(
        sim.pe(0, 0)?.mem.read::<u16>("mem")?,
        [30, 31, 32, 33, 34, 0, 0]
    );
    Ok(())
}

/// `const outDsd = @get_dsd(fabout_dsd, .{ .extent = 1024, .fabric_color = tx });`: 1024
/// non-control wavelets leave on `tx`, in element order.
#[test]
fn seed_fabout_of_1024_wavelets_on_color_tx() -> Res {
    let tx = Color::new(9)?;
    let mut sim = common::host_pipe(Arch::Wse2, Color::new(8)?, tx, Vec::new())?;
    let pe = sim.pe_mut(0, 0)?;
    let vals: Vec<u16> = (0..1024u32).map(|k| (k * 37 % 65_521) as u16).collect();
    pe.mem.declare_with("mem", &[1024], &vals)?;
    let out_dsd = FabOut::new(Arch::Wse2, 1024, None, Some(tx.id().into()))?;
    let mem = pe.mem.mem1d("|i|{1024} -> mem[i]")?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "t",
        vec![Action::sync(Op::Mov16, out_dsd, vec![mem.into()])],
    )?;
    sim.activate(0, 0, local_task(10))?;
    sim.run(10_000)?;
    let got: Vec<(u32, bool, u8)> = sim
        .collected()
        .iter()
        .map(|c| {
            (
                c.wavelet.payload,
                c.wavelet.is_control(),
                c.wavelet.color.id(),
            )
        })
        .collect();
    let want: Vec<(u32, bool, u8)> = vals
        .iter()
        .map(|&v| (u32::from(v), false, tx.id()))
        .collect();
    assert_eq!(got, want);
    Ok(())
}

/// `@mov16(destination_dsd, source_dsd, .{.async = true, .activate = mytask})` and the
/// `.unblock = mytask` form: `mytask` runs once, after the last element (it sees all of it).
#[test]
fn seed_async_completion_activates_or_unblocks_mytask() -> Res {
    for unblock in [false, true] {
        let rx = Color::new(3)?;
        let input: Vec<Wavelet> = (1..=4).map(|k| Wavelet::data32(rx, 10 * k)).collect();
        let mut sim = common::host_pipe(Arch::Wse2, rx, Color::new(5)?, input)?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("dst", ElemTy::U32, &[4])?;
        pe.mem.declare("seen", ElemTy::U32, &[4])?;
        pe.queues.bind_input(in_queue(2), rx)?;
        let src = FabIn::new(Arch::Wse2, 4, Some(in_queue(2)), None)?;
        let dst = pe.mem.mem1d("|i|{4} -> dst[i]")?;
        let (cfg, mut body) = if unblock {
            // mytask is active but blocked: only the completion's unblock lets it run
            (
                AsyncConfig::unblock(local_task(11)),
                vec![
                    Action::Block(local_task(11).into()),
                    Action::Activate(local_task(11)),
                ],
            )
        } else {
            (AsyncConfig::activate(local_task(11)), Vec::new())
        };
        body.push(Action::spawn(Op::Mov32, dst, vec![src.into()], cfg));
        sim.bind_task(0, 0, local_task(10), "t", body)?;
        sim.bind_task(
            0,
            0,
            local_task(11),
            "mytask",
            vec![Action::call(|ctx| {
                let d = ctx.pe.mem.read::<u32>("dst")?;
                let runs = ctx.pe.mem.read::<u32>("seen")?[0] + 1;
                ctx.pe.mem.write("seen", &[runs, d[1], d[2], d[3]])?;
                Ok(Vec::new())
            })],
        )?;
        sim.activate(0, 0, local_task(10))?;
        sim.run(200)?;
        let pe = sim.pe(0, 0)?;
        assert_eq!(pe.mem.read::<u32>("dst")?, [10, 20, 30, 40]);
        assert_eq!(
            pe.mem.read::<u32>("seen")?,
            [1, 20, 30, 40],
            "unblock {unblock}"
        );
    }
    Ok(())
}

/// The three `on_control` forms: `.terminate = true`, `.activate = mytask`,
/// `.unblock = mytask`. An unbounded input ends at the control wavelet (not an element);
/// the wavelets after it stay in the queue; `mytask` runs once for activate and unblock.
#[test]
fn seed_on_control_terminate_activate_unblock() -> Res {
    use npusim_cerebras::sched::OnControl;
    for form in 0..3 {
        let rx = Color::new(3)?;
        let mut input: Vec<Wavelet> = (1..=3).map(|k| Wavelet::data32(rx, k)).collect();
        input.push(Wavelet::control(rx, 0));
        input.push(Wavelet::data32(rx, 99));
        let mut sim = common::host_pipe(Arch::Wse2, rx, Color::new(5)?, input)?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("dst", ElemTy::U32, &[5])?;
        pe.mem.declare("runs", ElemTy::U32, &[1])?;
        pe.queues.bind_input(in_queue(1), rx)?;
        let src = FabIn::new(Arch::Wse2, 0x7fff, Some(in_queue(1)), None)?;
        let dst = pe.mem.mem1d("|i|{5} -> dst[i]")?;
        let on_control = match form {
            0 => OnControl::Terminate,
            1 => OnControl::Activate(local_task(11)),
            _ => OnControl::Unblock(local_task(11).into()),
        };
        let mut body = Vec::new();
        if form == 2 {
            body.push(Action::Block(local_task(11).into()));
            body.push(Action::Activate(local_task(11)));
        }
        let cfg = AsyncConfig {
            on_control: Some(on_control),
            ..AsyncConfig::default()
        };
        body.push(Action::spawn(Op::Mov32, dst, vec![src.into()], cfg));
        sim.bind_task(0, 0, local_task(10), "t", body)?;
        sim.bind_task(0, 0, local_task(11), "mytask", counter("runs"))?;
        sim.activate(0, 0, local_task(10))?;
        let report = sim.run(200)?;
        let pe = sim.pe(0, 0)?;
        assert_eq!(pe.mem.read::<u32>("dst")?, [1, 2, 3, 0, 0], "form {form}");
        assert_eq!(
            pe.mem.read::<u32>("runs")?,
            [u32::from(form > 0)],
            "form {form}"
        );
        assert!(report.idle.is_empty(), "form {form}: {:?}", report.idle);
        assert_eq!(
            pe.queues.input(in_queue(1)).map(|q| q.len()),
            Some(1),
            "form {form}"
        );
    }
    Ok(())
}

/// `@load_to_dsr(source_dsr, my_fabin_dsd, .{.async = true, .activate = my_task_id});`
/// then `@mov16(destination_dsd, source_dsr)`: the operation is asynchronous and activates
/// the task from the DSR's configuration alone.
#[test]
fn seed_async_dsr_loaded_with_activate() -> Res {
    use npusim_cerebras::dsd::Dsd;
    use npusim_cerebras::pe::DsrFile;
    let rx = Color::new(3)?;
    let input: Vec<Wavelet> = (0..3).map(|k| Wavelet::data16(rx, 0, 7 + k)).collect();
    let mut sim = common::host_pipe(Arch::Wse2, rx, Color::new(5)?, input)?;
    let pe = sim.pe_mut(0, 0)?;
    pe.mem.declare("dst", ElemTy::U16, &[3])?;
    pe.mem.declare("runs", ElemTy::U32, &[1])?;
    pe.queues.bind_input(in_queue(0), rx)?;
    let fin = Dsd::FabIn(FabIn::new(Arch::Wse2, 3, Some(in_queue(0)), None)?);
    let source_dsr = sim.load_to_dsr_async(
        0,
        0,
        DsrFile::Src0,
        &fin,
        AsyncConfig::activate(local_task(11)),
    )?;
    let dst = sim.pe(0, 0)?.mem.mem1d("|i|{3} -> dst[i]")?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "t",
        vec![Action::sync(Op::Mov16, dst, vec![source_dsr.into()])],
    )?;
    sim.bind_task(0, 0, local_task(11), "my_task", counter("runs"))?;
    sim.activate(0, 0, local_task(10))?;
    sim.run(200)?;
    let pe = sim.pe(0, 0)?;
    assert_eq!(pe.mem.read::<u16>("dst")?, [7, 8, 9]);
    assert_eq!(pe.mem.read::<u32>("runs")?, [1]);
    Ok(())
}

/// WSE-3: `@allocate_fifo(fifo_buffer, .{ .priority = .{ .low = true } })`: an asynchronous
/// operation writing that FIFO runs at low priority, below one at the default (high); fed in
/// the same cycle, the other operation's end is recorded first. Without the FIFO's priority
/// both are high and the tie goes to the lower microthread id (the FIFO writer's, 0).
#[test]
fn seed_wse3_fifo_priority_low() -> Res {
    use npusim_cerebras::dsd::Priority;
    use npusim_cerebras::sched::EventKind;
    let order =
        |fifo_priority: Option<Priority>| -> Result<Vec<String>, Box<dyn std::error::Error>> {
            let c = Color::new(2)?;
            let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
            sim.record_events(true);
            let pe = sim.pe_mut(0, 0)?;
            pe.mem.declare("fifo_buffer", ElemTy::U32, &[4])?;
            pe.mem.declare("other", ElemTy::U32, &[4])?;
            let config = FifoConfig {
                priority: fifo_priority,
                ..FifoConfig::default()
            };
            let fifo = pe.allocate_fifo("fifo_buffer", config)?;
            let other = pe.allocate_fifo("other", FifoConfig::default())?;
            let fin = |q: i64| FabIn::new(Arch::Wse3, 1, Some(in_queue(q)), None);
            let body = vec![
                Action::spawn(
                    Op::Mov32,
                    fifo,
                    vec![fin(0)?.into()],
                    AsyncConfig::default(),
                ),
                Action::spawn(
                    Op::Mov32,
                    other,
                    vec![fin(1)?.into()],
                    AsyncConfig::default(),
                ),
            ];
            sim.bind_task(0, 0, local_task(10), "t", body)?;
            sim.activate(0, 0, local_task(10))?;
            sim.run(100).expect_err("both wait");
            let pe = sim.pe_mut(0, 0)?;
            for q in [0u8, 1] {
                pe.queues
                    .input_mut(in_queue(q))
                    .ok_or("input queue")?
                    .push(Wavelet::data32(c, 7))
                    .map_err(|w| format!("no room for {w}"))?;
            }
            sim.run(100)?;
            Ok(sim
                .events()
                .iter()
                .filter(|e| e.kind == EventKind::OpDone)
                .map(|e| e.thread.clone())
                .collect())
        };
    assert_eq!(order(Some(Priority::Low))?, ["ut 1", "ut 0"]);
    assert_eq!(order(None)?, ["ut 0", "ut 1"]);
    assert_eq!(order(Some(Priority::High))?, ["ut 0", "ut 1"]);
    Ok(())
}
