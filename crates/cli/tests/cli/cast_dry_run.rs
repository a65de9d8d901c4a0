//! `npusim cast --dry-run` says no where the run would fail, prints JSON with `--json`; one
//! rule for `-q` with `--stats`/`--json`; a cast that casts nothing warns, and
//! `--fail-on-empty` refuses it writing nothing.

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The example f32 weights (32 x 64).
fn weights() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/w.npy")
}

/// The example checkpoint.
fn model() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/model.safetensors")
}

/// Runs `npusim cast <input> -o <out> <args>`: (exit code, stdout, stderr).
fn cast(input: &Path, out: &Path, args: &[&str]) -> (i32, String, String) {
    let got = Command::cargo_bin("npusim")
        .unwrap()
        .arg("cast")
        .arg(input)
        .arg("-o")
        .arg(out)
        .args(args)
        .output()
        .unwrap();
    (
        got.status.code().unwrap_or(-1),
        String::from_utf8(got.stdout).unwrap(),
        String::from_utf8(got.stderr).unwrap(),
    )
}

#[test]
fn a_dry_run_fails_where_the_run_fails() {
    let dir = tempfile::tempdir().unwrap();
    // A missing output directory.
    let missing = dir.path().join("no/such/dir/o.npy");
    let (run, _, run_err) = cast(&weights(), &missing, &["--to", "bf16"]);
    let (dry, dry_out, dry_err) = cast(&weights(), &missing, &["--to", "bf16", "--dry-run"]);
    assert_eq!((run, dry), (1, 1), "{run_err} / {dry_out}");
    assert!(dry_err.contains("does not exist"), "{dry_err}");
    assert_eq!(dry_err, run_err);
    // The input as output, without --force.
    let input = dir.path().join("w.npy");
    std::fs::copy(weights(), &input).unwrap();
    let (dry, _, dry_err) = cast(&input, &input, &["--to", "bf16", "--dry-run"]);
    assert_eq!(dry, 1);
    assert!(dry_err.contains("is the input file"), "{dry_err}");
    let (dry, _, _) = cast(&input, &input, &["--to", "bf16", "--dry-run", "--force"]);
    assert_eq!(dry, 0);
    // An output that is a directory.
    let sub = dir.path().join("d.npy");
    std::fs::create_dir(&sub).unwrap();
    let (dry, _, dry_err) = cast(&weights(), &sub, &["--to", "bf16", "--dry-run"]);
    assert_eq!(dry, 1);
    assert!(dry_err.contains("is a directory"), "{dry_err}");
}

#[test]
fn a_dry_run_says_fail_on_nan_is_left_to_the_run() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    let (code, stdout, _) = cast(
        &weights(),
        &out,
        &["--to", "f8e4m3fn", "--fail-on-nan", "--dry-run"],
    );
    assert_eq!(code, 0);
    assert!(
        stdout.contains("--fail-on-nan is checked while the data is cast"),
        "{stdout}"
    );
    assert!(!out.exists());
}

#[test]
fn dry_run_json_is_json() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.safetensors");
    let (code, stdout, stderr) = cast(
        &model(),
        &out,
        &[
            "--to",
            "bf16",
            "--dry-run",
            "--json",
            "--exclude",
            "*.down_proj.*",
        ],
    );
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["dry_run"], true);
    let tensors = doc["tensors"].as_array().unwrap();
    assert!(!tensors.is_empty());
    let cast_n = tensors.iter().filter(|t| t["action"] == "cast").count();
    assert_eq!(doc["cast"].as_u64().unwrap() as usize, cast_n);
    for t in tensors {
        match t["action"].as_str().unwrap() {
            "cast" => assert_eq!(t["to"], "bf16"),
            "keep" => assert!(t["reason"].is_string()),
            other => panic!("action {other}"),
        }
    }
    let bytes_out: u64 = tensors
        .iter()
        .map(|t| t["bytes_out"].as_u64().unwrap())
        .sum();
    assert_eq!(doc["bytes_out"].as_u64().unwrap(), bytes_out);
    assert!(!out.exists());
}

/// The rule: `-q` silences what the command says on its own, never what an option asked for.
#[test]
fn quiet_keeps_what_stats_and_json_ask_for() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    let (code, stdout, stderr) = cast(&weights(), &out, &["--to", "bf16", "--stats", "-q"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("max abs err"), "{stdout}");
    assert!(stdout.contains("total"), "{stdout}");
    assert!(!stdout.contains("wrote"), "{stdout}");
    let (code, stdout, stderr) = cast(&weights(), &out, &["--to", "bf16", "--json", "-q"]);
    assert_eq!(code, 0, "{stderr}");
    let doc: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["tensors"][0]["action"], "cast");
    // And the rule is in --help.
    let help = Command::cargo_bin("npusim")
        .unwrap()
        .args(["cast", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(
        help.contains("-q silences what the command says on its own"),
        "{help}"
    );
}

#[test]
fn casting_nothing_warns_and_fail_on_empty_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.safetensors");
    let (code, _, stderr) = cast(&model(), &out, &["--to", "bf16", "--exclude", "*"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("warning: no tensor was cast") && stderr.contains("--fail-on-empty"),
        "{stderr}"
    );
    std::fs::remove_file(&out).unwrap();
    for extra in [&[][..], &["--dry-run"]] {
        let mut args = vec!["--to", "bf16", "--exclude", "*", "--fail-on-empty"];
        args.extend_from_slice(extra);
        let (code, _, stderr) = cast(&model(), &out, &args);
        assert_eq!(code, 1, "{extra:?}: {stderr}");
        assert!(stderr.contains("no tensor would be cast"), "{stderr}");
        assert!(!out.exists(), "{extra:?}");
    }
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    // A dry run without --fail-on-empty says it.
    let (code, stdout, _) = cast(
        &model(),
        &out,
        &["--to", "bf16", "--exclude", "*", "--dry-run"],
    );
    assert_eq!(code, 0);
    assert!(stdout.contains("no tensor would be cast"), "{stdout}");
}
