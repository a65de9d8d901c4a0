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

/// Color `a` from PE 0's RAMP to PE 1's, color `b` from PE 1's RAMP to PE 2's.
pub fn relay_row(arch: SimArch, a: i64, b: i64) -> Sim {
    let mut sim = Sim::new(arch, 3, 1).unwrap();
    let set = |sim: &mut Sim, x: i64, c: i64, rx: Dir, tx: Dir| {
        let route = Route::new(&[rx], &[tx]);
        sim.fabric_mut()
            .set_color_config(x, 0, Color::new(c).unwrap(), ColorConfig::fixed(route))
            .unwrap();
    };
    set(&mut sim, 0, a, Dir::Ramp, Dir::East);
    set(&mut sim, 1, a, Dir::West, Dir::Ramp);
    set(&mut sim, 1, b, Dir::Ramp, Dir::East);
    set(&mut sim, 2, b, Dir::West, Dir::Ramp);
    sim
}

#[test]
fn fifo_relay_passes_a_vector_through_a_smaller_fifo_and_activates_on_push() {
    let m = 10usize;
    let text = program_text("fabric_fifo/fifo_relay.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = relay_row(sim_arch, 3, 4);
        let params = [("M", m as i128), ("in_color", 3), ("out_color", 4)];
        let pes: Vec<LoadedPe> = (0..3)
            .map(|x| load_at(&mut sim, "fifo_relay.csl", &text, arch, x, &params))
            .collect();
        let src = src_values(m);
        sim.pe_mut(0, 0).unwrap().mem.write("src", &src).unwrap();
        run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(
            sim.pe(2, 0).unwrap().mem.read::<f32>("dst").unwrap(),
            src,
            "{arch:?}"
        );
        for x in 0..3 {
            let done = sim.pe(x, 0).unwrap().mem.read::<i16>("done_count").unwrap();
            assert_eq!(done, vec![1], "{arch:?} PE {x}");
        }
        // the pop starts before the push, so it finds the FIFO empty and the first push
        // after that activates `pushed`
        let pushes = sim.pe(1, 0).unwrap().mem.read::<u32>("pushes").unwrap()[0];
        assert!(pushes >= 1, "{arch:?}: pushed ran {pushes} times");
    }
}

#[test]
fn map_applies_functions_of_the_file_element_by_element_and_counts_each_element() {
    let n = 7usize;
    let text = program_text("fabric_map/map.csl");
    for (arch, sim_arch) in ARCHS {
        let p =
            compile("map.csl", &text, arch, &[("N", n as i128)]).unwrap_or_else(|e| panic!("{e}"));
        let mut sim = Sim::new(sim_arch, 1, 1).unwrap();
        let pe = load(&Arc::new(p), &mut sim, 0, 0).unwrap();
        let x: Vec<f32> = (0..n).map(|i| 0.1 * i as f32 - 0.3).collect();
        let y: Vec<f32> = (0..n).map(|i| 4.7 - 0.45 * i as f32).collect();
        let h: Vec<i16> = (0..n).map(|i| i as i16 * 1000 - 3000).collect();
        {
            let mem = &mut sim.pe_mut(0, 0).unwrap().mem;
            mem.write("x", &x).unwrap();
            mem.write("y", &y).unwrap();
            mem.write("h", &h).unwrap();
        }
        let report = run(&mut sim, LIMIT, &[pe]).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let mem = &sim.pe(0, 0).unwrap().mem;
        // the product rounded to f32, then the sum rounded to f32
        let z: Vec<f32> = x.iter().zip(&y).map(|(a, b)| a * b + 1.0).collect();
        assert_eq!(mem.read::<f32>("z").unwrap(), z, "{arch:?}");
        let h2: Vec<i16> = h.iter().map(|v| 3 - v).collect();
        assert_eq!(mem.read::<i16>("h").unwrap(), h2, "{arch:?}");
        let w: Vec<f32> = x.iter().map(|v| v * 0.5).collect();
        assert_eq!(mem.read::<f32>("w").unwrap(), w, "{arch:?}");
        assert_eq!(
            mem.read::<i32>("total").unwrap(),
            vec![10 - 20 + 30 + 45],
            "{arch:?}"
        );
        // IEEE square roots, correctly rounded
        let sq: Vec<f32> = y.iter().map(|v| v.sqrt()).collect();
        assert_eq!(mem.read::<f32>("s").unwrap(), sq, "{arch:?}");
        // four @map operations of n elements and one of 4, counted as the simulator
        // counts elements
        assert_eq!(report.pes[0].elements, 4 * n as u64 + 4, "{arch:?}");
    }
}

#[test]
fn async_fmacs_from_the_fabric_activates_a_task_when_done() {
    let m = 6usize;
    let text = program_text("fabric_fmacs/fmacs.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = row(sim_arch, 2, 9);
        let params = [("M", m as i128), ("send_color", 9)];
        let pes = [
            load_at(&mut sim, "fmacs.csl", &text, arch, 0, &params),
            load_at(&mut sim, "fmacs.csl", &text, arch, 1, &params),
        ];
        let x = src_values(m);
        let y0: Vec<f32> = (0..m).map(|i| 3.0 - i as f32).collect();
        sim.pe_mut(0, 0).unwrap().mem.write("x", &x).unwrap();
        sim.pe_mut(1, 0).unwrap().mem.write("y", &y0).unwrap();
        run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let mem = &sim.pe(1, 0).unwrap().mem;
        // x * 0.5 is exact, so one rounding of the sum
        let want: Vec<f32> = y0.iter().zip(&x).map(|(y, x)| y + x * 0.5).collect();
        assert_eq!(mem.read::<f32>("y").unwrap(), want, "{arch:?}");
        assert_eq!(mem.read::<u16>("done_count").unwrap(), vec![1], "{arch:?}");
    }
}

#[test]
fn dsrs_save_their_address_and_carry_asynchronous_settings_loaded_at_compile_time() {
    let m = 8usize;
    let text = program_text("fabric_dsr/dsr.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = row(sim_arch, 2, 6);
        let params = [("M", m as i128), ("send_color", 6)];
        let pes = [
            load_at(&mut sim, "dsr.csl", &text, arch, 0, &params),
            load_at(&mut sim, "dsr.csl", &text, arch, 1, &params),
        ];
        let src = src_values(m);
        let init: Vec<f32> = (0..m).map(|i| 100.0 + i as f32).collect();
        sim.pe_mut(0, 0).unwrap().mem.write("src", &src).unwrap();
        sim.pe_mut(1, 0).unwrap().mem.write("acc", &init).unwrap();
        run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let mem = &sim.pe(1, 0).unwrap().mem;
        // the second send continued where the first stopped: all M values arrived
        let want: Vec<f32> = init.iter().zip(&src).map(|(a, s)| a + s).collect();
        assert_eq!(mem.read::<f32>("acc").unwrap(), want, "{arch:?}");
        assert_eq!(mem.read::<i16>("done_count").unwrap(), vec![1], "{arch:?}");
    }
}

#[test]
fn set_dsd_length_shortens_a_fabric_dsd_and_increment_dsd_offset_refuses_one() {
    // the sender's fabout is declared for 6 wavelets and shortened to 3 before use
    let text = "\
param pe_id: i16;
var v: [6]f32;
var got: [3]f32;
var out_dsd = @get_dsd(fabout_dsd, .{ .extent = 6, .fabric_color = @get_color(2), .output_queue = @get_output_queue(0) });
const in_dsd = @get_dsd(fabin_dsd, .{ .extent = 3, .fabric_color = @get_color(2), .input_queue = @get_input_queue(0) });
const v_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{3} -> v[i] });
const got_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{3} -> got[i] });
task main() void {
  if (pe_id == 0) {
    out_dsd = @set_dsd_length(out_dsd, 3);
    @fmovs(out_dsd, v_dsd);
  } else {
    @fmovs(got_dsd, in_dsd);
  }
}
comptime {
  @bind_local_task(main, @get_local_task_id(10));
  @activate(@get_local_task_id(10));
  if (@is_arch(\"wse3\")) {
    @initialize_queue(@get_output_queue(0), .{ .color = @get_color(2) });
    @initialize_queue(@get_input_queue(0), .{ .color = @get_color(2) });
  }
}
";
    for (arch, sim_arch) in ARCHS {
        let mut sim = row(sim_arch, 2, 2);
        let pes = [
            load_at(&mut sim, "len.csl", text, arch, 0, &[]),
            load_at(&mut sim, "len.csl", text, arch, 1, &[]),
        ];
        let v = [1.5f32, 2.5, -3.0, 9.0, 9.0, 9.0];
        sim.pe_mut(0, 0).unwrap().mem.write("v", &v).unwrap();
        let report = run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(
            sim.pe(1, 0).unwrap().mem.read::<f32>("got").unwrap(),
            v[..3].to_vec(),
            "{arch:?}"
        );
        // three wavelets sent, three received: nothing left waiting
        assert_eq!(report.pes[0].elements, 3, "{arch:?}");
        let text = text.replace(
            "out_dsd = @set_dsd_length(out_dsd, 3);",
            "out_dsd = @increment_dsd_offset(out_dsd, 1, f32);",
        );
        let mut sim = row(sim_arch, 2, 2);
        let pes = [load_at(&mut sim, "len.csl", &text, arch, 0, &[])];
        let e = run(&mut sim, LIMIT, &pes).unwrap_err().to_string();
        assert!(
            e.starts_with("len.csl:10:15: error: @increment_dsd_offset"),
            "{arch:?}: {e}"
        );
    }
}

#[test]
fn control_wavelets_start_the_control_tasks_they_name_on_a_channel_opened_at_compile_time() {
    let text = program_text("fabric_control/control.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = row(sim_arch, 2, 4);
        let params = [("send_color", 4)];
        let pes = [
            load_at(&mut sim, "control.csl", &text, arch, 0, &params),
            load_at(&mut sim, "control.csl", &text, arch, 1, &params),
        ];
        run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let mem = &sim.pe(1, 0).unwrap().mem;
        assert_eq!(mem.read::<i16>("a_count").unwrap(), vec![2], "{arch:?}");
        assert_eq!(mem.read::<i16>("b_count").unwrap(), vec![1], "{arch:?}");
    }
}

#[test]
fn wavelet_index_offset_sends_the_index_in_the_high_half_a_data_task_reads_as_its_second_argument()
{
    let text = program_text("fabric_index/index.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = row(sim_arch, 2, 8);
        let params = [("send_color", 8)];
        let pes = [
            load_at(&mut sim, "index.csl", &text, arch, 0, &params),
            load_at(&mut sim, "index.csl", &text, arch, 1, &params),
        ];
        run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let mem = &sim.pe(1, 0).unwrap().mem;
        assert_eq!(mem.read::<u16>("sum").unwrap(), vec![2134], "{arch:?}");
        assert_eq!(mem.read::<u16>("count").unwrap(), vec![4], "{arch:?}");
        assert_eq!(mem.read::<u16>("indices").unwrap(), vec![7; 4], "{arch:?}");
    }
}

#[test]
fn a_data_task_blocks_itself_and_an_async_add16_unblocks_it_when_its_sum_is_sent() {
    let m = 5usize;
    let text = program_text("fabric_unblock/unblock.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = relay_row(sim_arch, 3, 4);
        let params = [("M", m as i128), ("in_color", 3), ("out_color", 4)];
        let pes: Vec<LoadedPe> = (0..3)
            .map(|x| load_at(&mut sim, "unblock.csl", &text, arch, x, &params))
            .collect();
        let src: Vec<i16> = (0..m as i16).map(|i| 7 * i - 9).collect();
        sim.pe_mut(0, 0).unwrap().mem.write("src", &src).unwrap();
        run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        let mem = &sim.pe(2, 0).unwrap().mem;
        let want: i16 = src.iter().map(|v| v + 10).sum();
        assert_eq!(mem.read::<i16>("total").unwrap(), vec![want], "{arch:?}");
        assert_eq!(mem.read::<i16>("seen").unwrap(), vec![m as i16], "{arch:?}");
    }
}

#[test]
fn a_full_fifo_activates_its_pop_task_when_a_pop_makes_room() {
    let m = 6usize;
    let text = program_text("fabric_fifo/fifo_full.csl");
    for (arch, sim_arch) in ARCHS {
        let mut sim = relay_row(sim_arch, 3, 4);
        let params = [("M", m as i128), ("in_color", 3), ("out_color", 4)];
        let pes: Vec<LoadedPe> = (0..3)
            .map(|x| load_at(&mut sim, "fifo_full.csl", &text, arch, x, &params))
            .collect();
        let src = src_values(m);
        sim.pe_mut(0, 0).unwrap().mem.write("src", &src).unwrap();
        run(&mut sim, LIMIT, &pes).unwrap_or_else(|e| panic!("{arch:?}: {e}"));
        assert_eq!(
            sim.pe(2, 0).unwrap().mem.read::<f32>("dst").unwrap(),
            src,
            "{arch:?}"
        );
        let pops = sim.pe(1, 0).unwrap().mem.read::<u32>("pops").unwrap()[0];
        assert!(pops >= 1, "{arch:?}: popped ran {pops} times");
    }
}
