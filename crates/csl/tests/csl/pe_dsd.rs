//! DSD builtins of PE programs as the simulator's operations: `@get_dsd` over module
//! arrays, `@fmacs`, `@fadds`, `@fmuls`, `@fmovs`, `@increment_dsd_offset`, and
//! `@activate` / `@block` / `@unblock`, on one PE and on a row of PEs.
//! Memory is filled as a host copy would fill it; expected values are computed here.

use std::sync::Arc;

use npusim_cerebras::Arch as SimArch;
use npusim_cerebras::ids::LocalTaskId;
use npusim_cerebras::sched::Sim;
use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig, Value};
use npusim_csl::pe::{PeProgram, load, run};

use super::pe_scalar::one_pe;

const LIMIT: u64 = 100_000;

pub const GEMV: &str = "\
param M: i16;
param N: i16;
var A: [M * N]f32;
var x: [N]f32;
var b: [M]f32;
var y: [M]f32;
var z: [M]f32;
var w: [M]f32;
const A_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> A[i * N] });
const y_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> y[i] });
const z_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> z[i] });
const w_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> w[i] });
const b_dsd = @get_dsd(mem1d_dsd, .{ .base_address = &b, .extent = M });
const main_id: local_task_id = @get_local_task_id(8);
const scale_id: local_task_id = @get_local_task_id(9);

task main() void {
  var A_cur = A_dsd;
  for (@range(i16, N)) |j| {
    @fmacs(y_dsd, y_dsd, A_cur, x[j]);
    A_cur = @increment_dsd_offset(A_cur, 1, f32);
  }
  @fadds(y_dsd, y_dsd, b_dsd);
  @activate(scale_id);
}

task scale() void {
  @fmuls(z_dsd, y_dsd, 0.5);
  @fmovs(w_dsd, z_dsd);
}

comptime {
  @bind_local_task(main, main_id);
  @bind_local_task(scale, scale_id);
}
";

/// `A[i][j] = (i*N + j) / 4 + pe`, `x[j] = j + 1`, `b[i] = 2 - i`: exact in f32.
fn inputs(m: usize, n: usize, pe: usize) -> (Vec<f32>, Vec<f32>, Vec<f32>) {
    let a = (0..m * n).map(|k| k as f32 / 4.0 + pe as f32).collect();
    let x = (0..n).map(|j| j as f32 + 1.0).collect();
    let b = (0..m).map(|i| 2.0 - i as f32).collect();
    (a, x, b)
}

fn gemv(m: usize, n: usize, a: &[f32], x: &[f32], b: &[f32]) -> Vec<f32> {
    (0..m)
        .map(|i| {
            let mut s = 0f64;
            for j in 0..n {
                s += f64::from(a[i * n + j]) * f64::from(x[j]);
            }
            (s + f64::from(b[i])) as f32
        })
        .collect()
}

#[test]
fn gemv_with_fmacs_over_mem1d_dsds_on_one_pe() {
    let (m, n) = (4usize, 6usize);
    let (mut sim, pe) = one_pe(GEMV, &[("M", m as i128), ("N", n as i128)]);
    let (a, x, b) = inputs(m, n, 0);
    {
        let mem = &mut sim.pe_mut(0, 0).unwrap().mem;
        mem.write("A", &a).unwrap();
        mem.write("x", &x).unwrap();
        mem.write("b", &b).unwrap();
    }
    sim.activate(0, 0, LocalTaskId::new(8).unwrap()).unwrap();
    let report = run(&mut sim, LIMIT, &[pe]).unwrap_or_else(|e| panic!("{e}"));
    let mem = &sim.pe(0, 0).unwrap().mem;
    let y = gemv(m, n, &a, &x, &b);
    assert_eq!(mem.read::<f32>("y").unwrap(), y);
    let half: Vec<f32> = y.iter().map(|v| v * 0.5).collect();
    assert_eq!(mem.read::<f32>("z").unwrap(), half);
    assert_eq!(mem.read::<f32>("w").unwrap(), half);
    // N fmacs of M elements, then fadds, fmuls and fmovs of M elements: at least one cycle
    // per element processed.
    assert!(report.cycles >= (m * (n + 3)) as u64, "{}", report.cycles);
}

#[test]
fn gemv_on_a_row_of_pes_with_their_own_params() {
    let n = 3usize;
    let width = 4usize;
    let mut sim = Sim::new(SimArch::Wse2, width as u32, 1).unwrap();
    let mut loaded = Vec::new();
    let mut expected = Vec::new();
    for px in 0..width {
        let m = 2 + px;
        let config = ComptimeConfig {
            arch: Arch::Wse2,
            params: vec![
                ("M".into(), Value::comptime_int(m as i128)),
                ("N".into(), Value::comptime_int(n as i128)),
            ],
        };
        let program = PeProgram::compile(&SourceFile::new("pe.csl", GEMV), &config)
            .unwrap_or_else(|e| panic!("{e}"));
        loaded.push(load(&Arc::new(program), &mut sim, px as i64, 0).unwrap());
        let (a, x, b) = inputs(m, n, px);
        let mem = &mut sim.pe_mut(px as i64, 0).unwrap().mem;
        mem.write("A", &a).unwrap();
        mem.write("x", &x).unwrap();
        mem.write("b", &b).unwrap();
        sim.activate(px as i64, 0, LocalTaskId::new(8).unwrap())
            .unwrap();
        expected.push(gemv(m, n, &a, &x, &b));
    }
    run(&mut sim, LIMIT, &loaded).unwrap_or_else(|e| panic!("{e}"));
    for (px, y) in expected.iter().enumerate() {
        let mem = &sim.pe(px as i64, 0).unwrap().mem;
        assert_eq!(&mem.read::<f32>("y").unwrap(), y, "PE {px}");
        let half: Vec<f32> = y.iter().map(|v| v * 0.5).collect();
        assert_eq!(mem.read::<f32>("w").unwrap(), half, "PE {px}");
    }
}

#[test]
fn activate_block_and_unblock_order_tasks() {
    let text = "\
var log: [3]i16;
var pos: i16 = 0;
const a_id = @get_local_task_id(10);
const b_id = @get_local_task_id(11);
const c_id = @get_local_task_id(12);
task a() void {
  @block(b_id);
  @activate(b_id);
  @activate(c_id);
  log[pos] = 1;
  pos += 1;
}
task b() void {
  log[pos] = 2;
  pos += 1;
}
task c() void {
  log[pos] = 3;
  pos += 1;
  @unblock(b_id);
}
comptime {
  @bind_local_task(a, a_id);
  @bind_local_task(b, b_id);
  @bind_local_task(c, c_id);
  @activate(a_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    run(&mut sim, LIMIT, &[pe]).unwrap_or_else(|e| panic!("{e}"));
    let mem = &sim.pe(0, 0).unwrap().mem;
    assert_eq!(mem.read::<i16>("log").unwrap(), vec![1, 3, 2]);
    assert_eq!(mem.read::<i16>("pos").unwrap(), vec![3]);
}

#[test]
fn a_dsd_operation_the_simulator_refuses_reports_its_error() {
    // fmacs takes a scalar last; a DSD there is not one of its forms
    let text = "\
var y: [4]f32;
const d = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{4} -> y[i] });
const t_id = @get_local_task_id(10);
task t() void {
  @fmacs(d, d, d, d);
}
comptime {
  @bind_local_task(t, t_id);
  @activate(t_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    let err = run(&mut sim, LIMIT, &[pe]).unwrap_err().to_string();
    assert!(
        err.contains("@fmacs does not accept operands (DDDD)"),
        "{err}"
    );
}

#[test]
fn an_async_memory_only_operation_is_refused_by_the_simulator() {
    // `.async = true` needs a fabric operand (the simulator's rule); until fabric DSDs are
    // lowered, the options reach it and it says so.
    let text = "\
var y: [4]f32;
const d = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{4} -> y[i] });
const t_id = @get_local_task_id(10);
const u_id = @get_local_task_id(11);
task t() void {
  @fadds(d, d, d, .{ .async = true, .activate = u_id });
}
task u() void {}
comptime {
  @bind_local_task(t, t_id);
  @bind_local_task(u, u_id);
  @activate(t_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    let err = run(&mut sim, LIMIT, &[pe]).unwrap_err().to_string();
    assert!(err.contains("@fadds async"), "{err}");
    assert!(err.contains("needs a fabric operand"), "{err}");
}

#[test]
fn a_module_var_dsd_keeps_its_advance_between_task_starts() {
    // One column of A per start of `col`, which activates itself until all are done: the
    // module `var` DSD keeps each increment, and @constants fills x and b.
    let text = "\
param M: i16;
param N: i16;
var A: [M * N]f32;
var x = @constants([N]f32, 0.5);
var b = @constants([M]f32, 3.0);
var y = @zeros([M]f32);
var done: i16 = 0;
var col_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> A[i * N] });
const y_dsd = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{M} -> y[i] });
const b_dsd = @get_dsd(mem1d_dsd, .{ .base_address = &b, .extent = M });
const col_id = @get_local_task_id(20);
task col() void {
  @fmacs(y_dsd, y_dsd, col_dsd, x[done]);
  col_dsd = @increment_dsd_offset(col_dsd, 1, f32);
  done += 1;
  if (done < N) {
    @activate(col_id);
  } else {
    @fadds(y_dsd, y_dsd, b_dsd);
  }
}
comptime {
  @bind_local_task(col, col_id);
  @activate(col_id);
}
";
    let (m, n) = (3usize, 5usize);
    let (mut sim, pe) = one_pe(text, &[("M", m as i128), ("N", n as i128)]);
    let a: Vec<f32> = (0..m * n).map(|k| k as f32 - 4.0).collect();
    sim.pe_mut(0, 0).unwrap().mem.write("A", &a).unwrap();
    run(&mut sim, LIMIT, &[pe]).unwrap_or_else(|e| panic!("{e}"));
    let mem = &sim.pe(0, 0).unwrap().mem;
    assert_eq!(mem.read::<f32>("x").unwrap(), vec![0.5; n]);
    assert_eq!(
        mem.read::<f32>("y").unwrap(),
        gemv(m, n, &a, &[0.5; 5], &[3.0; 3])
    );
    assert_eq!(mem.read::<i16>("done").unwrap(), vec![n as i16]);
}
