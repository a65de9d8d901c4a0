//! End-to-end tests of `npusim furiosa map`, `npusim furiosa run` and the tour's Furiosa section.

use crate::support::{npusim, npy_parts, repo};
use assert_cmd::Command;
use predicates::prelude::*;
use serde_json::{Value, json};

fn map_json(expr: &str, axes: &str) -> Value {
    let out = npusim()
        .args(["furiosa", "map", expr, "--axes", axes, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text.trim().lines().count(), 1, "one JSON object: {text}");
    serde_json::from_str(&text).unwrap()
}

#[test]
fn json_matches_the_worked_examples() {
    let v = map_json("C, D # 64", "C=13,D=61");
    assert_eq!(v["size"], 832);
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells.len(), 832);
    assert_eq!(cells[0], json!({}));
    assert_eq!(cells[60], json!({"D": 60}));
    assert_eq!(cells[61], json!("top"));
    assert_eq!(cells[64], json!({"C": 1}));
    assert_eq!(cells[831], json!("top"));

    let v = map_json("A #{0} 4, B #{!} 4", "A=3,B=3");
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells[2], json!({"B": 2}));
    assert_eq!(cells[3], json!("bottom"));
    assert_eq!(cells[4], json!({"A": 1}));
    assert_eq!(cells[12], json!("zero"));
    assert_eq!(cells[15], json!("zero"));

    let v = map_json("A % 5, A / 5", "A=15");
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(
        (cells[1].clone(), cells[3].clone()),
        (json!({"A": 5}), json!({"A": 1}))
    );

    // Overshoot of a padded split counts as top (spec 1.6).
    let v = map_json("B # 64 / 32, B # 64 % 32", "B=56");
    let cells = v["cells"].as_array().unwrap();
    assert_eq!(cells[55], json!({"B": 55}));
    assert_eq!(cells[56], json!("top"));
}

#[test]
fn json_display_parses_back_to_the_same_cells() {
    for (expr, axes) in [
        ("B/64, B%32, B/32%2", "B=512"),
        ("A, B = 2 # 512", "A=8,B=512"),
        ("[A, B] / 512", "A=8,B=512"),
        ("4, A", "A=3"),
    ] {
        let v = map_json(expr, axes);
        let back = map_json(v["display"].as_str().unwrap(), axes);
        assert_eq!(v, back, "{expr}");
    }
}

#[test]
fn text_lists_normal_form_size_and_cells() {
    npusim()
        .args(["furiosa", "map", "B / 64, B % 64", "--axes", "B=512"])
        .assert()
        .success()
        .stdout(predicate::str::contains("normalised: B\n"))
        .stdout(predicate::str::contains("size:       512\n"))
        .stdout(predicate::str::contains("130: {B: 130}\n"));
}

#[test]
fn invalid_mappings_fail_with_the_column() {
    for (expr, axes, needle) in [
        ("A, Q", "A=8", "column 4: unknown axis `Q`"),
        (
            "A / 3",
            "A=8",
            "column 3: `A / 3`: stride 3 does not divide",
        ),
        (
            "A % 3",
            "A=8",
            "column 3: `A % 3`: modulo 3 does not divide",
        ),
        ("A = 9", "A=8", "column 3: `A = 9`: resize 9 is larger"),
        ("A # 4", "A=8", "column 3: `A # 4`: padding 4 is smaller"),
        ("A,,B", "A=8,B=2", "column 3: syntax error"),
    ] {
        npusim()
            .args(["furiosa", "map", expr, "--axes", axes, "--json"])
            .assert()
            .failure()
            .stdout(predicate::str::is_empty())
            .stderr(predicate::str::contains(needle));
    }
}

/// `npusim furiosa run` on a shipped pipeline file.
fn furiosa_run_pipeline(name: &str) -> Command {
    let mut cmd = npusim();
    cmd.args(["furiosa", "run"])
        .arg(repo("crates/furiosa/examples/pipelines").join(name));
    cmd
}

fn write_npy_i32(path: &std::path::Path, values: &[i32]) {
    let mut header = format!(
        "{{'descr': '<i4', 'fortran_order': False, 'shape': ({},), }}",
        values.len()
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for v in values {
        out.extend_from_slice(&v.to_le_bytes());
    }
    std::fs::write(path, out).unwrap();
}

#[test]
fn run_inter_slice_reduce_then_add_on_a_ramp() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("y.npy");
    furiosa_run_pipeline("inter_slice_reduce_then_add.toml")
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "VectorFinalTensor<i32, m![1], m![1 # 2], m![A / 8, 1 # 4], m![1], m![A % 8]>",
        ))
        .stdout(predicate::str::contains("ring tail 3"))
        .stdout(predicate::str::contains("total: ~5 cycles"));
    let (descr, shape, data) = npy_parts(&out);
    assert_eq!(descr, "<i4");
    assert_eq!(shape, "1,2,256,1,8");
    let got: Vec<i32> = data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    for a in 0..512usize {
        // Ramp input: element at ((a / 8) * 4 + r) * 8 + a % 8 holds that position.
        let sum: i32 = (0..4).map(|r| (((a / 8) * 4 + r) * 8 + a % 8) as i32).sum();
        assert_eq!(got[(a / 8) * 32 + a % 8], sum + 100, "A = {a}");
        assert_eq!(
            got[(a / 8) * 32 + 8 + a % 8],
            100,
            "dummy slot: identity + 100"
        );
    }
}

#[test]
fn run_cast_engine_cast_with_an_input_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("x.npy");
    let out = dir.path().join("y.npy");
    let values: Vec<i32> = (0..32).map(|i| i * 50 - 700).collect();
    write_npy_i32(&input, &values);
    furiosa_run_pipeline("cast_engine_cast_i32_to_i8.toml")
        .arg("--input")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("cast 4"));
    let (descr, shape, data) = npy_parts(&out);
    assert_eq!(descr, "|i1");
    assert_eq!(shape, "1,1,1,4,32");
    for b in 0..4 {
        for p in 0..32 {
            let want = if p < 8 { values[b * 8 + p] as i8 } else { 0 };
            assert_eq!(data[b * 32 + p] as i8, want);
        }
    }
}

#[test]
fn run_refuses_bad_pipelines() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("bad.toml");
    std::fs::write(
        &p,
        "axes = \"A=8\"\ndtype = \"i32\"\nchip = \"1\"\ncluster = \"1\"\nslice = \"1\"\ntime = \"1\"\npacket = \"A / 3\"\n",
    )
    .unwrap();
    npusim()
        .args(["furiosa", "run"])
        .arg(&p)
        .assert()
        .failure()
        .stderr(predicate::str::contains("packet: column 3"));
    std::fs::write(
        &p,
        "axes = \"A=4\"\ndtype = \"i32\"\nchip = \"1\"\ncluster = \"1\"\nslice = \"1\"\ntime = \"1\"\npacket = \"A\"\n[[stage]]\nop = \"cast\"\ndtype = \"i8\"\nout_packet = \"A # 32\"\n",
    )
    .unwrap();
    npusim()
        .args(["furiosa", "run"])
        .arg(&p)
        .assert()
        .failure()
        .stderr(predicate::str::contains("not one 32-byte flit"));
}

/// A cell as the spec writes it (`{A: 1, B: 7}`, `top`) in the JSON of `furiosa map`.
fn cell_as_json(text: &str) -> Value {
    match text.strip_prefix('{').and_then(|t| t.strip_suffix('}')) {
        Some(inner) => {
            let mut obj = serde_json::Map::new();
            for part in inner.split(", ").filter(|p| !p.is_empty()) {
                let (axis, c) = part.split_once(": ").unwrap();
                obj.insert(axis.to_string(), json!(c.parse::<u64>().unwrap()));
            }
            Value::Object(obj)
        }
        None => json!(text),
    }
}

/// `npusim furiosa map --json` gives every worked example of spec §1.9 exactly: the size, the
/// listed cells (a position past the end is simply not listed) and a display that parses back
/// to the same cells.
#[test]
fn map_matches_every_worked_example_of_1_9() {
    use npusim_examples::furiosa::worked_mappings::WORKED_MAPPINGS;
    for w in WORKED_MAPPINGS {
        let v = map_json(w.expr, w.axes);
        assert_eq!(v["size"], json!(w.size), "{}", w.expr);
        let cells = v["cells"].as_array().unwrap();
        assert_eq!(cells.len(), w.size, "{}", w.expr);
        for &(p, want) in w.cells {
            if want == "out of bounds" {
                assert!(p >= w.size, "{} at {p}", w.expr);
            } else {
                assert_eq!(cells[p], cell_as_json(want), "{} at {p}", w.expr);
            }
        }
        let back = map_json(v["display"].as_str().unwrap(), w.axes);
        assert_eq!(
            back["cells"], v["cells"],
            "{} printed as {}",
            w.expr, v["display"]
        );
    }
}

/// The tour's Furiosa section runs every example of the "Cast Engine" and "Inter-Slice Block"
/// pages and every worked mapping, and all pass; the summary stays short.
#[test]
fn tour_furiosa_section_passes() {
    let out = npusim().args(["tour", "--verbose"]).assert().success();
    let out = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let section = out
        .split("== Furiosa RNGD")
        .nth(1)
        .expect("a Furiosa section");
    for name in [
        "cast_i32_to_i8",
        "cast_padded",
        "inter_slice_add",
        "broadcast_into_x",
        "axis_promotion",
        "reduce_then_add",
        "add_then_reduce",
    ] {
        assert!(
            section.lines().any(|l| (l.starts_with("PASS Cast Engine")
                || l.starts_with("PASS Inter-Slice Block"))
                && l.contains(name)
                && l.contains("gives the same codes")),
            "{name}: {section}"
        );
    }
    let maps = section
        .lines()
        .filter(|l| l.starts_with("PASS map"))
        .count();
    assert_eq!(
        maps,
        npusim_examples::furiosa::worked_mappings::WORKED_MAPPINGS.len()
    );
    assert!(!section.lines().any(|l| l.starts_with("FAIL")), "{section}");
    assert!(section.contains("7 cases: 7 PASS, 0 FAIL"), "{section}");
    assert!(section.contains("model: furiosa-rngd-v1"), "{section}");
    let short = npusim().arg("tour").assert().success();
    let short = String::from_utf8(short.get_output().stdout.clone()).unwrap();
    let section = short.split("== Furiosa RNGD").nth(1).unwrap();
    assert!(section.lines().count() < 10, "{section}");
}

/// The intra-slice reducer through a pipeline: narrow, fold R out of Time per lane, widen.
#[test]
fn run_intra_slice_reduce_on_a_ramp() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("y.npy");
    furiosa_run_pipeline("intra_slice_reduce.toml")
        .arg("-o")
        .arg(&out)
        .assert()
        .success()
        .stdout(predicate::str::contains("[IntraSliceReduce, Way4]"))
        .stdout(predicate::str::contains("stream 8"));
    let (_, shape, data) = npy_parts(&out);
    assert_eq!(shape, "1,1,1,1,8");
    let got: Vec<i32> = data
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    // Ramp input: lane k at time step r holds r * 8 + k.
    let want: Vec<i32> = (0..8).map(|k| (0..4).map(|r| r * 8 + k).sum()).collect();
    assert_eq!(got, want);
}

/// Issue 29, item 8: "`furiosa run` prints types and a cycle count but no values and no
/// verdict: show the output values ... and, for the shipped pipelines, PASS/FAIL against their
/// expected values, as `cerebras run` does."
#[test]
fn run_prints_the_values_and_checks_a_shipped_worked_example() {
    // Seed 000's single-flit packet on the default ramp: lanes 0..8 of each flit hold the
    // ramp, the 24 padding lanes 0.
    let out = furiosa_run_pipeline("cast_engine_cast_i32_to_i8.toml")
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let zeros = vec!["0"; 24].join(", ");
    assert!(
        text.contains(&format!(
            "values: i8[0, 1, 2, 3, 4, 5, 6, 7, {zeros}, ... 96 more]"
        )),
        "{text}"
    );
    assert!(
        text.contains("\"Single-flit packet\" (Furiosa documentation, \"Cast Engine\")"),
        "{text}"
    );
    assert!(text.contains("all 128 expected output codes"), "{text}");
    assert!(text.trim_end().ends_with("result: PASS"), "{text}");
    // Every shipped worked example passes; a pipeline of one's own has no expected values.
    for name in [
        "cast_engine_cast_padded.toml",
        "inter_slice_dummy.toml",
        "inter_slice_broadcast.toml",
        "inter_slice_promotion.toml",
        "inter_slice_reduce_then_add.toml",
        "inter_slice_add_then_reduce.toml",
    ] {
        furiosa_run_pipeline(name)
            .assert()
            .success()
            .stdout(predicate::str::contains("result: PASS"));
    }
    furiosa_run_pipeline("intra_slice_reduce.toml")
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "values: i32[48, 52, 56, 60, 64, 68, 72, 76]",
        ))
        .stdout(
            predicate::str::contains("check: none").and(predicate::str::contains("result:").not()),
        );
}

/// `furiosa sequence` prints the sequencer of docs/furiosa-engines.md's example S5 (the book's
/// "9 entries merged to 6") and refuses K3e's commit, whose last packet runs past the tensor.
#[test]
fn sequence_prints_the_merged_loops_and_refuses_a_write_past_the_tensor() {
    npusim()
        .args([
            "furiosa",
            "sequence",
            "--axes",
            "N=8,C=8,H=8,W=32",
            "--element",
            "N, C, H, W",
            "--time",
            "W / 16, H % 2, H / 2, C / 2, C % 2, N / 2, N % 2, W / 8 % 2",
            "--packet",
            "W % 8",
            "--dtype",
            "i8",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "read (9 raw entries merged to 6) of i8: [2:16, 2:32, 4:64, 8:256, 8:2048, 16:1] : 8\ncontiguous run 16 elements; access 8 elements",
        ));
    npusim()
        .args([
            "furiosa",
            "sequence",
            "--axes",
            "A=65,B=2",
            "--element",
            "B, A # 88",
            "--time",
            "B, A # 96 / 32",
            "--packet",
            "A # 96 % 32",
            "--dtype",
            "f8e4m3",
            "--write",
        ])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "reach element 183 of a destination of 176 elements",
        ));
}

/// The "done when" kernel from the command line (docs/furiosa-engines.md §9.4 K6,
/// §10.4): `x.npy` in DM, fetch, collect, inter-slice reduce, cast, commit, `y.npy` out;
/// y[t, a] = wrap_i8(4a + 4000t − 600) for x[r, t, a] = a + 1000t − 100r; total 19 cycles;
/// the trace has one complete event per engine.
#[test]
fn run_a_kernel_from_npy_to_npy_with_its_schedule_and_trace() {
    let dir = tempfile::tempdir().unwrap();
    let (x, y, t) = (
        dir.path().join("x.npy"),
        dir.path().join("y.npy"),
        dir.path().join("t.json"),
    );
    let mut data = Vec::new();
    for r in 0..4i32 {
        for tt in 0..16i32 {
            for a in 0..512i32 {
                data.extend_from_slice(&(a + 1000 * tt - 100 * r).to_le_bytes());
            }
        }
    }
    crate::support::write_npy(&x, "<i4", &[4, 16, 512], &data);
    let out = furiosa_run_pipeline("kernel_inter_slice_reduce_cast.toml")
        .arg("--input")
        .arg(format!("x={}", x.display()))
        .arg("-o")
        .arg(format!("y={}", y.display()))
        .args(["--schedule", "--trace"])
        .arg(&t)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    for line in [
        "output `y` (T, A): i8[-88, -84, -80,",
        "total: 19 cycles per slice over 1 invocation(s)",
        "vector   |      16 |           1 |      16 |     3 |       0 |      19 |       0",
        "cast     |      16 |           1 |      16 |     0 |       3 |      19 |       0",
        "result: PASS",
    ] {
        assert!(stdout.contains(line), "{line}\n{stdout}");
    }
    let (descr, shape, bytes) = npy_parts(&y);
    assert_eq!((descr.as_str(), shape.as_str()), ("|i1", "16,512"));
    for tt in 0..16i64 {
        for a in 0..512i64 {
            let want = (4 * a + 4000 * tt - 600) as i8;
            assert_eq!(bytes[(tt * 512 + a) as usize] as i8, want, "y[{tt}, {a}]");
        }
    }
    let trace: Value = serde_json::from_slice(&std::fs::read(&t).unwrap()).unwrap();
    let events: Vec<(String, u64, u64)> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| {
            (
                e["name"].as_str().unwrap().to_string(),
                e["ts"].as_u64().unwrap(),
                e["dur"].as_u64().unwrap(),
            )
        })
        .collect();
    let want: Vec<(String, u64, u64)> = [
        ("fetch", 0, 16),
        ("collect", 0, 16),
        ("vector", 0, 19),
        ("cast", 3, 16),
        ("commit", 3, 16),
    ]
    .iter()
    .map(|(n, ts, d)| (n.to_string(), *ts, *d))
    .collect();
    assert_eq!(events, want);
    assert_eq!(trace["otherData"]["makespan"], 19);
}

#[test]
fn run_refuses_a_kernels_unknown_tensor_and_stdout_output() {
    furiosa_run_pipeline("kernel_inter_slice_reduce_cast.toml")
        .args(["--input", "w=x.npy"])
        .assert()
        .failure()
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains(
            "no DM tensor is named `w` (tensors: x)",
        ));
    furiosa_run_pipeline("kernel_full_sum.toml")
        .args(["-o", "-"])
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "a kernel's outputs are written to .npy files",
        ));
}

/// The notation of issue item 9 (docs/furiosa-engines.md §11.3): axes and bracketed mappings
/// as operands, braced constants, lower-case names, `A = 0` (sizes worked by hand).
#[test]
fn map_takes_the_extended_notation() {
    for (expr, axes, mapping, size) in [
        ("A / B", "A=8,B=4", "A / 4", "2"),
        ("A # B", "A=3,B=8", "A # 8", "8"),
        ("A / (B / 2)", "A=8,B=4", "A / 2", "4"),
        ("A # {4 + 4}", "A=3", "A # 8", "8"),
        ("a, b % 2", "a=3,b=4", "(a, b % 2)", "6"),
        ("A = 0", "A=8", "A = 0", "0"),
    ] {
        npusim()
            .args(["furiosa", "map", expr, "--axes", axes])
            .assert()
            .success()
            .stdout(predicate::str::contains(format!("mapping:    {mapping}\n")))
            .stdout(predicate::str::contains(format!("size:       {size}\n")));
    }
    npusim()
        .args(["furiosa", "map", "A / {8 / 3}", "--axes", "A=8"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("8 / 3 is not exact"));
}
