//! Standard output that fails: every command that prints (`info`, `formats`, `tour`,
//! `ascend cast`, `bench`) ends quietly with status 141 when its reader has closed the pipe,
//! as Unix tools do, and with an error naming standard output for any other write error. It
//! never panics ("failed printing to stdout", exit 101).

// Test code: an unwrap that fails is a failed test (also in helpers).

use crate::support::repo;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// `npusim` with `args`, run in a fresh temporary directory (kept alive by the caller).
fn npusim(args: &[&str], dir: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_npusim"));
    cmd.args(args).current_dir(dir).stdin(Stdio::null());
    cmd
}

/// The commands under test, each with output on standard output when it succeeds.
fn commands(dir: &Path) -> Vec<Vec<String>> {
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    vec![
        vec!["info".into(), s(repo("examples/model.safetensors"))],
        vec![
            "info".into(),
            "--json".into(),
            s(repo("examples/model.safetensors")),
        ],
        vec!["info".into(), s(repo("examples/x.npy"))],
        vec!["formats".into()],
        vec!["formats".into(), "--long".into()],
        vec!["tour".into()],
        vec![
            "ascend".into(),
            "cast".into(),
            s(repo("examples/ascend/more_samples_src.npy")),
            "-o".into(),
            s(dir.join("out.npy")),
            "--call".into(),
            s(repo("examples/ascend/more_samples_mask32.toml")),
        ],
        vec![
            "bench".into(),
            "--quick".into(),
            "--repeats".into(),
            "1".into(),
            "--case".into(),
            "f32->i4".into(),
        ],
    ]
}

/// Standard error as text.
fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn a_reader_that_closed_the_pipe_ends_the_command_quietly_with_141() {
    let dir = tempfile::tempdir().unwrap();
    for args in commands(dir.path()) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        // The reader is gone before the command writes a byte: its first write fails.
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = npusim(&args, dir.path())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(!err.contains("error"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(141), "{args:?}: {err}");
    }
}

#[test]
fn a_reader_that_reads_a_little_then_leaves_ends_the_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    // `formats --long` and `tour --verbose` write more than a pipe holds in small pieces.
    for args in [&["formats", "--long"][..], &["tour", "--verbose"][..]] {
        let mut child = npusim(args, dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = [0u8; 10];
        let mut stdout = child.stdout.take().unwrap();
        stdout.read_exact(&mut first).unwrap();
        drop(stdout);
        let out = child.wait_with_output().unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // Either the command finished writing before the reader left (0) or it stopped.
        let code = out.status.code();
        assert!(
            code == Some(141) || code == Some(0),
            "{args:?}: {code:?} {err}"
        );
    }
}

#[test]
fn any_other_write_error_is_an_error_naming_standard_output() {
    let dir = tempfile::tempdir().unwrap();
    // Standard output is a regular file that already holds 4096 bytes, appended to by a
    // process that may not write files past 4096 bytes (`ulimit -f 8`, 512-byte blocks;
    // SIGXFSZ ignored, so the write fails with EFBIG instead of killing the process). Its
    // other files (ascend's 2176-byte output) stay below the limit. A descriptor opened
    // read-only would not do: Rust's standard output takes EBADF for a closed stream and
    // drops the bytes.
    for args in commands(dir.path()) {
        let path = dir.path().join("stdout");
        std::fs::write(&path, [b'.'; 4096]).unwrap();
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        let mut script = String::from("ulimit -f 8; trap '' XFSZ; exec \"$0\"");
        for i in 1..=args.len() {
            script.push_str(&format!(" \"${{{i}}}\""));
        }
        let out = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .arg(env!("CARGO_BIN_EXE_npusim"))
            .args(&args)
            .current_dir(dir.path())
            .stdin(Stdio::null())
            .stdout(file)
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let err = stderr(&out);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(out.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("error: cannot write to standard output: File too large"),
            "{args:?}: {err}"
        );
    }
}
