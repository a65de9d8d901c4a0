//! A checkpoint-like directory (three shards, f32 / bf16 / f16 weights, 1-d norms, an i64
//! tensor, an excluded `lm_head`) quantised to MXFP4 and read back, against what numpy
//! computes independently (`tools/make_quantize_dir_vectors.py`, committed in
//! `tests/vectors/quantize_dir/`): the index keeps its structure, kept tensors stay byte for
//! byte, every dequantised value and the `--stats` figures per tensor and in total equal
//! numpy's.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use npusim_io::cast::ErrorStats;
use npusim_io::quantize::{INDEX_FILE, QuantizeJob, dequantize_dir, quantize_dir};
use npusim_io::safetensors::{self as st, Dtype};
use npusim_numerics::Format;
use npusim_numerics::block::Scheme;
use serde_json::Value;

fn vectors() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/quantize_dir")
}

fn json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

/// The tensor `name` of the directory `dir` (found through its index).
fn tensor(dir: &Path, name: &str) -> (Dtype, Vec<usize>, Vec<u8>) {
    let index = json(&dir.join(INDEX_FILE));
    let shard = index["weight_map"][name]
        .as_str()
        .unwrap_or_else(|| panic!("`{name}` is not in the index of {}", dir.display()));
    let bytes = std::fs::read(dir.join(shard)).unwrap();
    let f = st::parse(&bytes).unwrap();
    let t = f.tensor(name).unwrap();
    (t.dtype, t.shape.to_vec(), t.data.to_vec())
}

/// Counts equal, sums and the figures from them equal up to the order of summation.
fn check_stats(what: &str, got: &ErrorStats, want: &Value) {
    let int = |k: &str| want[k].as_u64().unwrap();
    // the figures as their f64 bits (a JSON reader may round decimals by an ulp)
    let real = |k: &str| f64::from_bits(want[format!("{k}_bits")].as_u64().unwrap());
    assert_eq!(got.total, int("total"), "{what} total");
    assert_eq!(got.exact, int("exact"), "{what} exact");
    assert_eq!(
        got.flushed_to_zero,
        int("flushed_to_zero"),
        "{what} flushed"
    );
    assert_eq!(got.saturated, int("saturated"), "{what} saturated");
    assert_eq!(got.measured, int("measured"), "{what} measured");
    assert_eq!(got.max_abs_error, real("max_abs_error"), "{what} max abs");
    assert_eq!(got.max_rel_error, real("max_rel_error"), "{what} max rel");
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-12 * b.abs().max(1e-300);
    for (k, v) in [
        ("sum_sq_error", got.sum_sq_error),
        ("sum_sq_signal", got.sum_sq_signal),
        ("rmse", got.rmse()),
        ("sqnr_db", got.sqnr_db()),
    ] {
        assert!(close(v, real(k)), "{what} {k}: {v} vs numpy {}", real(k));
    }
}

#[test]
fn a_sharded_checkpoint_round_trips_as_numpy_computes_it() {
    let input = vectors().join("input");
    let expected = json(&vectors().join("expected.json"));
    let dir = tempfile::tempdir().unwrap();
    let (q, back) = (dir.path().join("q"), dir.path().join("back"));
    let mut job = QuantizeJob::new(Scheme::Mxfp4);
    job.exclude = vec![expected["exclude"].as_str().unwrap().to_string()];
    job.stats = true;
    let report = quantize_dir(&job, &input, &q).unwrap();
    let rep = dequantize_dir(&q, &back, Format::F32).unwrap();

    // the index: same shards, every input tensor still listed (quantized ones by their parts)
    let index_in = json(&input.join(INDEX_FILE));
    let index_q = json(&q.join(INDEX_FILE));
    let index_back = json(&back.join(INDEX_FILE));
    assert_eq!(index_back["weight_map"], index_in["weight_map"]);
    // total_size: the bytes of tensor data of the new shards (bf16 and f16 weights came back
    // as f32)
    let shards: std::collections::BTreeSet<&str> = index_back["weight_map"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_str().unwrap())
        .collect();
    let data: usize = shards
        .iter()
        .map(|s| {
            st::parse(&std::fs::read(back.join(s)).unwrap())
                .unwrap()
                .data
                .len()
        })
        .collect::<Vec<_>>()
        .iter()
        .sum();
    assert_eq!(index_back["metadata"]["total_size"], data as u64);
    let map_q = index_q["weight_map"].as_object().unwrap();
    assert!(map_q.contains_key("model.embed_tokens.weight_blocks"));
    assert!(map_q.contains_key("model.embed_tokens.weight_scales"));
    assert!(!map_q.contains_key("model.embed_tokens.weight"));
    assert_eq!(
        std::fs::read(q.join("config.json")).unwrap(),
        std::fs::read(input.join("config.json")).unwrap()
    );

    // kept tensors: byte for byte, through both runs
    let kept: Vec<&str> = expected["kept"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let mut reported: Vec<&str> = report.kept.iter().map(|k| k.name.as_str()).collect();
    reported.sort_unstable();
    assert_eq!(reported, kept);
    for name in &kept {
        assert_eq!(tensor(&back, name), tensor(&input, name), "{name}");
        assert_eq!(tensor(&q, name), tensor(&input, name), "{name}");
    }

    // quantized tensors: numpy's values and statistics
    let quantized = expected["quantized"].as_array().unwrap();
    assert_eq!(report.quantized.len(), quantized.len());
    assert_eq!(rep.dequantized.len(), quantized.len());
    for want in quantized {
        let name = want["name"].as_str().unwrap();
        let (dtype, shape, data) = tensor(&back, name);
        assert_eq!(dtype, Dtype::F32, "{name}");
        let want_shape: Vec<usize> = want["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as usize)
            .collect();
        assert_eq!(shape, want_shape, "{name}");
        let bits: Vec<u64> = data
            .chunks_exact(4)
            .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
            .collect();
        let want_bits: Vec<u64> = want["f32_bits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(bits, want_bits, "{name}: dequantized values");
        let t = report.quantized.iter().find(|t| t.name == name).unwrap();
        assert_eq!(format!("{:?}", t.dtype), want["dtype"].as_str().unwrap());
        check_stats(name, t.error.as_ref().unwrap(), &want["stats"]);
    }
    check_stats("total", &report.total_error().unwrap(), &expected["total"]);
}
