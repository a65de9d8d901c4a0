//! `npusim cast` warnings and refusals: `--seed` without stochastic rounding, an output that is
//! the input, NaN/Inf made from finite inputs (`--fail-on-nan`), and `--quiet`.

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// A temporary directory holding a copy of `examples/w.npy`.
fn with_weights() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let w = dir.path().join("w.npy");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/w.npy"),
        &w,
    )
    .unwrap();
    (dir, w)
}

/// The float32 values of a version-1 little-endian `.npy` file.
fn f32_values(path: &Path) -> Vec<f32> {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[..8], b"\x93NUMPY\x01\x00");
    let start = 10 + usize::from(u16::from_le_bytes([b[8], b[9]]));
    assert!(String::from_utf8_lossy(&b[10..start]).contains("'<f4'"));
    b[start..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn cast(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("npusim").unwrap();
    c.current_dir(dir).arg("cast");
    c
}

#[test]
fn a_seed_without_stochastic_rounding_warns() {
    let (dir, w) = with_weights();
    let out = cast(dir.path())
        .arg(&w)
        .args(["-o", "b.npy", "--to", "bf16", "--seed", "7"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("warning: --seed 7 has no effect: only --round hybrid"),
        "{err}"
    );
    let out = cast(dir.path())
        .arg(&w)
        .args([
            "-o", "b.npy", "--to", "bf16", "--seed", "7", "--round", "hybrid",
        ])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty());
}

#[test]
fn the_input_as_output_is_refused_unless_forced() {
    let (dir, w) = with_weights();
    let before = std::fs::read(&w).unwrap();
    // The same file through another spelling of its path.
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    cast(&dir.path().join("sub"))
        .args(["../w.npy", "-o", "./../sub/../w.npy", "--to", "bf16"])
        .assert()
        .failure()
        .stderr(predicates::str::contains("is the input file"));
    assert_eq!(std::fs::read(&w).unwrap(), before);
    cast(dir.path())
        .args(["w.npy", "-o", "w.npy", "--to", "bf16", "--force"])
        .assert()
        .success();
    assert_eq!(std::fs::read(&w).unwrap().len(), before.len() - 2 * 2048);
}

#[test]
fn nan_from_finite_inputs_warns_with_the_count_and_can_fail() {
    let (dir, w) = with_weights();
    // e4m3fn has no Inf: under the default IEEE policy a finite value beyond 464 (halfway
    // between 448 and the next step 480, ties to even go down) becomes NaN.
    let expected = f32_values(&w).iter().filter(|x| x.abs() > 464.0).count();
    assert!(expected > 0);
    let out = cast(dir.path())
        .arg(&w)
        .args(["-o", "e4.npy", "--to", "f8e4m3fn"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(&format!(
            "warning: {expected} finite input value(s) became NaN or Inf (w.npy: {expected})"
        )),
        "{err}"
    );
    cast(dir.path())
        .arg(&w)
        .args(["-o", "e4f.npy", "--to", "f8e4m3fn", "--fail-on-nan"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(format!(
            "--fail-on-nan: {expected} finite input value(s) became NaN or Inf (w.npy: {expected}); nothing was written"
        )));
    assert!(!dir.path().join("e4f.npy").exists());
    // Nothing left behind in the directory (the temporary file is removed too), and through
    // pipes nothing reaches standard output.
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    for input in [w.to_str().unwrap(), "-"] {
        let out = cast(dir.path())
            .args([input, "-o", "-", "--to", "f8e4m3fn", "--fail-on-nan"])
            .write_stdin(std::fs::read(&w).unwrap())
            .output()
            .unwrap();
        assert!(!out.status.success() && out.stdout.is_empty(), "{input}");
    }
    // Saturating, nothing overflows into NaN: no warning, and --fail-on-nan passes.
    let out = cast(dir.path())
        .arg(&w)
        .args([
            "-o",
            "e4s.npy",
            "--to",
            "f8e4m3fn",
            "--saturate",
            "--fail-on-nan",
        ])
        .output()
        .unwrap();
    assert!(out.status.success() && out.stderr.is_empty());
}

#[test]
fn quiet_prints_nothing_but_errors() {
    let (dir, w) = with_weights();
    let out = cast(dir.path())
        .arg(&w)
        .args(["-o", "q.npy", "--to", "f8e4m3fn", "--seed", "1", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.is_empty() && out.stderr.is_empty());
    assert!(dir.path().join("q.npy").exists());
    cast(dir.path())
        .args(["missing.npy", "-o", "q.npy", "--to", "bf16", "-q"])
        .assert()
        .failure()
        .stderr(predicates::str::starts_with("error:"));
}

#[test]
fn a_cast_that_flushes_most_of_a_tensor_to_zero_warns_and_points_to_quantize() {
    let dir = tempfile::tempdir().unwrap();
    let model = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/model.safetensors");
    // fp4 e2m1's smallest non-zero magnitude is 0.5: the example's weights (|w| < 0.25) all
    // become zero
    let out = cast(dir.path())
        .arg(&model)
        .args(["-o", "m.safetensors", "--to", "f4e2m1"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("warning: most elements flushed to zero in 15 tensor(s): lm_head.weight (100 % of 1536), "),
        "{err}"
    );
    assert!(
        err.contains(", and 12 more; a block-scaled format keeps them, e.g. `npusim quantize "),
        "{err}"
    );
    assert!(err.contains("--scheme mxfp4"), "{err}");
    // e4m3fn reaches 2^-9: nothing warns
    let out = cast(dir.path())
        .arg(&model)
        .args(["-o", "m8.safetensors", "--to", "f8e4m3fn"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("flushed to zero"), "{err}");
}
