//! An interrupted `npusim cast` leaves no file behind: a real run on a large input is sent
//! each signal that ends a process by default while it writes (HUP INT QUIT TERM USR1 USR2
//! ALRM VTALRM PROF XCPU XFSZ, and on Linux IO PWR STKFLT, a real-time signal and even
//! SIGKILL), and neither a temporary nor the output file remains; an existing output is left
//! as it was.

// Test code: an unwrap that fails is a failed test.

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

/// Whether the cast `pid` has started writing its output in `dir`: a temporary name is
/// there, or (Linux, unnamed output file) the process holds a file of `dir` other than the
/// input that already has data.
fn writing(pid: u32, dir: &Path) -> bool {
    if others(dir, "in.npy").iter().any(|n| n.ends_with(".tmp")) {
        return true;
    }
    let Ok(fds) = std::fs::read_dir(format!("/proc/{pid}/fd")) else {
        return false;
    };
    fds.flatten().any(|fd| {
        let Ok(target) = std::fs::read_link(fd.path()) else {
            return false;
        };
        target.parent() == Some(dir)
            && target.file_name().is_some_and(|n| n != "in.npy")
            && std::fs::metadata(fd.path()).is_ok_and(|m| m.is_file() && m.len() > 0)
    })
}

/// Starts a cast of `input` into `dir`, waits until it writes its output, sends `signal` (a
/// number) and returns the exit code (`-1` if killed by the signal); `None` if the cast
/// finished before it was seen writing.
fn interrupt(input: &Path, dir: &Path, signal: i32) -> Option<i32> {
    let out = dir.join("out.npy");
    let mut child = Command::new(env!("CARGO_BIN_EXE_npusim"))
        .args(["cast", "--to", "bf16", "--round", "odd", "-o"])
        .arg(&out)
        .arg(input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // A shell started before the cast sends the signal with its built-in `kill` as soon as it
    // reads the pid: no process to start between seeing the write and signalling it (a loaded
    // machine could take longer to start one than the cast takes to finish).
    let mut sender = Command::new("sh")
        .arg("-c")
        .arg(format!("read pid && kill -{signal} \"$pid\""))
        .stdin(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    let seen = loop {
        if writing(child.id(), dir) {
            break true;
        }
        if child.try_wait().unwrap().is_some() || start.elapsed() > Duration::from_secs(60) {
            break false;
        }
        std::thread::sleep(Duration::from_millis(1));
    };
    if !seen {
        drop(sender.stdin.take()); // the shell reads nothing and ends
        let _ = sender.wait();
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    let mut pid = sender.stdin.take().unwrap();
    writeln!(pid, "{}", child.id()).unwrap();
    drop(pid);
    assert!(sender.wait().unwrap().success());
    let status = child.wait().unwrap();
    Some(status.code().unwrap_or(-1))
}

/// Whether this process ignores `signal` (Linux: its bit in `/proc/self/status`'s `SigIgn`),
/// as a child started from it then does.
fn ignored_by_this_process(signal: i32) -> bool {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return false;
    };
    status
        .lines()
        .find_map(|l| l.strip_prefix("SigIgn:"))
        .and_then(|hex| u64::from_str_radix(hex.trim(), 16).ok())
        .is_some_and(|mask| mask >> (signal - 1) & 1 == 1)
}

/// Interrupts casts of `input` with `signal` until one is caught mid-write; its exit code.
/// A cast that finished first is undone: its output removed, or `old_output` put back.
fn interrupt_mid_write(input: &Path, dir: &Path, signal: i32, old_output: Option<&[u8]>) -> i32 {
    for _ in 0..5 {
        match interrupt(input, dir, signal) {
            Some(code) if code != 0 => return code,
            // Finished between being seen and the signal: try again.
            _ => match old_output {
                Some(old) => std::fs::write(dir.join("out.npy"), old).unwrap(),
                None => {
                    let _ = std::fs::remove_file(dir.join("out.npy"));
                }
            },
        }
    }
    panic!("every cast finished before signal {signal} could interrupt it");
}

/// The signals that end a process by default and can be caught, by number: the handler
/// removes the unfinished output and exits with 128 + the number.
fn caught_signals() -> Vec<(&'static str, i32)> {
    let mut v = vec![
        ("HUP", 1),
        ("INT", 2),
        ("QUIT", 3),
        ("USR1", 10),
        ("USR2", 12),
        ("ALRM", 14),
        ("TERM", 15),
        ("XCPU", 24),
        ("XFSZ", 25),
        ("VTALRM", 26),
        ("PROF", 27),
    ];
    if cfg!(all(
        target_os = "linux",
        any(target_arch = "x86_64", target_arch = "aarch64")
    )) {
        v.extend([("STKFLT", 16), ("IO", 29), ("PWR", 30), ("RTMIN+6", 40)]);
    }
    v
}

#[test]
fn every_terminating_signal_mid_write_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    // 256 MiB of f32: long enough to be caught while the output is written.
    write_f32_npy(&input, 64 << 20);
    for (name, signal) in caught_signals() {
        if ignored_by_this_process(signal) {
            // A cast started with a signal ignored keeps it ignored (the next test checks
            // that): under `nohup`, SIGHUP cannot interrupt it. Said, not passed silently.
            eprintln!("SIG{name} is ignored by the test process (started under nohup?): not tried");
            continue;
        }
        let got = interrupt_mid_write(&input, dir.path(), signal, None);
        assert_eq!(got, 128 + signal, "exit code after SIG{name}");
        let left = others(dir.path(), "in.npy");
        assert!(left.is_empty(), "after SIG{name}, files left: {left:?}");
    }
    // SIGKILL cannot be caught: on Linux the output has no name until it is complete.
    if cfg!(target_os = "linux") {
        let got = interrupt_mid_write(&input, dir.path(), 9, None);
        assert_eq!(got, -1, "SIGKILL kills");
        let left = others(dir.path(), "in.npy");
        assert!(left.is_empty(), "after SIGKILL, files left: {left:?}");
    }
    // An existing output is left as it was.
    let out = dir.path().join("out.npy");
    let old = b"the old output";
    std::fs::write(&out, old).unwrap();
    for signal in [15, 3, 9] {
        interrupt_mid_write(&input, dir.path(), signal, Some(old));
        assert_eq!(std::fs::read(&out).unwrap(), b"the old output");
        let mut left = others(dir.path(), "in.npy");
        left.retain(|n| n != "out.npy");
        assert!(
            left.is_empty(),
            "after signal {signal}, files left: {left:?}"
        );
    }
}

/// The issue's case: a file-size limit stops the cast part-way (SIGXFSZ, or the write fails
/// with "File too large" once the signal is caught); no file is left either way.
#[test]
fn a_file_size_limit_leaves_no_file() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    write_f32_npy(&input, 4 << 20);
    let out = dir.path().join("out.npy");
    let status = Command::new("sh")
        .arg("-c")
        .arg(r#"ulimit -f 1000; exec "$0" cast "$1" -o "$2" --to bf16 -q"#)
        .arg(env!("CARGO_BIN_EXE_npusim"))
        .arg(&input)
        .arg(&out)
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "a 8 MiB output under a 1000-block limit");
    let left = others(dir.path(), "in.npy");
    assert!(left.is_empty(), "files left: {left:?}");
}

/// A signal ignored when the cast starts (as `nohup` ignores SIGHUP) stays ignored: sent
/// mid-write, it neither ends the cast nor removes its output, which comes out complete.
#[test]
#[cfg(target_os = "linux")]
fn a_signal_ignored_at_start_stays_ignored() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("in.npy");
    let n = 32usize << 20;
    write_f32_npy(&input, n);
    let out = dir.path().join("out.npy");
    let mut child = Command::new("sh")
        .arg("-c")
        .arg("trap '' HUP; exec \"$0\" cast --to bf16 --round odd -o \"$1\" \"$2\"")
        .arg(env!("CARGO_BIN_EXE_npusim"))
        .arg(&out)
        .arg(&input)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !writing(child.id(), dir.path()) && start.elapsed() < Duration::from_secs(60) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    // Sent mid-write, or after the end if the cast was quicker: either way it must not matter.
    let _ = Command::new("kill")
        .args(["-HUP", &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    assert_eq!(
        status.code(),
        Some(0),
        "the cast was ended by an ignored SIGHUP"
    );
    let data_bytes = 2 * n as u64;
    let len = std::fs::metadata(&out).unwrap().len();
    assert!(len > data_bytes, "output of {len} bytes is not complete");
}
