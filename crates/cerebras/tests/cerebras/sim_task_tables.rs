//! WSE-3 task tables (spec §7): `@set_control_task_table` gives control tasks their own id
//! space; `@bind_rotating_tasks` runs the paired control task on every `limit`-th start of a
//! data task.

use crate::common::*;
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route, Wavelet};
use npusim_cerebras::ids::{ControlTaskId, DataTaskId};
use npusim_cerebras::sched::{Action, ControlTaskTable, Sim};
use npusim_cerebras::{Arch, ElemTy};

type Res = Result<(), Box<dyn std::error::Error>>;

#[test]
fn a_separate_control_table_lets_control_ids_reuse_task_ids() -> Res {
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    sim.bind_task(0, 0, local_task(12), "local", Vec::new())?;
    let e = sim
        .bind_task(0, 0, control_task(12), "ctrl", Vec::new())
        .expect_err("one table: id 12 clashes");
    assert!(
        e.to_string().contains("clashes with task local (id 12)"),
        "{e}"
    );
    sim.set_control_task_table(0, 0, ControlTaskTable::default())?;
    sim.bind_task(0, 0, control_task(12), "ctrl", Vec::new())?;
    // still one id per table, and one name per PE
    let e = sim
        .bind_task(0, 0, control_task(12), "ctrl2", Vec::new())
        .expect_err("control 12 twice");
    assert!(e.to_string().contains("ctrl (id 12)"), "{e}");
    assert!(
        sim.bind_task(0, 0, local_task(13), "ctrl", Vec::new())
            .is_err()
    );
    Ok(())
}

#[test]
fn control_table_fields_and_architecture_are_checked() -> Res {
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    for (instructions, stride, bad) in [
        (3, 1, "instructions = 3"),
        (4, 0, "stride = 0"),
        (8, 8, "stride = 8"),
    ] {
        let e = sim
            .set_control_task_table(
                0,
                0,
                ControlTaskTable {
                    instructions,
                    stride,
                },
            )
            .expect_err(bad);
        assert!(e.to_string().contains(bad), "{e}");
    }
    for (instructions, stride) in [(2, 1), (4, 7), (8, 3)] {
        sim.set_control_task_table(
            0,
            0,
            ControlTaskTable {
                instructions,
                stride,
            },
        )?;
    }
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    let e = sim
        .set_control_task_table(0, 0, ControlTaskTable::default())
        .expect_err("WSE-3 only");
    assert!(e.to_string().contains("WSE-3 only"), "{e}");
    Ok(())
}

/// A WSE-3 PE whose data task `recv` (input queue 0) logs each wavelet's payload in `data`
/// and whose control task `rot` logs it in `ctrl`; `n` wavelets stream in; the pair rotates
/// with `limit` and `init`. Returns the two logs.
fn rotation_run(
    n: u32,
    limit: u16,
    init: u16,
) -> Result<(Vec<u32>, Vec<u32>), Box<dyn std::error::Error>> {
    let c = Color::new(4)?;
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    let f = sim.fabric_mut();
    f.set_color_config(
        0,
        0,
        c,
        ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::Ramp])),
    )?;
    f.open_edge(0, 0, Dir::West)?;
    f.stream_in(
        0,
        0,
        Dir::West,
        (1..=n).map(|k| Wavelet::data32(c, 100 + k)),
    )?;
    let pe = sim.pe_mut(0, 0)?;
    pe.queues.bind_input(in_queue(0), c)?;
    for log in ["data", "ctrl"] {
        pe.mem.declare(log, ElemTy::U32, &[u64::from(n) + 1])?;
    }
    let logger = |log: &'static str| {
        vec![Action::call(move |ctx| {
            let mut v = ctx.pe.mem.read::<u32>(log)?;
            let k = v[0] as usize + 1;
            v[0] += 1;
            v[k] = ctx.wavelet.map_or(0, |w| w.payload);
            ctx.pe.mem.write(log, &v)?;
            Ok(Vec::new())
        })]
    };
    sim.set_control_task_table(0, 0, ControlTaskTable::default())?;
    let (recv, rot) = (DataTaskId::of_queue(in_queue(0)), control_task(0));
    sim.bind_task(0, 0, recv, "recv", logger("data"))?;
    sim.bind_task(0, 0, rot, "rot", logger("ctrl"))?;
    sim.bind_rotating_tasks(0, 0, recv, rot, limit, init)?;
    sim.run(1_000)?;
    let read = |log| -> Result<Vec<u32>, Box<dyn std::error::Error>> {
        let v = sim.pe(0, 0)?.mem.read::<u32>(log)?;
        Ok(v[1..=v[0] as usize].to_vec())
    };
    Ok((read("data")?, read("ctrl")?))
}

#[test]
fn every_limit_th_start_of_a_rotating_data_task_runs_its_control_task() -> Res {
    for (limit, init) in [(3u16, 0u16), (3, 2), (1, 0), (4, 1)] {
        let n = 9;
        let (data, ctrl) = rotation_run(n, limit, init)?;
        // the k-th start (k = 1, 2, ...) brings the counter to init + k: control on multiples
        let (want_ctrl, want_data): (Vec<u32>, Vec<u32>) =
            (1..=n).map(|k| 100 + k).partition(|&p| {
                let k = p - 100;
                (u32::from(init) + k) % u32::from(limit) == 0
            });
        assert_eq!(
            (data, ctrl),
            (want_data, want_ctrl),
            "limit {limit} init {init}"
        );
    }
    // the documented case: limit 3 from 0, the 3rd, 6th and 9th wavelets go to the control task
    assert_eq!(rotation_run(9, 3, 0)?.1, [103, 106, 109]);
    Ok(())
}

#[test]
fn rotating_tasks_are_checked() -> Res {
    let mut sim = Sim::new(Arch::Wse3, 1, 1)?;
    sim.set_control_task_table(0, 0, ControlTaskTable::default())?;
    let d = |q| DataTaskId::of_queue(in_queue(q));
    for q in 0..3u8 {
        sim.bind_task(0, 0, d(q), &format!("d{q}"), Vec::new())?;
        sim.bind_task(0, 0, control_task(q), &format!("c{q}"), Vec::new())?;
    }
    sim.bind_task(0, 0, local_task(10), "local", Vec::new())?;
    let err = |sim: &mut Sim, d: DataTaskId, c: ControlTaskId, limit, init| {
        sim.bind_rotating_tasks(0, 0, d, c, limit, init)
            .expect_err("refused")
            .to_string()
    };
    let c = control_task;
    assert!(err(&mut sim, d(5), c(0), 2, 0).contains("no data task is bound at data task id 5"));
    assert!(
        err(&mut sim, d(0), c(7), 2, 0).contains("no control task is bound at control task id 7")
    );
    assert!(err(&mut sim, d(0), c(0), 0, 0).contains("limit 0"));
    assert!(err(&mut sim, d(0), c(0), 2, 2).contains("init 2"));
    sim.bind_rotating_tasks(0, 0, d(0), c(0), 2, 0)?;
    assert!(err(&mut sim, d(0), c(1), 2, 0).contains("already rotates"));
    sim.bind_rotating_tasks(0, 0, d(1), c(1), 2, 0)?;
    assert!(err(&mut sim, d(2), c(2), 2, 0).contains("at most 2 pairs"));
    let mut sim = Sim::new(Arch::Wse2, 1, 1)?;
    assert!(err(&mut sim, d(0), c(0), 2, 0).contains("WSE-3 only"));
    Ok(())
}
