//! What many of these tests share: the binary, paths in the repository, and plain `.npy`
//! files read and written without the code under test.

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The `npusim` binary under test.
pub fn npusim() -> Command {
    Command::cargo_bin("npusim").unwrap()
}

/// A path relative to the repository's root.
pub fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// A file of the repository's `examples/` folder.
pub fn example(name: &str) -> PathBuf {
    repo("examples").join(name)
}

/// A file of this crate's `tests/fixtures/` folder.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// The descr, the shape as `2,4` (no spaces, no trailing comma) and the data bytes of a plain
/// `.npy` file (format 1.0).
pub fn npy_parts(path: &Path) -> (String, String, Vec<u8>) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..6], b"\x93NUMPY");
    let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    let header = String::from_utf8(bytes[10..10 + len].to_vec()).unwrap();
    let field = |key: &str, end: char| {
        let at = header.find(key).unwrap() + key.len();
        header[at..at + header[at..].find(end).unwrap()].to_string()
    };
    (
        field("'descr': '", '\''),
        field("'shape': (", ')')
            .split(',')
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .collect::<Vec<_>>()
            .join(","),
        bytes[10 + len..].to_vec(),
    )
}

/// Writes a plain `.npy` file (format 1.0, C order) of `shape` with element type `descr`.
pub fn write_npy(path: &Path, descr: &str, shape: &[usize], data: &[u8]) {
    let dims: String = shape
        .iter()
        .map(|d| format!("{d},"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut header = format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': ({dims}), }}");
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut b = b"\x93NUMPY\x01\x00".to_vec();
    b.extend_from_slice(&(header.len() as u16).to_le_bytes());
    b.extend_from_slice(header.as_bytes());
    b.extend_from_slice(data);
    std::fs::write(path, b).unwrap();
}

/// A Python with numpy for `npusim cs-python`: `NPUSIM_PYTHON`, the venv `tools/test-python`
/// builds, or `python3`; `None` when none of them imports numpy.
pub fn python_with_numpy() -> Option<PathBuf> {
    let candidates = std::env::var_os("NPUSIM_PYTHON")
        .map(PathBuf::from)
        .into_iter()
        .chain([repo("target/py-venv/bin/python"), PathBuf::from("python3")]);
    candidates.into_iter().find(|p| {
        std::process::Command::new(p)
            .args(["-c", "import numpy"])
            .output()
            .is_ok_and(|o| o.status.success())
    })
}
