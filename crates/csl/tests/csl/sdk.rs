//! The host runtime over a compiled program: copy-mode memcpy into exported symbols,
//! `launch` of exported functions, `unblock_cmd_stream`, `<layout>` coordinates; checked
//! against a plain matrix-vector product.

use std::collections::BTreeMap;
use std::path::PathBuf;

use npusim_csl::compiled::{CompileOptions, CompiledProgram};
use npusim_csl::comptime::{Arch, parse_params};
use npusim_csl::sdk::{MemcpyDataType, MemcpyOrder, MemcpyRect, SdkError, SdkRuntime};

const ROW: MemcpyOrder = MemcpyOrder::RowMajor;
const B32: MemcpyDataType = MemcpyDataType::Bits32;

fn gemv_runtime(arch: Arch, params: &str) -> SdkRuntime {
    let layout =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/csl/programs/sdk_gemv/layout.csl");
    let program = CompiledProgram::compile_files(
        &layout,
        CompileOptions {
            arch,
            params: parse_params(params).unwrap(),
            memcpy: true,
            ..CompileOptions::default()
        },
    )
    .unwrap();
    SdkRuntime::from_program(program)
}

fn bits(v: &[f32]) -> Vec<u32> {
    v.iter().map(|f| f.to_bits()).collect()
}

/// `y = A x + b` in f32, each product and sum rounded, in the program's order.
fn reference(m: usize, n: usize, a: &[f32], x: &[f32], b: &[f32]) -> Vec<f32> {
    (0..m)
        .map(|i| {
            let mut acc = b[i];
            for j in 0..n {
                acc += a[i * n + j] * x[j];
            }
            acc
        })
        .collect()
}

fn rect(x: u32, y: u32, w: u32, h: u32, elements: u32) -> MemcpyRect {
    MemcpyRect {
        x,
        y,
        w,
        h,
        elements,
    }
}

#[test]
fn gemv_on_one_pe_host_copies_in_launches_and_copies_out() {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let (m, n) = (4usize, 6usize);
        let a: Vec<f32> = (0..m * n).map(|k| k as f32 * 0.5 - 3.0).collect();
        let x: Vec<f32> = (0..n).map(|k| 1.0 + k as f32 / 8.0).collect();
        let b = vec![2.0f32; m];
        let mut rt = gemv_runtime(arch, "width:1,height:1,M:4,N:6");
        let y_id = rt.get_id("y").unwrap();
        rt.load().unwrap();
        rt.run().unwrap();
        rt.memcpy_h2d("A", &bits(&a), rect(0, 0, 1, 1, 24), false, ROW, B32, false)
            .unwrap();
        rt.memcpy_h2d("x", &bits(&x), rect(0, 0, 1, 1, 6), false, ROW, B32, false)
            .unwrap();
        rt.memcpy_h2d("b", &bits(&b), rect(0, 0, 1, 1, 4), false, ROW, B32, true)
            .unwrap();
        rt.launch("compute", false).unwrap();
        let mut y = vec![0u32; m];
        rt.memcpy_d2h(&mut y, &y_id, rect(0, 0, 1, 1, 4), false, ROW, B32, false)
            .unwrap();
        let report = rt.stop().unwrap().unwrap();
        assert!(report.cycles > 0);
        let want = reference(m, n, &a, &x, &b);
        assert_eq!(y, bits(&want), "{arch:?}");
    }
}

#[test]
fn gemv_on_a_2x2_grid_each_pe_its_own_block_in_both_orders() {
    for arch in [Arch::Wse2, Arch::Wse3] {
        let (w, h, m, n) = (2usize, 2usize, 3usize, 4usize);
        let mut rt = gemv_runtime(arch, "width:2,height:2,M:3,N:4");
        rt.load().unwrap();
        rt.run().unwrap();
        // PE (i, j)'s block: A_ij[r][c] = (i + 2j) + r - c / 2, x_ij = 1 + c + i, b = j
        let block = |i: usize, j: usize| -> Vec<f32> {
            (0..m * n)
                .map(|k| (i + 2 * j) as f32 + (k / n) as f32 - (k % n) as f32 / 2.0)
                .collect()
        };
        let xs = |i: usize| -> Vec<f32> { (0..n).map(|c| 1.0 + (c + i) as f32).collect() };
        // A row-major over (h, w, M*N): PE (i, j)'s block at ((j * w) + i) * M*N
        let mut a = Vec::new();
        let mut x = Vec::new();
        for j in 0..h {
            for i in 0..w {
                a.extend(block(i, j));
                x.extend(xs(i));
            }
        }
        // b column-major over (h, w, M): element k of PE (i, j) at j + h * (i + w * k)
        let mut b = vec![0f32; w * h * m];
        for k in 0..m {
            for i in 0..w {
                for j in 0..h {
                    b[j + h * (i + w * k)] = j as f32 * 10.0 + k as f32;
                }
            }
        }
        rt.memcpy_h2d("A", &bits(&a), rect(0, 0, 2, 2, 12), false, ROW, B32, false)
            .unwrap();
        rt.memcpy_h2d("x", &bits(&x), rect(0, 0, 2, 2, 4), false, ROW, B32, false)
            .unwrap();
        rt.memcpy_h2d(
            "b",
            &bits(&b),
            rect(0, 0, 2, 2, 3),
            false,
            MemcpyOrder::ColMajor,
            B32,
            false,
        )
        .unwrap();
        rt.launch("compute", false).unwrap();
        let mut y = vec![0u32; w * h * m];
        rt.memcpy_d2h(&mut y, "y", rect(0, 0, 2, 2, 3), false, ROW, B32, false)
            .unwrap();
        let mut want = Vec::new();
        for j in 0..h {
            for i in 0..w {
                let bij: Vec<f32> = (0..m).map(|k| j as f32 * 10.0 + k as f32).collect();
                want.extend(reference(m, n, &block(i, j), &xs(i), &bij));
            }
        }
        assert_eq!(y, bits(&want), "{arch:?}");
        // <layout>: each PE wrote its own coordinates; 16-bit copy out, zero-extended
        let mut where_ = vec![0xdead_beef_u32; 8];
        rt.memcpy_d2h(
            &mut where_,
            "where",
            rect(0, 0, 2, 2, 2),
            false,
            ROW,
            MemcpyDataType::Bits16,
            false,
        )
        .unwrap();
        assert_eq!(where_, vec![0, 0, 1, 0, 0, 1, 1, 1], "{arch:?}");
        // a one-PE sub-rectangle
        let mut y11 = vec![0u32; m];
        rt.memcpy_d2h(&mut y11, "y", rect(1, 1, 1, 1, 3), false, ROW, B32, false)
            .unwrap();
        assert_eq!(y11, y[9..12].to_vec());
    }
}

#[test]
fn bad_host_calls_are_errors_naming_the_problem() {
    let mut rt = gemv_runtime(Arch::Wse3, "width:2,height:1,M:2,N:2");
    let err = |r: Result<(), SdkError>| r.unwrap_err().to_string();
    assert_eq!(
        err(rt.memcpy_h2d("x", &[0; 2], rect(0, 0, 1, 1, 2), false, ROW, B32, false)),
        "memcpy_h2d() before load(): load the program first"
    );
    assert_eq!(
        rt.get_id("z").unwrap_err().to_string(),
        "no PE of the program exports a symbol `z` (@export_symbol)"
    );
    rt.load().unwrap();
    assert_eq!(
        err(rt.memcpy_h2d("x", &[0; 4], rect(0, 0, 2, 1, 2), true, ROW, B32, false)),
        "memcpy streaming mode is not supported yet (copy mode only: streaming=False)"
    );
    assert_eq!(
        err(rt.memcpy_h2d("x", &[0; 6], rect(1, 0, 2, 1, 2), false, ROW, B32, false)),
        "the copy rectangle at (1, 0) of 2x1 PEs does not fit the program's 2x1 rectangle"
    );
    assert_eq!(
        err(rt.memcpy_h2d("x", &[0; 3], rect(0, 0, 2, 1, 2), false, ROW, B32, false)),
        "the host array has 3 elements; the copy of 2x1 PEs x 2 elements needs 4"
    );
    assert_eq!(
        err(rt.memcpy_h2d("x", &[0; 6], rect(0, 0, 2, 1, 3), false, ROW, B32, false)),
        "symbol `x` on PE (0, 0) has 2 elements from where it points; the copy needs 3"
    );
    assert_eq!(
        err(rt.memcpy_h2d(
            "x",
            &[0; 4],
            rect(0, 0, 2, 1, 2),
            false,
            ROW,
            MemcpyDataType::Bits16,
            false
        )),
        "symbol `x` on PE (0, 0) holds f32, which a 16-bit memcpy does not copy"
    );
    assert_eq!(
        err(rt.memcpy_h2d("y", &[0; 4], rect(0, 0, 2, 1, 2), false, ROW, B32, false)),
        "symbol `y` is exported read-only (@export_name(..., false)): the host may not write it"
    );
    let mut out = [0u32; 2];
    assert_eq!(
        rt.memcpy_d2h(
            &mut out,
            "compute",
            rect(0, 0, 1, 1, 2),
            false,
            ROW,
            B32,
            false
        )
        .unwrap_err()
        .to_string(),
        "`compute` is not data in PE memory: memcpy copies to and from exported arrays"
    );
    assert_eq!(
        err(rt.launch("x", false)),
        "`x` is data, not a function: launch() starts an exported function"
    );
    rt.stop().unwrap();
    assert_eq!(
        err(rt.launch("compute", false)),
        "launch() after stop(): the runtime is stopped"
    );
}

#[test]
fn a_launched_function_that_never_unblocks_the_command_stream_is_an_error() {
    let mut sources = BTreeMap::new();
    sources.insert(
        "layout.csl".to_string(),
        "const memcpy = @import_module(\"<memcpy/get_params>\", .{ .width = 2, .height = 1 });\nlayout {\n  @set_rectangle(2, 1);\n  @set_tile_code(0, 0, \"pe.csl\", .{ .memcpy_params = memcpy.get_params(0), .unblock = true });\n  @set_tile_code(1, 0, \"pe.csl\", .{ .memcpy_params = memcpy.get_params(1), .unblock = false });\n  @export_name(\"f\", fn()void);\n}\n".to_string(),
    );
    sources.insert(
        "pe.csl".to_string(),
        "param memcpy_params: comptime_struct;\nparam unblock: bool;\nconst sys_mod = @import_module(\"<memcpy/memcpy>\", memcpy_params);\nvar n: [1]u32;\nfn f() void {\n  n[0] += 1;\n  if (unblock) {\n    sys_mod.unblock_cmd_stream();\n  }\n}\ncomptime {\n  @export_symbol(f);\n}\n".to_string(),
    );
    let program = CompiledProgram::compile(
        "layout.csl",
        sources,
        CompileOptions {
            arch: Arch::Wse2,
            memcpy: true,
            ..CompileOptions::default()
        },
    )
    .unwrap();
    let mut rt = SdkRuntime::from_program(program);
    rt.load().unwrap();
    rt.run().unwrap();
    assert_eq!(
        rt.launch("f", false).unwrap_err().to_string(),
        "`f` ran to its end on PE (1, 0) without calling unblock_cmd_stream(): the host's next command would wait forever"
    );
}

#[test]
fn a_copy_over_a_pe_that_does_not_export_the_symbol_names_the_pe() {
    let mut sources = BTreeMap::new();
    sources.insert(
        "layout.csl".to_string(),
        "layout {\n  @set_rectangle(2, 1);\n  @set_tile_code(0, 0, \"a.csl\", .{});\n  @set_tile_code(1, 0, \"b.csl\", .{});\n}\n".to_string(),
    );
    sources.insert(
        "a.csl".to_string(),
        "var v: [2]f32;\ncomptime {\n  @export_symbol(v);\n}\n".to_string(),
    );
    sources.insert("b.csl".to_string(), "var w: [2]f32;\n".to_string());
    let program =
        CompiledProgram::compile("layout.csl", sources, CompileOptions::default()).unwrap();
    let mut rt = SdkRuntime::from_program(program);
    rt.load().unwrap();
    rt.memcpy_h2d("v", &[1, 2], rect(0, 0, 1, 1, 2), false, ROW, B32, false)
        .unwrap();
    assert_eq!(
        rt.memcpy_h2d("v", &[0; 4], rect(0, 0, 2, 1, 2), false, ROW, B32, false)
            .unwrap_err()
            .to_string(),
        "PE (1, 0) does not export a symbol `v` (@export_symbol)"
    );
    // nothing was written: a copy is whole or not at all, out as in
    let mut back = [7u32; 4];
    assert!(
        rt.memcpy_d2h(&mut back, "v", rect(0, 0, 2, 1, 2), false, ROW, B32, false)
            .is_err()
    );
    assert_eq!(back, [7; 4]);
    let mut back = [0u32; 2];
    rt.memcpy_d2h(&mut back, "v", rect(0, 0, 1, 1, 2), false, ROW, B32, false)
        .unwrap();
    assert_eq!(back, [1, 2]);
}

#[test]
fn a_run_time_fault_of_a_launched_function_is_its_diagnostic() {
    let mut sources = BTreeMap::new();
    sources.insert(
        "layout.csl".to_string(),
        "layout {\n  @set_rectangle(1, 1);\n  @set_tile_code(0, 0, \"pe.csl\", .{});\n}\n"
            .to_string(),
    );
    sources.insert(
        "pe.csl".to_string(),
        "var v: [2]i16;\nfn f() void {\n  v[0] = 32767;\n  v[1] = v[0] + 1;\n}\ncomptime {\n  @export_symbol(f);\n}\n".to_string(),
    );
    let program =
        CompiledProgram::compile("layout.csl", sources, CompileOptions::default()).unwrap();
    let mut rt = SdkRuntime::from_program(program);
    rt.load().unwrap();
    let e = rt.launch("f", false).unwrap_err().to_string();
    assert!(
        e.starts_with("pe.csl:4:10: error: integer overflow: 32767 + 1 does not fit in i16"),
        "{e}"
    );
}

/// One request on the bridge: the line, then the payload; gives the reply line and bytes.
#[cfg(unix)]
fn ask(
    stream: &mut std::os::unix::net::UnixStream,
    line: &str,
    payload: &[u8],
) -> (String, Vec<u8>) {
    use std::io::{BufRead, BufReader, Read, Write};
    stream.write_all(format!("{line}\n").as_bytes()).unwrap();
    stream.write_all(payload).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut reply = String::new();
    reader.read_line(&mut reply).unwrap();
    let reply = reply.trim_end().to_string();
    let mut bytes = Vec::new();
    if let Some(n) = reply
        .strip_prefix("ok ")
        .and_then(|n| n.parse::<usize>().ok())
        && line.starts_with("d2h")
    {
        bytes = vec![0u8; n];
        reader.read_exact(&mut bytes).unwrap();
    }
    (reply, bytes)
}

#[cfg(unix)]
#[test]
fn the_bridge_serves_a_host_script_s_calls_over_a_socket() {
    use npusim_csl::compiled::out_dir;
    use npusim_csl::sdk::bridge::Bridge;

    let dir = std::env::temp_dir().join(format!("npusim-csl-bridge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let program = CompiledProgram::compile_files(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/csl/programs/sdk_gemv/layout.csl"),
        CompileOptions {
            arch: Arch::Wse3,
            params: parse_params("width:1,height:1,M:2,N:3").unwrap(),
            memcpy: true,
            ..CompileOptions::default()
        },
    )
    .unwrap();
    out_dir::write(&program, &dir).unwrap();
    let (mut client, server) = std::os::unix::net::UnixStream::pair().unwrap();
    let service = std::thread::spawn(move || {
        let mut bridge = Bridge::new(true);
        bridge.serve(server).unwrap();
        bridge.summaries()
    });
    let hex: String = dir
        .to_str()
        .unwrap()
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect();
    let words =
        |v: &[f32]| -> Vec<u8> { v.iter().flat_map(|f| f.to_bits().to_le_bytes()).collect() };
    assert_eq!(ask(&mut client, &format!("open {hex}"), &[]).0, "ok 0");
    assert_eq!(ask(&mut client, "get_id 0 y", &[]).0, "ok y");
    assert_eq!(ask(&mut client, "load 0", &[]).0, "ok");
    assert_eq!(ask(&mut client, "run 0", &[]).0, "ok");
    let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let x = [1.0f32, 0.5, 0.25];
    let b = [10.0f32, 20.0];
    assert_eq!(
        ask(&mut client, "h2d 0 A 0 0 1 1 6 0 row 32 0 6", &words(&a)).0,
        "ok"
    );
    assert_eq!(
        ask(&mut client, "h2d 0 x 0 0 1 1 3 0 row 32 1 3", &words(&x)).0,
        "ok"
    );
    assert_eq!(
        ask(&mut client, "h2d 0 b 0 0 1 1 2 0 col 32 0 2", &words(&b)).0,
        "ok"
    );
    assert_eq!(ask(&mut client, "launch 0 compute 0", &[]).0, "ok");
    let (reply, bytes) = ask(&mut client, "d2h 0 y 0 0 1 1 2 0 row 32 0 2", &[]);
    assert_eq!(reply, "ok 8");
    let y: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_bits(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
        .collect();
    assert_eq!(y, reference(2, 3, &a, &x, &b));
    assert_eq!(
        ask(&mut client, "d2h 0 y 0 0 1 1 2 1 row 32 0 2", &[]).0,
        "err memcpy streaming mode is not supported yet (copy mode only: streaming=False)"
    );
    assert_eq!(
        ask(&mut client, "frobnicate", &[]).0,
        "err unknown request `frobnicate`"
    );
    assert_eq!(ask(&mut client, "stop 0", &[]).0, "ok");
    drop(client);
    let runs = service.join().unwrap();
    assert_eq!(runs.len(), 1);
    assert!(runs[0].report.as_ref().unwrap().cycles > 0);
    assert!(
        runs[0]
            .trace
            .as_ref()
            .unwrap()
            .starts_with("{\"traceEvents\":[")
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn npusim_s_options_are_taken_out_of_the_script_s_arguments() {
    use npusim_csl::sdk::cs_python::split_options;
    use std::ffi::OsString;
    let args: Vec<OsString> = ["--name", "out", "--trace", "t.json", "--stats", "--x=1"]
        .iter()
        .map(OsString::from)
        .collect();
    let o = split_options(&args).unwrap();
    assert_eq!(o.trace, Some(PathBuf::from("t.json")));
    assert!(o.stats);
    assert_eq!(
        o.rest,
        vec![OsString::from("--name"), "out".into(), "--x=1".into()]
    );
    let o = split_options(&[OsString::from("--trace=a.json")]).unwrap();
    assert_eq!(o.trace, Some(PathBuf::from("a.json")));
    assert!(!o.stats);
    assert_eq!(
        split_options(&[OsString::from("--trace")]).unwrap_err(),
        "--trace needs a file name"
    );
}
