//! Arrays declared inside function and task bodies, and pointers to them (the
//! arrays-and-pointers topic): `var data = [3]i16 { 1, 2, 3 };` has a place in PE memory,
//! written again each time the declaration runs; `&data` is a `*[3]i16`, `(p.*)[i]` indexes
//! the array `p` points to, `&out[1]` is a `*i32`. Expected values are computed here.

use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig};
use npusim_csl::pe::{PeProgram, run};

use super::pe_scalar::one_pe;

const LIMIT: u64 = 100_000;

const LOCALS: &str = "\
var out: [4]i32;
var grid: [6]f32;
var calls: i16 = 0;
const main_id: local_task_id = @get_local_task_id(10);

fn bump_and_sum(data_ptr: *[4]i32, step: i32, sum_ptr: *i32) void {
  for (@range(i16, 4)) |i| {
    (data_ptr.*)[i] += step;
  }
  sum_ptr.* = (data_ptr.*)[0] + (data_ptr.*)[1] + (data_ptr.*)[2] + (data_ptr.*)[3];
}

fn once(k: i32) void {
  var data = [4]i32 { 10, 20, 30, 40 };
  bump_and_sum(&data, k, &out[calls]);
  calls += 1;
}

task main() void {
  once(1);
  once(5);
  var m = @zeros([2, 3]f32);
  for (@range(i16, 2)) |r| {
    for (@range(i16, 3)) |c| {
      m[r, c] = @as(f32, r) * 10.0 + @as(f32, c);
    }
  }
  var p = &m;
  for (@range(i16, 6)) |i| {
    grid[i] = (p.*)[i] * 0.5;
  }
  var w: [2]i32 = undefined;
  w[0] = 7;
  w[1] = w[0] * 3;
  out[3] = w[1];
}

comptime {
  @bind_local_task(main, main_id);
  @activate(main_id);
}
";

#[test]
fn a_body_array_is_written_again_on_each_call_and_changed_through_a_pointer() {
    let (mut sim, pe) = one_pe(LOCALS, &[]);
    run(&mut sim, LIMIT, &[pe]).unwrap_or_else(|e| panic!("{e}"));
    let mem = &sim.pe(0, 0).unwrap().mem;

    // each call starts again from 10, 20, 30, 40
    let sum = |k: i32| [10, 20, 30, 40].iter().map(|v| v + k).sum::<i32>();
    let w1 = 7 * 3;
    assert_eq!(mem.read::<i32>("out").unwrap(), vec![sum(1), sum(5), 0, w1]);
    let mut grid = Vec::new();
    for r in 0..2 {
        for c in 0..3 {
            grid.push((r as f32 * 10.0 + c as f32) * 0.5);
        }
    }
    assert_eq!(mem.read::<f32>("grid").unwrap(), grid);
    assert_eq!(mem.read::<i16>("calls").unwrap(), vec![2]);
}

fn compile_error(text: &str) -> String {
    let config = ComptimeConfig {
        arch: Arch::Wse3,
        params: Vec::new(),
    };
    match PeProgram::compile(&SourceFile::new("pe.csl", text), &config) {
        Ok(_) => panic!("compiled"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn indexing_what_a_pointer_to_a_scalar_points_to_is_refused() {
    let err = compile_error(
        "\
var x: i16 = 0;
fn f(p: *i16) void {
  (p.*)[0] = 1;
}
",
    );
    assert!(err.contains("cannot index a value of type i16"), "{err}");
}

#[test]
fn a_body_array_list_of_the_wrong_length_stops_the_run() {
    let text = "\
var out: [1]i16;
const t_id: local_task_id = @get_local_task_id(10);
task t() void {
  var d: [3]i16 = .{ 1, 2 };
  out[0] = d[0];
}
comptime {
  @bind_local_task(t, t_id);
  @activate(t_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    let err = run(&mut sim, LIMIT, &[pe]).unwrap_err().to_string();
    assert!(
        err.contains("`d` has 3 elements, the initialiser 2"),
        "{err}"
    );
}
