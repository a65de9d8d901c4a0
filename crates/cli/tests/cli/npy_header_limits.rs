//! One limit on a `.npy` header's size and bracket nesting, shared by `cast`,
//! `cast --dry-run` and `info`: a header past it is refused before it is parsed, with a
//! message naming the size or depth and the limit (the header parser's time grows
//! exponentially with nesting; a 260-byte header once took minutes).

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::path::Path;

use assert_cmd::Command;
use predicates::prelude::*;

/// A version 2.0 `.npy` file with this header text (padded, newline-terminated) and
/// `data` bytes after it.
fn npy_v2(path: &Path, text: &str, data: usize) {
    let mut t = text.as_bytes().to_vec();
    while !(12 + t.len() + 1).is_multiple_of(64) {
        t.push(b' ');
    }
    t.push(b'\n');
    let mut b = b"\x93NUMPY\x02\x00".to_vec();
    b.extend_from_slice(&(t.len() as u32).to_le_bytes());
    b.extend_from_slice(&t);
    b.resize(b.len() + data, 0);
    std::fs::write(path, b).unwrap();
}

/// Runs `info`, `cast --dry-run` and `cast` on `input`; each must fail with `message`,
/// writing nothing.
fn all_refuse(input: &Path, message: &str) {
    let dir = input.parent().unwrap();
    let out = dir.join("out.npy");
    let runs: [&[&str]; 3] = [
        &["info"],
        &["cast", "--to", "f16", "--dry-run", "-o"],
        &["cast", "--to", "f16", "-o"],
    ];
    for args in runs {
        let mut cmd = Command::cargo_bin("npusim").unwrap();
        cmd.args(args);
        if args[0] == "cast" {
            cmd.arg(&out);
        }
        cmd.arg(input)
            .assert()
            .failure()
            .stderr(predicate::str::contains(message));
        assert!(!out.exists(), "{args:?} wrote an output");
    }
}

#[test]
fn a_header_nested_past_the_limit_is_refused_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    // 13 levels: `{` of the header, then six `[{` pairs. Parsed, it would be accepted (the
    // extra key is ignored), slowly.
    let deep = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': {}1{}, }}",
        "[{'a': ".repeat(6),
        "}]".repeat(6)
    );
    let input = dir.path().join("deep.npy");
    npy_v2(&input, &deep, 4);
    all_refuse(
        &input,
        "the .npy header nests brackets 13 levels deep, more than the 8 npusim parses",
    );
    // The 260-byte header of the issue: 24 levels.
    let deeper = format!(
        "{{'descr': '<f4', 'fortran_order': False, 'shape': (1,), 'x': {}1{}, }}",
        "[{'a': ".repeat(12),
        "}]".repeat(12)
    );
    let input = dir.path().join("deeper.npy");
    npy_v2(&input, &deeper, 4);
    all_refuse(&input, "nests brackets 25 levels deep, more than the 8");
}

#[test]
fn a_header_longer_than_the_limit_is_refused_by_every_reader() {
    let dir = tempfile::tempdir().unwrap();
    // A valid header padded to 100,000 bytes: under the old `info` limit (100 MB), and `cast`
    // had none.
    let mut text = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }".to_string();
    text.push_str(&" ".repeat(100_000 - 64));
    let input = dir.path().join("long.npy");
    npy_v2(&input, &text, 4);
    all_refuse(
        &input,
        "the .npy header is 100020 bytes, more than the 65536 npusim reads",
    );
    // At the limit's edge a plain header still reads.
    let mut text = "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }".to_string();
    text.push_str(&" ".repeat(60_000));
    let input = dir.path().join("padded.npy");
    npy_v2(&input, &text, 4);
    Command::cargo_bin("npusim")
        .unwrap()
        .arg("info")
        .arg(&input)
        .assert()
        .success()
        .stdout(predicate::str::contains("<f4"));
}
