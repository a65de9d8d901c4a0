//! Scalar code of PE programs run on the simulator: locals, assignment operators, `if`,
//! `while` with a step, `for @range`, `break`/`continue`, calls, array indexing and pointers
//! to module variables, f16/f32 arithmetic rounded once, integer overflow as a run-time error.
//! Expected values are computed here by plain arithmetic.

use std::sync::Arc;

use half::f16;
use npusim_cerebras::Arch as SimArch;
use npusim_cerebras::sched::{Sim, SimError};
use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig, Value};
use npusim_csl::pe::{LoadedPe, PeError, PeProgram, load, run};

const LIMIT: u64 = 100_000;

/// Compiles `text` with `params` and loads it on a 1×1 simulator.
pub fn one_pe(text: &str, params: &[(&str, i128)]) -> (Sim, LoadedPe) {
    let config = ComptimeConfig {
        arch: Arch::Wse3,
        params: params
            .iter()
            .map(|(n, v)| (n.to_string(), Value::comptime_int(*v)))
            .collect(),
    };
    let program = PeProgram::compile(&SourceFile::new("pe.csl", text), &config)
        .unwrap_or_else(|e| panic!("{e}"));
    let mut sim = Sim::new(SimArch::Wse3, 1, 1).unwrap();
    let pe = load(&Arc::new(program), &mut sim, 0, 0).unwrap();
    (sim, pe)
}

const SCALAR: &str = "\
param n: i16;
var out: [8]f32;
var iout: [4]i32;
var h: [2]f16;
var flag: i16 = 0;
var counter: u16 = 0;
const main_id: local_task_id = @get_local_task_id(10);

fn square(v: f32) f32 {
  return v * v;
}

fn fill(p: [*]f32, count: i16) void {
  for (@range(i16, count)) |i| {
    p[i] = @as(f32, i) * 0.1;
  }
}

task main() void {
  fill(&out, n);
  var acc: f32 = 0.0;
  var i: i16 = 0;
  while (i < n) : (i += 1) {
    acc += out[i];
  }
  out[6] = acc;
  out[7] = square(out[3]) / 3.0;
  var k: i32 = 1;
  for (@range(i16, 4)) |j| {
    k = k * 3 + 1;
    if (j == 2) {
      continue;
    }
    iout[j] = k;
  }
  h[0] = @as(f16, 0.1) + @as(f16, 0.2);
  h[1] = h[0] * @as(f16, 3.0);
  var p = &flag;
  p.* = 5;
  while (true) {
    counter += 1;
    if (counter == 9) {
      break;
    }
  }
}

comptime {
  @bind_local_task(main, main_id);
  @activate(main_id);
}
";

#[test]
fn scalar_code_computes_what_plain_arithmetic_does() {
    let (mut sim, pe) = one_pe(SCALAR, &[("n", 6)]);
    run(&mut sim, LIMIT, &[pe]).unwrap_or_else(|e| panic!("{e}"));
    let mem = &sim.pe(0, 0).unwrap().mem;

    let mut want = [0f32; 8];
    for (i, w) in want.iter_mut().enumerate().take(6) {
        *w = i as f32 * 0.1f32;
    }
    let mut acc = 0f32;
    for w in &want[..6] {
        acc += *w;
    }
    want[6] = acc;
    want[7] = want[3] * want[3] / 3.0f32;
    let got = mem.read::<f32>("out").unwrap();
    assert_eq!(
        got.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        want.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        "{got:?} vs {want:?}"
    );

    assert_eq!(mem.read::<i32>("iout").unwrap(), vec![4, 13, 0, 121]);

    let h0 = f16::from_f64(f16::from_f64(0.1).to_f64() + f16::from_f64(0.2).to_f64());
    let h1 = f16::from_f64(h0.to_f64() * 3.0);
    let bits: Vec<u16> = mem.read::<u16>("h").unwrap_or_else(|_| {
        // f16 arrays read as their bits
        mem.array_bytes("h")
            .unwrap()
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect()
    });
    assert_eq!(bits, vec![h0.to_bits(), h1.to_bits()]);

    assert_eq!(mem.read::<i16>("flag").unwrap(), vec![5]);
    assert_eq!(mem.read::<u16>("counter").unwrap(), vec![9]);
}

#[test]
fn integer_overflow_stops_the_run_naming_the_operation_and_values() {
    let text = "\
var x: i16 = 32760;
const t_id = @get_local_task_id(10);
task t() void {
  for (@range(i16, 10)) |i| {
    x += 1;
  }
}
comptime {
  @bind_local_task(t, t_id);
  @activate(t_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    let err = run(&mut sim, LIMIT, &[pe]).unwrap_err().to_string();
    assert_eq!(
        err,
        "pe.csl:5:5: error: integer overflow: 32767 + 1 does not fit in i16\n    x += 1;\n    ^"
    );
    assert_eq!(
        sim.pe(0, 0).unwrap().mem.read::<i16>("x").unwrap(),
        vec![32767]
    );
}

#[test]
fn an_index_outside_an_array_is_a_run_time_error() {
    let text = "\
var a: [4]f32;
const t_id = @get_local_task_id(10);
task t() void {
  var i: i16 = 2;
  while (i < 10) : (i += 1) {
    a[i] = 1.0;
  }
}
comptime {
  @bind_local_task(t, t_id);
  @activate(t_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    let err = run(&mut sim, LIMIT, &[pe]).unwrap_err().to_string();
    assert!(
        err.starts_with("pe.csl:6:5: error: index 4 is out of bounds for `a` of 4 elements"),
        "{err}"
    );
}

#[test]
fn unsigned_underflow_is_an_error_too() {
    let text = "\
var c: u16 = 0;
const t_id = @get_local_task_id(10);
task t() void {
  c -= 1;
}
comptime {
  @bind_local_task(t, t_id);
  @activate(t_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    let err = run(&mut sim, LIMIT, &[pe]).unwrap_err().to_string();
    assert!(
        err.starts_with("pe.csl:4:3: error: integer overflow: 0 - 1 does not fit in u16"),
        "{err}"
    );
}

#[test]
fn an_endless_loop_without_dsd_operations_is_stopped_with_an_error() {
    let text = "\
var c: u16 = 0;
const t_id = @get_local_task_id(10);
task t() void {
  while (true) {
    c = 1;
  }
}
comptime {
  @bind_local_task(t, t_id);
  @activate(t_id);
}
";
    // Each scalar statement and loop test takes a cycle, so the run's cycle limit ends it.
    let (mut sim, pe) = one_pe(text, &[]);
    let err = run(&mut sim, 5_000, &[pe]).unwrap_err();
    assert!(
        matches!(err, PeError::Sim(SimError::CycleLimit { limit: 5_000, .. })),
        "{err}"
    );
    assert_eq!(sim.pe(0, 0).unwrap().mem.read::<u16>("c").unwrap(), vec![1]);
}

#[test]
fn an_endless_function_whose_value_is_used_is_stopped_with_an_error() {
    let text = "\
var c: i16 = 0;
const t_id = @get_local_task_id(10);
fn spin() i16 {
  while (true) {
    c = 1;
  }
  return 0;
}
task t() void {
  c = spin();
}
comptime {
  @bind_local_task(t, t_id);
  @activate(t_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    let err = run(&mut sim, LIMIT, &[pe]).unwrap_err().to_string();
    assert!(
        err.contains("error: more than 1000000 statements ran in a function whose value is used"),
        "{err}"
    );
}

#[test]
fn each_scalar_statement_takes_a_cycle() {
    // A loop iteration is one step for the loop's step and test, and one per body statement.
    let text = "\
var c: i16 = 0;
const t_id = @get_local_task_id(10);
task t() void {
  var i: i16 = 0;
  while (i < 3) : (i += 1) {
    c += 2;
  }
}
comptime {
  @bind_local_task(t, t_id);
  @activate(t_id);
}
";
    let (mut sim, pe) = one_pe(text, &[]);
    let short = run(&mut sim, LIMIT, &[pe]).unwrap().cycles;
    let longer = text.replace("i < 3", "i < 13");
    let (mut sim, pe) = one_pe(&longer, &[]);
    let long = run(&mut sim, LIMIT, &[pe]).unwrap().cycles;
    assert_eq!(
        sim.pe(0, 0).unwrap().mem.read::<i16>("c").unwrap(),
        vec![26]
    );
    // ten more iterations: ten more loop tests and ten more body statements
    assert_eq!(long - short, 20);
}

#[test]
fn no_truncation_or_deleted_line_of_a_program_panics_the_compiler() {
    let int = |n: &str, v: i128| (n.to_string(), Value::comptime_int(v));
    let texts = [
        (SCALAR, vec![int("n", 3)]),
        (super::pe_dsd::GEMV, vec![int("M", 2), int("N", 3)]),
    ];
    for (text, params) in texts {
        let config = ComptimeConfig {
            arch: Arch::Wse3,
            params,
        };
        let lines: Vec<&str> = text.lines().collect();
        let mut variants: Vec<String> = text
            .char_indices()
            .map(|(i, _)| text[..i].to_string())
            .collect();
        for k in 0..lines.len() {
            let mut l = lines.clone();
            l.remove(k);
            variants.push(l.join("\n"));
        }
        for v in variants {
            // Ok or a diagnostic; a panic fails the test
            let _ = PeProgram::compile(&SourceFile::new("pe.csl", v), &config);
        }
    }
}
