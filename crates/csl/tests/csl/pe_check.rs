//! PE programs at compile time: params from the layout's `@set_tile_code`, module arrays and
//! `var`s planned into PE memory, task bindings and exported symbols collected, and type
//! errors reported as `file:line:col` diagnostics with a caret.

use npusim_cerebras::ElemTy;
use npusim_csl::SourceFile;
use npusim_csl::comptime::{Arch, ComptimeConfig, Value, evaluate_layout_text, parse_params};
use npusim_csl::pe::{BoundTask, ExportedSymbol, PeError, PeProgram, TaskBinding};

const LAYOUT: &str = "\
param width: i16;
layout {
  @set_rectangle(width, 1);
  for (@range(i16, width)) |x| {
    @set_tile_code(x, 0, \"pe.csl\", .{ .n = 4 + x, .first = x == 0 });
  }
}
";

const PE: &str = "\
param n: i16;
param first: bool;
const main_id: local_task_id = @get_local_task_id(9);
const done_id: control_task_id = @get_control_task_id(40);
const half_n = n / 2;
var y: [n]f32;
var w = @zeros([half_n]i16);
var count: u32 = 7;
const ptr: [*]f32 = &y;
task main() void {
  y[0] = 1.5;
}
task done() void {}
fn helper(a: i16, b: i16) i16 {
  return a + b;
}
comptime {
  @bind_local_task(main, main_id);
  @bind_control_task(done, done_id);
  @export_symbol(ptr, \"y\");
  @export_symbol(main);
}
";

fn compile(text: &str, params: Vec<(String, Value)>) -> Result<PeProgram, PeError> {
    PeProgram::compile(
        &SourceFile::new("pe.csl", text),
        &ComptimeConfig {
            arch: Arch::Wse3,
            params,
        },
    )
}

fn error(text: &str) -> String {
    compile(text, Vec::new()).unwrap_err().to_string()
}

#[test]
fn params_of_each_tile_size_its_arrays() {
    let layout = evaluate_layout_text(
        LAYOUT,
        &ComptimeConfig {
            arch: Arch::Wse3,
            params: parse_params("width:3").unwrap(),
        },
    )
    .unwrap();
    for x in 0..3u32 {
        let tile = &layout.tiles[&(x, 0)];
        let p = compile(PE, tile.params.clone()).unwrap();
        let n = 4 + u64::from(x);
        let names: Vec<(&str, ElemTy, Vec<u64>, bool)> = p
            .arrays
            .iter()
            .map(|a| (a.name.as_str(), a.elem, a.shape.clone(), a.scalar))
            .collect();
        assert_eq!(
            names,
            vec![
                ("y", ElemTy::F32, vec![n], false),
                ("w", ElemTy::I16, vec![n / 2], false),
                ("count", ElemTy::U32, vec![1], true),
            ]
        );
        assert_eq!(
            p.tasks,
            vec![
                TaskBinding {
                    task: "main".into(),
                    id: BoundTask::Local(9)
                },
                TaskBinding {
                    task: "done".into(),
                    id: BoundTask::Control(40)
                },
            ]
        );
        assert_eq!(
            p.exports,
            vec![
                ExportedSymbol {
                    symbol: "ptr".into(),
                    host_name: "y".into()
                },
                ExportedSymbol {
                    symbol: "main".into(),
                    host_name: "main".into()
                },
            ]
        );
    }
}

#[test]
fn assigning_f32_to_i16_is_a_type_error_with_a_caret() {
    let text = "var a: i16 = 0;\nfn f() void {\n  var x: f32 = 1.0;\n  a = x;\n}\n";
    assert_eq!(
        error(text),
        "pe.csl:4:7: error: expected i16, found f32\n  a = x;\n      ^"
    );
}

#[test]
fn a_float_initialising_an_integer_local_is_a_type_error() {
    let text = "fn f() void {\n  var i: i16 = 2.5;\n}\n";
    assert!(
        error(text).starts_with("pe.csl:2:16: error: expected i16, found comptime_float"),
        "{}",
        error(text)
    );
}

#[test]
fn narrowing_i32_to_i16_and_mixing_f16_with_f32_are_type_errors() {
    let text = "fn f(a: i32) void {\n  var b: i16 = a;\n}\n";
    assert!(error(text).starts_with("pe.csl:2:16: error: expected i16, found i32"));
    let text = "fn f(a: f16, b: f32) void {\n  var c = a + b;\n}\n";
    assert!(
        error(text).starts_with("pe.csl:2:11: error: operands of `+` are f16 and f32"),
        "{}",
        error(text)
    );
}

#[test]
fn an_unknown_name_is_named_at_its_place() {
    let text = "var y: [4]f32;\ntask t() void {\n  y[0] = z;\n}\n";
    assert_eq!(
        error(text),
        "pe.csl:3:10: error: unknown name `z`\n  y[0] = z;\n         ^"
    );
}

#[test]
fn a_call_with_the_wrong_number_of_arguments_is_an_error() {
    let text = "fn add(a: i16, b: i16) i16 {\n  return a + b;\n}\nfn f() void {\n  var c: i16 = add(1);\n}\n";
    assert!(
        error(text).starts_with("pe.csl:5:16: error: `add` takes 2 arguments, found 1"),
        "{}",
        error(text)
    );
}

#[test]
fn a_dsd_builtin_with_the_wrong_number_of_operands_is_an_error() {
    let text = "var y: [4]f32;\nconst d = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{4} -> y[i] });\ntask t() void {\n  @fmacs(d, d, d);\n}\n";
    assert!(
        error(text).starts_with("pe.csl:4:3: error: @fmacs takes 4 operands"),
        "{}",
        error(text)
    );
}

#[test]
fn binding_errors_name_the_task_and_the_id() {
    let fn_not_task =
        "fn f() void {}\ncomptime {\n  @bind_local_task(f, @get_local_task_id(3));\n}\n";
    assert!(error(fn_not_task).starts_with("pe.csl:3:20: error: `f` is a function, not a task"));
    let wrong_kind =
        "task t() void {}\ncomptime {\n  @bind_local_task(t, @get_control_task_id(3));\n}\n";
    assert!(
        error(wrong_kind)
            .starts_with("pe.csl:3:23: error: expected local_task_id, found control_task_id"),
        "{}",
        error(wrong_kind)
    );
    let twice = "task t() void {}\ntask u() void {}\ncomptime {\n  @bind_local_task(t, @get_local_task_id(13));\n  @bind_local_task(u, @get_local_task_id(13));\n}\n";
    assert!(
        error(twice).contains("is already bound to task `t`"),
        "{}",
        error(twice)
    );
}

#[test]
fn a_param_the_program_does_not_declare_is_refused() {
    let err = compile(
        "param n: i16;\n",
        vec![("m".into(), Value::comptime_int(1))],
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "a value is given for param `m`, which pe.csl does not declare"
    );
}

#[test]
fn assigning_a_const_array_is_an_error() {
    let text = "const c = [2]f32 { 1.0, 2.0 };\ntask t() void {\n  c = 3.0;\n}\n";
    let e = error(text);
    assert!(
        e.contains("cannot assign to constant `c`") || e.contains("expected"),
        "{e}"
    );
}

#[test]
fn a_tensor_access_must_be_affine_and_name_a_module_array() {
    let text = "var y: [4]f32;\nconst d = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{4} -> y[i * i] });\n";
    assert!(
        error(text).starts_with("pe.csl:2:63: error: a tensor access index must be affine"),
        "{}",
        error(text)
    );
    let text = "const d = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{4} -> q[i] });\n";
    assert!(
        error(text).starts_with("pe.csl:1:61: error: unknown name `q`"),
        "{}",
        error(text)
    );
}

#[test]
fn a_module_var_needs_a_memory_type() {
    let text = "var b = 3;\n";
    assert!(
        error(text)
            .starts_with("pe.csl:1:5: error: module `var b` needs a type of a PE memory element"),
        "{}",
        error(text)
    );
}

#[test]
fn local_task_ids_below_8_are_not_activatable_on_wse3() {
    let text = "task t() void {}\ncomptime {\n  @bind_local_task(t, @get_local_task_id(3));\n}\n";
    assert!(
        error(text)
            .starts_with("pe.csl:3:23: error: local task id 3 is out of range 8..=30 on wse3"),
        "{}",
        error(text)
    );
    let wse2 = PeProgram::compile(
        &SourceFile::new("pe.csl", text),
        &ComptimeConfig {
            arch: Arch::Wse2,
            params: Vec::new(),
        },
    )
    .unwrap();
    assert_eq!(wse2.tasks[0].id, BoundTask::Local(3));
}

#[test]
fn a_const_dsd_cannot_be_reassigned() {
    let text = "var y: [4]f32;\nconst d = @get_dsd(mem1d_dsd, .{ .tensor_access = |i|{4} -> y[i] });\nfn f() void {\n  d = @increment_dsd_offset(d, 1, f32);\n}\n";
    assert!(
        error(text).starts_with("pe.csl:4:3: error: cannot assign to constant `d`"),
        "{}",
        error(text)
    );
}
