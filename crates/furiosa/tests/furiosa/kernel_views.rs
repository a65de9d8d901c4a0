//! Kernel files with tiles and `commit_view` (`docs/furiosa-engines.md` §8.3 K4, §10.4 M1,
//! §11.2), the overlap warning of §2.2 and the same-bank run of §2.2 in the schedule's report
//! and trace. Expected values and cycles are the document's hand derivations.

use npusim_furiosa::pipeline::{Kernel, KernelInput, PipelineKind};

fn kernel(text: &str) -> Kernel {
    match PipelineKind::parse(text).expect("parse") {
        PipelineKind::Kernel(k) => k,
        PipelineKind::Stream(_) => panic!("not a kernel file"),
    }
}

/// K4 as a kernel file: two segments of 1024 rows (`A = 2048, B = 32`, i8), each read through
/// a tile of x and written through the same tile of y with `commit_view`. Each segment reads
/// and writes `[1024:32, 32:1] : 32` (1024 cycles); both on main: serial, 2048 (§10.4 K4).
/// With segment 1 on sub (M1): 4096 for it (8-byte accesses), overlapping segment 0 (disjoint
/// DM ranges: the tiles' bytes 262144..294912 and 294912..327680), makespan 4096.
fn k4(second_context: &str) -> String {
    let mut text = String::from(
        r#"axes = "A=2048, B=32"

[[dm]]
name = "x"
dtype = "i8"
chip = "1"
cluster = "1"
slice = "1"
element = "A, B"
address = 0

[[dm]]
name = "y"
dtype = "i8"
chip = "1"
cluster = "1"
slice = "1"
element = "A, B"
address = 262144
"#,
    );
    for (k, context) in [(0, "main"), (1, second_context)] {
        let tile = format!(
            "{{ index = \"A\", len = 1024, element = \"A = 1024 # 2048, B\", start = {} }}",
            1024 * k
        );
        text += &format!(
            r#"
[[stage]]
op = "begin"
tensor = "x"
context = "{context}"
tile = {tile}

[[stage]]
op = "fetch"
time = "A = 1024"
packet = "B"

[[stage]]
op = "collect"
time = "A = 1024"
packet = "B"

[[stage]]
op = "commit_trim"
packet = "B"

[[stage]]
op = "commit_view"
tensor = "y"
tile = {tile}
"#
        );
    }
    text
}

fn k4_input() -> Vec<u64> {
    (0..65_536u64).map(|i| (i * 7 + i / 251) % 256).collect()
}

#[test]
fn k4_segments_with_commit_view_in_a_kernel_file() {
    let run = kernel(&k4("main"))
        .run(&[("x".into(), KernelInput::Codes(k4_input()))])
        .expect("run");
    assert_eq!(run.values("y").unwrap(), k4_input());
    assert!(
        run.stages[4]
            .contains("commit_view into `y` (m![A = 1024 # 2048, B]) at bytes 262144..294912"),
        "{}",
        run.stages[4]
    );
    let starts: Vec<(u64, u64)> = run
        .schedule
        .invocations
        .iter()
        .map(|i| (i.start, i.invocation.total))
        .collect();
    assert_eq!(starts, vec![(0, 1024), (1024, 1024)]);
    assert_eq!(run.schedule.makespan, 2048);
    assert!(run.warnings.is_empty(), "{:?}", run.warnings);
}

#[test]
fn m1_second_segment_on_sub_overlaps() {
    let run = kernel(&k4("sub"))
        .run(&[("x".into(), KernelInput::Codes(k4_input()))])
        .expect("run");
    assert_eq!(run.values("y").unwrap(), k4_input());
    let starts: Vec<(u64, u64)> = run
        .schedule
        .invocations
        .iter()
        .map(|i| (i.start, i.invocation.total))
        .collect();
    assert_eq!(starts, vec![(0, 1024), (0, 4096)]);
    assert_eq!(run.schedule.makespan, 4096);
}

/// Only half a tile's key set: refused naming the missing key.
#[test]
fn a_tile_needs_all_four_keys() {
    let text = k4("main").replacen(", start = 0 }", " }", 1);
    let e = PipelineKind::parse(&text).unwrap_err().to_string();
    assert!(e.contains("start"), "{e}");
}

const OVERLAP: &str = r#"
axes = "A=3, B=5, C=2"

[[dm]]
name = "x"
dtype = "i8"
chip = "1"
cluster = "1"
slice = "1"
element = "A, B, C"
address = 0

[[stage]]
op = "begin"
tensor = "x"

[[stage]]
op = "fetch"
time = "A"
packet = "[B, C] # 32"

[[stage]]
op = "collect"
time = "A"
packet = "[B, C] # 32"

[[stage]]
op = "commit_trim"
packet = "[B, C] # 32"

[[stage]]
op = "commit"
element = "A, [B, C] # 32"
name = "y"
address = 16
"#;

/// §2.2 overlap: x occupies bytes 0..30; y (`A, [B, C] # 32`, 96 bytes) committed at 16 covers
/// 16..112, so its commit writes over bytes 16..30 of x: allowed, and `--schedule` warns
/// naming both tensors and the range.
#[test]
fn a_commit_over_another_tensor_is_warned() {
    let run = kernel(OVERLAP)
        .run(&[("x".into(), KernelInput::Codes((0..30).collect()))])
        .expect("run");
    assert_eq!(
        run.warnings,
        vec![
            "warning: stage 5 writes `y` at bytes 16..112, over bytes 16..30 of `x` (tensors may overlap; the later write clobbers the earlier tensor)"
                .to_string()
        ]
    );
    let report = run.report(true).unwrap();
    assert!(report.contains(&run.warnings[0]), "{report}");
    assert!(!run.report(false).unwrap().contains("warning"));
}

const BANK: &str = r#"
axes = "A=64, B=128"

[[dm]]
name = "x"
dtype = "i8"
chip = "1"
cluster = "1"
slice = "1"
element = "A, B"
address = 0

[[stage]]
op = "begin"
tensor = "x"

[[stage]]
op = "fetch"
time = "B / 8, A"
packet = "B % 8"

[[stage]]
op = "collect"
time = "B / 8, A"
packet = "B % 8 # 32"

[[stage]]
op = "commit_trim"
packet = "B % 8"

[[stage]]
op = "commit"
element = "B / 8, A, B % 8"
name = "y"
address = 8192
"#;

/// §2.2 bank rule: reading 8-byte packets down a column of 128-byte rows (Time `B / 8, A`,
/// row stride 128 bytes) puts 64 consecutive reads (all of A) on one bank (bank = byte / 8 mod
/// 16, and 128 = 16 × 8): the fetch's same-bank run is 64, reported as a warning under the
/// schedule and in the trace's `args`; the commit writes consecutive 8-byte units, one per
/// bank in turn: run 1.
#[test]
fn the_same_bank_run_is_reported() {
    let run = kernel(BANK).run(&[]).expect("run");
    let inv = &run.schedule.invocations[0].invocation;
    let runs: Vec<u64> = inv.engines.iter().map(|e| e.record.bank_run).collect();
    assert_eq!(runs, vec![64, 0, 1]);
    let report = run.report(true).unwrap();
    assert!(
        report.contains("warning: fetch makes 64 consecutive accesses to one DM bank"),
        "{report}"
    );
    let trace = run.schedule.chrome_trace();
    let fetch = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "fetch" && e["ph"] == "X")
        .unwrap();
    assert_eq!(fetch["args"]["bank_run"], 64);
}
