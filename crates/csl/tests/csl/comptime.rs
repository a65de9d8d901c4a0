//! Compile-time evaluation of layouts written in the tutorials' style: params, per-PE code
//! and params, routes per color per PE, exported names, and the errors.

use npusim_csl::SourceFile;
use npusim_csl::comptime::{
    Arch, ColorRoute, ComptimeConfig, Dir, IntType, Layout, LayoutError, RangeFilter,
    SwitchPosition, Type, Value, evaluate_layout, parse_params,
};

fn eval(name: &str, text: &str, params: &str, arch: Arch) -> Result<Layout, LayoutError> {
    let config = ComptimeConfig {
        arch,
        params: parse_params(params).unwrap(),
    };
    evaluate_layout(&SourceFile::new(name, text), &config)
}

fn error(text: &str, params: &str) -> String {
    eval("layout.csl", text, params, Arch::Wse2)
        .unwrap_err()
        .to_string()
}

fn int(v: i128, ty: &str) -> Value {
    Value::Int {
        value: v,
        ty: IntType::from_name(ty).unwrap(),
    }
}

fn route(rx: &[Dir], tx: &[Dir]) -> ColorRoute {
    ColorRoute {
        rx: rx.to_vec(),
        tx: tx.to_vec(),
        ..ColorRoute::default()
    }
}

fn f32_ptr() -> Type {
    Type::ManyPtr {
        is_const: false,
        elem: Box::new(Type::F32),
    }
}

#[test]
fn one_pe_with_memcpy_params_and_exports() {
    let text = include_str!("programs/single_pe_layout.csl");
    let layout = eval("layout.csl", text, "M:4,N:6", Arch::Wse3).unwrap();
    assert_eq!(layout.rectangle, Some((1, 1)));
    assert_eq!(layout.tiles.len(), 1);
    let tile = &layout.tiles[&(0, 0)];
    assert_eq!(tile.file, "pe_program.csl");
    assert_eq!(tile.param("M"), Some(&int(4, "i16")));
    assert_eq!(tile.param("N"), Some(&int(6, "i16")));
    assert_eq!(
        tile.param("memcpy_params"),
        Some(&Value::Struct(vec![
            ("width".into(), Value::comptime_int(1)),
            ("height".into(), Value::comptime_int(1)),
            ("LAUNCH".into(), Value::Color(8)),
            ("pe_x".into(), Value::comptime_int(0)),
        ]))
    );
    let exports: Vec<(&str, String, bool)> = layout
        .exports
        .iter()
        .map(|e| (e.name.as_str(), e.ty.to_string(), e.mutable))
        .collect();
    assert_eq!(
        exports,
        [
            ("A", "[*]f32".to_string(), true),
            ("x", "[*]f32".to_string(), true),
            ("b", "[*]f32".to_string(), true),
            ("y", "[*]f32".to_string(), false),
            ("init_and_compute", "fn() void".to_string(), false),
        ]
    );
    assert_eq!(layout.exports[0].ty, f32_ptr());
    assert!(layout.routes.is_empty());
}

#[test]
fn the_older_memcpy_library_name_gives_the_same_params() {
    let text = include_str!("programs/single_pe_layout.csl").replace("<memcpy/", "<memcpy_multi/");
    let older = eval("layout.csl", &text, "M:4,N:6", Arch::Wse2).unwrap();
    let newer = eval(
        "layout.csl",
        include_str!("programs/single_pe_layout.csl"),
        "M:4,N:6",
        Arch::Wse2,
    )
    .unwrap();
    assert_eq!(older, newer);
    let e = error(
        "const m = @import_module(\"<memcpy/other>\", .{});\nlayout { const p = m.get_params(0); }",
        "",
    );
    assert!(
        e.contains("`get_params` of library `<memcpy/other>` is not available at compile time yet"),
        "{e}"
    );
}

#[test]
fn a_row_of_pes_with_a_default_param_and_routes() {
    let text = include_str!("programs/row_layout.csl");
    let layout = eval("layout.csl", text, "width:4,rows:6", Arch::Wse2).unwrap();
    assert_eq!(layout.rectangle, Some((4, 1)));
    for pe in 0..4u32 {
        let tile = &layout.tiles[&(pe, 0)];
        assert_eq!(tile.param("pe_id"), Some(&int(i128::from(pe), "i16")));
        assert_eq!(
            tile.param("N_per_PE"),
            Some(&int(4, "i16")),
            "default of cols_per_pe"
        );
        assert_eq!(tile.param("M"), Some(&int(6, "i16")));
        assert_eq!(tile.param("is_last"), Some(&Value::Bool(pe == 3)));
        assert_eq!(tile.param("sum_color"), Some(&Value::Color(3)));
        let memcpy = tile.param("memcpy_params").unwrap();
        let Value::Struct(fields) = memcpy else {
            panic!()
        };
        assert_eq!(
            fields.last(),
            Some(&("pe_x".to_string(), int(i128::from(pe), "i16")))
        );
    }
    use Dir::{East, Ramp, West};
    assert_eq!(layout.routes[&(0, 0)][&3], route(&[Ramp], &[East]));
    assert_eq!(layout.routes[&(1, 0)][&3], route(&[West], &[Ramp, East]));
    assert_eq!(layout.routes[&(2, 0)][&3], route(&[West], &[Ramp, East]));
    assert_eq!(layout.routes[&(3, 0)][&3], route(&[West], &[Ramp]));
    assert_eq!(layout.exports.len(), 3);
}

#[test]
fn a_grid_with_routes_switches_and_functions() {
    let text = include_str!("programs/grid_layout.csl");
    let layout = eval(
        "layout.csl",
        text,
        "kernel_x_dim:3,kernel_y_dim:2,M:8,N:9",
        Arch::Wse3,
    )
    .unwrap();
    assert_eq!(layout.rectangle, Some((3, 2)));
    assert_eq!(layout.tiles.len(), 6);
    let t = &layout.tiles[&(2, 1)];
    assert_eq!(t.param("M_per_PE"), Some(&int(4, "i16")));
    assert_eq!(t.param("N_per_PE"), Some(&int(3, "i16")));
    assert_eq!(t.param("pe_x"), Some(&int(2, "i16")));
    assert_eq!(t.param("is_top"), Some(&Value::Bool(false)));
    assert_eq!(t.param("exit_id"), Some(&Value::LocalTaskId(10)));
    assert_eq!(t.param("data_id"), Some(&Value::DataTaskId(1)));
    assert_eq!(t.param("arch_is_wse3"), Some(&Value::Bool(true)));
    use Dir::{East, North, Ramp, South, West};
    // y flows east along each row.
    for py in 0..2 {
        assert_eq!(layout.routes[&(0, py)][&1], route(&[Ramp], &[East]));
        assert_eq!(layout.routes[&(1, py)][&1], route(&[West], &[East]));
        assert_eq!(layout.routes[&(2, py)][&1], route(&[West], &[Ramp]));
    }
    // x goes down each column.
    for px in 0..3 {
        assert_eq!(layout.routes[&(px, 0)][&0], route(&[Ramp], &[Ramp, South]));
        assert_eq!(layout.routes[&(px, 1)][&0], route(&[North], &[Ramp]));
    }
    // The east column's output color has switch positions.
    for py in 0..2 {
        let out = &layout.routes[&(2, py)][&2];
        assert_eq!(
            (out.rx.as_slice(), out.tx.as_slice()),
            (&[Ramp][..], &[East][..])
        );
        assert_eq!(
            out.positions,
            [
                Some(SwitchPosition {
                    rx: None,
                    tx: Some(vec![South])
                }),
                Some(SwitchPosition {
                    rx: Some(West),
                    tx: None
                }),
                None
            ]
        );
        assert!(out.ring_mode);
    }
    assert!(!layout.routes[&(1, 0)].contains_key(&2));
    // The same program on WSE-2 differs only where it asks.
    let wse2 = eval(
        "layout.csl",
        text,
        "kernel_x_dim:3,kernel_y_dim:2,M:8,N:9",
        Arch::Wse2,
    )
    .unwrap();
    assert_eq!(
        wse2.tiles[&(0, 0)].param("arch_is_wse3"),
        Some(&Value::Bool(false))
    );
    assert_eq!(wse2.routes, layout.routes);
}

#[test]
fn comptime_assertions_point_at_the_builtin() {
    let text = include_str!("programs/grid_layout.csl");
    let e = eval(
        "layout.csl",
        text,
        "kernel_x_dim:3,kernel_y_dim:2,M:7,N:9",
        Arch::Wse2,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.starts_with(
            "layout.csl:31:3: error: compile-time assertion failed: M must split evenly over the rows\n"
        ),
        "{e}"
    );
}

#[test]
fn integer_overflow_is_a_compile_error() {
    let e = error(
        "const a: i16 = 32767;\nconst b = a + 1;\nlayout { @set_rectangle(b, 1); }",
        "",
    );
    assert_eq!(
        e,
        "layout.csl:2:11: error: integer overflow: 32767 + 1 does not fit in i16\nconst b = a + 1;\n          ^"
    );
    assert!(
        error(
            "const a: u8 = 0;\nconst b = a - 1;\nlayout { @set_rectangle(b, 1); }",
            ""
        )
        .contains("integer overflow: 0 - 1 does not fit in u8")
    );
    assert!(
        error(
            "const a: i8 = 64;\nconst b = a * 2;\nlayout { @set_rectangle(b, 1); }",
            ""
        )
        .contains("integer overflow: 64 * 2 does not fit in i8")
    );
    assert!(
        error(
            "const a: i16 = 1;\nconst b = a << 15;\nlayout { @set_rectangle(b, 1); }",
            ""
        )
        .contains("integer overflow: 1 << 15 does not fit in i16")
    );
    assert!(
        error(
            "const b: i16 = 40000;\nlayout { @set_rectangle(b, 1); }",
            ""
        )
        .contains("value 40000 of type comptime_int does not fit in i16")
    );
    assert!(
        error(
            "const a: i16 = 1;\nconst b = a + 40000;\nlayout { @set_rectangle(b, 1); }",
            ""
        )
        .contains("type i16 cannot hold the value 40000")
    );
    assert!(
        error(
            "const b = 7 / (3 - 3);\nlayout { @set_rectangle(b, 1); }",
            ""
        )
        .contains("division by zero: 7 / 0")
    );
    assert!(error("const a: i16 = 1; const c: u16 = 1;\nconst b = a + c;\nlayout { @set_rectangle(b, 1); }", "")
        .contains("incompatible integer types i16 and u16"));
    // comptime_int arithmetic is exact; a sized result is checked once it is typed.
    let ok = eval(
        "l.csl",
        "const b: i16 = 40000 * 2 - 79999;\nlayout { @set_rectangle(b, 1); }",
        "",
        Arch::Wse2,
    )
    .unwrap();
    assert_eq!(ok.rectangle, Some((1, 1)));
    // Integer division truncates toward zero, mixed widths take the wider type.
    let ok = eval("l.csl", "const a: i8 = -7; const w: i32 = 2;\nconst b = (a / 2 + 4) * w;\nlayout { @set_rectangle(b, 1); }", "", Arch::Wse2).unwrap();
    assert_eq!(ok.rectangle, Some((2, 1)));
}

#[test]
fn floats_and_bools() {
    let text = "param scale: f32 = 0.1;\nconst s = scale * 3;\nconst big = 1.0e300 * 10.0;\nlayout {\n  @set_rectangle(1, 1);\n  @set_tile_code(0, 0, \"pe.csl\", .{ .s = s, .c = 0.5 + 1, .t = !(s > 1.0) and true, .big = big });\n}";
    let layout = eval("l.csl", text, "", Arch::Wse2).unwrap();
    let tile = &layout.tiles[&(0, 0)];
    // 0.1 rounded to f32 once, times 3 rounded to f32 once.
    let want = (0.1f32 as f64 * 3.0) as f32 as f64;
    assert_eq!(
        tile.param("s"),
        Some(&Value::Float {
            value: want,
            ty: Type::F32
        })
    );
    assert_eq!(
        tile.param("c"),
        Some(&Value::Float {
            value: 1.5,
            ty: Type::ComptimeFloat
        })
    );
    assert_eq!(tile.param("t"), Some(&Value::Bool(true)));
    let p = eval("l.csl", text, "scale:2", Arch::Wse2).unwrap();
    assert_eq!(
        p.tiles[&(0, 0)].param("s"),
        Some(&Value::Float {
            value: 6.0,
            ty: Type::F32
        })
    );
}

#[test]
fn params_are_checked() {
    let text = "param N: i16;\nparam c: color;\nlayout { @set_rectangle(N, 1); @set_tile_code(0, 0, \"p.csl\", .{ .c = c }); }";
    let l = eval("layout.csl", text, "N:2,c:5", Arch::Wse2).unwrap();
    assert_eq!(l.tiles[&(0, 0)].param("c"), Some(&Value::Color(5)));
    assert_eq!(
        error(text, "N:70000,c:1"),
        "layout.csl:1:7: error: param `N`: value 70000 of type comptime_int does not fit in i16\nparam N: i16;\n      ^"
    );
    assert!(error(text, "N:2,c:24").contains("color 24 is out of range 0..=23"));
    assert_eq!(
        error(text, "N:2,c:1,Q:3"),
        "a value is given for param `Q`, which layout.csl does not declare"
    );
    assert!(error(text, "c:1").starts_with("layout.csl:3:25: error: param `N` has no value"));
    assert!(
        parse_params("N:abc")
            .unwrap_err()
            .to_string()
            .contains("is not an integer or float")
    );
    assert!(
        parse_params("N:1,N:2")
            .unwrap_err()
            .to_string()
            .contains("given twice")
    );
    assert!(parse_params("1N:1").is_err());
}

#[test]
fn layout_builtins_refuse_bad_configurations() {
    let pre = "layout {\n  @set_rectangle(2, 1);\n";
    let cases = [
        (
            "  @set_tile_code(2, 0, \"p.csl\");\n",
            "PE (2, 0) is outside the 2x1 rectangle",
        ),
        (
            "  @set_tile_code(0, 0, \"p.csl\");\n  @set_tile_code(0, 0, \"p.csl\");\n",
            "PE (0, 0) already has its code",
        ),
        (
            "  @set_rectangle(2, 1);\n",
            "the rectangle is already set to 2x1",
        ),
        (
            "  @set_color_config(0, 0, @get_color(1), .{ .routes = .{ .rx = .{WEST} } });\n  @set_color_config(0, 0, @get_color(1), .{ .routes = .{ .tx = .{EAST} } });\n",
            "color 1 of PE (0, 0) is configured twice",
        ),
        (
            "  @set_color_config(0, 0, @get_color(1), .{ .routes = .{ .rx = .{WEST, WEST} } });\n",
            "port WEST is listed twice",
        ),
        (
            "  @set_color_config(0, 0, @get_color(1), .{ .routes = .{ .rx = .{3} } });\n",
            "expected a port",
        ),
        (
            "  @set_color_config(0, 0, @get_color(1), .{ .paths = 1 });\n",
            "unknown color config field `paths`",
        ),
        (
            "  @set_color_config(0, 0, @get_color(1), .{ .switches = .{ .pop_mode = 1 } });\n",
            "switch field `pop_mode` is not modelled",
        ),
        (
            "  @set_color_config(0, 0, 1, .{});\n",
            "takes a color third",
        ),
        (
            "  const c = @get_color(24);\n",
            "color 24 is out of range 0..=23",
        ),
        (
            "  const t = @get_local_task_id(31);\n",
            "local task id 31 is out of range 0..=30",
        ),
        (
            "  @export_name(\"f\", fn()void, true);\n",
            "an exported function cannot be mutable",
        ),
        (
            "  @export_name(\"a\", [*]f32, true);\n  @export_name(\"a\", [*]f32, true);\n",
            "`a` is exported twice",
        ),
        (
            "  @set_rectangle(1);\n",
            "@set_rectangle takes 2 arguments, found 1",
        ),
        (
            "  @fmacs(1, 2, 3, 4);\n",
            "@fmacs is not evaluated at compile time in a layout yet",
        ),
        (
            "  const q = nothing + 1;\n",
            "use of undeclared identifier `nothing`",
        ),
        (
            "  const q = 1;\n  q = 2;\n",
            "cannot assign to constant `q`",
        ),
        (
            "  @comptime_assert(1 == 2);\n",
            "compile-time assertion failed",
        ),
        (
            "  const r = @get_rectangle().depth;\n",
            "no field `depth` in this struct (its fields: width, height)",
        ),
    ];
    for (body, want) in cases {
        let text = format!("{pre}{body}}}\n");
        let e = error(&text, "");
        assert!(e.contains(want), "{body}: {e}");
        assert!(e.starts_with("layout.csl:"), "{e}");
    }
    assert!(
        error("layout { @set_tile_code(0, 0, \"p.csl\"); }", "")
            .contains("@set_rectangle must come before PEs are configured")
    );
}

#[test]
fn evaluation_is_bounded() {
    // Deep expressions inside recursive calls stop at the depth limit, not the stack's end.
    let deep = format!("{}f(n + 1)", "-".repeat(90));
    let text = format!(
        "fn f(n: i16) i16 {{ if (n > 60) {{ return n; }} return {deep}; }}\nconst x = f(0);\nlayout {{ @set_rectangle(x, 1); }}"
    );
    let e = error(&text, "");
    assert!(
        e.contains("compile-time evaluation nests deeper than 400 levels"),
        "{e}"
    );
    let e = error(
        "layout { var l = .{ 1 }; while (true) : (l = l ++ l) {} }",
        "",
    );
    assert!(e.contains("more than 1048576"), "{e}");
    let e = error("layout { var i: i64 = 0; while (true) : (i += 1) {} }", "");
    assert!(
        e.contains("more than 10000000 loop iterations and calls"),
        "{e}"
    );
    let e = error(
        "fn f(n: i16) i16 { return f(n + 1); }\nconst x = f(0);\nlayout { @set_rectangle(x, 1); }",
        "",
    );
    assert!(e.contains("calls nest deeper than 64 levels"), "{e}");
    let e = error(
        "const a = b;\nconst b = a;\nlayout { @set_rectangle(a, 1); }",
        "",
    );
    assert!(e.contains("`a` depends on its own value"), "{e}");
}

#[test]
fn loops_break_continue_and_ranges() {
    let text = "layout {\n  @set_rectangle(8, 1);\n  for (@range(i16, 1, 8, 2)) |x, k| {\n    if (x == 5) { continue; }\n    if (k == 3) { break; }\n    @set_tile_code(x, 0, \"p.csl\", .{ .k = k });\n  }\n  var n: u8 = 0;\n  while (n < 200) : (n += 1) {\n    if (n == 6) { @set_tile_code(n, 0, \"q.csl\"); break; }\n  }\n}";
    let l = eval("l.csl", text, "", Arch::Wse2).unwrap();
    let xs: Vec<(u32, &str)> = l
        .tiles
        .iter()
        .map(|(&(x, _), t)| (x, t.file.as_str()))
        .collect();
    assert_eq!(xs, [(1, "p.csl"), (3, "p.csl"), (6, "q.csl")]);
    assert_eq!(l.tiles[&(3, 0)].param("k"), Some(&Value::comptime_int(1)));
}

#[test]
fn color_swap_teardown_and_collectives_params() {
    let text = include_str!("programs/swap_layout.csl");
    let layout = eval("layout.csl", text, "width:3", Arch::Wse2).unwrap();
    use Dir::{East, Ramp, West};
    let first = &layout.routes[&(0, 0)][&4];
    assert_eq!(
        (first.rx.as_slice(), first.tx.as_slice()),
        (&[Ramp][..], &[Ramp, East][..])
    );
    assert!(first.color_swap_x && !first.color_swap_y && !first.teardown);
    assert_eq!(layout.routes[&(2, 0)][&4].rx, [West]);
    let spare = &layout.routes[&(1, 0)][&6];
    assert!(spare.teardown && !spare.color_swap_x);
    let Some(Value::Struct(c2d)) = layout.tiles[&(1, 0)].param("c2d") else {
        panic!()
    };
    let names: Vec<&str> = c2d.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["x_colors", "x_entrypoints", "pe_x", "pe_y"]);
    assert_eq!(
        c2d[0].1,
        Value::List(vec![Value::Color(4), Value::Color(5)])
    );
    assert_eq!(c2d[2].1, int(1, "u16"));
    let e = error(
        "layout { @set_rectangle(1, 1); @set_color_config(0, 0, @get_color(1), .{ .teardown = 1 }); }",
        "",
    );
    assert!(
        e.contains("`teardown` takes a bool, found comptime_int"),
        "{e}"
    );
}

#[test]
fn switch_at_compile_time() {
    let text = "fn side(x: u16, w: u16) u16 {\n  switch (x) {\n    0 => { return 1; },\n    else => {},\n  }\n  return switch (w - x) { 1 => 3, 2...9 => 2, else => 0 };\n}\nlayout {\n  @set_rectangle(4, 1);\n  for (@range(u16, 4)) |x| { @set_tile_code(x, 0, \"p.csl\", .{ .side = side(x, 4) }); }\n}";
    let l = eval("l.csl", text, "", Arch::Wse2).unwrap();
    let sides: Vec<Value> = (0..4)
        .map(|x| l.tiles[&(x, 0)].param("side").unwrap().clone())
        .collect();
    assert_eq!(
        sides,
        [int(1, "u16"), int(2, "u16"), int(2, "u16"), int(3, "u16")]
    );
    let e = error(
        "const k = switch (3) { 0 => 1, 1 => 2 };\nlayout { @set_rectangle(k, 1); }",
        "",
    );
    assert!(e.contains("no switch prong matches `3`"), "{e}");
}

#[test]
fn range_filters() {
    let layout = eval(
        "layout.csl",
        include_str!("programs/filter_layout.csl"),
        "",
        Arch::Wse3,
    )
    .unwrap();
    assert_eq!(layout.routes[&(0, 0)][&2].filter, None);
    for x in 1..4u16 {
        let r = &layout.routes[&(u32::from(x), 0)][&2];
        assert_eq!(
            r.filter,
            Some(RangeFilter {
                min_idx: (x - 1) * 4,
                max_idx: x * 4 - 1
            })
        );
    }
    assert_eq!(layout.routes[&(3, 0)][&2].tx, [Dir::Ramp]);
    let pre = "layout { @set_rectangle(1, 1); @set_color_config(0, 0, @get_color(1), .{ .filter = ";
    for (filter, want) in [
        (
            ".{ .kind = .{ .counter = true }, .limit1 = 3 }",
            "filter field `limit1` is not modelled",
        ),
        (
            ".{ .kind = .{ .counter = true } }",
            "counter filters are not modelled",
        ),
        (
            ".{ .kind = .{ .range = true }, .min_idx = 1 }",
            "needs both `min_idx` and `max_idx`",
        ),
        (
            ".{ .kind = .{ .range = true }, .min_idx = 1, .max_idx = 70000 }",
            "`max_idx` 70000 is out of range",
        ),
        (".{ .min_idx = 1 }", "a filter needs a `.kind`"),
    ] {
        let e = error(&format!("{pre}{filter} }}); }}"), "");
        assert!(e.contains(want), "{filter}: {e}");
    }
}

/// f16 at compile time (a packing helper of the filters topic's kind): a literal rounds once
/// to f16 (0.1 is 0x2E66, as IEEE 754 binary16 rounds it); in `a + 0.2` the literal is an
/// f16 first (0x3266), as Zig coerces it, and the exact sum 0.2999267578125 is a tie
/// between 0x34CC and 0x34CD that rounds to even; `@bitcast` reads the bits as an integer
/// of the same size and back.
#[test]
fn f16_values_round_once_and_bitcast_gives_their_bits() {
    let text = "fn pack(i: u16, h: f16) u32 {
  return (@as(u32, i) << 16) | @as(u32, @bitcast(u16, h));
}
const a: f16 = 0.1;
const b: f16 = a + 0.2;
comptime {
  @comptime_assert(@bitcast(u16, a) == 0x2E66);
  @comptime_assert(@bitcast(u16, @as(f16, 10.0)) == 0x4900);
  @comptime_assert(pack(3, 10.0) == 0x0003_4900);
  @comptime_assert(@bitcast(u16, b) == 0x34CC);
  @comptime_assert(@bitcast(f16, @as(u16, 0x3C00)) == 1.0);
  @comptime_assert(@bitcast(i16, @as(u16, 0xFFFF)) == -1);
  @comptime_assert(@bitcast(u32, @as(f32, 1.0)) == 0x3F80_0000);
}
layout {
  @set_rectangle(1, 1);
}
";
    eval("layout.csl", text, "", Arch::Wse2).unwrap();
    let e = error(
        &text.replace("@bitcast(u16, a) == 0x2E66", "@bitcast(u32, a) == 0"),
        "",
    );
    assert!(
        e.contains("@bitcast to u32 takes a value of the same size, found f16"),
        "{e}"
    );
}
