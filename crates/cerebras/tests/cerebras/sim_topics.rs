//! Small official tutorials on the simulator: topic-04 (two 16-bit task arguments, G42) and
//! topic-15 (WSE-3 explicit microthread ids).

use crate::common;

use crate::common::*;

use npusim_cerebras::dsd::{FabIn, FabOut};
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::sched::{Action, AsyncConfig, Sim};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

type Res = Result<(), Box<dyn std::error::Error>>;

/// topic-04: `task(data: i16, idx: i16) { result[idx] = data; @mov16(echo, data); }` fed
/// `0x0000_002A, 0x0003_001A` ⇒ `result = [42, 0, 0, 26]`, echoed `[42, 26]`.
#[test]
fn g42_two_16_bit_task_arguments() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let (cin, cout) = (Color::new(1)?, Color::new(2)?);
        let mut sim = common::host_pipe(
            arch,
            cin,
            cout,
            [0x0000_002A, 0x0003_001A].map(|p| Wavelet::data32(cin, p)),
        )?;
        let pe = sim.pe_mut(0, 0)?;
        pe.mem.declare("result", ElemTy::I16, &[4])?;
        pe.queues.bind_input(in_queue(1), cin)?;
        pe.queues.bind_output(out_queue(2), cout)?;
        let echo = FabOut::new(arch, 1, Some(out_queue(2)), None)?;
        let task = Action::call(move |ctx| {
            let w = ctx.wavelet.unwrap_or(Wavelet::data32(Color::new(1)?, 0));
            let (data, idx) = (w.low16() as i16, w.index() as i16);
            let mut r = ctx.pe.mem.read::<i16>("result")?;
            if let Some(slot) = r.get_mut(idx as usize) {
                *slot = data;
            }
            ctx.pe.mem.write("result", &r)?;
            Ok(vec![Action::sync(
                Op::Mov16,
                echo.clone(),
                vec![Scalar::i16(data).into()],
            )])
        });
        let id = match arch {
            Arch::Wse2 => cin.id(),
            Arch::Wse3 => 1,
        };
        sim.bind_task(0, 0, data_task(id), "recv", vec![task])?;
        sim.run(100)?;
        assert_eq!(sim.pe(0, 0)?.mem.read::<i16>("result")?, [42, 0, 0, 26]);
        let echoed: Vec<u32> = sim.collected().iter().map(|c| c.wavelet.payload).collect();
        assert_eq!(echoed, [42, 26]);
    }
    Ok(())
}

/// topic-15 (WSE-3 only): the left PE sends `y` (M = 10, `arange`) with `.ut_id = 4` through
/// output queue 2, the right PE receives it with `.ut_id = 5` through input queue 2.
#[test]
fn topic15_wse3_explicit_microthreads() -> Res {
    let c = Color::new(0)?;
    let mut sim = Sim::new(Arch::Wse3, 2, 1)?;
    let f = sim.fabric_mut();
    f.set_color_config(
        0,
        0,
        c,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    f.set_color_config(
        1,
        0,
        c,
        ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
    )?;
    let y: Vec<f32> = (0..10).map(|k| k as f32).collect();
    let left = sim.pe_mut(0, 0)?;
    left.mem.declare_with("y", &[10], &y)?;
    left.queues.bind_output(out_queue(2), c)?;
    let ly = left.mem.mem1d("|i|{10} -> y[i]")?;
    let right = sim.pe_mut(1, 0)?;
    right.mem.declare("y", ElemTy::F32, &[10])?;
    right.mem.declare("done", ElemTy::U32, &[1])?;
    right.queues.bind_input(in_queue(2), c)?;
    let ry = right.mem.mem1d("|i|{10} -> y[i]")?;
    let on_ut = |u: u8| AsyncConfig {
        ut_id: Some(ut(u)),
        ..AsyncConfig::default()
    };
    let out = FabOut::new(Arch::Wse3, 10, Some(out_queue(2)), None)?;
    let fin = FabIn::new(Arch::Wse3, 10, Some(in_queue(2)), None)?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "send",
        vec![Action::spawn(Op::Fmovs, out, vec![ly.into()], on_ut(4))],
    )?;
    let mut recv_cfg = on_ut(5);
    recv_cfg.on_done = Some(npusim_cerebras::sched::Completion::Activate(local_task(11)));
    sim.bind_task(
        1,
        0,
        local_task(10),
        "recv",
        vec![Action::spawn(Op::Fmovs, ry, vec![fin.into()], recv_cfg)],
    )?;
    sim.bind_task(
        1,
        0,
        local_task(11),
        "done",
        vec![Action::call(|ctx| {
            ctx.pe.mem.write("done", &[1u32])?;
            Ok(Vec::new())
        })],
    )?;
    sim.activate(0, 0, local_task(10))?;
    sim.activate(1, 0, local_task(10))?;
    let report = sim.run(1000)?;
    assert_eq!(sim.pe(1, 0)?.mem.read::<f32>("y")?, y);
    assert_eq!(sim.pe(1, 0)?.mem.read::<u32>("done")?, [1]);
    assert!(report.pes[1].input_high_water[2] >= 1);
    Ok(())
}

/// topic-08 (G44): PE 0 sends `(idx << 16) | f16(10 + idx)`, idx 0..12, east on color 1; PE k
/// (k = 1..3) has a range filter `[3k, 3k + 2]` and stores `data / 2` of what passes.
#[test]
fn g44_range_filters() -> Res {
    use npusim_cerebras::fabric::RangeFilter;
    let c = Color::new(1)?;
    let mut sim = Sim::new(Arch::Wse2, 4, 1)?;
    let payloads: Vec<u32> = (0..12u32)
        .map(|idx| (idx << 16) | u32::from(half::f16::from_f32(10.0 + idx as f32).to_bits()))
        .collect();
    let f = sim.fabric_mut();
    f.set_color_config(
        0,
        0,
        c,
        ColorConfig::fixed(Route::new(&[Dir::Ramp], &[Dir::East])),
    )?;
    for k in 1..4i64 {
        let tx: &[Dir] = if k == 3 {
            &[Dir::Ramp]
        } else {
            &[Dir::Ramp, Dir::East]
        };
        f.set_color_config(k, 0, c, ColorConfig::fixed(Route::new(&[Dir::West], tx)))?;
    }
    let pe0 = sim.pe_mut(0, 0)?;
    pe0.mem.declare_with("v", &[12], &payloads)?;
    pe0.queues.bind_output(out_queue(2), c)?;
    let v = pe0.mem.mem1d("|i|{12} -> v[i]")?;
    let out = FabOut::new(Arch::Wse2, 12, Some(out_queue(2)), None)?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "send",
        vec![Action::sync(Op::Mov32, out, vec![v.into()])],
    )?;
    sim.activate(0, 0, local_task(10))?;
    for k in 1..4i64 {
        let pe = sim.pe_mut(k, 0)?;
        pe.mem.declare("result", ElemTy::F32, &[3])?;
        pe.mem.declare("n", ElemTy::U32, &[1])?;
        let lo = 3 * k as u16;
        pe.queues.set_filter(
            c,
            Some(RangeFilter {
                min_idx: lo,
                max_idx: lo + 2,
            }),
        );
        let store = Action::call(|ctx| {
            let data = half::f16::from_bits(ctx.wavelet.map_or(0, |w| w.low16())).to_f32();
            let n = ctx.pe.mem.read::<u32>("n")?[0];
            let mut r = ctx.pe.mem.read::<f32>("result")?;
            if let Some(slot) = r.get_mut(n as usize) {
                *slot = data / 2.0;
            }
            ctx.pe.mem.write("result", &r)?;
            ctx.pe.mem.write("n", &[n + 1])?;
            Ok(Vec::new())
        });
        sim.bind_task(k, 0, data_task(c.id()), "recv", vec![store])?;
    }
    sim.run(1000)?;
    for (k, want) in [
        (1, [6.5f32, 7.0, 7.5]),
        (2, [8.0, 8.5, 9.0]),
        (3, [9.5, 10.0, 10.5]),
    ] {
        assert_eq!(sim.pe(k, 0)?.mem.read::<f32>("result")?, want, "PE {k}");
        assert_eq!(sim.pe(k, 0)?.mem.read::<u32>("n")?, [3]);
        // the routers forward all 12 to every PE; the filter drops the other 9
        assert_eq!(sim.pe(k, 0)?.queues.filtered(), 9, "PE {k}");
    }
    Ok(())
}
