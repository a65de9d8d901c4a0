//! Where `npusim cast` writes, end to end through the binary: a FIFO or `/proc/self/fd/N` is
//! written into (never replaced by a file), a link's target is replaced (the link stays), an
//! existing output keeps its mode and a read-only one needs `--force`, the longest legal name
//! works, other commands' outputs (a trace) follow the same rules, and a failing standard
//! output never panics. No test touches `/dev`: FIFOs, pipes and links live in temporary
//! directories.

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, PermissionsExt, symlink};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use assert_cmd::Command;

/// The example f32 weights (32 x 64).
fn weights() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/w.npy")
}

/// `npusim cast <weights> --to bf16 -q -o <out>` plus `extra`.
fn cast_to(out: &Path, extra: &[&str]) -> Command {
    let mut cmd = Command::cargo_bin("npusim").unwrap();
    cmd.arg("cast")
        .arg(weights())
        .args(["--to", "bf16", "-q", "-o"])
        .arg(out)
        .args(extra);
    cmd
}

/// The binary, for runs that need their own standard output.
fn npusim() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_npusim"))
}

/// The bytes a cast to a regular file writes.
fn expected_bytes() -> Vec<u8> {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ref.npy");
    cast_to(&out, &[]).assert().success();
    std::fs::read(out).unwrap()
}

fn mkfifo(path: &Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// Reads the FIFO `path` whole on another thread.
fn read_fifo(path: &Path) -> std::thread::JoinHandle<Vec<u8>> {
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let mut got = Vec::new();
        std::fs::File::open(path)
            .unwrap()
            .read_to_end(&mut got)
            .unwrap();
        got
    })
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o7777
}

#[test]
fn a_fifo_output_gets_the_data_and_stays_a_fifo() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out");
    mkfifo(&fifo);
    let reader = read_fifo(&fifo);
    cast_to(&fifo, &["--format", "npy"]).assert().success();
    // Checked first: a reader of a replaced FIFO would wait for ever.
    let kind = std::fs::symlink_metadata(&fifo).unwrap().file_type();
    assert!(kind.is_fifo(), "the FIFO was replaced");
    assert_eq!(reader.join().unwrap(), expected_bytes());
    assert_eq!(names(dir.path()), ["out"]);
}

#[test]
fn a_fifo_whose_reader_leaves_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("out.npy");
    mkfifo(&fifo);
    let path = fifo.clone();
    // The reader opens the pipe and closes it at once: the cast's writes fail.
    let reader = std::thread::spawn(move || drop(std::fs::File::open(path).unwrap()));
    let big = dir.path().join("big.npy");
    write_f32_npy(&big, 1 << 20);
    let out = Command::cargo_bin("npusim")
        .unwrap()
        .arg("cast")
        .arg(&big)
        .args(["--to", "f32", "-q", "-o"])
        .arg(&fifo)
        .output()
        .unwrap();
    // Checked first: a reader of a replaced FIFO would wait for ever.
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    reader.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("writing") && stderr.contains("out.npy"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Linux's `O_NONBLOCK` on these architectures (no libc here).
#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
const O_NONBLOCK: i32 = 0o4000;

#[cfg(all(
    target_os = "linux",
    any(target_arch = "x86_64", target_arch = "aarch64")
))]
#[test]
fn a_fifo_output_gets_nothing_from_a_cast_fail_on_nan_refuses() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = tempfile::tempdir().unwrap();
    // Values up to 1023.5: above e4m3fn's 448, they become NaN (it has no Inf).
    let input = dir.path().join("in.npy");
    write_f32_npy(&input, 2048);
    let fifo = dir.path().join("out.npy");
    mkfifo(&fifo);
    let reader = read_fifo(&fifo);
    let got = npusim()
        .arg("cast")
        .arg(&input)
        .args(["--to", "f8e4m3fn", "--fail-on-nan", "-q", "-o"])
        .arg(&fifo)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&got.stderr);
    assert_eq!(got.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("became NaN"), "{stderr}");
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    // If the cast never opened the FIFO, the reader still waits: open and close the write end
    // to end it. A non-blocking open fails while the reader thread has not yet reached its own
    // open (a loaded machine may not have run it yet), so try again until the reader is done.
    let started = std::time::Instant::now();
    while !reader.is_finished() {
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .custom_flags(O_NONBLOCK)
            .open(&fifo);
        assert!(
            started.elapsed() < std::time::Duration::from_secs(120),
            "the FIFO's reader never finished"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let got = reader.join().unwrap();
    assert!(
        got.is_empty(),
        "a refused cast wrote {} bytes into the FIFO",
        got.len()
    );
}

#[cfg(target_os = "linux")]
#[test]
fn proc_self_fd_1_on_a_pipe_is_standard_output_not_a_new_file() {
    let out = npusim()
        .arg("cast")
        .arg(weights())
        .args([
            "--to",
            "bf16",
            "-q",
            "--format",
            "npy",
            "-o",
            "/proc/self/fd/1",
        ])
        .stdout(Stdio::piped())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(out.stdout, expected_bytes());
}

#[test]
fn a_link_chain_is_followed_and_stays_a_link() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("data")).unwrap();
    let real = dir.path().join("data/w_bf16.npy");
    std::fs::write(&real, b"old").unwrap();
    symlink("data/w_bf16.npy", dir.path().join("l1.npy")).unwrap();
    symlink(dir.path().join("l1.npy"), dir.path().join("l2.npy")).unwrap();
    cast_to(&dir.path().join("l2.npy"), &[]).assert().success();
    assert_eq!(std::fs::read(&real).unwrap(), expected_bytes());
    for link in ["l1.npy", "l2.npy"] {
        let kind = std::fs::symlink_metadata(dir.path().join(link))
            .unwrap()
            .file_type();
        assert!(kind.is_symlink(), "{link} was replaced by a file");
    }
    assert_eq!(names(dir.path()), ["data", "l1.npy", "l2.npy"]);
    assert_eq!(names(&dir.path().join("data")), ["w_bf16.npy"]);
}

#[test]
fn an_outputs_mode_is_kept_and_a_read_only_one_needs_force() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o640)).unwrap();
    cast_to(&out, &[]).assert().success();
    assert_eq!(mode(&out), 0o640);
    assert_eq!(std::fs::read(&out).unwrap(), expected_bytes());

    std::fs::write(&out, b"old").unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444)).unwrap();
    let refused = cast_to(&out, &[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("is read-only (mode 0444): not replaced; give --force"),
        "{stderr}"
    );
    assert_eq!(std::fs::read(&out).unwrap(), b"old");
    // The dry run says so too.
    let dry = cast_to(&out, &["--dry-run"]).output().unwrap();
    assert_eq!(dry.status.code(), Some(1));
    cast_to(&out, &["--force"]).assert().success();
    assert_eq!(std::fs::read(&out).unwrap(), expected_bytes());
    assert_eq!(mode(&out), 0o444);
    assert_eq!(names(dir.path()), ["o.npy"]);
}

#[test]
fn a_255_byte_output_name_is_accepted() {
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{}.npy", "w".repeat(251));
    let out = dir.path().join(&name);
    cast_to(&out, &[]).assert().success();
    cast_to(&out, &[]).assert().success();
    assert_eq!(std::fs::read(&out).unwrap(), expected_bytes());
    assert_eq!(names(dir.path()), [name]);
}

#[test]
fn a_trace_follows_the_same_rules() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("trace.json");
    mkfifo(&fifo);
    let reader = read_fifo(&fifo);
    Command::cargo_bin("npusim")
        .unwrap()
        .args(["cerebras", "run", "gemv-08-routes-3", "--trace"])
        .arg(&fifo)
        .assert()
        .success();
    // Checked first: a reader of a replaced FIFO would wait for ever.
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let trace: serde_json::Value = serde_json::from_slice(&reader.join().unwrap()).unwrap();
    assert!(trace["traceEvents"].is_array());
    let real = dir.path().join("real.json");
    std::fs::write(&real, b"old").unwrap();
    symlink("real.json", dir.path().join("link.json")).unwrap();
    Command::cargo_bin("npusim")
        .unwrap()
        .args(["cerebras", "run", "gemv-08-routes-3", "--trace"])
        .arg(dir.path().join("link.json"))
        .assert()
        .success();
    let trace: serde_json::Value = serde_json::from_slice(&std::fs::read(&real).unwrap()).unwrap();
    assert!(trace["traceEvents"].is_array());
    let kind = std::fs::symlink_metadata(dir.path().join("link.json"))
        .unwrap()
        .file_type();
    assert!(kind.is_symlink());
}

/// A standard output whose reader is gone before anything is written.
fn closed_pipe() -> std::io::PipeWriter {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    writer
}

#[test]
fn a_closed_standard_output_ends_the_cast_quietly_with_141() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o.npy");
    for extra in [
        &[][..],
        &["--stats"],
        &["--json"],
        &["--dry-run"],
        &["--dry-run", "--json"],
    ] {
        let mut cmd = npusim();
        cmd.arg("cast")
            .arg(weights())
            .args(["--to", "bf16", "-o"])
            .arg(&out)
            .args(extra)
            .stdout(closed_pipe());
        let got = cmd.output().unwrap();
        let stderr = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), Some(141), "{extra:?}: {stderr}");
        assert_eq!(stderr, "", "{extra:?}");
    }
    // The data itself on standard output.
    let got = npusim()
        .arg("cast")
        .arg(weights())
        .args(["--to", "bf16", "-o", "-"])
        .stdout(closed_pipe())
        .output()
        .unwrap();
    assert_eq!(
        got.status.code(),
        Some(141),
        "{}",
        String::from_utf8_lossy(&got.stderr)
    );
}

/// Standard output is a FIFO whose reader reads `keep` bytes and leaves: the writes fail
/// part-way (not a pipe closed before the start).
fn fifo_whose_reader_leaves(
    dir: &Path,
    keep: usize,
) -> (std::fs::File, Option<std::thread::JoinHandle<()>>) {
    let fifo = dir.join("stdout");
    mkfifo(&fifo);
    let path = fifo.clone();
    let reader = std::thread::spawn(move || {
        let mut f = std::fs::File::open(path).unwrap();
        let mut buf = vec![0u8; keep];
        let _ = f.read_exact(&mut buf);
    });
    let writer = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    (writer, Some(reader))
}

#[test]
fn a_standard_output_that_fails_part_way_ends_quietly_with_141() {
    let dir = tempfile::tempdir().unwrap();
    let big = dir.path().join("big.npy");
    write_f32_npy(&big, 1 << 20);
    let out = dir.path().join("o.npy");
    // The report, the --stats table and the --json document (the reader has gone when they
    // are written), and the data itself (the reader leaves after its first bytes).
    let runs: [(&[&str], &Path, usize); 4] = [
        (&["-o"], &out, 0),
        (&["--stats", "-o"], &out, 0),
        (&["--json", "-o"], &out, 0),
        (&["-o"], Path::new("-"), 8),
    ];
    for (args, target, keep) in runs {
        let (stdout, mut reader) = fifo_whose_reader_leaves(dir.path(), keep);
        if keep == 0
            && let Some(r) = reader.take()
        {
            r.join().unwrap();
        }
        let got = npusim()
            .arg("cast")
            .arg(&big)
            .args(["--to", "f32"])
            .args(args)
            .arg(target)
            .stdout(stdout)
            .output()
            .unwrap();
        if let Some(r) = reader {
            r.join().unwrap();
        }
        std::fs::remove_file(dir.path().join("stdout")).unwrap();
        let stderr = String::from_utf8_lossy(&got.stderr);
        assert_eq!(got.status.code(), Some(141), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// A little-endian f32 `.npy` of `n` elements (numpy's v1 header, 64-byte aligned).
fn write_f32_npy(path: &Path, n: usize) {
    let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n},), }}");
    let total = (10 + dict.len() + 1).div_ceil(64) * 64;
    let mut bytes = b"\x93NUMPY\x01\x00".to_vec();
    bytes.extend_from_slice(&((total - 10) as u16).to_le_bytes());
    bytes.extend_from_slice(dict.as_bytes());
    bytes.resize(total - 1, b' ');
    bytes.push(b'\n');
    bytes.extend((0..n).flat_map(|i| (i as f32 * 0.5).to_le_bytes()));
    std::fs::write(path, bytes).unwrap();
}
