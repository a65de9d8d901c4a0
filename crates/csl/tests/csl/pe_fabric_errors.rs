//! Misuses of the fabric side of PE programs: each is a `file:line:col` diagnostic (at
//! compile time where the program shows it, at run time otherwise) or the simulator's
//! typed error, naming the numbers.

use std::sync::Arc;

use npusim_cerebras::sched::Sim;
use npusim_csl::comptime::Arch;
use npusim_csl::pe::{PeError, load, run};

use super::pe_fabric::{ARCHS, LIMIT, compile, row};

/// The first line of the error of compiling `text` on `arch`.
fn compile_error(text: &str, arch: Arch) -> String {
    match compile("pe.csl", text, arch, &[]) {
        Ok(_) => panic!("expected an error on {arch:?}"),
        Err(e) => e.to_string().lines().next().unwrap_or_default().to_string(),
    }
}

/// The first line of the error of running `text` alone on one PE of `arch`.
fn run_error(text: &str, arch: Arch) -> String {
    let sim_arch = ARCHS.iter().find(|(a, _)| *a == arch).unwrap().1;
    let p = compile("pe.csl", text, arch, &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(sim_arch, 1, 1).unwrap();
    let pe = load(&Arc::new(p), &mut sim, 0, 0).unwrap_or_else(|e| panic!("{e}"));
    match run(&mut sim, LIMIT, &[pe]) {
        Ok(_) => panic!("expected a run-time error on {arch:?}"),
        Err(e) => e.to_string().lines().next().unwrap_or_default().to_string(),
    }
}

#[test]
fn a_wse3_fabric_queue_not_initialized_is_an_error_at_its_get_dsd() {
    let text = "\
const q = @get_input_queue(3);
const in_dsd = @get_dsd(fabin_dsd, .{ .extent = 4, .input_queue = q });
";
    assert_eq!(
        compile_error(text, Arch::Wse3),
        "pe.csl:2:16: error: fabin_dsd reads input queue 3, which no @initialize_queue binds to a color (WSE-3 needs one)"
    );
    // WSE-2 binds queues implicitly
    assert!(compile("pe.csl", text, Arch::Wse2, &[]).is_ok());
}

#[test]
fn a_wse3_fabric_color_other_than_its_queues_is_an_error() {
    let text = "\
const q = @get_output_queue(2);
fn send() void {
  const out = @get_dsd(fabout_dsd, .{ .extent = 1, .output_queue = q, .fabric_color = @get_color(4) });
}
comptime {
  @initialize_queue(q, .{ .color = @get_color(5) });
}
";
    assert_eq!(
        compile_error(text, Arch::Wse3),
        "pe.csl:3:15: error: fabout_dsd names color 4, but output queue 2 is initialized to color 5"
    );
}

#[test]
fn a_wse3_fabin_with_a_color_and_no_queue_is_an_error() {
    let text =
        "const in_dsd = @get_dsd(fabin_dsd, .{ .extent = 4, .fabric_color = @get_color(1) });\n";
    let e = compile_error(text, Arch::Wse3);
    assert!(e.starts_with("pe.csl:1:16: error: "), "{e}");
    assert!(e.contains("fabric_color without an input_queue"), "{e}");
    assert!(compile("pe.csl", text, Arch::Wse2, &[]).is_ok());
}

#[test]
fn a_wse3_data_task_on_a_queue_not_initialized_is_an_error() {
    let text = "\
task recv(v: f32) void {}
comptime {
  @bind_data_task(recv, @get_data_task_id(@get_input_queue(6)));
}
";
    assert_eq!(
        compile_error(text, Arch::Wse3),
        "pe.csl:3:25: error: a data task is bound to input queue 6, which no @initialize_queue binds to a color (WSE-3 needs one)"
    );
}

#[test]
fn an_unknown_fabric_dsd_field_and_a_missing_extent_are_errors() {
    let text = "const d = @get_dsd(fabout_dsd, .{ .extent = 4, .fabric_color = @get_color(1), .advance = true });\n";
    assert_eq!(
        compile_error(text, Arch::Wse2),
        "pe.csl:1:90: error: fabout_dsd field `.advance` is not supported (it takes .extent, .fabric_color, .output_queue, .control, .wavelet_index_offset, .priority, .simd_mode, .control_transform)"
    );
    let text = "const d = @get_dsd(fabin_dsd, .{ .fabric_color = @get_color(1) });\n";
    assert_eq!(
        compile_error(text, Arch::Wse2),
        "pe.csl:1:11: error: a fabin_dsd needs `.extent`"
    );
    let text = "const d = @get_dsd(fabin_dsd, .{ .extent = 2, .fabric_color = 3 });\n";
    assert_eq!(
        compile_error(text, Arch::Wse2),
        "pe.csl:1:63: error: fabin_dsd `.fabric_color` takes a color, found comptime_int `3`"
    );
}

#[test]
fn a_local_task_with_parameters_is_an_error() {
    let text = "\
task t(v: f32) void {}
comptime {
  @bind_local_task(t, @get_local_task_id(10));
}
";
    assert_eq!(
        compile_error(text, Arch::Wse2),
        "pe.csl:3:20: error: task `t` takes 1 parameters, but only a data task gets an argument (its wavelet)"
    );
}

#[test]
fn get_ut_id_is_a_wse3_builtin() {
    let text = "const u = @get_ut_id(2);\n";
    assert_eq!(
        compile_error(text, Arch::Wse2),
        "pe.csl:1:11: error: @get_ut_id: microthread ids are a WSE-3 feature, not on wse2"
    );
    let text = "const u = @get_ut_id(8);\n";
    assert_eq!(
        compile_error(text, Arch::Wse3),
        "pe.csl:1:22: error: microthread id 8 is out of range 0..=7"
    );
}

#[test]
fn activate_of_a_task_that_is_not_local_is_an_error_naming_what_it_got() {
    let text = "\
const out_dsd = @get_dsd(fabout_dsd, .{ .extent = 1, .fabric_color = @get_color(2) });
var v: [1]f32;
const v_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{1} -> v[i] });
task main() void {
  @fmovs(out_dsd, v_dsd, .{ .async = true, .activate = @get_data_task_id(@get_color(4)) });
}
comptime {
  @bind_local_task(main, @get_local_task_id(10));
  @activate(@get_local_task_id(10));
}
";
    assert_eq!(
        run_error(text, Arch::Wse2),
        "pe.csl:5:56: error: `.activate` takes a local task id, found data_task_id `data task 4`"
    );
    let text = "\
task main() void {
  @activate(@get_control_task_id(40));
}
comptime {
  @bind_local_task(main, @get_local_task_id(10));
  @activate(@get_local_task_id(10));
}
";
    assert_eq!(
        run_error(text, Arch::Wse3),
        "pe.csl:2:13: error: @activate takes a local task id, found control_task_id `control task 40`"
    );
}

#[test]
fn a_channel_of_the_other_architecture_is_an_error() {
    let text = "\
task main() void {
  @block(@get_color(3));
}
comptime {
  @bind_local_task(main, @get_local_task_id(10));
  @activate(@get_local_task_id(10));
}
";
    assert_eq!(
        run_error(text, Arch::Wse3),
        "pe.csl:2:10: error: color 3 names a channel on WSE-2 only; WSE-3 names its input queue"
    );
}

#[test]
fn map_with_the_wrong_number_of_arguments_or_a_task_is_an_error() {
    let text = "\
var x: [3]f32;
const x_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{3} -> x[i] });
fn twice(a: f32) f32 { return a + a; }
task main() void {
  @map(twice, x_dsd, x_dsd, x_dsd);
}
comptime {
  @bind_local_task(main, @get_local_task_id(10));
  @activate(@get_local_task_id(10));
}
";
    assert_eq!(
        run_error(text, Arch::Wse2),
        "pe.csl:5:3: error: @map of `twice` takes 1 inputs and an optional output, found 3 arguments"
    );
    let text = text.replace("@map(twice, x_dsd, x_dsd, x_dsd)", "@map(main, x_dsd)");
    assert_eq!(
        run_error(&text, Arch::Wse2),
        "pe.csl:5:8: error: `main` is not a function of this file"
    );
}

#[test]
fn a_fabin_as_destination_is_the_simulators_error() {
    let text = "\
param pe_id: i16;
var v: [2]f32;
const v_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{2} -> v[i] });
const in_dsd = @get_dsd(fabin_dsd, .{ .extent = 2, .fabric_color = @get_color(1) });
task main() void {
  @fmovs(in_dsd, v_dsd);
}
comptime {
  @bind_local_task(main, @get_local_task_id(10));
  @activate(@get_local_task_id(10));
}
";
    let p = compile("pe.csl", text, Arch::Wse2, &[("pe_id", 0)]).unwrap();
    let mut sim = row(npusim_cerebras::Arch::Wse2, 2, 1);
    let pe = load(&Arc::new(p), &mut sim, 0, 0).unwrap();
    match run(&mut sim, LIMIT, &[pe]) {
        Err(PeError::Sim(e)) => {
            let m = e.to_string();
            assert!(
                m.contains("a fabin_dsd is a source, never the destination"),
                "{m}"
            );
        }
        other => panic!("expected the simulator's error, got {other:?}"),
    }
}

#[test]
fn a_param_without_a_value_is_an_error_where_it_is_used_not_where_it_is_declared() {
    // unused: compiles (as the SDK compiles the map-builtin topic's unused task id param)
    let text = "param unused: local_task_id;\nparam n: i16;\nvar v: [4]f32;\n";
    assert!(compile("pe.csl", text, Arch::Wse3, &[("n", 2)]).is_ok());
    // used at compile time: the error is at the use
    let text = "param n: i16;\nvar v: [n]f32;\n";
    assert_eq!(
        compile_error(text, Arch::Wse3),
        "pe.csl:2:9: error: param `n` has no value: none was given and it has no default"
    );
    // used at run time: the error is at the use
    let text = "\
param n: i16;
var v: [1]i16;
task main() void {
  v[0] = n;
}
comptime {
  @bind_local_task(main, @get_local_task_id(10));
  @activate(@get_local_task_id(10));
}
";
    assert_eq!(
        run_error(text, Arch::Wse2),
        "pe.csl:4:10: error: `n` has no value (a param none was given and with no default)"
    );
}

/// The fabric test programs and their params (`pe_id` is given per PE where declared).
const PROGRAMS: [(&str, &[(&str, i128)]); 10] = [
    (
        "fabric_fifo/fifo_full.csl",
        &[("M", 3), ("in_color", 3), ("out_color", 4)],
    ),
    (
        "fabric_unblock/unblock.csl",
        &[("M", 3), ("in_color", 3), ("out_color", 4)],
    ),
    ("fabric_index/index.csl", &[("send_color", 4)]),
    ("fabric_relay/relay.csl", &[("M", 3), ("send_color", 7)]),
    (
        "fabric_data_task/accumulate.csl",
        &[("M", 3), ("send_color", 5)],
    ),
    (
        "fabric_fifo/fifo_relay.csl",
        &[("M", 3), ("in_color", 3), ("out_color", 4)],
    ),
    ("fabric_map/map.csl", &[("N", 3)]),
    ("fabric_fmacs/fmacs.csl", &[("M", 3), ("send_color", 9)]),
    ("fabric_dsr/dsr.csl", &[("M", 4), ("send_color", 6)]),
    ("fabric_control/control.csl", &[("send_color", 4)]),
];

#[test]
fn no_deleted_line_or_truncation_of_the_fabric_programs_panics_the_compiler_loader_or_run() {
    for (path, params) in PROGRAMS {
        let text = super::pe_fabric::program_text(path);
        let lines: Vec<&str> = text.lines().collect();
        let deleted: Vec<String> = (0..lines.len())
            .map(|k| {
                let mut l = lines.clone();
                l.remove(k);
                l.join("\n")
            })
            .collect();
        for (arch, sim_arch) in ARCHS {
            // truncations: compiled (a result or a diagnostic, never a panic)
            for (i, _) in text.char_indices().step_by(7) {
                let with_id: Vec<(&str, i128)> =
                    params.iter().copied().chain([("pe_id", 0)]).collect();
                let _ = compile("pe.csl", &text[..i], arch, &with_id);
                let _ = compile("pe.csl", &text[..i], arch, params);
            }
            // deleted lines: compiled, and when they compile loaded on a row and run
            for v in &deleted {
                let mut sim = super::pe_fabric::row(sim_arch, 3, 4);
                let mut pes = Vec::new();
                for x in 0..3i64 {
                    let with_id: Vec<(&str, i128)> = params
                        .iter()
                        .copied()
                        .chain([("pe_id", i128::from(x))])
                        .collect();
                    let p = match compile("pe.csl", v, arch, &with_id) {
                        Ok(p) => p,
                        Err(_) => match compile("pe.csl", v, arch, params) {
                            Ok(p) => p,
                            Err(_) => continue,
                        },
                    };
                    if let Ok(pe) = load(&Arc::new(p), &mut sim, x, 0) {
                        pes.push(pe);
                    }
                }
                let _ = run(&mut sim, 2_000, &pes);
            }
        }
    }
}

#[test]
fn map_of_a_library_function_it_does_not_model_is_an_error_naming_it() {
    let text = "\
const math = @import_module(\"<math>\");
var x: [3]f32;
const x_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{3} -> x[i] });
task main() void {
  @map(math.exp_f32, x_dsd, x_dsd);
}
comptime {
  @bind_local_task(main, @get_local_task_id(10));
  @activate(@get_local_task_id(10));
}
";
    assert_eq!(
        run_error(text, Arch::Wse3),
        "pe.csl:5:8: error: @map of library function `<math>.exp_f32` is not supported (of <math>: sqrt_f32, sqrt_f16, abs_f32, abs_f16)"
    );
    let text = text.replace("math.exp_f32, x_dsd, x_dsd", "math.sqrt_f16, x_dsd, x_dsd");
    assert_eq!(
        run_error(&text, Arch::Wse3),
        "pe.csl:5:3: error: @map: `sqrt_f16` takes f16 elements, the element given is f32"
    );
}
