//! The PE side of the fabric: `fabin_dsd` / `fabout_dsd` (module-level and inside
//! functions), `@initialize_queue`, asynchronous operations that activate tasks, data tasks
//! whose argument is the wavelet, on a row of PEs whose routes the test sets through the
//! simulator's API. Programs are in `programs/fabric_*/`; expected values are computed here.

use std::sync::Arc;

use npusim_cerebras::Arch as SimArch;
use npusim_cerebras::fabric::{Color, ColorConfig, Dir, Route};
use npusim_cerebras::sched::Sim;
use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig, Value};
use npusim_csl::pe::{LoadedPe, PeError, PeProgram, load, run};

pub const LIMIT: u64 = 100_000;
pub const ARCHS: [(Arch, SimArch); 2] = [(Arch::Wse2, SimArch::Wse2), (Arch::Wse3, SimArch::Wse3)];

/// The text of `programs/<path>`.
pub fn program_text(path: &str) -> String {
    let p = format!("{}/tests/csl/programs/{path}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

/// `text` compiled for `arch` with integer params.
pub fn compile(
    name: &str,
    text: &str,
    arch: Arch,
    params: &[(&str, i128)],
) -> Result<PeProgram, PeError> {
    let config = ComptimeConfig {
        arch,
        params: params
            .iter()
            .map(|(n, v)| (n.to_string(), Value::comptime_int(*v)))
            .collect(),
    };
    PeProgram::compile(&SourceFile::new(name, text), &config)
}

/// A row of `width` PEs where `color` goes from PE 0's RAMP east to PE `width - 1`'s RAMP.
pub fn row(arch: SimArch, width: u32, color: i64) -> Sim {
    let mut sim = Sim::new(arch, width, 1).unwrap();
    let c = Color::new(color).unwrap();
    for x in 0..i64::from(width) {
        let route = if x == 0 {
            Route::new(&[Dir::Ramp], &[Dir::East])
        } else if x == i64::from(width) - 1 {
            Route::new(&[Dir::West], &[Dir::Ramp])
        } else {
            Route::new(&[Dir::West], &[Dir::East])
        };
        sim.fabric_mut()
            .set_color_config(x, 0, c, ColorConfig::fixed(route))
            .unwrap();
    }
    sim
}

/// Loads `text` on PE `(x, 0)` with `pe_id = x` and `params`.
pub fn load_at(
    sim: &mut Sim,
    name: &str,
    text: &str,
    arch: Arch,
    x: i64,
    params: &[(&str, i128)],
) -> LoadedPe {
    let mut all = vec![("pe_id", i128::from(x))];
    all.extend_from_slice(params);
    let p = compile(name, text, arch, &all).unwrap_or_else(|e| panic!("{e}"));
    load(&Arc::new(p), sim, x, 0).unwrap_or_else(|e| panic!("{e}"))
}

fn src_values(m: usize) -> Vec<f32> {
    (0..m).map(|i| i as f32 * 1.25 - 2.0).collect()
}

#[test]
fn two_pe_relay_adds_the_received_vector_and_activates_a_task_on_both_architectures() {
    let m = 5usize;
    let text = program_text("fabric_relay/relay.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = row(sim_arch, 2, 7);
        let params = [("M", m as i128), ("send_color", 7)];
        let pes = [
            load_at(&mut sim, "relay.csl", &text, arch, 0, &params),
            load_at(&mut sim, "relay.csl", &text, arch, 1, &params),
        ];
        let src = src_values(m);
        let init: Vec<f32> = (0..m).map(|i| 10.0 * i as f32).collect();
        sim.pe_mut(0, 0).unwrap().mem.write("src", &src).unwrap();
        sim.pe_mut(1, 0).unwrap().mem.write("acc", &init).unwrap();
        let report = run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let acc = sim.pe(1, 0).unwrap().mem.read::<f32>("acc").unwrap();
        let want: Vec<f32> = init.iter().zip(&src).map(|(a, s)| a + s).collect();
        assert_eq!(acc, want, "{arch:?}");
        for x in 0..2 {
            let done = sim.pe(x, 0).unwrap().mem.read::<u32>("done_count").unwrap();
            assert_eq!(done, vec![1], "{arch:?} PE {x}");
        }
        // each PE's one operation moved M elements
        for s in &report.pes {
            assert_eq!(s.elements, m as u64, "{arch:?} PE ({}, {})", s.x, s.y);
        }
    }
}

#[test]
fn data_task_receives_each_wavelet_as_its_argument_and_accumulates() {
    let m = 6usize;
    let text = program_text("fabric_data_task/accumulate.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = row(sim_arch, 2, 5);
        let params = [("M", m as i128), ("send_color", 5)];
        let pes = [
            load_at(&mut sim, "accumulate.csl", &text, arch, 0, &params),
            load_at(&mut sim, "accumulate.csl", &text, arch, 1, &params),
        ];
        let src = src_values(m);
        sim.pe_mut(0, 0).unwrap().mem.write("src", &src).unwrap();
        run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let mem = &sim.pe(1, 0).unwrap().mem;
        // in arrival order, each addition rounded to f32
        let want = src.iter().fold(0f32, |s, v| s + v);
        assert_eq!(mem.read::<f32>("sum").unwrap(), vec![want], "{arch:?}");
        assert_eq!(
            mem.read::<i16>("count").unwrap(),
            vec![m as i16],
            "{arch:?}"
        );
        assert_eq!(
            mem.read::<i16>("finished").unwrap(),
            vec![m as i16],
            "{arch:?}"
        );
    }
}
