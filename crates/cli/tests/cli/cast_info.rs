//! `npusim info`: every tensor of a file from its header, as a table or JSON.

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::path::PathBuf;

use crate::support::example;
use assert_cmd::Command;

/// The JSON header of a `.safetensors` file, read directly.
fn header(path: &PathBuf) -> serde_json::Map<String, serde_json::Value> {
    let bytes = std::fs::read(path).unwrap();
    let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
    serde_json::from_slice(&bytes[8..8 + n]).unwrap()
}

#[test]
fn json_lists_every_tensor_of_a_checkpoint_as_its_header_says() {
    let path = example("model.safetensors");
    let out = Command::cargo_bin("npusim")
        .unwrap()
        .args(["info", "--json"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(out.status.success());
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let tensors = doc["tensors"].as_array().unwrap();
    let head = header(&path);
    assert_eq!(
        tensors.len(),
        head.len() - 1,
        "every tensor but __metadata__"
    );
    for t in tensors {
        let entry = &head[t["name"].as_str().unwrap()];
        assert_eq!(t["dtype"], entry["dtype"]);
        assert_eq!(t["shape"], entry["shape"]);
        let offsets = entry["data_offsets"].as_array().unwrap();
        let span = offsets[1].as_u64().unwrap() - offsets[0].as_u64().unwrap();
        assert_eq!(t["bytes"].as_u64().unwrap(), span);
        let shape: Vec<u64> = entry["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d.as_u64().unwrap())
            .collect();
        assert_eq!(
            t["elements"].as_u64().unwrap(),
            shape.iter().product::<u64>()
        );
    }
    assert_eq!(doc["metadata"], head["__metadata__"]);
}

#[test]
fn the_table_has_a_row_per_tensor_and_raw_files_are_refused() {
    let out = Command::cargo_bin("npusim")
        .unwrap()
        .arg("info")
        .arg(example("w.npy"))
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let row = text.lines().nth(1).unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        ["w.npy", "<f4", "f32", "[32,", "64]", "2048", "8192"]
    );
    Command::cargo_bin("npusim")
        .unwrap()
        .arg("info")
        .arg(example("x.bin"))
        .assert()
        .failure()
        .stderr(predicates::str::contains("a raw file has no header"))
        // The library says what is missing; the CLI says which options give it.
        .stderr(predicates::str::contains(
            "`npusim cast` reads it given --from FMT --shape DIMS",
        ));
}
