//! `npusim cast` with `-` (standard input / output) and `--format` for unknown extensions.

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::path::Path;

use crate::support::example;
use assert_cmd::Command;

fn npusim(dir: &Path) -> Command {
    let mut c = Command::cargo_bin("npusim").unwrap();
    c.current_dir(dir);
    c
}

#[test]
fn stdin_to_stdout_gives_the_bytes_a_file_cast_writes() {
    let dir = tempfile::tempdir().unwrap();
    for (input, to, extra) in [
        ("w.npy", "bf16", &[][..]),
        ("w.npy", "f4e2m1", &["--packed"][..]),
        ("act_bf16.npy", "f32", &["--from", "bf16"][..]),
    ] {
        npusim(dir.path())
            .arg("cast")
            .arg(example(input))
            .args(["-o", "file.npy", "--to", to, "-q"])
            .args(extra)
            .assert()
            .success();
        let out = npusim(dir.path())
            .args(["cast", "-", "-o", "-", "--to", to])
            .args(extra)
            .write_stdin(std::fs::read(example(input)).unwrap())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            out.stdout,
            std::fs::read(dir.path().join("file.npy")).unwrap()
        );
        // The summary goes to standard error, naming standard input and output.
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(
            err.starts_with("<stdin>: ") && err.contains("wrote standard output"),
            "{err}"
        );
    }
}

#[test]
fn format_names_the_type_of_pipes_and_unknown_extensions() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(example("x.bin"), d.join("x.dat")).unwrap();
    std::fs::copy(example("model.safetensors"), d.join("model.st")).unwrap();
    let raw = ["--from", "f16", "--shape", "2,3,4", "--to", "i8"];
    npusim(d)
        .arg("cast")
        .arg(example("x.bin"))
        .args(["-o", "y.bin"])
        .args(raw)
        .assert()
        .success();
    npusim(d)
        .args(["cast", "x.dat", "-o", "y.dat", "--format", "raw"])
        .args(raw)
        .assert()
        .success();
    assert_eq!(
        std::fs::read(d.join("y.dat")).unwrap(),
        std::fs::read(d.join("y.bin")).unwrap()
    );
    npusim(d)
        .args(["cast", "x.dat", "-o", "y2.bin"])
        .args(raw)
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "give the file type with --format npy|safetensors|raw",
        ));
    // A checkpoint through a pipe, then back from the pipe into a file.
    let piped = npusim(d)
        .args([
            "cast",
            "model.st",
            "-o",
            "-",
            "--format",
            "safetensors",
            "--to",
            "bf16",
            "-q",
        ])
        .output()
        .unwrap();
    assert!(piped.status.success());
    npusim(d)
        .args([
            "cast",
            "model.st",
            "-o",
            "direct.safetensors",
            "--format",
            "safetensors",
        ])
        .args(["--to", "bf16", "-q"])
        .assert()
        .success();
    // The same tensors and metadata (the JSON header's key order may differ from run to run).
    std::fs::write(d.join("piped.safetensors"), &piped.stdout).unwrap();
    let info = |name: &str| {
        let out = npusim(d).args(["info", "--json", name]).output().unwrap();
        let mut doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        doc["file"] = serde_json::Value::Null;
        doc
    };
    assert_eq!(info("piped.safetensors"), info("direct.safetensors"));
    npusim(d)
        .args([
            "cast",
            "-",
            "--format",
            "safetensors",
            "-o",
            "back.safetensors",
            "--to",
            "f32",
        ])
        .write_stdin(piped.stdout)
        .assert()
        .success()
        .stdout(predicates::str::contains("wrote back.safetensors"));
    // bf16 -> f32 makes every floating-point tensor F32; the integer ids are kept.
    let dtypes = |doc: serde_json::Value| -> std::collections::BTreeMap<String, String> {
        doc["tensors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| {
                (
                    t["name"].as_str().unwrap().into(),
                    t["dtype"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let back = dtypes(info("back.safetensors"));
    let original = dtypes(info(example("model.safetensors").to_str().unwrap()));
    assert_eq!(
        back.keys().collect::<Vec<_>>(),
        original.keys().collect::<Vec<_>>()
    );
    for (name, dtype) in &back {
        let want = if original[name] == "I64" {
            "I64"
        } else {
            "F32"
        };
        assert_eq!(dtype, want, "{name}");
    }
}

/// Issue 29, item 7: "`--format` ... is ignored when the output has a known extension: `-o y.npy
/// --format raw` writes `.npy`". Decision: a path's extension says its own type and `--format`
/// the type of `-` and of other extensions; a `--format` that no path uses and that an
/// extension contradicts is refused (naming the flag, the file and its type), writing nothing.
#[test]
fn a_format_that_an_extension_contradicts_and_no_path_uses_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = npusim(d)
        .arg("cast")
        .arg(example("w.npy"))
        .args(["-o", "y.npy", "--format", "raw", "--to", "bf16"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains("--format raw contradicts `y.npy`, a .npy file by its extension"),
        "{err}"
    );
    assert!(!d.join("y.npy").exists(), "nothing written");
    // Agreeing with the extensions is fine, and so is a --format that a path uses: here the
    // input `x.dat` is raw, the output y.npy a .npy by its name.
    npusim(d)
        .arg("cast")
        .arg(example("w.npy"))
        .args(["-o", "y.npy", "--format", "npy", "--to", "bf16", "-q"])
        .assert()
        .success();
    std::fs::copy(example("x.bin"), d.join("x.dat")).unwrap();
    npusim(d)
        .args([
            "cast", "x.dat", "-o", "z.npy", "--format", "raw", "--to", "f32",
        ])
        .args(["--from", "f16", "--shape", "2,3,4", "-q"])
        .assert()
        .success();
    assert_eq!(&std::fs::read(d.join("z.npy")).unwrap()[..6], b"\x93NUMPY");
    // An unknown type is clap's error, listing the three.
    npusim(d)
        .arg("cast")
        .arg(example("w.npy"))
        .args(["-o", "y.npy", "--format", "npz", "--to", "bf16"])
        .assert()
        .failure()
        .stderr(predicates::str::contains(
            "[possible values: npy, safetensors, raw]",
        ));
}
