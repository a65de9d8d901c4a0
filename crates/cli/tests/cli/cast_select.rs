//! `npusim cast --tensor GLOB --exclude GLOB --dry-run` on a checkpoint-like `.safetensors`.

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The example checkpoint.
fn model() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/model.safetensors")
}

/// Runs npusim with `args`; returns stdout, panicking with stderr on failure.
fn npusim(args: &[&str], files: &[&Path]) -> String {
    let out = Command::cargo_bin("npusim")
        .unwrap()
        .args(args)
        .args(files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// name -> (dtype, bytes) of every tensor, from `npusim info --json`.
fn tensors(path: &Path) -> BTreeMap<String, (String, u64)> {
    let doc: serde_json::Value =
        serde_json::from_str(&npusim(&["info", "--json"], &[path])).unwrap();
    doc["tensors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                (
                    t["dtype"].as_str().unwrap().to_string(),
                    t["bytes"].as_u64().unwrap(),
                ),
            )
        })
        .collect()
}

/// What a selection should pick: MLP tensors of every layer but down projections.
fn wanted(name: &str) -> bool {
    name.starts_with("model.layers.") && name.contains(".mlp.") && !name.contains(".down_proj.")
}

#[test]
fn globs_pick_tensors_and_dry_run_predicts_the_output_sizes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.safetensors");
    let out_s = out.to_str().unwrap();
    let args = [
        "cast",
        "--to",
        "f4e2m1",
        "--tensor",
        "model.layers.*.mlp.*",
        "--exclude",
        "*.down_proj.*",
        "-o",
        out_s,
    ];
    let mut dry = args.to_vec();
    dry.push("--dry-run");
    let plan = npusim(&dry, &[&model()]);
    assert!(!out.exists(), "--dry-run wrote {out_s}");
    npusim(&args, &[&model()]);
    let before = tensors(&model());
    let after = tensors(&out);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>()
    );
    let mut picked = 0;
    for (name, (dtype, bytes)) in &before {
        let (out_dtype, out_bytes) = &after[name];
        if wanted(name) {
            picked += 1;
            assert_eq!(out_dtype, "F4", "{name}");
        } else {
            assert_eq!((out_dtype, out_bytes), (dtype, bytes), "{name} was kept");
        }
        // The dry run's row for the tensor: its last cell is the output's byte count.
        let row = plan
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap();
        let predicted: u64 = row.split_whitespace().last().unwrap().parse().unwrap();
        assert_eq!(predicted, *out_bytes, "{row}");
        assert_eq!(row.contains("-> f4e2m1"), wanted(name), "{row}");
    }
    assert_eq!(picked, 4);
}

#[test]
fn a_pattern_that_matches_nothing_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("m.safetensors");
    Command::cargo_bin("npusim")
        .unwrap()
        .arg("cast")
        .arg(model())
        .arg("-o")
        .arg(&out)
        .args(["--to", "bf16", "--exclude", "*.bias"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "--exclude `*.bias` matches no tensor of",
        ));
    assert!(!out.exists());
}
