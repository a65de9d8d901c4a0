//! The parser: every construct the tutorials' programs use, Zig's operator precedence,
//! errors as `file:line:col: error: message` with the line and a caret, the nesting limit.

use npusim_csl::SourceFile;
use npusim_csl::ast::{DeclKind, Expr, ExprKind, Module, StmtKind};
use npusim_csl::parse::{MAX_NESTING, parse, parse_text};
use npusim_csl::print::{print_expr, print_module};

const LAYOUT: &str = include_str!("programs/row_layout.csl");
const PE: &str = include_str!("programs/row_pe.csl");

/// The expression of `const e = <text>;`.
fn expr(text: &str) -> Expr {
    let m = parse_text(&format!("const e = {text};")).unwrap();
    match m.decls.into_iter().next().map(|d| d.kind) {
        Some(DeclKind::Var(v)) => v.init.unwrap(),
        other => panic!("{other:?}"),
    }
}

/// The tree of an expression fully parenthesised, to read its shape.
fn shape(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Binary(op, l, r) => format!("({} {op} {})", shape(l), shape(r)),
        ExprKind::Unary(op, x) => format!("({}{})", op.symbol(), shape(x)),
        _ => print_expr(e),
    }
}

fn error(text: &str) -> String {
    parse(&SourceFile::new("t.csl", text))
        .unwrap_err()
        .to_string()
}

#[test]
fn the_programs_parse_into_their_declarations() {
    let layout = parse(&SourceFile::new("layout.csl", LAYOUT)).unwrap();
    let kinds: Vec<&str> = layout
        .decls
        .iter()
        .map(|d| match d.kind {
            DeclKind::Param(_) => "param",
            DeclKind::Var(_) => "var",
            DeclKind::Layout(_) => "layout",
            _ => "other",
        })
        .collect();
    assert_eq!(kinds, ["param", "param", "param", "var", "var", "layout"]);
    let pe: Module = parse(&SourceFile::new("pe_program.csl", PE)).unwrap();
    let names: Vec<&str> = pe
        .decls
        .iter()
        .filter_map(|d| match &d.kind {
            DeclKind::Fn(f) | DeclKind::Task(f) => Some(f.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["scale", "gemv", "exit_task", "compute"]);
}

#[test]
fn precedence_follows_zig() {
    let cases = [
        ("a + b * c", "(a + (b * c))"),
        ("a * b + c", "((a * b) + c)"),
        ("a - b - c", "((a - b) - c)"),
        ("a / b % c", "((a / b) % c)"),
        ("a << b + c", "(a << (b + c))"),
        ("a & b << c", "(a & (b << c))"),
        // `&`, `^` and `|` share one level in Zig, left to right.
        ("a | b & c", "((a | b) & c)"),
        ("a ^ b | c", "((a ^ b) | c)"),
        ("a | b == c", "((a | b) == c)"),
        ("a == b and c != d", "((a == b) and (c != d))"),
        ("a or b and c", "(a or (b and c))"),
        ("a and b or c", "((a and b) or c)"),
        ("-a * b", "((-a) * b)"),
        ("!a and b", "((!a) and b)"),
        ("~a & b", "((~a) & b)"),
        ("-x[i] + y.z", "((-x[i]) + y.z)"),
        ("a ++ b * c", "(a ++ (b * c))"),
        ("a < b + 1", "(a < (b + 1))"),
        ("(a + b) * c", "((a + b) * c)"),
    ];
    for (text, want) in cases {
        assert_eq!(shape(&expr(text)), want, "{text}");
    }
}

#[test]
fn comparisons_do_not_chain() {
    let e = error("const x = a < b < c;");
    assert!(
        e.starts_with("t.csl:1:17: error: comparison operators cannot be chained"),
        "{e}"
    );
    // With parentheses they may.
    assert_eq!(shape(&expr("(a < b) == c")), "((a < b) == c)");
}

#[test]
fn postfix_operations_and_literals() {
    for text in [
        "p.*",
        "a[i, j]",
        "a[1..n]",
        "a[2..]",
        "a[1.. .x]",
        "&x",
        "f(a, b)(c)",
        "@as(f32, 1)",
        ".{ .a = 1, .b = .{ c, d } }",
        ".{ RAMP, EAST }",
        ".{}",
        ".idle",
        "[3]i16{ 1, 2, 3 }",
        "Pair{ .a = 1 }",
        "|i, j|{M, N} -> A[i, j]",
        "[*]f32",
        "[*]const f32",
        "*const i16",
        "[]u8",
        "[M, N]f32",
        "fn(i16, f32) void",
        "if (c) 1 else 2",
        "if (c) 1",
        "if (a) 1 else if (b) 2",
        "if (a) (if (b) 1) else 2",
        "\"a\\n\\\"b\\\"\"",
        "'x'",
        "1.5e3",
        "true",
        "undefined",
        "f({}, 0)",
        "comptime f(x)",
    ] {
        assert_eq!(print_expr(&expr(text)), text);
    }
}

#[test]
fn the_empty_literal_is_an_empty_struct() {
    assert_eq!(expr(".{}").kind, ExprKind::StructLit(Vec::new()));
    assert_eq!(expr(".{ }").kind, ExprKind::StructLit(Vec::new()));
}

#[test]
fn integers_in_every_base() {
    for (text, v) in [
        ("1_000", 1000u128),
        ("0x1F", 31),
        ("0o17", 15),
        ("0b1010", 10),
    ] {
        assert_eq!(expr(text).kind, ExprKind::Int(v), "{text}");
    }
    assert!(error("const x = 1__0;").contains("`_` must stand between two digits"));
    assert!(error("const x = 0x_1;").contains("`_` must stand between two digits"));
    assert!(
        error("const x = 0x1_0000_0000_0000_0000_0000_0000_0000_0000;")
            .contains("is larger than 2^128 - 1")
    );
}

#[test]
fn statements() {
    let m = parse_text(
        "fn f() void {\n  var i: i16 = 0;\n  while (i < 3) : (i += 1) { if (i == 1) { continue; } else if (i == 2) break; }\n  for (@range(i16, 4)) |k| { y[k] <<= 1; }\n  { return; }\n  comptime { @comptime_assert(true); }\n}",
    )
    .unwrap();
    let DeclKind::Fn(f) = &m.decls[0].kind else {
        panic!()
    };
    let body = &f.body.as_ref().unwrap().stmts;
    assert!(matches!(body[0].kind, StmtKind::Var(_)));
    assert!(matches!(
        body[1].kind,
        StmtKind::While { step: Some(_), .. }
    ));
    assert!(matches!(&body[2].kind, StmtKind::For { captures, .. } if captures == &["k"]));
    assert!(matches!(body[3].kind, StmtKind::Block(_)));
    assert!(matches!(body[4].kind, StmtKind::Comptime(_)));
    assert_eq!(
        print_module(&m),
        "fn f() void {\n  var i: i16 = 0;\n  while (i < 3) : (i += 1) {\n    if (i == 1) {\n      continue;\n    } else if (i == 2) {\n      break;\n    }\n  }\n  for (@range(i16, 4)) |k| {\n    y[k] <<= 1;\n  }\n  {\n    return;\n  }\n  comptime {\n    @comptime_assert(true);\n  }\n}\n"
    );
}

#[test]
fn switch_statements_and_expressions() {
    let m = parse_text(
        "task t() void {\n  switch (state) {\n    0 => { f(); state += 1; },\n    1, 2 => g(),\n    3...5 => {},\n    else => { return; }\n  }\n  const k = switch (x) { 0 => 1, else => 2 };\n}",
    )
    .unwrap();
    assert_eq!(
        print_module(&m),
        "task t() void {\n  switch (state) {\n    0 => {\n      f();\n      state += 1;\n    },\n    1, 2 => g(),\n    3...5 => {},\n    else => {\n      return;\n    },\n  }\n  const k = switch (x) {\n    0 => 1,\n    else => 2,\n  };\n}\n"
    );
    assert!(
        error("const k = switch (x) { 0 => 1 else => 2 };")
            .contains("expected `}` after the switch prongs, found `else`")
    );
    assert!(
        error("const k = switch (x) { 0 1 };")
            .contains("expected `=>` after the prong's values, found `1`")
    );
}

#[test]
fn if_statements_without_braces() {
    let m = parse_text(
        "comptime {\n  if (@is_arch(\"wse3\")) @unblock(q) else @unblock(c);\n  if (a) x = 1;\n  if (a) x += 1 else if (b) y = 2 else { z = 3; }\n}",
    )
    .unwrap();
    assert_eq!(
        print_module(&m),
        "comptime {\n  if (@is_arch(\"wse3\")) {\n    @unblock(q);\n  } else {\n    @unblock(c);\n  }\n  if (a) {\n    x = 1;\n  }\n  if (a) {\n    x += 1;\n  } else if (b) {\n    y = 2;\n  } else {\n    z = 3;\n  }\n}\n"
    );
    assert!(
        error("comptime { if (a) x = 1 }").contains("expected `;` after the statement, found `}`")
    );
}

#[test]
fn export_extern_and_declarations_without_bodies() {
    let m = parse_text(
        "export var flag: bool = false;\nextern var ext: i16;\nexport fn go() void {}\nextern fn ext_fn(a: i16) i16;\ninline fn tiny() void {}\n",
    )
    .unwrap();
    assert_eq!(
        print_module(&m),
        "export var flag: bool = false;\nextern var ext: i16;\n\nexport fn go() void {}\n\nextern fn ext_fn(a: i16) i16;\n\ninline fn tiny() void {}\n"
    );
}

#[test]
fn errors_point_at_line_and_column_with_a_caret() {
    assert_eq!(
        error("param N: i16;\nfn f() void {\n  var x = N +) 2;\n}\n"),
        "t.csl:3:14: error: expected an expression, found `)`\n  var x = N +) 2;\n             ^"
    );
    assert_eq!(
        error("const a = 1\nconst b = 2;"),
        "t.csl:2:1: error: expected `;` after the declaration, found `const`\nconst b = 2;\n^"
    );
    assert_eq!(
        error("fn f() void {\n  x = 1;\n"),
        "t.csl:3:1: error: expected `}` to close the block, found the end of the file\n\n^"
    );
    assert_eq!(
        error("const s = \"é\" $ 1;"),
        "t.csl:1:15: error: unexpected character `$`\nconst s = \"é\" $ 1;\n              ^"
    );
    assert_eq!(
        error("var n = 12ab;"),
        "t.csl:1:9: error: `12ab` is not a number: invalid digit or suffix\nvar n = 12ab;\n        ^"
    );
    assert!(error("foo;").starts_with("t.csl:1:1: error: expected a declaration"));
    assert!(error("export param x: i16;").contains("after `export`/`extern`"));
    assert!(error("const x = \"\\q\";").contains("invalid escape `\\q`"));
}

#[test]
fn nesting_is_limited_without_overflowing_the_stack() {
    for (open, close) in [("(", ")"), ("-", ""), ("[1]", ""), (".{", "}"), ("f(", ")")] {
        let deep = format!(
            "const x = {}1{};",
            open.repeat(10_000),
            close.repeat(10_000)
        );
        let e = error(&deep);
        assert!(
            e.contains(&format!("nesting is deeper than {MAX_NESTING} levels")),
            "{open}: {e}"
        );
        let fine = format!("const x = {}1{};", open.repeat(20), close.repeat(20));
        assert!(parse_text(&fine).is_ok(), "{open}");
    }
    let blocks = format!("fn f() void {}{}", "{".repeat(10_000), "}".repeat(10_000));
    assert!(error(&blocks).contains("nesting is deeper than"));
}
