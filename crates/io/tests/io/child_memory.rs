//! Memory measured in a child process: the parent re-runs this test program on one ignored
//! test (the child), which does one job between two readings of `/proc/self/status` and
//! prints them on a line `<marker>: before <kB> kB, peak <kB> kB`. Other tests cannot disturb
//! a child's figures, and nothing is timed.

// Test code: an unwrap that fails is a failed test.
#![allow(clippy::unwrap_used)]

use std::path::Path;
use std::process::Command;

/// A `kB` field of `/proc/self/status` (`VmRSS`, `VmHWM`), if there is one.
pub fn status_kb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// Whether this system reports peak resident memory (else the memory tests say they skipped).
pub fn measurable() -> bool {
    if status_kb("VmHWM:").is_none() {
        eprintln!("skipped: no /proc/self/status (peak resident memory) on this system");
        return false;
    }
    true
}

/// In the child: the line the parent reads, from the resident memory `before` the job and
/// the peak after it.
pub fn print_reading(marker: &str, before: u64) {
    let peak = status_kb("VmHWM:").unwrap();
    println!("{marker}: before {before} kB, peak {peak} kB");
}

/// Runs the ignored test `child` of this program with the environment `env`, and returns its
/// reading line and how many bytes its resident memory grew from before the job to the peak.
pub fn child_growth(child: &str, marker: &str, env: &[(&str, &Path)]) -> (String, u64) {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([child, "--ignored", "--nocapture", "--test-threads=1"]);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{child}: {:?}\n{stdout}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.find(&format!("{marker}:")).map(|at| l[at..].to_string()))
        .unwrap_or_else(|| panic!("the child ran nothing:\n{stdout}"));
    let kb: Vec<u64> = line
        .split_whitespace()
        .filter_map(|w| w.trim_end_matches(',').parse().ok())
        .collect();
    let [before, peak] = kb[..] else {
        panic!("{line}");
    };
    let grown = peak.saturating_sub(before) * 1024;
    (line, grown)
}
