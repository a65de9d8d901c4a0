//! `npusim cast --stats --json`: per-tensor and total error statistics, checked against the
//! same figures computed here from the input and output files.

// Test code: an unwrap that fails is a failed test (also in helpers).

use std::path::Path;

use assert_cmd::Command;
use npusim_numerics::Format;
use safetensors::SafeTensors;

/// Input values of a F32 or BF16 tensor as f64.
fn values(dtype: safetensors::Dtype, data: &[u8]) -> Vec<f64> {
    match dtype {
        safetensors::Dtype::F32 => data
            .chunks_exact(4)
            .map(|c| f64::from(f32::from_le_bytes(c.try_into().unwrap())))
            .collect(),
        safetensors::Dtype::BF16 => data
            .chunks_exact(2)
            .map(|c| {
                f64::from(f32::from_bits(
                    u32::from(u16::from_le_bytes([c[0], c[1]])) << 16,
                ))
            })
            .collect(),
        other => panic!("unexpected dtype {other}"),
    }
}

#[test]
fn json_statistics_agree_with_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/model.safetensors");
    let out = dir.path().join("m8.safetensors");
    let run = Command::cargo_bin("npusim")
        .unwrap()
        .arg("cast")
        .arg(&input)
        .arg("-o")
        .arg(&out)
        .args(["--to", "f8e4m3fn", "--json"])
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let in_bytes = std::fs::read(&input).unwrap();
    let out_bytes = std::fs::read(&out).unwrap();
    let src = SafeTensors::deserialize(&in_bytes).unwrap();
    let dst = SafeTensors::deserialize(&out_bytes).unwrap();
    let max = Format::F8E4M3FN.max_finite();
    let mut total_elements = 0u64;
    let mut total_sse = 0.0f64;
    let mut cast_tensors = 0;
    for t in doc["tensors"].as_array().unwrap() {
        let name = t["name"].as_str().unwrap();
        if t["action"] == "kept" {
            assert!(t.get("error").is_none());
            continue;
        }
        cast_tensors += 1;
        let sv = src.tensor(name).unwrap();
        let xs = values(sv.dtype(), sv.data());
        let ys: Vec<f64> = dst
            .tensor(name)
            .unwrap()
            .data()
            .iter()
            .map(|&c| Format::F8E4M3FN.decode(u64::from(c)).to_f64())
            .collect();
        assert_eq!(xs.len(), ys.len());
        let (mut exact, mut flushed, mut sat, mut nan) = (0u64, 0u64, 0u64, 0u64);
        let (mut max_abs, mut sse, mut ssx) = (0.0f64, 0.0f64, 0.0f64);
        for (&x, &y) in xs.iter().zip(&ys) {
            if y.is_nan() {
                nan += 1;
                continue;
            }
            exact += u64::from(x == y);
            flushed += u64::from(x != 0.0 && y == 0.0);
            sat += u64::from(x.abs() > max && y.abs() == max);
            max_abs = max_abs.max((y - x).abs());
            sse += (y - x) * (y - x);
            ssx += x * x;
        }
        let e = &t["error"];
        assert_eq!(e["elements"].as_u64().unwrap(), xs.len() as u64, "{name}");
        assert_eq!(e["exact"].as_u64().unwrap(), exact, "{name}");
        assert_eq!(e["flushed_to_zero"].as_u64().unwrap(), flushed, "{name}");
        assert_eq!(e["saturated"].as_u64().unwrap(), sat, "{name}");
        assert_eq!(e["nan"].as_u64().unwrap(), nan, "{name}");
        assert_eq!(e["max_abs_error"].as_f64().unwrap(), max_abs, "{name}");
        let rmse = (sse / xs.len() as f64).sqrt();
        let sqnr = 10.0 * (ssx / sse).log10();
        assert!(
            (e["rmse"].as_f64().unwrap() - rmse).abs() <= 1e-12 * rmse,
            "{name}"
        );
        assert!(
            (e["sqnr_db"].as_f64().unwrap() - sqnr).abs() <= 1e-9,
            "{name}"
        );
        total_elements += xs.len() as u64;
        total_sse += sse;
    }
    assert_eq!(cast_tensors, 21);
    let total = &doc["total"];
    assert_eq!(total["elements"].as_u64().unwrap(), total_elements);
    let rmse = (total_sse / total_elements as f64).sqrt();
    assert!((total["rmse"].as_f64().unwrap() - rmse).abs() <= 1e-12 * rmse);
}

#[test]
fn the_table_has_a_row_per_cast_tensor_and_a_total() {
    let dir = tempfile::tempdir().unwrap();
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/w.npy");
    let run = Command::cargo_bin("npusim")
        .unwrap()
        .arg("cast")
        .arg(&input)
        .arg("-o")
        .arg(dir.path().join("w4.npy"))
        .args(["--to", "f4e2m1", "--stats"])
        .output()
        .unwrap();
    assert!(run.status.success());
    let text = String::from_utf8(run.stdout).unwrap();
    let header = text.lines().find(|l| l.starts_with("tensor ")).unwrap();
    assert!(
        header.contains("SQNR dB") && header.contains("saturated"),
        "{header}"
    );
    let w = text.lines().find(|l| l.starts_with("w.npy ")).unwrap();
    let total = text.lines().find(|l| l.starts_with("total ")).unwrap();
    // One tensor: the total row repeats its figures.
    fn cells(l: &str) -> Vec<&str> {
        l.split_whitespace().rev().take(9).collect()
    }
    assert_eq!(cells(w), cells(total));
    // The four outliers of examples/w.npy (±600, ±1000) saturate to ±6.
    assert_eq!(cells(w)[2], "4", "{w}");
}
