//! End-to-end tests of `npusim ascend cast`.

use std::path::Path;

use crate::support::{npusim, npy_parts, repo, write_npy};
use assert_cmd::Command;
use predicates::prelude::*;

/// `npusim ascend cast <src> -o <out>`, ready for more arguments.
fn ascend_cast(src: impl AsRef<std::ffi::OsStr>, out: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut cmd = npusim();
    cmd.args(["ascend", "cast"]).arg(src).arg("-o").arg(out);
    cmd
}

/// Turns the 64 raw f32 values of `bin` into the .npy `npy` with `npusim cast`.
fn f32_npy(bin: &Path, npy: &Path) {
    npusim()
        .arg("cast")
        .arg(bin)
        .args(["--from", "f32", "--shape", "64", "--to", "f32", "-o"])
        .arg(npy)
        .assert()
        .success();
}

fn i32s(b: &[u8]) -> Vec<i32> {
    b.chunks_exact(4)
        .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn seed_src() -> Vec<f64> {
    let (_, _, data) = npy_parts(&repo("examples/ascend/more_samples_src.npy"));
    data.chunks_exact(2)
        .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f64())
        .collect()
}

#[test]
fn more_samples_mask32_from_the_call_file() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    ascend_cast(repo("examples/ascend/more_samples_src.npy"), &out)
        .arg("--call")
        .arg(repo("examples/ascend/more_samples_mask32.toml"))
        .assert()
        .success()
        .stdout(predicate::str::contains("wrote 256 of 512"))
        .stdout(predicate::str::contains("written: 0-31, 64-95, 128-159"));
    let (descr, _, data) = npy_parts(&out);
    assert_eq!(descr, "<i4");
    let got = i32s(&data);
    let src = seed_src();
    for i in 0..512 {
        let want = if i % 64 < 32 { src[i].ceil() as i32 } else { 0 };
        assert_eq!(got[i], want, "lane {i}");
    }
}

#[test]
fn prior_contents_survive_on_masked_lanes_and_flags_override_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let prior_bin = dir.path().join("prior.bin");
    let prior = dir.path().join("prior.npy");
    std::fs::write(
        &prior_bin,
        (0..512i32)
            .flat_map(|i| (-i).to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    npusim()
        .args(["cast"])
        .arg(&prior_bin)
        .args(["--from", "i32", "--shape", "512", "--to", "i32", "-o"])
        .arg(&prior)
        .assert()
        .success();
    let out = dir.path().join("out.npy");
    ascend_cast(repo("examples/ascend/more_samples_src.npy"), &out)
        .arg("--call")
        .arg(repo("examples/ascend/more_samples_mask32.toml"))
        .args(["--round", "CAST_FLOOR", "--prior"])
        .arg(&prior)
        .assert()
        .success();
    let got = i32s(&npy_parts(&out).2);
    let src = seed_src();
    for i in 0..512 {
        let want = if i % 64 < 32 {
            src[i].floor() as i32
        } else {
            -(i as i32)
        };
        assert_eq!(got[i], want, "lane {i}");
    }
}

#[test]
fn reg_api_call_on_the_950() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("x.bin");
    let x = dir.path().join("x.npy");
    std::fs::write(
        &bin,
        (0..64)
            .flat_map(|i| (i as f32 * 1.5).to_le_bytes())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    f32_npy(&bin, &x);
    let out = dir.path().join("y.npy");
    ascend_cast(&x, &out)
        .args([
            "--product",
            "950",
            "--api",
            "reg",
            "--dst",
            "hifloat8_t",
            "--round",
            "CAST_ROUND",
        ])
        .args(["--layout", "TWO", "--sat", "NO_SAT", "--ctrl", "0"])
        .assert()
        .success()
        .stdout(predicate::str::contains("1 register(s), wrote 64 of 256"))
        .stdout(predicate::str::contains("written: 2, 6, 10"));
    let (descr, _, data) = npy_parts(&out);
    assert_eq!(descr, "<V1");
    assert_eq!(data.len(), 256);
    // element 2 is 3.0 = 2 × 1.5: HiF8 0x10 | mantissa 0b100, in lane 4·2 + 2 (layout TWO)
    assert_eq!(data[4 * 2 + 2], 0x14);
    assert_eq!(data[4 * 2], 0);
}

#[test]
fn bad_calls_fail_cleanly_without_output() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    let src = repo("examples/ascend/more_samples_src.npy");
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "--product",
                "training",
                "--dst",
                "fp8_e4m3fn_t",
                "--round",
                "rint",
                "--count",
                "64",
            ],
            "has no half -> fp8_e4m3fn_t",
        ),
        (
            &[
                "--dst",
                "int32_t",
                "--round",
                "CAST_CEIL",
                "--mask",
                "64",
                "--repeat",
                "256",
            ],
            "repeatTimes 256 is out of range [0, 255]",
        ),
        (
            &[
                "--dst",
                "int32_t",
                "--round",
                "CAST_CEIL",
                "--mask",
                "65",
                "--repeat",
                "1",
            ],
            "contiguous mask 65 is out of range [1, 64]",
        ),
        (
            &["--dst", "int8_t", "--round", "CAST_RINT", "--count", "64"],
            "does not accept round mode CAST_RINT",
        ),
        (
            &[
                "--dst",
                "int32_t",
                "--round",
                "CAST_CEIL",
                "--mask",
                "64",
                "--repeat",
                "8",
                "--params",
                "1,1,8",
            ],
            "'--params <DB,SB,DR,SR>': takes 4 comma-separated numbers, got 3",
        ),
        (
            &["--round", "CAST_CEIL", "--count", "64"],
            "no destination type",
        ),
        (
            &["--dst", "int32_t", "--round", "CAST_CEIL", "--count", "600"],
            "calCount 600 exceeds",
        ),
    ];
    for (args, msg) in cases {
        ascend_cast(&src, &out)
            .args(*args)
            .assert()
            .failure()
            .stderr(predicate::str::contains(*msg));
        assert!(!out.exists(), "{args:?} left an output file");
    }
    let bad_toml = dir.path().join("bad.toml");
    std::fs::write(
        &bad_toml,
        "dst = \"int32_t\"\nround = \"CAST_CEIL\"\nmaks = 32\n",
    )
    .unwrap();
    ascend_cast(&src, &out)
        .arg("--call")
        .arg(&bad_toml)
        .assert()
        .failure()
        .stderr(predicate::str::contains("unknown field `maks`"));
    assert!(!out.exists());
}

/// `--api microapi` (the MicroAPI alias of `reg`) runs the Reg API, and the summary says so:
/// it comes from the API the call ran, not from the flag's spelling.
#[test]
fn microapi_alias_runs_and_reports_the_reg_api() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("x.bin");
    let x = dir.path().join("x.npy");
    std::fs::write(&bin, 2.0f32.to_le_bytes().repeat(64)).unwrap();
    f32_npy(&bin, &x);
    let out = dir.path().join("y.npy");
    ascend_cast(&x, &out)
        .args(["--product", "950", "--api", "microapi", "--dst", "half"])
        .args(["--round", "CAST_RINT", "--layout", "ZERO", "--sat", "SAT"])
        .assert()
        .success()
        .stdout(predicate::str::contains(
            "Ascend 950 Reg API Cast float -> half: 1 register(s)",
        ))
        .stdout(predicate::str::contains("LocalTensor").not());
}

/// Typed flags reject unknown spellings before anything runs, listing the legal values.
#[test]
fn unknown_flag_values_list_the_legal_ones() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    let src = repo("examples/ascend/more_samples_src.npy");
    for (flag, value, legal) in [
        ("--sat", "SATURATE", "NO_SAT"),
        ("--api", "vector", "microapi"),
        ("--round", "CAST_SIDEWAYS", "CAST_RINT"),
        ("--layout", "FIVE", "THREE"),
        ("--product", "910b", "950"),
    ] {
        ascend_cast(&src, &out)
            .args(["--dst", "int32_t", flag, value])
            .assert()
            .failure()
            .stderr(predicate::str::contains(value))
            .stderr(predicate::str::contains(legal));
        assert!(!out.exists());
    }
}

/// A file whose dtype names another type of the same width is refused, naming both types,
/// never read bit for bit as the type the call wants (an f32 prior of 1.0 is not the int32
/// 1065353216): the prior for an `int32_t` destination, and the source for a `half` one.
#[test]
fn a_file_of_another_type_is_refused_naming_both_types() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out.npy");
    let prior = dir.path().join("prior_f32.npy");
    let ones: Vec<u8> = (0..512).flat_map(|_| 1.0f32.to_le_bytes()).collect();
    write_npy(&prior, "<f4", &[512], &ones);
    ascend_cast(repo("examples/ascend/more_samples_src.npy"), &out)
        .arg("--call")
        .arg(repo("examples/ascend/more_samples_mask32.toml"))
        .arg("--prior")
        .arg(&prior)
        .assert()
        .failure()
        .stderr(predicate::str::contains("'<f4'"))
        .stderr(predicate::str::contains("float"))
        .stderr(predicate::str::contains("int32_t"));
    assert!(!out.exists());
    // The source: the call file says `src = "half"`; an int16 file is not half.
    let src = dir.path().join("src_i16.npy");
    write_npy(&src, "<i2", &[512], &[0u8; 1024]);
    ascend_cast(&src, &out)
        .arg("--call")
        .arg(repo("examples/ascend/more_samples_mask32.toml"))
        .assert()
        .failure()
        .stderr(predicate::str::contains("'<i2'"))
        .stderr(predicate::str::contains("int16_t"))
        .stderr(predicate::str::contains("half"));
    assert!(!out.exists());
    // --src names the source type: the same refusal.
    ascend_cast(repo("examples/ascend/more_samples_src.npy"), &out)
        .args([
            "--src",
            "bfloat16_t",
            "--dst",
            "float",
            "--round",
            "CAST_NONE",
        ])
        .args(["--count", "64"])
        .assert()
        .failure()
        .stderr(predicate::str::contains("'<f2'"))
        .stderr(predicate::str::contains("bfloat16_t"));
    assert!(!out.exists());
}

/// `-o -` writes the .npy to standard output (no file named `-`) and the report to standard
/// error; the bytes equal those of a file output.
#[test]
fn dash_output_is_standard_output_with_the_report_on_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("out.npy");
    let run = |out: &Path| {
        ascend_cast(repo("examples/ascend/more_samples_src.npy"), out)
            .current_dir(dir.path())
            .arg("--call")
            .arg(repo("examples/ascend/more_samples_mask32.toml"))
            .assert()
            .success()
    };
    run(&file);
    let piped = run(Path::new("-"));
    let out = piped.get_output();
    assert_eq!(out.stdout, std::fs::read(&file).unwrap());
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrote 256 of 512"));
    assert!(!dir.path().join("-").exists());
}
