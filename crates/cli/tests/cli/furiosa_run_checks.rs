//! `npusim furiosa run` and `map`: the cycle model of seeds 000 / 003 as the command prints it,
//! reductions of broadcast lanes, the checks on the inputs a user gives (pipeline keys, input
//! type, sizes, output containers), single error messages, and standard output (closed pipes,
//! `-o -`, streamed JSON).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::support::{npusim, write_npy};
use assert_cmd::Command;
use predicates::prelude::*;

fn pipeline_text(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../crates/furiosa/examples/pipelines")
        .join(name);
    std::fs::read_to_string(path).unwrap()
}

/// Seed 003's `inter_slice_dummy.toml` with `Time = m![T]` and upstream delivering a flit every
/// `upstream` cycles.
fn dummy_with_time(t: usize, upstream: u64) -> String {
    pipeline_text("inter_slice_dummy.toml")
        .replace(
            "axes = \"R=4, A=512\"",
            &format!("axes = \"R=4, A=512, T={t}\"\nupstream_cycles_per_flit = {upstream}"),
        )
        .replace("time = \"1\"", "time = \"T\"")
        .replace("out_time = \"1\"", "out_time = \"T\"")
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// `npusim furiosa run <pipeline>`, ready for more arguments.
fn furiosa_run(pipeline: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = npusim();
    cmd.args(["furiosa", "run"]).arg(pipeline);
    cmd
}

/// The standard error of `cmd` once it has run.
fn run_stderr(cmd: &mut Command) -> String {
    String::from_utf8(cmd.output().unwrap().stderr).unwrap()
}

fn run_stdout(pipeline: &Path) -> String {
    let out = furiosa_run(pipeline).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The total cycles of a `furiosa run` report.
fn total(report: &str) -> u64 {
    let line = report
        .lines()
        .find(|l| l.starts_with("total: ~"))
        .unwrap_or_else(|| panic!("no total in {report}"));
    line["total: ~".len()..]
        .split(' ')
        .next()
        .unwrap()
        .parse()
        .unwrap()
}

fn i32_bytes(values: &[i32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The i32 data of a plain .npy written by npusim.
fn npy_i32(bytes: &[u8]) -> Vec<i32> {
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    bytes[10 + len..]
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

#[test]
fn a_slow_upstream_does_not_hide_the_ring_tail() {
    // Seed 003: total time = input streaming time + the ring-sized tail; a slow upstream hides
    // the inter-slice cost only partly. 16 flits, one per 4 cycles, then r − 1 = 3 hops.
    let dir = tempfile::tempdir().unwrap();
    let report = run_stdout(&write(dir.path(), "p.toml", &dummy_with_time(16, 4)));
    assert!(total(&report) >= 16 * 4 + 3, "{report}");
    assert_eq!(total(&report), 67, "{report}");
    let report = run_stdout(&write(dir.path(), "p.toml", &dummy_with_time(1, 4)));
    assert!(total(&report) >= 4 + 3, "{report}");
    // The first reduced output: about one ring traversal after the first flit enters.
    assert!(
        report.contains("first reduced output after ~7 cycles"),
        "{report}"
    );
}

#[test]
fn the_cast_engine_is_not_added_in_series() {
    // Seed 000: the Cast Engine is a pass-through stage that is never the bottleneck; the
    // engines stream concurrently. 64 flits reduced (64 + 3), then cast to i8: still 67.
    let dir = tempfile::tempdir().unwrap();
    let ve = dummy_with_time(64, 1);
    let ve_total = total(&run_stdout(&write(dir.path(), "ve.toml", &ve)));
    assert_eq!(ve_total, 67);
    let with_cast =
        format!("{ve}\n[[stage]]\nop = \"cast\"\ndtype = \"i8\"\nout_packet = \"A % 8 # 32\"\n");
    let report = run_stdout(&write(dir.path(), "cast.toml", &with_cast));
    assert_eq!(total(&report), ve_total, "{report}");
    assert!(report.contains("cast 64"), "{report}");
    // The output says how the total is made.
    assert!(
        report.contains("total: ~67 cycles = slowest stream 64 + ring tail 3 + alu latency 0"),
        "{report}"
    );
}

#[test]
fn broadcast_lanes_are_reduced_once_per_lane() {
    // `packet = "8"`: no axis, every lane holds the same logical element. R = 2 slices of ones
    // reduced with Add give 2 in every lane, also with a broadcast Time.
    let dir = tempfile::tempdir().unwrap();
    for (time, steps) in [("1", 1usize), ("2", 2)] {
        let text = format!(
            "axes = \"R=2\"\ndtype = \"i32\"\nchip = \"1\"\ncluster = \"1\"\nslice = \"R\"\ntime = \"{time}\"\npacket = \"8\"\n[[stage]]\nop = \"vector_init\"\n[[stage]]\nop = \"inter_slice_reduce\"\nname = \"Add\"\nout_slice = \"1 # 2\"\nout_time = \"{time}\"\n[[stage]]\nop = \"vector_final\"\n"
        );
        let p = write(dir.path(), "b.toml", &text);
        let input = dir.path().join("ones.npy");
        write_npy(
            &input,
            "<i4",
            &[2 * steps * 8],
            &i32_bytes(&vec![1; 2 * steps * 8]),
        );
        let out = dir.path().join("y.npy");
        furiosa_run(&p)
            .arg("--input")
            .arg(&input)
            .arg("-o")
            .arg(&out)
            .assert()
            .success();
        let got = npy_i32(&std::fs::read(&out).unwrap());
        let lanes = steps * 8;
        assert_eq!(&got[..lanes], &vec![2; lanes][..], "time = {time}");
        assert_eq!(
            &got[lanes..],
            &vec![0; lanes][..],
            "time = {time}: dummy slice"
        );
    }
}

#[test]
fn unknown_keys_are_refused_with_the_known_ones() {
    let dir = tempfile::tempdir().unwrap();
    let typo =
        dummy_with_time(16, 4).replace("upstream_cycles_per_flit", "upstream_cycle_per_flit");
    furiosa_run(write(dir.path(), "p.toml", &typo))
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "unknown key `upstream_cycle_per_flit`",
        ))
        .stderr(predicate::str::contains("upstream_cycles_per_flit"));
    let typo = pipeline_text("inter_slice_dummy.toml").replace("out_slice", "out_slices");
    furiosa_run(write(dir.path(), "p.toml", &typo))
        .assert()
        .failure()
        .stderr(predicate::str::contains(
            "stage 2 (inter_slice_reduce): unknown key `out_slices` (known keys: op, name, out_slice, out_time)",
        ));
}

#[test]
fn an_input_of_another_type_is_refused_not_reinterpreted() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = write(
        dir.path(),
        "p.toml",
        &pipeline_text("cast_engine_cast_i32_to_i8.toml"),
    );
    let floats: Vec<u8> = (0..32).flat_map(|i| (i as f32).to_le_bytes()).collect();
    let input = dir.path().join("f.npy");
    write_npy(&input, "<f4", &[32], &floats);
    let out = furiosa_run(&pipeline)
        .arg("--input")
        .arg(&input)
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("holds f32 elements but the pipeline's input dtype is i32"),
        "{err}"
    );
    assert!(!err.contains("--from"), "furiosa run has no --from: {err}");
    // A numpy dtype npusim has no format for.
    write_npy(&input, "<c8", &[0], &[]);
    let err = run_stderr(furiosa_run(&pipeline).arg("--input").arg(&input));
    assert!(err.contains("numpy dtype `<c8`"), "{err}");
    assert!(!err.contains("--from"), "{err}");
    // The wrong number of elements.
    write_npy(&input, "<i4", &[31], &i32_bytes(&[0; 31]));
    furiosa_run(&pipeline)
        .arg("--input")
        .arg(&input)
        .assert()
        .failure()
        .stderr(predicate::str::contains("holds 31 elements"))
        .stderr(predicate::str::contains("32 physical positions"));
}

#[test]
fn a_huge_stream_is_an_error_naming_its_size_and_the_limit() {
    let dir = tempfile::tempdir().unwrap();
    let p = write(dir.path(), "p.toml", &dummy_with_time(1 << 40, 1));
    let out = furiosa_run(&p).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "an error, not an abort");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("1 × 2 × 256 × 1099511627776 × 8 positions"),
        "{err}"
    );
    assert!(err.contains("stream positions"), "{err}");
    assert!(err.contains("16777216"), "{err}");
}

#[test]
fn output_files_are_real_npy_or_safetensors_and_others_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = write(
        dir.path(),
        "p.toml",
        &pipeline_text("cast_engine_cast_i32_to_i8.toml"),
    );
    let st = dir.path().join("y.safetensors");
    furiosa_run(&pipeline).arg("-o").arg(&st).assert().success();
    let bytes = std::fs::read(&st).unwrap();
    let file = safetensors::SafeTensors::deserialize(&bytes).unwrap();
    let t = file.tensor("output").unwrap();
    assert_eq!(t.dtype(), safetensors::Dtype::I8);
    assert_eq!(t.shape(), [1, 1, 1, 4, 32]);
    // The ramp 0..32 cast to i8, 8 live lanes per flit.
    assert_eq!(t.data()[1], 1);
    assert_eq!(t.data()[33], 9);
    assert_eq!(t.data()[8], 0, "padding lane");

    let bin = dir.path().join("y.bin");
    furiosa_run(&pipeline)
        .arg("-o")
        .arg(&bin)
        .assert()
        .failure()
        .stderr(predicate::str::contains("writes .npy or .safetensors"));
    assert!(!bin.exists());
}

#[test]
fn dash_means_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    let pipeline = write(
        dir.path(),
        "p.toml",
        &pipeline_text("inter_slice_reduce_then_add.toml"),
    );
    let out = npusim()
        .current_dir(dir.path())
        .args(["furiosa", "run"])
        .arg(&pipeline)
        .args(["-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.starts_with(b"\x93NUMPY"), "the .npy on stdout");
    let got = npy_i32(&out.stdout);
    assert_eq!(got.len(), 2 * 256 * 8);
    assert_eq!(got[8], 100, "dummy slot: identity + 100");
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("total: ~5 cycles"),
        "the report on stderr: {err}"
    );
    assert!(!dir.path().join("-").exists(), "no file named -");
}

#[test]
fn run_errors_print_their_message_once() {
    let dir = tempfile::tempdir().unwrap();
    let text = "axes = \"A=4\"\ndtype = \"i32\"\nchip = \"1\"\ncluster = \"1\"\nslice = \"1\"\ntime = \"1\"\npacket = \"A\"\n[[stage]]\nop = \"cast\"\ndtype = \"i8\"\nout_packet = \"A # 32\"\n";
    let err = run_stderr(&mut furiosa_run(write(dir.path(), "p.toml", text)));
    assert_eq!(err.matches("not one 32-byte flit").count(), 1, "{err}");
    // A Vector Engine refusal and a mapping error.
    let text =
        pipeline_text("inter_slice_dummy.toml").replace("out_time = \"1\"", "out_time = \"A\"");
    let err = run_stderr(&mut furiosa_run(write(dir.path(), "p.toml", &text)));
    assert!(err.contains("stage 2 (inter_slice_reduce)"), "{err}");
    assert_eq!(err.matches("OutTime must be").count(), 1, "{err}");
    let text = pipeline_text("inter_slice_dummy.toml")
        .replace("out_slice = \"A / 8, 1 # 4\"", "out_slice = \"A / \"");
    let err = run_stderr(&mut furiosa_run(write(dir.path(), "p.toml", &text)));
    assert_eq!(err.matches("column").count(), 1, "{err}");
}

/// Runs `args`, reads `keep` bytes of its standard output and closes the pipe; returns the
/// exit status and standard error.
fn closed_after(args: &[&str], keep: usize) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("npusim"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut buf = vec![0u8; keep];
    stdout.read_exact(&mut buf).unwrap();
    drop(stdout);
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (child.wait().unwrap().code(), err)
}

#[test]
fn a_closed_pipe_ends_furiosa_commands_quietly() {
    for json in [false, true] {
        let mut args = vec!["furiosa", "map", "A, B", "--axes", "A=512,B=512"];
        if json {
            args.push("--json");
        }
        let (code, err) = closed_after(&args, 10);
        assert_eq!(code, Some(141), "json {json}: {err}");
        assert_eq!(err, "", "json {json}: quiet");
    }
}

#[test]
fn map_json_is_streamed_with_the_same_bytes() {
    let out = npusim()
        .args(["furiosa", "map", "A, 2 # 3", "--axes", "A=2", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        "{\"cells\":[{},{},\"top\",{\"A\":1},{\"A\":1},\"top\"],\"display\":\"(A, 2 # 3)\",\"size\":6}\n"
    );
}
