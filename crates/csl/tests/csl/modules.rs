//! A program's own modules (`@import_module("file.csl", .{ ... })`): errors in and around
//! them name the module file and its own lines; an import cycle is refused naming the chain.

use std::collections::BTreeMap;

use npusim_csl::compiled::{CompileOptions, CompiledProgram};
use npusim_csl::comptime::Arch;

const LAYOUT: &str =
    "const memcpy = @import_module(\"<memcpy/get_params>\", .{ .width = 1, .height = 1 });
layout {
  @set_rectangle(1, 1);
  @set_tile_code(0, 0, \"pe.csl\", .{ .memcpy_params = memcpy.get_params(0) });
}
";

fn compile(files: &[(&str, &str)]) -> Result<CompiledProgram, String> {
    let mut sources = BTreeMap::from([("layout.csl".to_string(), LAYOUT.to_string())]);
    for (n, t) in files {
        sources.insert((*n).to_string(), (*t).to_string());
    }
    let options = CompileOptions {
        arch: Arch::Wse3,
        memcpy: true,
        ..CompileOptions::default()
    };
    CompiledProgram::compile("layout.csl", sources, options).map_err(|e| e.to_string())
}

const PE_HEAD: &str = "param memcpy_params: comptime_struct;\n";

#[test]
fn an_import_cycle_is_refused_naming_the_chain() {
    let pe = format!("{PE_HEAD}const a = @import_module(\"a.csl\");\n");
    let e = compile(&[
        ("pe.csl", &pe),
        ("a.csl", "const b = @import_module(\"b.csl\");\n"),
        ("b.csl", "// b\nconst a = @import_module(\"a.csl\");\n"),
    ])
    .unwrap_err();
    assert!(
        e.starts_with(
            "b.csl:2:26: error: module `a.csl` imports itself: pe.csl -> a.csl -> b.csl -> a.csl"
        ),
        "{e}"
    );
}

#[test]
fn a_missing_module_or_an_unknown_param_is_named_at_the_import() {
    let pe = format!("{PE_HEAD}const m = @import_module(\"m.csl\", .{{ .k = 1 }});\n");
    let e = compile(&[("pe.csl", &pe)]).unwrap_err();
    assert!(
        e.starts_with("pe.csl:2:26: error: module file `m.csl` is not among the program's sources"),
        "{e}"
    );
    let e = compile(&[("pe.csl", &pe), ("m.csl", "param j: u16;\n")]).unwrap_err();
    assert!(
        e.starts_with("pe.csl:2:43: error: module `m.csl` has no param `k`"),
        "{e}"
    );
    let sub = format!("{PE_HEAD}const m = @import_module(\"sub/m.csl\");\n");
    let e = compile(&[("pe.csl", &sub)]).unwrap_err();
    assert!(
        e.contains("module `sub/m.csl` is not a plain file name"),
        "{e}"
    );
}

#[test]
fn errors_in_a_module_name_its_file_and_its_own_lines() {
    let pe =
        format!("{PE_HEAD}var x: u16 = 1;\nconst m = @import_module(\"m.csl\", .{{ .p = 3 }});\n");
    // a syntax error
    let e = compile(&[
        ("pe.csl", &pe),
        ("m.csl", "param p: u16;\n\nconst q = p +;\n"),
    ])
    .unwrap_err();
    assert!(
        e.starts_with("m.csl:3:14: error: expected an expression"),
        "{e}"
    );
    // a compile-time error in the module's code
    let e = compile(&[
        ("pe.csl", &pe),
        ("m.csl", "param p: u16;\n\nconst q: i8 = p * 100;\n"),
    ])
    .unwrap_err();
    assert!(e.starts_with("m.csl:3:"), "{e}");
}

#[test]
fn a_module_without_a_params_struct_takes_its_defaults() {
    let pe = format!(
        "{PE_HEAD}const m = @import_module(\"m.csl\");\ncomptime {{\n  @comptime_assert(m.p == 5);\n}}\n"
    );
    compile(&[("pe.csl", &pe), ("m.csl", "param p: u16 = 5;\n")]).unwrap();
    let six = pe.replace("m.p == 5", "m.p == 6");
    let e = compile(&[("pe.csl", &six), ("m.csl", "param p: u16 = 5;\n")]).unwrap_err();
    assert!(e.contains("compile-time assertion failed"), "{e}");
}
