//! `quantize` of a whole `.safetensors` file: every selected tensor replaced by its stored
//! parts ([`super::layout`]), every other tensor and the metadata kept.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use npusim_numerics::Status;
use npusim_numerics::block::{Options, Quantized, TensorScale, quantize};
use safetensors::Dtype;

use super::error::QuantizeError;
use super::job::QuantizeJob;
use super::layout::{RECORD_PREFIX, Record, codes_shape, part_names, scale_dtype};
use super::report::{KeptTensor, QuantizeReport, QuantizedTensor};
use super::select::Filter;
use super::values::Values;
use crate::cast::ErrorStats;
use crate::error::IoError;
use crate::safetensors::{OutTensor, parse, to_bytes};

/// Quantises the `.safetensors` file held in `input`; returns the output file's bytes and
/// what was done. Nothing is written: see [`quantize_file`].
pub fn quantize_bytes(
    job: &QuantizeJob,
    input: &[u8],
) -> Result<(Vec<u8>, QuantizeReport), QuantizeError> {
    let file = parse(input)?;
    let filter = Filter::new(&job.tensors, &job.exclude)?;
    filter.check_matches(&file.names)?;
    let (bytes, report) = quantize_parsed(job, &filter, input)?;
    if report.quantized.is_empty() {
        return Err(QuantizeError::NothingToQuantize {
            tensors: file.names.len(),
        });
    }
    Ok((bytes, report))
}

/// [`quantize_bytes`] without the checks that concern a whole checkpoint (every pattern
/// matches, something is quantised): one shard of a directory.
pub(crate) fn quantize_parsed(
    job: &QuantizeJob,
    filter: &Filter,
    input: &[u8],
) -> Result<(Vec<u8>, QuantizeReport), QuantizeError> {
    let file = parse(input)?;
    let mut out: Vec<(String, OutTensor<'_>)> = Vec::new();
    let mut metadata = file.metadata.clone().unwrap_or_default();
    let mut report = QuantizeReport::default();
    for entry in &file.entries {
        let name = &entry.name;
        let data = file
            .data
            .get(entry.begin as usize..entry.end as usize)
            .unwrap_or_default();
        if let Some(reason) = filter.decide(name, entry.dtype, &entry.shape)? {
            report.kept.push(KeptTensor {
                name: name.clone(),
                reason,
            });
            out.push((
                name.clone(),
                OutTensor {
                    dtype: entry.dtype,
                    shape: entry.shape.clone(),
                    data: Cow::Borrowed(data),
                },
            ));
            continue;
        }
        let (tensor, parts) = quantize_one(job, name, entry.dtype, &entry.shape, data)?;
        for (part, _) in &parts {
            let taken = part != name && file.names.iter().any(|n| n == part);
            if taken || out.iter().any(|(n, _)| n == part) {
                return Err(QuantizeError::NameTaken {
                    name: name.clone(),
                    part: "stored part",
                    taken: part.clone(),
                });
            }
        }
        let record = Record::new(
            job.scheme,
            tensor.scale_rule,
            tensor.axis,
            &entry.shape,
            entry.dtype,
        );
        let text = serde_json::to_string(&record).unwrap_or_default();
        metadata.insert(format!("{RECORD_PREFIX}{name}"), text);
        out.extend(parts);
        report.quantized.push(tensor);
    }
    // A later tensor of the input may carry a name a part took.
    for (i, (a, _)) in out.iter().enumerate() {
        if out[..i].iter().any(|(b, _)| b == a) {
            return Err(QuantizeError::NameTaken {
                name: a.clone(),
                part: "stored part",
                taken: a.clone(),
            });
        }
    }
    let bytes = to_bytes(&out, Some(&metadata))?;
    Ok((bytes, report))
}

/// Reads `input`, quantises it and writes `output` through the atomic writer (complete or
/// not at all).
pub fn quantize_file(
    job: &QuantizeJob,
    input: &Path,
    output: &Path,
) -> Result<QuantizeReport, QuantizeError> {
    let bytes = read_input(input)?;
    let (out, report) = quantize_bytes(job, &bytes).map_err(|e| in_file(e, input))?;
    crate::write_atomic(output, |w| w.write_all(&out).map_err(IoError::Os))?;
    Ok(report)
}

/// The bytes of `path`, with errors that name it.
pub(crate) fn read_input(path: &Path) -> Result<Vec<u8>, QuantizeError> {
    if path.is_dir() {
        return Err(IoError::InputIsDirectory {
            path: path.to_path_buf(),
        }
        .into());
    }
    std::fs::read(path).map_err(|source| {
        IoError::CannotRead {
            path: path.to_path_buf(),
            source,
        }
        .into()
    })
}

/// Puts the input's name on a parse error.
pub(crate) fn in_file(e: QuantizeError, path: &Path) -> QuantizeError {
    match e {
        QuantizeError::Io(source) => QuantizeError::Io(IoError::Reading {
            path: path.to_path_buf(),
            source: Box::new(source),
        }),
        other => other,
    }
}

/// Quantises one tensor; returns its report and its stored parts.
fn quantize_one<'a>(
    job: &QuantizeJob,
    name: &str,
    dtype: Dtype,
    shape: &[usize],
    data: &[u8],
) -> Result<(QuantizedTensor, Vec<(String, OutTensor<'a>)>), QuantizeError> {
    let block_err = |source: npusim_numerics::block::BlockError| QuantizeError::Block {
        name: name.to_string(),
        shape: shape.to_vec(),
        axis: job.axis,
        reason: Box::new(source),
    };
    let values = Values::read(dtype, data).ok_or_else(|| QuantizeError::NotQuantizable {
        name: name.to_string(),
        dtype,
        shape: shape.to_vec(),
    })?;
    let opts = Options {
        scale_rule: job.scale_rule,
        tensor_scale: TensorScale::FromAmax,
        policy: job.policy,
        seed: job.seed,
        first_index: 0,
    };
    let q = quantize(values.source(), shape, job.axis, job.scheme, &opts).map_err(block_err)?;
    let axis = q.layout().axis();
    let error = job.stats.then(|| error_stats(&values, &q));
    let (codes_name, scales_name, tensor_scale_name) = part_names(job.scheme, name);
    let mut parts = vec![
        (
            codes_name,
            OutTensor {
                dtype: Dtype::U8,
                shape: codes_shape(job.scheme, shape, axis),
                data: Cow::Owned(q.codes().to_vec()),
            },
        ),
        (
            scales_name,
            OutTensor {
                dtype: scale_dtype(job.scheme),
                shape: q.layout().scale_shape(),
                data: Cow::Owned(q.scales().to_vec()),
            },
        ),
    ];
    if let (Some(n), Some(p)) = (tensor_scale_name, q.tensor_scale()) {
        parts.push((
            n,
            OutTensor {
                dtype: Dtype::F32,
                shape: Vec::new(),
                data: Cow::Owned(p.to_le_bytes().to_vec()),
            },
        ));
    }
    let report = QuantizedTensor {
        name: name.to_string(),
        dtype,
        shape: shape.to_vec(),
        axis,
        scheme: job.scheme,
        scale_rule: job
            .scheme
            .is_mx()
            .then(|| job.scale_rule.unwrap_or_default()),
        parts: parts.iter().map(|(n, _)| n.clone()).collect(),
        blocks: *q.stats(),
        error,
    };
    Ok((report, parts))
}

/// The error of `q`'s f32 values against the input. An element's saturation is the
/// quantiser's (clamped to the element format's max normal), not a comparison with a range.
fn error_stats(values: &Values, q: &Quantized) -> ErrorStats {
    let mut s = ErrorStats::default();
    for (i, y) in q.dequantize().into_iter().enumerate() {
        s.add(values.value(i), f64::from(y), f64::INFINITY);
    }
    s.saturated = q.stats().elements.get(Status::SATURATED);
    s
}

/// Metadata kept from the input, without the records of `names`.
pub(crate) fn without_records(
    metadata: Option<&HashMap<String, String>>,
    names: &[String],
) -> HashMap<String, String> {
    let mut m = metadata.cloned().unwrap_or_default();
    for n in names {
        m.remove(&format!("{RECORD_PREFIX}{n}"));
    }
    m
}
