//! `npusim_io` says what is wrong in its own words (the source format, the shape, packed
//! storage, the tensor selection); `npusim cast` names the option the user gave or should
//! give (issue 29). Every message here names its flag and keeps its place ("reading `x`").

use std::path::{Path, PathBuf};

use crate::support::fixture;
use assert_cmd::Command;
use predicates::prelude::*;
use safetensors::{Dtype, tensor::TensorView};

/// A .safetensors file with an f32 tensor `w` and an f8e8m0 scale tensor `w.scale`.
fn model(dir: &Path) -> PathBuf {
    let path = dir.join("m.safetensors");
    let w: Vec<u8> = [1.0f32, 2.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let scale = [127u8];
    let tensors = [
        ("w", TensorView::new(Dtype::F32, vec![2], &w).unwrap()),
        (
            "w.scale",
            TensorView::new(Dtype::F8_E8M0, vec![1], &scale).unwrap(),
        ),
    ];
    safetensors::serialize_to_file(tensors, None, &path).unwrap();
    path
}

/// `npusim cast input -o <tmp>/out.<ext> args` fails, says `message` on standard error and
/// leaves no file behind.
fn says(input: &Path, args: &[&str], message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let ext = input.extension().unwrap().to_string_lossy().into_owned();
    let out = dir.path().join(format!("out.{ext}"));
    Command::cargo_bin("npusim")
        .unwrap()
        .arg("cast")
        .arg(input)
        .arg("-o")
        .arg(&out)
        .args(args)
        .assert()
        .failure()
        .stderr(predicate::str::contains(message))
        .stderr(predicate::str::contains("panicked").not());
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn options_that_do_not_apply_are_named() {
    let npy = fixture("f32_values.npy");
    says(
        &npy,
        &["--to", "bf16", "--shape", "2,4"],
        "error: --shape is for raw .bin inputs (and packed 4-bit .npy inputs); a .npy file states its shape",
    );
    says(
        &npy,
        &["--to", "bf16", "--tensor", "w"],
        "error: --tensor applies to .safetensors files; a .npy file holds one tensor",
    );
    says(
        &npy,
        &["--to", "bf16", "--exclude", "w"],
        "error: --exclude applies to .safetensors files; a .npy file holds one tensor",
    );
    let dir = tempfile::tempdir().unwrap();
    let st = model(dir.path());
    says(
        &st,
        &["--to", "bf16", "--from", "f32"],
        "error: --from does not apply to .safetensors inputs: each tensor's dtype is in the file",
    );
    says(
        &st,
        &["--to", "bf16", "--shape", "2"],
        "error: --shape does not apply to .safetensors inputs: each tensor's shape is in the file",
    );
}

#[test]
fn packed_names_the_4_bit_formats_of_the_format_table_and_the_to_option() {
    let dir = tempfile::tempdir().unwrap();
    says(
        &model(dir.path()),
        &["--to", "bf16", "--packed"],
        "error: --packed applies only to 4-bit formats (f4e2m1, f4e1m2, i4, u4), not to --to bf16 (16 bits)",
    );
}

#[test]
fn tensor_patterns_are_named_by_their_option() {
    let dir = tempfile::tempdir().unwrap();
    let st = model(dir.path());
    says(
        &st,
        &["--to", "bf16", "--tensor", "a["],
        "error: --tensor `a[` is not a valid glob pattern",
    );
    says(
        &st,
        &["--to", "bf16", "--exclude", "*.bias"],
        "--exclude `*.bias` matches no tensor of",
    );
}

#[test]
fn a_source_format_is_asked_for_as_from_inside_the_files_place() {
    let v1 = fixture("ml_float8_e4m3fn.npy");
    says(
        &v1,
        &["--to", "f32"],
        &format!(
            "error: reading `{}`: the file's dtype '<V1' holds raw 1-byte elements and does not say their format; ml_dtypes saves float8_*, float4_e2m1fn and int4 this way: use e.g. --from f8e4m3fn, f8e5m2, f8e8m0, hif8, f4e2m1, f4e1m2 or i4",
            v1.display()
        ),
    );
}

#[test]
fn a_kept_scale_tensor_says_which_option_casts_it() {
    let dir = tempfile::tempdir().unwrap();
    let st = model(dir.path());
    let out = dir.path().join("o.safetensors");
    for extra in [&["--dry-run"][..], &[][..], &["--json"][..]] {
        Command::cargo_bin("npusim")
            .unwrap()
            .arg("cast")
            .arg(&st)
            .arg("-o")
            .arg(&out)
            .args(["--to", "bf16"])
            .args(extra)
            .assert()
            .success()
            .stdout(predicate::str::contains(
                "f8e8m0 scale tensor; name it with --tensor to cast it",
            ));
    }
}
