//! Seed 004's fabric fragments run on the simulator as written (asynchronous forms).

use npusim_cerebras::dsd::{FabIn, FabOut, FifoConfig};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::sim::{Action, AsyncConfig, Sim, TaskKind};
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
        let mut sim = Sim::new(arch, 1, 1)?;
        let f = sim.fabric_mut();
        f.set_color_config(
            0,
            0,
            recv,
            ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
        )?;
        f.set_color_config(
            0,
            0,
            send,
            ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
        )?;
        f.open_edge(0, 0, Dir::West)?;
        f.open_edge(0, 0, Dir::East)?;
        let input: Vec<Wavelet> = (0..100u32)
            .map(|k| {
                if k % 10 == 9 {
                    Wavelet::control(recv, 0x0012_0000 | k)
                } else {
                    Wavelet::data32(recv, (k << 16) | (1000 + k))
                }
            })
            .collect();
        f.stream_in(0, 0, Dir::West, input.clone())?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("buf", ElemTy::U32, &[5])?;
        let fifo = pe.allocate_fifo("buf", FifoConfig::default())?;
        pe.queues.bind_input(0, recv)?;
        pe.queues.bind_output(1, send)?;
        let mut in_dsd = FabIn::new(arch, 100, Some(0), None)?;
        in_dsd.control_transform = true;
        let mut out_dsd = FabOut::new(arch, 100, Some(1), None)?;
        out_dsd.control_transform = true;
        sim.bind_task(
            0,
            0,
            TaskKind::Local,
            10,
            "buffer",
            vec![
                Action::spawn(Op::Mov32, fifo, vec![in_dsd.into()], AsyncConfig::default()),
                Action::spawn(
                    Op::Mov32,
                    out_dsd,
                    vec![fifo.into()],
                    AsyncConfig::default(),
                ),
            ],
        )?;
        sim.activate(0, 0, "buffer")?;
        let report = sim.run(10_000)?;
        let got: Vec<(u32, bool)> = sim
            .collected()
            .iter()
            .map(|c| (c.wavelet.payload, c.wavelet.is_control()))
            .collect();
        let want: Vec<(u32, bool)> = input.iter().map(|w| (w.payload, w.is_control())).collect();
        assert_eq!(got, want, "{arch}");
        assert!(report.idle.is_empty());
        assert_eq!(report.pes[0].elements, 200, "100 wavelets in, 100 out");
    }
    Ok(())
}
