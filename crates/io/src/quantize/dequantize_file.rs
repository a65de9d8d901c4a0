//! `dequantize` of a whole `.safetensors` file: every quantised tensor found (by its
//! `npusim.quantize.<name>` record, or by the published names alone) read back and written
//! as a plain float tensor; every other tensor and the rest of the metadata kept.
//!
//! Without a record, `<name>_blocks` (`U8`, shape `[..., n, 16]`) with `<name>_scales` (`U8`,
//! `[..., n]`) is read as MXFP4 along the last axis (gpt-oss's layout), and `<name>` (`U8`)
//! with `<name>_scale` (`F8_E4M3`) and `<name>_scale_2` (`F32`, one value) as NVFP4 along the
//! last axis (ModelOpt's layout), the last dimension twice the bytes of a row.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::path::Path;

use npusim_numerics::Format;
use npusim_numerics::block::{Quantized, Scheme};
use safetensors::Dtype;

use super::error::QuantizeError;
use super::layout::{RECORD_PREFIX, Record, part_names, scale_dtype};
use super::quantize_file::{in_file, read_input, without_records};
use super::report::{DequantizeReport, DequantizedTensor};
use crate::error::IoError;
use crate::safetensors::{OutTensor, SafetensorsFile, TensorEntry, parse, to_bytes};

/// One quantised tensor found in a file.
struct Found {
    name: String,
    scheme: Scheme,
    axis: usize,
    shape: Vec<usize>,
}

/// The safetensors dtype of a `dequantize` output format.
fn out_dtype(to: Format) -> Result<Dtype, QuantizeError> {
    Ok(match to {
        Format::F32 => Dtype::F32,
        Format::F64 => Dtype::F64,
        Format::F16 => Dtype::F16,
        Format::BF16 => Dtype::BF16,
        other => {
            return Err(QuantizeError::OutputFormat {
                format: other.to_string(),
            });
        }
    })
}

/// Reads every quantised tensor of the `.safetensors` file held in `input` back as `to`
/// (f32, bf16, f16 or f64); returns the output file's bytes and what was done.
pub fn dequantize_bytes(
    input: &[u8],
    to: Format,
) -> Result<(Vec<u8>, DequantizeReport), QuantizeError> {
    let dtype = out_dtype(to)?;
    let file = parse(input)?;
    let found = find(&file)?;
    if found.is_empty() {
        return Err(QuantizeError::NothingToDequantize);
    }
    dequantize_found(&file, &found, to, dtype)
}

/// [`dequantize_bytes`] of one shard of a directory: a shard without quantised tensors is
/// copied.
pub(crate) fn dequantize_shard(
    input: &[u8],
    to: Format,
) -> Result<(Vec<u8>, DequantizeReport), QuantizeError> {
    let dtype = out_dtype(to)?;
    let file = parse(input)?;
    let found = find(&file)?;
    dequantize_found(&file, &found, to, dtype)
}

/// Dequantises the `found` tensors of `file`, keeping the rest.
fn dequantize_found(
    file: &SafetensorsFile<'_>,
    found: &[Found],
    to: Format,
    dtype: Dtype,
) -> Result<(Vec<u8>, DequantizeReport), QuantizeError> {
    let mut used: HashSet<String> = HashSet::new();
    let mut out: Vec<(String, OutTensor<'_>)> = Vec::new();
    let mut report = DequantizeReport::default();
    for f in found {
        let (codes_name, scales_name, ts_name) = part_names(f.scheme, &f.name);
        let part = |part: &'static str, n: &str, want: Dtype| -> Result<&[u8], QuantizeError> {
            let t = file.tensor(n).ok_or_else(|| QuantizeError::MissingPart {
                name: f.name.clone(),
                scheme: f.scheme.to_string(),
                part,
                missing: n.to_string(),
            })?;
            if t.dtype != want {
                return Err(QuantizeError::PartDtype {
                    name: f.name.clone(),
                    part: n.to_string(),
                    dtype: t.dtype,
                    expected: want,
                });
            }
            Ok(t.data)
        };
        let codes = part("codes", &codes_name, Dtype::U8)?.to_vec();
        let scales = part("scales", &scales_name, scale_dtype(f.scheme))?.to_vec();
        let mut parts = vec![codes_name, scales_name];
        let tensor_scale = match ts_name {
            Some(n) => {
                let b = part("tensor scale", &n, Dtype::F32)?;
                parts.push(n);
                Some(f32::from_le_bytes(b.try_into().map_err(|_| {
                    QuantizeError::BadRecord {
                        key: parts[2].clone(),
                        value: format!("{} bytes", b.len()),
                        reason: "the per-tensor scale must be one F32 value".to_string(),
                    }
                })?))
            }
            None => None,
        };
        let block_err = |source: npusim_numerics::block::BlockError| QuantizeError::Block {
            name: f.name.clone(),
            shape: f.shape.clone(),
            axis: f.axis as isize,
            reason: Box::new(source),
        };
        let q = Quantized::from_parts(
            f.scheme,
            &f.shape,
            f.axis as isize,
            codes,
            scales,
            tensor_scale,
        )
        .map_err(block_err)?;
        let values = q.dequantize_to(to).map_err(block_err)?;
        let width = to.bits() as usize / 8;
        let mut data = Vec::with_capacity(values.len() * width);
        for v in values {
            data.extend_from_slice(&v.to_le_bytes()[..width]);
        }
        used.extend(parts.iter().cloned());
        out.push((
            f.name.clone(),
            OutTensor {
                dtype,
                shape: f.shape.clone(),
                data: Cow::Owned(data),
            },
        ));
        report.dequantized.push(DequantizedTensor {
            name: f.name.clone(),
            scheme: f.scheme,
            shape: f.shape.clone(),
            parts,
        });
    }
    for e in &file.entries {
        if used.contains(&e.name) {
            continue;
        }
        if out.iter().any(|(n, _)| n == &e.name) {
            return Err(QuantizeError::NameTaken {
                name: e.name.clone(),
                part: "dequantized tensor",
                taken: e.name.clone(),
            });
        }
        let data = file
            .data
            .get(e.begin as usize..e.end as usize)
            .unwrap_or_default();
        report.kept.push(e.name.clone());
        out.push((
            e.name.clone(),
            OutTensor {
                dtype: e.dtype,
                shape: e.shape.clone(),
                data: Cow::Borrowed(data),
            },
        ));
    }
    let names: Vec<String> = found.iter().map(|f| f.name.clone()).collect();
    let metadata = without_records(file.metadata.as_ref(), &names);
    let bytes = to_bytes(&out, Some(&metadata))?;
    Ok((bytes, report))
}

/// Reads `input`, dequantises it to `to` and writes `output` through the atomic writer.
pub fn dequantize_file(
    input: &Path,
    output: &Path,
    to: Format,
) -> Result<DequantizeReport, QuantizeError> {
    let bytes = read_input(input)?;
    let (out, report) = dequantize_bytes(&bytes, to).map_err(|e| in_file(e, input))?;
    crate::write_atomic(output, |w| w.write_all(&out).map_err(IoError::Os))?;
    Ok(report)
}

/// The header entry of tensor `name`.
fn entry<'f>(file: &'f SafetensorsFile<'_>, name: &str) -> Option<&'f TensorEntry> {
    file.entries.iter().find(|e| e.name == name)
}

/// How many quantised tensors the header of `file` describes (its data is not read).
pub(crate) fn count_quantized(file: &SafetensorsFile<'_>) -> Result<usize, QuantizeError> {
    Ok(find(file)?.len())
}

/// The quantised tensors of `file`: its records first, then the published names (from the
/// header alone).
fn find(file: &SafetensorsFile<'_>) -> Result<Vec<Found>, QuantizeError> {
    let mut found = Vec::new();
    let empty = HashMap::new();
    let meta = file.metadata.as_ref().unwrap_or(&empty);
    let mut keys: Vec<&String> = meta
        .keys()
        .filter(|k| k.starts_with(RECORD_PREFIX))
        .collect();
    keys.sort();
    for key in keys {
        let value = &meta[key];
        let bad = |reason: String| QuantizeError::BadRecord {
            key: key.clone(),
            value: value.clone(),
            reason,
        };
        let record: Record = serde_json::from_str(value).map_err(|e| bad(e.to_string()))?;
        let scheme: Scheme = record
            .scheme
            .parse()
            .map_err(|e: npusim_numerics::block::BlockError| bad(e.to_string()))?;
        found.push(Found {
            name: key[RECORD_PREFIX.len()..].to_string(),
            scheme,
            axis: record.axis,
            shape: record.shape,
        });
    }
    let recorded: HashSet<String> = found
        .iter()
        .flat_map(|f| {
            let (a, b, c) = part_names(f.scheme, &f.name);
            [Some(a), Some(b), c].into_iter().flatten()
        })
        .collect();
    for e in &file.entries {
        if recorded.contains(&e.name) {
            continue;
        }
        if let Some(base) = e.name.strip_suffix("_blocks")
            && e.dtype == Dtype::U8
            && let Some((&16, outer)) = e.shape.split_last()
            && let Some(s) = entry(file, &format!("{base}_scales"))
            && s.dtype == Dtype::U8
            && s.shape == outer
            && let Some((&n, rows)) = outer.split_last()
        {
            let mut shape = rows.to_vec();
            shape.push(n * 32);
            found.push(Found {
                name: base.to_string(),
                scheme: Scheme::Mxfp4,
                axis: shape.len() - 1,
                shape,
            });
        }
        if let Some(base) = e.name.strip_suffix("_scale_2")
            && e.dtype == Dtype::F32
            && e.len() == 4
            && let Some(w) = entry(file, base)
            && w.dtype == Dtype::U8
            && entry(file, &format!("{base}_scale")).is_some_and(|s| s.dtype == Dtype::F8_E4M3)
            && let Some((&half, rows)) = w.shape.split_last()
        {
            let mut shape = rows.to_vec();
            shape.push(half * 2);
            found.push(Found {
                name: base.to_string(),
                scheme: Scheme::Nvfp4,
                axis: shape.len() - 1,
                shape,
            });
        }
    }
    Ok(found)
}
