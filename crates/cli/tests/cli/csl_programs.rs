//! CSL test programs in the tutorials' style, each compiled by `npusim cslc` and run by
//! `npusim cs-python` with its own unchanged `run.py`, on WSE-2 and WSE-3: the script checks
//! what the program computed and prints `SUCCESS!`.

use std::path::PathBuf;

use crate::support::{npusim, python_with_numpy, repo};

fn program_dir(name: &str) -> PathBuf {
    repo("crates/csl/tests/csl/programs").join(name)
}

/// Compiles `name/layout.csl` with `args` for `arch` and runs its `run.py`; the script's
/// standard output and error (or a skip when no Python with numpy is found).
fn cslc_then_cs_python(name: &str, arch: &str, args: &[&str]) -> Option<(String, String)> {
    let Some(py) = python_with_numpy() else {
        eprintln!("skipped: no python3 with numpy (set NPUSIM_PYTHON or run tools/test-python)");
        return None;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    npusim()
        .arg("cslc")
        .arg(format!("--arch={arch}"))
        .arg(program_dir(name).join("layout.csl"))
        .args(args)
        .arg("-o")
        .arg(&out)
        .args(["--memcpy", "--channels", "1"])
        .assert()
        .success();
    let a = npusim()
        .current_dir(dir.path())
        .arg("cs-python")
        .arg("--python")
        .arg(&py)
        .arg(program_dir(name).join("run.py"))
        .args(["--name", "out"])
        .assert();
    let o = a.get_output();
    Some((
        String::from_utf8(o.stdout.clone()).unwrap(),
        String::from_utf8(o.stderr.clone()).unwrap(),
    ))
}

#[test]
fn random_draws_follow_the_documented_lfsr_on_every_pe() {
    for arch in ["wse2", "wse3"] {
        let Some((stdout, stderr)) = cslc_then_cs_python(
            "sdk_random",
            arch,
            &[
                "--fabric-dims=9,3",
                "--fabric-offsets=4,1",
                "--params=seed:4660",
            ],
        ) else {
            return;
        };
        assert_eq!(stdout, "SUCCESS!\n", "{arch}: {stderr}");
    }
}

#[test]
fn own_modules_are_instances_with_their_params_and_import_modules() {
    for arch in ["wse2", "wse3"] {
        let Some((stdout, stderr)) = cslc_then_cs_python(
            "sdk_modules",
            arch,
            &["--fabric-dims=9,3", "--fabric-offsets=4,1", "--params=n:4"],
        ) else {
            return;
        };
        assert_eq!(stdout, "SUCCESS!\n", "{arch}: {stderr}");
    }
}

#[test]
fn launch_passes_arguments_and_debug_traces_are_read_back_by_key() {
    for arch in ["wse2", "wse3"] {
        let Some((stdout, stderr)) = cslc_then_cs_python(
            "sdk_launch_debug",
            arch,
            &["--fabric-dims=10,3", "--fabric-offsets=4,1", "--params=n:4"],
        ) else {
            return;
        };
        assert_eq!(stdout, "SUCCESS!\n", "{arch}: {stderr}");
    }
}

#[test]
fn simprint_lines_follow_the_script_and_fmovs_moves_u32_words_to_a_task_named_by_name() {
    for arch in ["wse2", "wse3"] {
        let Some((stdout, stderr)) = cslc_then_cs_python(
            "sdk_simprint",
            arch,
            &["--fabric-dims=9,3", "--fabric-offsets=4,1", "--params=n:3"],
        ) else {
            return;
        };
        assert_eq!(stdout, "SUCCESS!\n", "{arch}: {stderr}");
        let printed: Vec<&str> = stderr
            .lines()
            .filter_map(|l| l.strip_prefix("npusim: out: simprint: "))
            .collect();
        assert_eq!(
            printed,
            [
                "sending 3 words",
                "sent",
                "5 = 0x00000005, word 0b0000000000000000",
                "255 = 0x000000FF, word 0b0000000000000001",
                "70000 = 0x00011170, word 0b0000000000000010",
                "total 70260.0",
            ],
            "{arch}: {stderr}"
        );
    }
}

#[test]
fn a_control_wavelet_encoded_by_the_control_library_starts_the_task_it_names() {
    for arch in ["wse2", "wse3"] {
        let Some((stdout, stderr)) = cslc_then_cs_python(
            "sdk_control",
            arch,
            &["--fabric-dims=9,3", "--fabric-offsets=4,1"],
        ) else {
            return;
        };
        assert_eq!(stdout, "SUCCESS!\n", "{arch}: {stderr}");
    }
}

#[test]
fn cslc_counts_pe_program_files_and_module_files_apart() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let a = npusim()
        .arg("cslc")
        .arg(program_dir("sdk_modules").join("layout.csl"))
        .args(["--fabric-dims=9,3", "--params=n:4", "--memcpy", "-o"])
        .arg(&out)
        .assert()
        .success();
    assert_eq!(
        String::from_utf8(a.get_output().stdout.clone()).unwrap(),
        format!(
            "compiled layout.csl for wse2: a 2x1 rectangle at (4, 1) of a 9x3 fabric, 1 PE program file and 3 module files; wrote {}\n",
            out.display()
        )
    );
    for f in ["pe_program.csl", "scale.csl", "util.csl", "tally.csl"] {
        assert!(out.join("src").join(f).is_file(), "{f}");
    }
}
