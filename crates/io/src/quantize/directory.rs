//! Sharded Hugging Face checkpoint directories (`model.safetensors.index.json` + shards): each
//! shard quantised (or dequantised) into a shard of the same name in the output directory,
//! the index rewritten for the new tensor names, the directory's other files copied.
//!
//! Every file goes through the atomic writer (complete or absent); the index is written last,
//! so an output directory with an index is a finished one. The selection's patterns must match
//! a tensor of the checkpoint (not of every shard), and a checkpoint where nothing would be
//! quantised is refused before anything is written. The index's `metadata.total_size` is set
//! to the bytes of tensor data of the new shards; its other metadata entries are kept.
//! Subdirectories are not copied.

use std::collections::BTreeMap;
use std::path::Path;

use npusim_numerics::Format;
use serde_json::{Map, Value, json};

use super::dequantize_file::dequantize_shard;
use super::error::QuantizeError;
use super::job::QuantizeJob;
use super::quantize_file::{quantize_parsed, read_input};
use super::report::{DequantizeReport, QuantizeReport};
use super::select::Filter;
use crate::error::IoError;
use crate::safetensors::parse;

/// The index file of a sharded checkpoint.
pub const INDEX_FILE: &str = "model.safetensors.index.json";

/// A checkpoint's index: its metadata and the shard of every tensor.
struct Index {
    metadata: Map<String, Value>,
    shards: Vec<String>,
}

/// Reads `dir`'s index.
fn read_index(dir: &Path) -> Result<Index, QuantizeError> {
    let path = dir.join(INDEX_FILE);
    let text = read_input(&path)?;
    let bad = |reason: String| QuantizeError::BadIndex {
        path: path.clone(),
        reason,
    };
    let doc: Value = serde_json::from_slice(&text).map_err(|e| bad(e.to_string()))?;
    let map = doc
        .get("weight_map")
        .and_then(Value::as_object)
        .ok_or_else(|| bad("it has no `weight_map` object".to_string()))?;
    let mut shards: Vec<String> = Vec::new();
    for (name, shard) in map {
        let shard = shard
            .as_str()
            .ok_or_else(|| bad(format!("tensor `{name}` maps to {shard}, not a file name")))?;
        if shard.contains(['/', '\\']) || shard == ".." || shard == "." {
            return Err(bad(format!(
                "tensor `{name}` maps to `{shard}`, which is not a file of the directory"
            )));
        }
        if !shards.iter().any(|s| s == shard) {
            shards.push(shard.to_string());
        }
    }
    shards.sort();
    let metadata = doc
        .get("metadata")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    Ok(Index { metadata, shards })
}

/// Checks the output directory (created if missing; not the input) and reads every shard.
fn prepare(input: &Path, output: &Path) -> Result<(Index, Vec<Vec<u8>>), QuantizeError> {
    let index = read_index(input)?;
    let same = match (input.canonicalize(), output.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if same {
        return Err(QuantizeError::SameDirectory {
            path: input.to_path_buf(),
        });
    }
    let shards = index
        .shards
        .iter()
        .map(|s| read_input(&input.join(s)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok((index, shards))
}

/// Writes the shards, the other files of `input` and the new index into `output`.
fn finish(
    input: &Path,
    output: &Path,
    index: Index,
    shards: &[(String, Vec<u8>)],
) -> Result<(), QuantizeError> {
    std::fs::create_dir_all(output).map_err(|source| IoError::CannotOpenOutput {
        path: output.to_path_buf(),
        source,
    })?;
    let mut weight_map = BTreeMap::new();
    let mut total: u64 = 0;
    for (name, bytes) in shards {
        let f = parse(bytes)?;
        total += f.data.len() as u64;
        for t in &f.names {
            weight_map.insert(t.clone(), name.clone());
        }
        write(&output.join(name), bytes)?;
    }
    let entries = std::fs::read_dir(input).map_err(|source| IoError::CannotRead {
        path: input.to_path_buf(),
        source,
    })?;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if !is_file || name == INDEX_FILE || index.shards.contains(&name) {
            continue;
        }
        let bytes = read_input(&entry.path())?;
        write(&output.join(&name), &bytes)?;
    }
    let mut metadata = index.metadata;
    metadata.insert("total_size".to_string(), json!(total));
    let doc = json!({ "metadata": metadata, "weight_map": weight_map });
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    write(&output.join(INDEX_FILE), text.as_bytes())
}

/// Writes `bytes` to `path` through the atomic writer.
fn write(path: &Path, bytes: &[u8]) -> Result<(), QuantizeError> {
    crate::write_atomic(path, |w| w.write_all(bytes).map_err(IoError::Os))?;
    Ok(())
}

/// Quantises the sharded checkpoint in directory `input` into directory `output`.
pub fn quantize_dir(
    job: &QuantizeJob,
    input: &Path,
    output: &Path,
) -> Result<QuantizeReport, QuantizeError> {
    let (index, shards) = prepare(input, output)?;
    let filter = Filter::new(&job.tensors, &job.exclude)?;
    let mut names = Vec::new();
    for (s, bytes) in index.shards.iter().zip(&shards) {
        let f = parse(bytes).map_err(|e| in_shard(e, &input.join(s)))?;
        names.extend(f.names);
    }
    filter.check_matches(&names)?;
    let mut report = QuantizeReport::default();
    let mut out = Vec::new();
    for (s, bytes) in index.shards.iter().zip(&shards) {
        let (b, r) =
            quantize_parsed(job, &filter, bytes).map_err(|e| in_shard_q(e, &input.join(s)))?;
        report.quantized.extend(r.quantized);
        report.kept.extend(r.kept);
        out.push((s.clone(), b));
    }
    if report.quantized.is_empty() {
        return Err(QuantizeError::NothingToQuantize {
            tensors: names.len(),
        });
    }
    finish(input, output, index, &out)?;
    Ok(report)
}

/// Dequantises the sharded checkpoint in directory `input` into directory `output` as `to`.
pub fn dequantize_dir(
    input: &Path,
    output: &Path,
    to: Format,
) -> Result<DequantizeReport, QuantizeError> {
    let (index, shards) = prepare(input, output)?;
    let mut report = DequantizeReport::default();
    let mut out = Vec::new();
    for (s, bytes) in index.shards.iter().zip(&shards) {
        let (b, r) = dequantize_shard(bytes, to).map_err(|e| in_shard_q(e, &input.join(s)))?;
        report.dequantized.extend(r.dequantized);
        report.kept.extend(r.kept);
        out.push((s.clone(), b));
    }
    if report.dequantized.is_empty() {
        return Err(QuantizeError::NothingToDequantize);
    }
    finish(input, output, index, &out)?;
    Ok(report)
}

/// Names the shard a parse error is in.
fn in_shard(e: IoError, path: &Path) -> QuantizeError {
    QuantizeError::Io(IoError::Reading {
        path: path.to_path_buf(),
        source: Box::new(e),
    })
}

/// Names the shard an error is in.
fn in_shard_q(e: QuantizeError, path: &Path) -> QuantizeError {
    match e {
        QuantizeError::Io(e) => in_shard(e, path),
        other => QuantizeError::InShard {
            path: path.to_path_buf(),
            source: Box::new(other),
        },
    }
}
