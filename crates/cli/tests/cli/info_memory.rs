//! `npusim info` on a `.safetensors` header of many small tensors costs memory near the
//! header's own size: the header is checked entry by entry (no JSON tree of it) and the
//! table or JSON is written a row at a time (no whole-output copy). Measured without timing:
//! the command runs under an address-space limit (`ulimit -v`) that a JSON tree of the
//! header, or a copy of the output, does not fit in.

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// A `.safetensors` file of `n` one-element F32 tensors `t0000000`, `t0000001`, ...
fn many_tensors(path: &Path, n: usize) {
    let mut json = String::from("{");
    for i in 0..n {
        if i > 0 {
            json.push(',');
        }
        json.push_str(&format!(
            "\"t{i:07}\":{{\"dtype\":\"F32\",\"shape\":[1],\"data_offsets\":[{},{}]}}",
            4 * i,
            4 * i + 4
        ));
    }
    json.push('}');
    while json.len() % 8 != 0 {
        json.push(' ');
    }
    let mut f = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    f.write_all(&(json.len() as u64).to_le_bytes()).unwrap();
    f.write_all(json.as_bytes()).unwrap();
    f.write_all(&vec![0u8; 4 * n]).unwrap();
    f.flush().unwrap();
}

#[test]
fn a_header_of_200k_tensors_is_listed_within_350_mb_of_address_space() {
    let dir = tempfile::tempdir().unwrap();
    let input = dir.path().join("many.safetensors");
    let n = 200_000;
    many_tensors(&input, n);
    let header = std::fs::metadata(&input).unwrap().len() - 4 * n as u64;
    assert!(header > 13_000_000, "{header}");
    for json in [true, false] {
        let mut cmd = Command::new("sh");
        cmd.arg("-c")
            .arg("ulimit -v 350000; exec \"$@\"")
            .arg("sh")
            .arg(env!("CARGO_BIN_EXE_npusim"))
            .arg("info");
        if json {
            cmd.arg("--json");
        }
        let out = cmd
            .arg(&input)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "json {json}: {:?} {}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        if json {
            let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
            let tensors = doc["tensors"].as_array().unwrap();
            assert_eq!(tensors.len(), n);
            assert_eq!(tensors[n - 1]["name"], "t0199999");
            assert_eq!(tensors[7]["bytes"], 4);
        } else {
            assert_eq!(text.lines().count(), n + 2);
            assert!(text.contains("200000 tensor(s), 200000 elements, 800000 bytes of data"));
        }
    }
}
