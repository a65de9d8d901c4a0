//! End-to-end tests of `npusim cerebras access`: every lowering example of seed 004.

use crate::support::npusim;
use predicates::prelude::*;
use serde_json::Value;

fn json(expr: &str, array: &str, extra: &[&str]) -> Value {
    let out = npusim()
        .args(["cerebras", "access", expr, "--array", array, "--json"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        text.trim().lines().count(),
        1,
        "exactly one JSON object: {text}"
    );
    serde_json::from_str(&text).unwrap()
}

fn ints(v: &Value) -> Vec<i64> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_i64().unwrap())
        .collect()
}

fn check(v: &Value, kind: &str, offset: i64, extent: &[i64], stride: &[i64]) {
    assert_eq!(v["kind"], kind);
    assert_eq!(v["offset"].as_i64(), Some(offset));
    assert_eq!(ints(&v["extent"]), extent);
    assert_eq!(ints(&v["stride"]), stride);
}

#[test]
fn seed_mem1d_examples() {
    let v = json("|i|{10} -> array[i]", "array=10", &[]);
    check(&v, "mem1d", 0, &[10], &[1]);
    assert_eq!(ints(&v["addresses"]), (0..10).collect::<Vec<_>>());
    let v = json("|i|{5} -> array[2 * i + 1]", "array=10", &[]);
    check(&v, "mem1d", 1, &[5], &[2]);
    assert_eq!(ints(&v["addresses"]), [1, 3, 5, 7, 9]);
    let v = json("|i|{10} -> array[0]", "array=10", &[]);
    check(&v, "mem1d", 0, &[10], &[0]);
    assert_eq!(ints(&v["addresses"]), [0; 10]);
    let v = json("|i|{20} -> array[i,i]", "array=20,20", &[]);
    check(&v, "mem1d", 0, &[20], &[21]);
    assert_eq!(ints(&v["addresses"]).iter().sum::<i64>(), 3990);
    let v = json("|i|{10} -> A[2*i + 42]", "A=10", &[]);
    check(&v, "mem1d", 42, &[10], &[2]);
}

#[test]
fn seed_mem4d_examples() {
    let v = json("|i,j|{2,2} -> array[i, j]", "array=4,3", &[]);
    check(&v, "mem4d", 0, &[2, 2], &[1, 2]);
    assert_eq!(ints(&v["addresses"]), [0, 1, 3, 4]);
    let v = json(
        "|i,j,k,l|{1,2,1,4} -> array[i, j, 1+k, l]",
        "array=1,2,3,4",
        &[],
    );
    check(&v, "mem4d", 4, &[1, 2, 1, 4], &[1, 1, 9, 9]);
    assert_eq!(ints(&v["addresses"]), [4, 5, 6, 7, 16, 17, 18, 19]);
    let v = json(
        "|i,j,k,l|{1,1,1,1} -> array[i + j + k + l]",
        "array=10",
        &[],
    );
    assert_eq!(ints(&v["addresses"]), [0]);
    let v = json("|i,j|{5,5} -> A[2*i + j]", "A=20", &[]);
    check(&v, "mem4d", 0, &[5, 5], &[1, -2]);
    assert_eq!(ints(&v["addresses"]).iter().sum::<i64>(), 150);
    let v = json(
        "|i, j, k, l|{5, 5, 5, 5} -> A[i + j, k + l + 2]",
        "A=4,5",
        &[],
    );
    check(&v, "mem4d", 2, &[5, 5, 5, 5], &[1, -3, -3, -23]);
    let a = ints(&v["addresses"]);
    assert_eq!((a.len(), a.iter().sum::<i64>()), (625, 16250));
}

#[test]
fn kind_can_be_forced() {
    let v = json("|i|{4} -> M[i, 0]", "M=4,200", &["--kind", "mem4d"]);
    check(&v, "mem4d", 0, &[4], &[200]);
}

#[test]
fn text_output_prints_the_dsd_in_csl_syntax() {
    npusim()
        .args(["cerebras", "access", "|i,j|{5,5} -> A[2*i + j]", "--array", "A=20"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "@get_dsd(mem4d_dsd, .{.base_address = &A, .offset = 0, .extent = .{5, 5}, .stride = .{1, -2}})",
        ))
        .stdout(predicate::str::contains("0 1 2 3 4 2 3 4 5 6"))
        .stdout(predicate::str::contains(
            ".{.base_address = &A, .offset = 0, .stride = .{1,-2}, .extent = .{5,5}}",
        ));
    npusim()
        .args([
            "cerebras",
            "access",
            "|i, j, k, l|{5, 5, 5, 5} -> A[i + j, k + l + 2]",
        ])
        .args(["--array", "A=4,5"])
        .assert()
        .success()
        .stdout(predicate::str::contains("fall outside A"));
}

fn fails(expr: &str, array: &str, extra: &[&str], needles: &[&str]) {
    let mut a = npusim()
        .args(["cerebras", "access", expr, "--array", array])
        .args(extra)
        .assert()
        .failure();
    for n in needles {
        a = a.stderr(predicate::str::contains(*n));
    }
}

#[test]
fn broken_limits_exit_non_zero_naming_property_and_numbers() {
    fails(
        "|a,b,c,d,e|{1,1,1,1,1} -> A[a]",
        "A=4",
        &[],
        &["induction variables 5", "[1, 4]"],
    );
    fails(
        "|i,j|{2} -> A[i]",
        "A=4",
        &[],
        &["1 lengths for 2 induction variables"],
    );
    fails(
        "|i|{2} -> A[i]",
        "A=4,5",
        &[],
        &["1 index expressions", "rank 2"],
    );
    fails(
        "|i|{4} -> M[i, 0]",
        "M=4,200",
        &[],
        &["mem1d_dsd stride 200", "[-128, 127]"],
    );
    fails(
        "|i,j|{2,2} -> A[i*40000, j]",
        "A=2,1",
        &[],
        &["mem4d_dsd stride", "[-32768, 32767]"],
    );
    fails(
        "|i,j|{2,2} -> A[i, j+40000]",
        "A=2,2",
        &[],
        &["offset 40000", "[-32768, 32767]"],
    );
    fails(
        "|i|{70000} -> A[i]",
        "A=4",
        &[],
        &["extent 70000", "[0, 65535]"],
    );
    fails("|i|{2} -> A[i", "A=4", &[], &["syntax error at column 14"]);
    fails("|i|{2} -> B[i]", "A=4", &[], &["accesses `B`", "`A`"]);
    fails(
        "|i,j|{2,2} -> A[i, j]",
        "A=2,2",
        &["--kind", "mem1d"],
        &["mem1d_dsd induction variables 2"],
    );
    fails(
        "|i|{10} -> A[2*i + 42]",
        "A=10",
        &["--strict"],
        &["strict bounds", "element 42", "[0, 10)"],
    );
    fails("|i|{2} -> A[i]", "A=0", &[], &["invalid shape"]);
    // a u16 array larger than the 48 KiB PE memory cannot exist (the library refuses it)
    fails(
        "|i|{2} -> A[i]",
        "A=30000",
        &[],
        &["A=30000", "needs 30000 words", "24576", "49152 bytes"],
    );
    fails(
        "|i|{2} -> A[i, 0]",
        "A=200,200",
        &[],
        &["needs 40000 words", "24576"],
    );
    // deep nesting is a clear error, not a stack overflow (SIGABRT before)
    let deep = format!("|i|{{1}} -> A[{}i{}]", "(".repeat(8_000), ")".repeat(8_000));
    fails(&deep, "A=4", &[], &["deeper than 64 levels", "column 77"]);
    let minus = format!("|i|{{1}} -> A[{}i]", "-".repeat(100_000));
    fails(&minus, "A=4", &[], &["deeper than 64 levels"]);
    fails("|i|{2} -> A[i]", "A", &[], &["NAME=D0,D1"]);
}

// ---- npusim cerebras run: the shipped programs -------------------------------------------

fn run_json(program: &str, arch: &str) -> Value {
    let out = npusim()
        .args(["cerebras", "run", program, "--arch", arch, "--json"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{program} {arch}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_str(&String::from_utf8(out.stdout).unwrap()).unwrap()
}

#[test]
fn run_list_names_every_shipped_program() {
    let out = npusim()
        .args(["cerebras", "run", "--list", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let list: Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    let want: Vec<&str> = npusim_examples::cerebras::programs::PROGRAMS
        .iter()
        .map(|p| p.name)
        .collect();
    assert_eq!(names, want);
    assert!(names.contains(&"gemv-06-routes-1") && names.contains(&"topic-09-fifos"));
    // the one-PE programs of part 1 are in the list too
    assert!(names.contains(&"gemv-02-memory-dsds") && names.contains(&"topic-10-map-builtin"));
    let text = npusim()
        .args(["cerebras", "run", "--list"])
        .output()
        .unwrap();
    let text = String::from_utf8(text.stdout).unwrap();
    assert_eq!(text.lines().count(), want.len());
}

#[test]
fn run_every_program_on_both_architectures_passes_with_its_statistics() {
    for p in npusim_examples::cerebras::programs::PROGRAMS {
        for arch in ["wse2", "wse3"] {
            let v = run_json(p.name, arch);
            assert_eq!(v["pass"], true, "{} {arch}: {v}", p.name);
            assert_eq!(v["arch"], arch);
            let outputs = v["outputs"].as_array().unwrap();
            assert!(!outputs.is_empty());
            for o in outputs {
                assert_eq!(o["got"], o["expected"], "{} {arch}", p.name);
                assert!(!o["got"].as_array().unwrap().is_empty());
            }
            let (w, h) = p.grid.split_once('x').unwrap();
            let pes = w.parse::<usize>().unwrap() * h.parse::<usize>().unwrap();
            let stats = v["pes"].as_array().unwrap();
            assert_eq!(stats.len(), pes, "{}", p.name);
            let busy: u64 = stats
                .iter()
                .map(|s| s["busy_cycles"].as_u64().unwrap())
                .sum();
            assert!(busy > 0);
            assert!(v["cycles"].as_u64().unwrap() > 0);
            assert_eq!(v["trace_hash"].as_str().unwrap().len(), 16);
        }
    }
}

#[test]
fn run_by_label_prints_outputs_cycles_and_per_pe_rows() {
    npusim()
        .args(["cerebras", "run", "e3"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "PASS y (PE (1, 0)) = f32[17.0, 53.0, 89.0, 125.0]",
        ))
        .stdout(predicate::str::contains("cycles "))
        .stdout(predicate::str::contains("(1, 0)"))
        .stdout(predicate::str::contains("result: PASS"));
}

#[test]
fn run_writes_a_chrome_trace_that_is_valid_json_and_a_lines_trace() {
    let dir = tempfile::tempdir().unwrap();
    let chrome = dir.path().join("trace.json");
    let out = npusim()
        .args(["cerebras", "run", "gemv-08-routes-3", "--trace"])
        .arg(&chrome)
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&chrome).unwrap()).unwrap();
    let events = v["traceEvents"].as_array().unwrap();
    assert!(!events.is_empty());
    for e in events {
        assert_eq!(e["ph"], "X");
        assert!(e["pid"].as_u64().unwrap() < 12, "4x3 grid: {e}");
        assert!(e["ts"].as_u64().is_some() && e["tid"].as_str().is_some());
    }
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains(&format!("trace: {} events written", events.len())),
        "{stdout}"
    );
    // the same events as lines, one a line, in cycle order
    let lines = dir.path().join("trace.txt");
    npusim()
        .args([
            "cerebras",
            "run",
            "gemv-08-routes-3",
            "--trace-format",
            "lines",
            "--trace",
        ])
        .arg(&lines)
        .assert()
        .success();
    let text = std::fs::read_to_string(&lines).unwrap();
    assert_eq!(text.lines().count(), events.len());
    let cycles: Vec<u64> = text
        .lines()
        .map(|l| l.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert!(cycles.windows(2).all(|w| w[0] <= w[1]));
    // two runs write the same trace
    let again = dir.path().join("again.json");
    npusim()
        .args(["cerebras", "run", "gemv-08-routes-3", "--trace"])
        .arg(&again)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(&chrome).unwrap(),
        std::fs::read(&again).unwrap()
    );
}

#[test]
fn run_refuses_unknown_programs_and_a_trace_format_without_a_trace() {
    npusim()
        .args(["cerebras", "run", "gemv-99"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("gemv-99"))
        .stderr(predicate::str::contains("gemv-06-routes-1"));
    npusim()
        .args(["cerebras", "run", "E3", "--trace-format", "chrome"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("--trace"));
    npusim()
        .args(["cerebras", "run", "E3", "--arch", "wse9"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("wse9"));
    let dir = tempfile::tempdir().unwrap();
    npusim()
        .args(["cerebras", "run", "E3", "--trace"])
        .arg(dir.path().join("no/such/dir/t.json"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("cannot write the trace"));
}

#[test]
fn tour_runs_every_program_on_both_architectures() {
    let n = npusim_examples::cerebras::programs::PROGRAMS.len();
    let short = npusim().arg("tour").assert().success();
    let short = String::from_utf8(short.get_output().stdout.clone()).unwrap();
    assert!(
        short.contains(&format!(
            "example programs: {n} ({}-{}) on wse2 and wse3: {} PASS, 0 FAIL",
            npusim_examples::cerebras::programs::PROGRAMS[0].label,
            npusim_examples::cerebras::programs::PROGRAMS[n - 1].label,
            2 * n
        )),
        "{short}"
    );
    let long = npusim().args(["tour", "--verbose"]).assert().success();
    let long = String::from_utf8(long.get_output().stdout.clone()).unwrap();
    for p in npusim_examples::cerebras::programs::PROGRAMS {
        for arch in ["wse2", "wse3"] {
            let head = format!("PASS {} {} ({} PEs, {arch}): ", p.label, p.name, p.grid);
            assert!(long.lines().any(|l| l.starts_with(&head)), "{head}");
        }
    }
}

/// `--trace -` (issue 28): the trace takes standard output alone (a Chrome trace is one valid
/// JSON document, lines are events only) and the report goes to standard error, text or
/// `--json`; the exit status is the run's.
#[test]
fn trace_to_standard_output_sends_the_report_to_standard_error() {
    let out = npusim()
        .args([
            "cerebras",
            "run",
            "gemv-06-routes-1",
            "--trace",
            "-",
            "--trace-format",
            "chrome",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let events = v["traceEvents"].as_array().unwrap().len();
    assert!(events > 0);
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!(
            "trace: {events} events written to standard output"
        )),
        "{stderr}"
    );
    assert!(stderr.contains("result: PASS"), "{stderr}");
    // lines (the default for `-`): every stdout line is an event, the JSON report on stderr
    let out = npusim()
        .args(["cerebras", "run", "E3", "--trace", "-", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), events, "{stdout}");
    assert!(stdout.lines().all(|l| l.contains(" PE (")), "{stdout}");
    let report: Value = serde_json::from_slice(&out.stderr).unwrap();
    assert_eq!(report["pass"], true);
}

/// gemv-05-multiple-pes (spec E2) completes the gemv tutorial series: `cerebras run` checks
/// its 4 PEs' `y` against the expected values.
#[test]
fn run_gemv_05_multiple_pes_passes() {
    let out = npusim()
        .args(["cerebras", "run", "gemv-05-multiple-pes", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["pass"], true);
    assert_eq!(v["grid"], "4x1");
    assert_eq!(v["pes"].as_array().unwrap().len(), 4);
    let got = v["outputs"][0]["got"].as_array().unwrap();
    let y: Vec<f64> = got.iter().map(|g| g.as_f64().unwrap()).collect();
    assert_eq!(y, [17.0, 53.0, 89.0, 125.0].repeat(4));
    npusim()
        .args(["cerebras", "run", "E2"])
        .assert()
        .success()
        .stdout(predicate::str::contains("result: PASS"));
}

/// `--threads` steps the PEs on several threads: the same cycles, trace hash and outputs as
/// one thread; 0 threads is refused with the reason.
#[test]
fn run_on_two_threads_gives_the_one_thread_run() {
    let run = |threads: &str| -> Value {
        let out = npusim()
            .args(["cerebras", "run", "E11", "--json", "--threads", threads])
            .output()
            .unwrap();
        assert!(out.status.success(), "{out:?}");
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (one, two) = (run("1"), run("2"));
    for key in ["cycles", "trace_hash", "outputs", "pass"] {
        assert_eq!(one[key], two[key], "{key}");
    }
    assert_eq!(one["pass"], Value::Bool(true));
    npusim()
        .args(["cerebras", "run", "E11", "--threads", "0"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "cannot step PEs on 0 thread(s): at least one thread steps the PEs",
        ));
}
