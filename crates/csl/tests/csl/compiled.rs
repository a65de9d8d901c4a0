//! Whole programs on the simulator: a layout and its PE programs compiled together, placed
//! by `--fabric-dims` / `--fabric-offsets`, routes lowered to the router's configuration and
//! carrying data, written to and read back from an `out/` directory.

use std::collections::BTreeMap;
use std::path::PathBuf;

use npusim_cerebras::fabric::{
    Color, ColorConfig, Dir, InputQueue, RangeFilter, Route, Wavelet, WaveletKind,
};
use npusim_cerebras::sched::Sim;
use npusim_csl::compiled::{CompileError, CompileOptions, CompiledProgram, out_dir, sim_arch};
use npusim_csl::comptime::{Arch, parse_params};

fn programs() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/csl/programs")
}

fn options(arch: Arch) -> CompileOptions {
    CompileOptions {
        arch,
        ..CompileOptions::default()
    }
}

fn routes_program(arch: Arch) -> CompiledProgram {
    CompiledProgram::compile_files(&programs().join("sdk_routes/layout.csl"), options(arch))
        .unwrap()
}

/// The twin of `sdk_routes/layout.csl`, configured by hand as the simulator's API does.
fn hand_twin(arch: Arch) -> Sim {
    let mut sim = Sim::new(sim_arch(arch), 3, 2).unwrap();
    let pass = Color::new(5).unwrap();
    let turn = Color::new(7).unwrap();
    let fixed = |rx: Dir, tx: &[Dir]| ColorConfig::fixed(Route::new(&[rx], tx));
    let f = sim.fabric_mut();
    f.set_color_config(0, 0, pass, fixed(Dir::West, &[Dir::East]))
        .unwrap();
    f.set_color_config(1, 0, pass, fixed(Dir::West, &[Dir::East, Dir::Ramp]))
        .unwrap();
    f.set_color_config(2, 0, pass, fixed(Dir::West, &[Dir::East]))
        .unwrap();
    f.set_color_config(0, 0, turn, fixed(Dir::West, &[Dir::South]))
        .unwrap();
    f.set_color_config(0, 1, turn, fixed(Dir::North, &[Dir::East]))
        .unwrap();
    f.set_color_config(1, 1, turn, fixed(Dir::West, &[Dir::East]))
        .unwrap();
    f.set_color_config(2, 1, turn, fixed(Dir::West, &[Dir::East, Dir::Ramp]))
        .unwrap();
    sim.pe_mut(2, 1).unwrap().queues.set_filter(
        turn,
        Some(RangeFilter {
            min_idx: 0,
            max_idx: 3,
        }),
    );
    sim
}

/// Streams two wavelets of each color (the middle PE's input queue keeps its copies of
/// color 5; color 7's have indices 0 and 4, so the filter of PE (2, 1) passes one) in at the west edge and runs the simulator; gives
/// what left through the east edges (row, color, payload) and the cycles.
fn carry(sim: &mut Sim) -> (Vec<(u32, u8, u32)>, u64) {
    sim.pe_mut(1, 0)
        .unwrap()
        .queues
        .bind_input(InputQueue::new(5).unwrap(), Color::new(5).unwrap())
        .unwrap();
    sim.pe_mut(2, 1)
        .unwrap()
        .queues
        .bind_input(InputQueue::new(7).unwrap(), Color::new(7).unwrap())
        .unwrap();
    let f = sim.fabric_mut();
    f.open_edge(0, 0, Dir::West).unwrap();
    f.open_edge(2, 0, Dir::East).unwrap();
    f.open_edge(2, 1, Dir::East).unwrap();
    let waves = |c: i64| {
        (0..2).map(move |k| Wavelet::from_raw(c, (k << 18) + 100 + k, WaveletKind::Data).unwrap())
    };
    f.stream_in(0, 0, Dir::West, waves(5).chain(waves(7)))
        .unwrap();
    let report = sim.run(10_000).unwrap();
    let out = sim
        .collected()
        .iter()
        .map(|c| (c.y, c.wavelet.color.id(), c.wavelet.payload))
        .collect();
    (out, report.cycles)
}

#[test]
fn layout_routes_become_the_routers_configuration_and_carry_data_on_both_architectures() {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let program = routes_program(arch);
        assert_eq!(program.rectangle, (3, 2));
        let mut compiled = program.load().unwrap().sim;
        let mut twin = hand_twin(arch);
        for (x, y) in [(0, 0), (1, 0), (2, 0), (0, 1), (1, 1), (2, 1)] {
            for c in [5, 7] {
                let color = Color::new(c).unwrap();
                assert_eq!(
                    compiled.fabric().color_config(x, y, color).unwrap(),
                    twin.fabric().color_config(x, y, color).unwrap(),
                    "{arch:?} PE ({x}, {y}) color {c}"
                );
            }
        }
        let (got, cycles) = carry(&mut compiled);
        let (want, twin_cycles) = carry(&mut twin);
        assert_eq!(got, want, "{arch:?}");
        assert_eq!(cycles, twin_cycles, "{arch:?}");
        // color 5 leaves row 0 east, color 7 turned south at (0, 0) and leaves row 1 east
        let mut rows: Vec<(u32, u8)> = got.iter().map(|&(y, c, _)| (y, c)).collect();
        rows.sort_unstable();
        rows.dedup();
        assert_eq!(rows, vec![(0, 5), (1, 7)], "{arch:?}");
        assert_eq!(got.len(), 4, "{arch:?}");
        // the middle PE's ramp got its copies of color 5
        let queued = compiled
            .pe(1, 0)
            .unwrap()
            .queues
            .input(InputQueue::new(5).unwrap())
            .unwrap()
            .len();
        assert_eq!(queued, 2, "{arch:?}");
        // PE (2, 1)'s range filter 0..=3 let index 0 through and held back index 4
        let pe = compiled.pe(2, 1).unwrap();
        assert_eq!(pe.queues.filtered(), 1, "{arch:?}");
        let kept = pe.queues.input(InputQueue::new(7).unwrap()).unwrap().len();
        assert_eq!(kept, 1, "{arch:?}");
    }
}

#[test]
fn each_pe_gets_its_own_program_with_the_params_its_tile_code_gives() {
    let program = routes_program(Arch::Wse3);
    assert_eq!(program.tiles.len(), 6);
    // two distinct param sets (row 0 and row 1): two compiled programs shared by three PEs
    assert!(std::sync::Arc::ptr_eq(
        &program.tiles[&(0, 0)],
        &program.tiles[&(2, 0)]
    ));
    assert!(!std::sync::Arc::ptr_eq(
        &program.tiles[&(0, 0)],
        &program.tiles[&(0, 1)]
    ));
}

fn placement_error(dims: Option<(u32, u32)>, offsets: Option<(u32, u32)>, memcpy: bool) -> String {
    let opts = CompileOptions {
        arch: Arch::Wse2,
        fabric_dims: dims,
        fabric_offsets: offsets,
        memcpy,
        ..CompileOptions::default()
    };
    match CompiledProgram::compile_files(&programs().join("sdk_routes/layout.csl"), opts) {
        Err(e @ CompileError::Placement(_)) => e.to_string(),
        other => panic!("expected a placement error, got {other:?}"),
    }
}

#[test]
fn fabric_dims_and_offsets_place_the_rectangle_as_the_sdk_does() {
    // The SDK's memcpy takes a halo of one PE plus three columns west and two east: a 3x2
    // rectangle at offsets (4, 1) needs a fabric of 4 + 3 + 3 = 10 by 1 + 2 + 1 = 4.
    let p = CompiledProgram::compile_files(
        &programs().join("sdk_routes/layout.csl"),
        CompileOptions {
            arch: Arch::Wse2,
            fabric_dims: Some((10, 4)),
            fabric_offsets: Some((4, 1)),
            memcpy: true,
            ..CompileOptions::default()
        },
    )
    .unwrap();
    assert_eq!(p.placement.fabric_dims, (10, 4));
    assert_eq!(p.placement.offsets, (4, 1));
    assert_eq!(
        placement_error(Some((9, 4)), Some((4, 1)), true),
        "the 3x2 rectangle at fabric offsets (4, 1) and memcpy's 4 west, 3 east columns and 1 row above and below needs a fabric of at least 10x4; the fabric dims are 9x4"
    );
    assert_eq!(
        placement_error(Some((10, 4)), Some((3, 1)), true),
        "fabric offsets (3, 1) leave no room for memcpy's halo and support columns: they must be at least (4, 1)"
    );
    // without memcpy the rectangle only has to fit
    assert_eq!(
        placement_error(Some((4, 2)), Some((2, 0)), false),
        "the 3x2 rectangle at fabric offsets (2, 0) needs a fabric of at least 5x2; the fabric dims are 4x2"
    );
    assert_eq!(
        placement_error(Some((800, 4)), None, false),
        "fabric dims 800x4 exceed the 757x996 PEs of wse2"
    );
}

#[test]
fn a_missing_tile_file_and_a_pe_without_code_are_errors_naming_them() {
    let mut sources = BTreeMap::new();
    sources.insert(
        "layout.csl".to_string(),
        "layout {\n  @set_rectangle(2, 1);\n  @set_tile_code(0, 0, \"a.csl\", .{});\n}\n"
            .to_string(),
    );
    sources.insert("a.csl".to_string(), "var v: [1]f32;\n".to_string());
    let e =
        CompiledProgram::compile("layout.csl", sources.clone(), options(Arch::Wse2)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "PE (1, 0) of the 2x1 rectangle has no @set_tile_code"
    );
    sources.insert(
        "layout.csl".to_string(),
        "layout {\n  @set_rectangle(1, 1);\n  @set_tile_code(0, 0, \"b.csl\", .{});\n}\n"
            .to_string(),
    );
    let e = CompiledProgram::compile("layout.csl", sources, options(Arch::Wse2)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "layout.csl sets the code of PE (0, 0) to `b.csl`, which is not a file of the program"
    );
}

#[test]
fn an_error_in_a_pe_program_points_at_its_file_line_and_column() {
    let mut sources = BTreeMap::new();
    sources.insert(
        "layout.csl".to_string(),
        "layout {\n  @set_rectangle(1, 1);\n  @set_tile_code(0, 0, \"pe.csl\", .{});\n}\n"
            .to_string(),
    );
    sources.insert(
        "pe.csl".to_string(),
        "var v: [1]f32;\nfn f() void {\n  v[0] = 1 +;\n}\n".to_string(),
    );
    let e = CompiledProgram::compile("layout.csl", sources, options(Arch::Wse3)).unwrap_err();
    assert!(e.to_string().starts_with("pe.csl:3:13: error:"), "{e}");
}

#[test]
fn an_out_directory_holds_the_sources_and_manifest_and_reads_back_as_the_same_program() {
    let dir = std::env::temp_dir().join(format!("npusim-csl-out-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let program = CompiledProgram::compile_files(
        &programs().join("sdk_gemv/layout.csl"),
        CompileOptions {
            arch: Arch::Wse3,
            params: parse_params("width:2,height:2,M:3,N:4").unwrap(),
            fabric_dims: Some((9, 4)),
            fabric_offsets: Some((4, 1)),
            memcpy: true,
            channels: Some(1),
        },
    )
    .unwrap();
    out_dir::write(&program, &dir).unwrap();
    let manifest = std::fs::read_to_string(dir.join(out_dir::MANIFEST)).unwrap();
    assert!(manifest.starts_with("npusim-csl compiled program 1\narch wse3\nlayout layout.csl\nfabric-dims 9 4\nfabric-offsets 4 1\nmemcpy true\nchannels 1\nparam width 2\n"), "{manifest}");
    assert!(manifest.contains("source pe_program.csl\n"), "{manifest}");
    assert!(dir.join("src/pe_program.csl").is_file());
    assert_eq!(
        std::fs::read_to_string(dir.join(out_dir::OUT_JSON)).unwrap(),
        "{\"params\": {\"width\": \"2\", \"height\": \"2\", \"M\": \"3\", \"N\": \"4\"}}\n"
    );
    let back = out_dir::read(&dir).unwrap();
    assert_eq!(back.options, program.options);
    assert_eq!(back.layout, program.layout);
    assert_eq!(back.sources, program.sources);
    std::fs::write(dir.join(out_dir::MANIFEST), "something else\n").unwrap();
    let e = out_dir::read(&dir).unwrap_err();
    assert!(e.to_string().ends_with("not a program compiled by npusim (the first line is not `npusim-csl compiled program 1`)"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn one_route_program(arch: Arch, config: &str) -> Result<CompiledProgram, CompileError> {
    let mut sources = BTreeMap::new();
    sources.insert(
        "layout.csl".to_string(),
        format!(
            "const c: color = @get_color(3);\nlayout {{\n  @set_rectangle(2, 1);\n  @set_tile_code(0, 0, \"pe.csl\", .{{}});\n  @set_tile_code(1, 0, \"pe.csl\", .{{}});\n  @set_color_config(0, 0, c, {config});\n}}\n"
        ),
    );
    sources.insert("pe.csl".to_string(), "var v: [1]u32;\n".to_string());
    let program = CompiledProgram::compile("layout.csl", sources, options(arch))?;
    program.load()?;
    Ok(program)
}

#[test]
fn switches_teardown_and_color_swap_lower_as_the_router_takes_them() {
    use npusim_cerebras::fabric::{DirSet, SwitchPos};
    let c = Color::new(3).unwrap();
    // switch positions, the current one and ring mode, as the router's own configuration
    let p = one_route_program(
        Arch::Wse3,
        ".{ .routes = .{ .rx = .{WEST}, .tx = .{EAST} }, .switches = .{ .pos1 = .{ .tx = .{ RAMP, EAST } }, .pos2 = .{ .rx = NORTH }, .current_switch_pos = 1, .ring_mode = true } }",
    )
    .unwrap();
    let sim = p.load().unwrap().sim;
    let mut want = ColorConfig::fixed(Route::new(&[Dir::West], &[Dir::East]))
        .with_switches(
            npusim_cerebras::Arch::Wse3,
            c,
            &[
                SwitchPos {
                    rx: None,
                    tx: Some(DirSet::of(&[Dir::Ramp, Dir::East])),
                },
                SwitchPos {
                    rx: Some(Dir::North),
                    tx: None,
                },
            ],
            true,
        )
        .unwrap();
    want.current = 1;
    assert_eq!(sim.fabric().color_config(0, 0, c).unwrap(), Some(&want));
    // teardown at start and the WSE-2 color swap
    let p = one_route_program(
        Arch::Wse2,
        ".{ .routes = .{ .rx = .{WEST}, .tx = .{EAST}, .color_swap_x = true }, .teardown = true }",
    )
    .unwrap();
    let sim = p.load().unwrap().sim;
    assert!(sim.fabric().in_teardown(0, 0, c).unwrap());
    assert!(!sim.fabric().in_teardown(1, 0, c).unwrap());
    // what the router refuses comes back naming the PE and color
    let e = one_route_program(
        Arch::Wse3,
        ".{ .routes = .{ .rx = .{WEST}, .tx = .{EAST}, .color_swap_x = true } }",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "route of color 3 on PE (0, 0): PE (0, 0): color_swap_x is not available on wse3"
    );
    let e = one_route_program(
        Arch::Wse2,
        ".{ .routes = .{ .rx = .{WEST}, .tx = .{EAST} }, .switches = .{ .pos2 = .{ .rx = NORTH } } }",
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "route of color 3 on PE (0, 0): pos2 is set but pos1 is not"
    );
}
