//! An interrupted `npusim cast` leaves no file behind: a real run on a large input is killed
//! with SIGTERM (and SIGINT) while it writes, and neither the temporary nor the output file
//! remains.

// Test code: an unwrap that fails is a failed test.
#![allow(clippy::unwrap_used)]
#![cfg(unix)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A little-endian f32 `.npy` of `n` elements (numpy's v1 header, 64-byte aligned).
fn write_f32_npy(path: &Path, n: usize) {
    let dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': ({n},), }}");
    let total = (10 + dict.len() + 1).div_ceil(64) * 64;
    let mut header = b"\x93NUMPY\x01\x00".to_vec();
    header.extend_from_slice(&((total - 10) as u16).to_le_bytes());
    header.extend_from_slice(dict.as_bytes());
    header.resize(total - 1, b' ');
    header.push(b'\n');
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    f.write_all(&header).unwrap();
    let chunk: Vec<u8> = (0..1u32 << 16)
        .flat_map(|i| (i as f32 * 0.37).to_le_bytes())
        .collect();
    let mut left = n;
    while left > 0 {
        let k = left.min(1 << 16);
        f.write_all(&chunk[..4 * k]).unwrap();
        left -= k;
    }
}

/// Names of the files in `dir` other than `keep`.
fn others(dir: &Path, keep: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != keep)
        .collect()
}

/// Starts a cast of `input` into `dir`, waits until its temporary file exists, sends `signal`
/// and returns the exit code; `None` if the cast finished before a temporary file was seen.
fn interrupt(input: &Path, dir: &Path, signal: &str) -> Option<i32> {
    let out = dir.join("out.npy");
    let mut child = Command::new(env!("CARGO_BIN_EXE_npusim"))
        .args(["cast", "--to", "bf16", "--round", "odd", "-o"])
        .arg(&out)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let seen = loop {
        if others(dir, "in.npy").iter().any(|n| n.ends_with(".tmp")) {
            break true;
        }
        if child.try_wait().unwrap().is_some() || start.elapsed() > Duration::from_secs(60) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(2));
    };
    if !seen {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let status = child.wait().unwrap();
    Some(status.code().unwrap_or(-1))
}

#[test]
fn sigterm_and_sigint_mid_write_leave_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    // 256 MiB of f32: long enough to be caught while the output is written.
    write_f32_npy(&input, 64 << 20);
    for (signal, code) in [("-TERM", 143), ("-INT", 130)] {
        // A run may finish between seeing its temporary file and the signal: try again then.
        let mut got = None;
        for _ in 0..5 {
            got = interrupt(&input, dir.path(), signal);
            if got.is_some_and(|c| c != 0) {
                break;
            }
            let _ = std::fs::remove_file(dir.path().join("out.npy"));
        }
        let Some(got) = got.filter(|&c| c != 0) else {
            panic!("every cast finished before it could be interrupted");
        };
        assert_eq!(got, code, "exit code after {signal}");
        let left = others(dir.path(), "in.npy");
        assert!(left.is_empty(), "after {signal}, files left: {left:?}");
    }
}
