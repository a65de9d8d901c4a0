//! Control wavelets and control tasks (spec §7, G46): a control wavelet reaching the head of a
//! data task's channel starts the control task it names, after the data before it.

use crate::common::*;
use npusim_cerebras::dsd::FabOut;
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route};
use npusim_cerebras::ids::{Channel, InputQueue};
use npusim_cerebras::sched::{Action, Sim, SimError, control_entry};
use npusim_cerebras::{Arch, ElemTy, Op, Scalar};

type Res = Result<(), Box<dyn std::error::Error>>;

/// PE0 sends f32 `values` then one control wavelet naming `entry` on color 3; PE1 sums the
/// data in a data task and its control task 43 stores the sum and how many data tasks ran.
fn sentinel(arch: Arch, values: &[f32], entry: u32) -> Result<Sim, Box<dyn std::error::Error>> {
    let c = Color::new(3)?;
    let mut sim = Sim::new(arch, 2, 1)?;
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
    let n = values.len() as u64;
    let pe0 = sim.pe_mut(0, 0)?;
    pe0.mem.declare_with("v", &[n], values)?;
    pe0.queues.bind_output(out_queue(2), c)?;
    let v = pe0.mem.mem1d(&format!("|i|{{{n}}} -> v[i]"))?;
    let data = FabOut::new(arch, n as i64, Some(out_queue(2)), None)?;
    let mut ctl = FabOut::new(arch, 1, Some(out_queue(2)), None)?;
    ctl.control = true;
    let pe1 = sim.pe_mut(1, 0)?;
    pe1.mem.declare("sum", ElemTy::F32, &[1])?;
    pe1.mem.declare("seen", ElemTy::U32, &[1])?;
    pe1.mem.declare("result", ElemTy::F32, &[2])?;
    // the data task's channel: color 3 (WSE-2 id 3) or input queue 3 bound to it (WSE-3)
    pe1.queues.bind_input(in_queue(3), c)?;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "send",
        vec![
            Action::sync(Op::Fmovs, data, vec![v.into()]),
            Action::sync(Op::Mov32, ctl, vec![Scalar::u32(entry << 16).into()]),
        ],
    )?;
    let add = Action::call(|ctx| {
        let x = f32::from_bits(ctx.wavelet.map_or(0, |w| w.payload));
        let s = ctx.pe.mem.read::<f32>("sum")?[0];
        let k = ctx.pe.mem.read::<u32>("seen")?[0];
        ctx.pe.mem.write("sum", &[s + x])?;
        ctx.pe.mem.write("seen", &[k + 1])?;
        Ok(Vec::new())
    });
    let store = Action::call(|ctx| {
        let s = ctx.pe.mem.read::<f32>("sum")?[0];
        let k = ctx.pe.mem.read::<u32>("seen")?[0];
        ctx.pe.mem.write("result", &[s, k as f32])?;
        Ok(Vec::new())
    });
    sim.bind_task(1, 0, data_task(3), "recv", vec![add])?;
    sim.bind_task(1, 0, control_task(43), "done", vec![store])?;
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

#[test]
fn g46_sentinel_control_task_runs_after_the_data() -> Res {
    assert_eq!(control_entry(43 << 16 | 0xFFFF), 43);
    for arch in [Arch::Wse2, Arch::Wse3] {
        for values in [vec![1.0f32, 2.0, 3.0, 4.0], vec![0.5; 9]] {
            let mut sim = sentinel(arch, &values, 43)?;
            sim.run(1000)?;
            let sum: f32 = values.iter().sum();
            assert_eq!(
                sim.pe(1, 0)?.mem.read::<f32>("result")?,
                [sum, values.len() as f32],
                "{arch}"
            );
        }
    }
    Ok(())
}

#[test]
fn a_control_wavelet_naming_no_bound_control_task_is_an_error() -> Res {
    let mut sim = sentinel(Arch::Wse2, &[1.0], 44)?;
    let e = sim.run(1000).expect_err("no control task 44");
    assert!(
        matches!(&e, SimError::UnexpectedControl { x: 1, y: 0, entry: 44, task, .. } if task == "recv"),
        "{e}"
    );
    assert!(e.to_string().contains("PE (1, 0)"), "{e}");
    Ok(())
}

/// PE0 sends f32 `values` then one control wavelet naming `entry` (data 0x1234) on color 3.
/// PE1 has no data task on that channel: an asynchronous fabin receives the values into `buf`
/// and control task 43 stores the sum of `buf` and the wavelet's data. `unblock` says how the
/// channel is unblocked: not at all, by the host, or by an `@unblock(channel)` in PE1's task.
fn unbound_channel(
    arch: Arch,
    values: &[f32],
    entry: u32,
    unblock: Option<bool>,
) -> Result<Sim, Box<dyn std::error::Error>> {
    use npusim_cerebras::dsd::FabIn;
    use npusim_cerebras::sched::AsyncConfig;
    let c = Color::new(3)?;
    let mut sim = Sim::new(arch, 2, 1)?;
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
    let n = values.len() as u64;
    let pe0 = sim.pe_mut(0, 0)?;
    pe0.mem.declare_with("v", &[n], values)?;
    pe0.queues.bind_output(out_queue(2), c)?;
    let v = pe0.mem.mem1d(&format!("|i|{{{n}}} -> v[i]"))?;
    let data = FabOut::new(arch, n as i64, Some(out_queue(2)), None)?;
    let mut ctl = FabOut::new(arch, 1, Some(out_queue(2)), None)?;
    ctl.control = true;
    sim.bind_task(
        0,
        0,
        local_task(10),
        "send",
        vec![
            Action::sync(Op::Fmovs, data, vec![v.into()]),
            Action::sync(
                Op::Mov32,
                ctl,
                vec![Scalar::u32(entry << 16 | 0x1234).into()],
            ),
        ],
    )?;
    let pe1 = sim.pe_mut(1, 0)?;
    pe1.mem.declare("buf", ElemTy::F32, &[n])?;
    pe1.mem.declare("result", ElemTy::F32, &[2])?;
    pe1.queues.bind_input(in_queue(3), c)?;
    let buf = pe1.mem.mem1d(&format!("|i|{{{n}}} -> buf[i]"))?;
    let fin = FabIn::new(arch, n as i64, Some(in_queue(3)), None)?;
    // the channel: the color on WSE-2, the input queue bound to it on WSE-3
    let channel: Channel = match arch {
        Arch::Wse2 => c.into(),
        Arch::Wse3 => in_queue(3).into(),
    };
    let mut main = vec![Action::spawn(
        Op::Fmovs,
        &buf,
        vec![fin.into()],
        AsyncConfig::default(),
    )];
    if unblock == Some(false) {
        main.push(Action::UnblockChannel(channel));
    }
    let store = Action::call(|ctx| {
        let s: f32 = ctx.pe.mem.read::<f32>("buf")?.iter().sum();
        let d = ctx.wavelet.map_or(0, |w| w.payload & 0xFFFF);
        ctx.pe.mem.write("result", &[s, d as f32])?;
        Ok(Vec::new())
    });
    sim.bind_task(1, 0, local_task(10), "main", main)?;
    sim.bind_task(1, 0, control_task(43), "done", vec![store])?;
    sim.activate(1, 0, local_task(10))?;
    if unblock == Some(true) {
        sim.unblock_channel(1, 0, channel)?;
    }
    sim.activate(0, 0, local_task(10))?;
    Ok(sim)
}

#[test]
fn a_control_wavelet_on_an_unblocked_channel_without_a_data_task_starts_its_control_task() -> Res {
    for arch in [Arch::Wse2, Arch::Wse3] {
        for values in [vec![1.0f32, 2.0, 3.0], vec![0.25; 5]] {
            let sum: f32 = values.iter().sum();
            for how in [Some(true), Some(false)] {
                let mut sim = unbound_channel(arch, &values, 43, how)?;
                sim.run(1000)?;
                assert_eq!(
                    sim.pe(1, 0)?.mem.read::<f32>("result")?,
                    [sum, f32::from(0x1234u16)],
                    "{arch} {how:?}"
                );
                assert!(
                    sim.pe(1, 0)?
                        .queues
                        .input(in_queue(3))
                        .is_some_and(|q| q.is_empty())
                );
            }
            // a channel left blocked: the control wavelet stays in the queue, no task runs
            let mut sim = unbound_channel(arch, &values, 43, None)?;
            sim.run(1000)?;
            assert_eq!(
                sim.pe(1, 0)?.mem.read::<f32>("result")?,
                [0.0, 0.0],
                "{arch}"
            );
            assert_eq!(
                sim.pe(1, 0)?.queues.input(in_queue(3)).map(|q| q.len()),
                Some(1)
            );
        }
    }
    Ok(())
}

#[test]
fn an_unblocked_channel_control_wavelet_naming_no_control_task_is_an_error() -> Res {
    let mut sim = unbound_channel(Arch::Wse3, &[1.0], 44, Some(true))?;
    let e = sim.run(1000).expect_err("no control task 44");
    assert!(
        matches!(&e, SimError::UnexpectedControl { x: 1, y: 0, entry: 44, task, .. } if task.contains("channel 3")),
        "{e}"
    );
    // WSE-3 channels are input queues 0..=7, WSE-2 channels colors 0..=23
    let e = InputQueue::new(8).expect_err("queues are 0..=7");
    assert_eq!(e.to_string(), "input queue 8 is out of range [0, 7]");
    let e = Color::new(24).expect_err("colors are 0..=23");
    assert!(e.to_string().contains("24"), "{e}");
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    assert!(sim.unblock_channel(0, 0, in_queue(7)).is_ok());
    let e = sim
        .unblock_channel(0, 0, Color::new(3)?)
        .expect_err("a color is no WSE-3 channel");
    assert!(
        e.to_string()
            .contains("channel color 3: a channel is an input queue on wse3"),
        "{e}"
    );
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    assert!(sim.unblock_channel(0, 0, Color::new(23)?).is_ok());
    let e = sim
        .unblock_channel(0, 0, in_queue(3))
        .expect_err("an input queue is no WSE-2 channel");
    assert!(
        e.to_string()
            .contains("channel input queue 3: a channel is a color on wse2"),
        "{e}"
    );
    Ok(())
}
