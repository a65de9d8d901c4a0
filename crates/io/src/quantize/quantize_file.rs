//! `quantize` of a whole `.safetensors` file: every selected tensor replaced by its stored
//! parts ([`super::layout`]), every other tensor and the metadata kept.
//!
//! The output is planned from the input's header alone (names, dtypes, shapes and sizes of
//! every part follow from the shapes), its header written, then its data in the output's
//! order (widest dtype first, then by name), one tensor read and quantised at a time: memory
//! stays near the largest tensor whatever the file's size. A part needed again after another
//! tensor's (NVFP4's scales come before its codes) is quantised again, bit for bit the same;
//! NVFP4's per-tensor scale comes from the tensor's amax alone.

use std::collections::HashMap;
use std::io::{Read, Seek, Write};
use std::path::Path;

use npusim_numerics::KernelChoice;
use npusim_numerics::Status;
use npusim_numerics::block::{
    BlockLayout, BlockStats, Options, Quantized, TensorScale, nvfp4_tensor_scale, quantize_into,
};
use safetensors::Dtype;

use super::error::QuantizeError;
use super::input::{Input, open_file};
use super::job::QuantizeJob;
use super::layout::{RECORD_PREFIX, Record, codes_shape, part_names, scale_dtype};
use super::progress::Progress;
use super::report::{KeptTensor, QuantizeReport, QuantizedTensor};
use super::select::Filter;
use super::values::{Values, source_value};
use crate::cast::ErrorStats;
use crate::error::IoError;
use crate::safetensors::{EntryOut, layout_key, write_header};

/// Where an output tensor's bytes come from.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Data {
    /// Input entry `i`, copied.
    Kept(usize),
    /// The codes of quantised tensor `k`.
    Codes(usize),
    /// The block scales of quantised tensor `k`.
    Scales(usize),
    /// The per-tensor scale of quantised tensor `k`.
    TensorScale(usize),
    /// Quantised tensor `k` of the input read back (`dequantize`).
    Dequantized(usize),
}

/// One tensor of the output.
#[derive(Clone, Debug)]
pub(crate) struct OutEntry {
    pub name: String,
    pub dtype: Dtype,
    pub shape: Vec<usize>,
    pub len: u64,
    pub data: Data,
}

/// What a streamed quantisation wrote: its report, the output's tensor names and its bytes of
/// tensor data.
pub(crate) struct Streamed<T> {
    pub report: T,
    pub names: Vec<String>,
    pub data_bytes: u64,
}

/// Quantises the `.safetensors` file held in `input`; returns the output file's bytes and
/// what was done. Nothing is written: see [`quantize_file`].
pub fn quantize_bytes(
    job: &QuantizeJob,
    input: &[u8],
) -> Result<(Vec<u8>, QuantizeReport), QuantizeError> {
    let mut out = Vec::new();
    let report = quantize_to(job, std::io::Cursor::new(input), &mut out, &mut |_, _| {})?;
    Ok((out, report))
}

/// Quantises the `.safetensors` data `input` holds (a file, a cursor over bytes) into `out`,
/// one tensor in memory at a time; `progress` is told the input's tensor bytes done and in
/// total after each tensor. Everything that can be checked from the header (the selection,
/// the axis of every tensor, the names of the parts) is checked before anything is written.
pub fn quantize_to<R: Read + Seek>(
    job: &QuantizeJob,
    input: R,
    out: &mut dyn Write,
    progress: Progress<'_>,
) -> Result<QuantizeReport, QuantizeError> {
    let mut input = Input::new(input)?;
    let filter = Filter::new(&job.tensors, &job.exclude)?;
    filter.check_matches(&input.file.names)?;
    Ok(stream(job, &filter, &mut input, out, progress, true)?.report)
}

/// Reads `input`, quantises it and writes `output` through the atomic writer (complete or
/// not at all), one tensor in memory at a time.
pub fn quantize_file(
    job: &QuantizeJob,
    input: &Path,
    output: &Path,
) -> Result<QuantizeReport, QuantizeError> {
    quantize_file_with_progress(job, input, output, &mut |_, _| {})
}

/// [`quantize_file`], telling `progress` the input's tensor bytes done and in total after
/// each tensor.
pub fn quantize_file_with_progress(
    job: &QuantizeJob,
    input: &Path,
    output: &Path,
    progress: Progress<'_>,
) -> Result<QuantizeReport, QuantizeError> {
    let mut file = open_file(input)?;
    let filter = Filter::new(&job.tensors, &job.exclude)?;
    filter.check_matches(&file.file.names)?;
    write_through(output, |w| {
        stream(job, &filter, &mut file, w, progress, true).map(|s| s.report)
    })
}

/// Runs `write` on the atomic writer of `output`: the output is put in place only when
/// `write` succeeds, and `write`'s own error is returned as it is.
pub(crate) fn write_through<T>(
    output: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<T, QuantizeError>,
) -> Result<T, QuantizeError> {
    let mut done = None;
    let mut failure = None;
    let result = crate::write_atomic(output, |w| match write(w) {
        Ok(v) => {
            done = Some(v);
            Ok(())
        }
        Err(QuantizeError::Io(e)) => Err(e),
        Err(e) => {
            failure = Some(e);
            Err(IoError::Os(std::io::Error::other("stopped")))
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    result?;
    done.ok_or_else(|| {
        QuantizeError::Io(IoError::Os(std::io::Error::other(
            "the output writer returned without running",
        )))
    })
}

/// The output's entries in the order of their data.
pub(crate) fn in_layout_order(outs: &[OutEntry]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..outs.len()).collect();
    order.sort_by_key(|&i| layout_key(&outs[i].name, outs[i].dtype));
    order
}

/// Writes the header of `outs` (in `order`) with `metadata`.
pub(crate) fn header(
    out: &mut dyn Write,
    outs: &[OutEntry],
    order: &[usize],
    metadata: &HashMap<String, String>,
) -> Result<(), QuantizeError> {
    write_header(out, Some(metadata), |entry| {
        order.iter().try_for_each(|&i| {
            let o = &outs[i];
            entry(EntryOut {
                name: &o.name,
                dtype: o.dtype,
                shape: &o.shape,
                len: o.len,
            })
        })
    })?;
    Ok(())
}

/// The kept entry `i` of the input as an output entry.
pub(crate) fn kept_entry<R>(input: &Input<R>, i: usize) -> OutEntry {
    let e = &input.file.entries[i];
    OutEntry {
        name: e.name.clone(),
        dtype: e.dtype,
        shape: e.shape.clone(),
        len: e.len(),
        data: Data::Kept(i),
    }
}

/// Copies kept entry `i`'s bytes; `false` for an entry that is not a kept one.
pub(crate) fn copy_kept<R: Read + Seek>(
    input: &mut Input<R>,
    o: &OutEntry,
    out: &mut dyn Write,
) -> Result<bool, QuantizeError> {
    let Data::Kept(i) = o.data else {
        return Ok(false);
    };
    let e = input.file.entries[i].clone();
    input.copy(&e, out)?;
    Ok(true)
}

/// Quantises the input into `out`; with `require_some`, a file where nothing would be
/// quantised is refused before anything is written (a shard of a directory may have none).
pub(crate) fn stream<R: Read + Seek>(
    job: &QuantizeJob,
    filter: &Filter,
    input: &mut Input<R>,
    out: &mut dyn Write,
    progress: Progress<'_>,
    require_some: bool,
) -> Result<Streamed<QuantizeReport>, QuantizeError> {
    let file = &input.file;
    let mut outs: Vec<OutEntry> = Vec::new();
    let mut metadata = file.metadata.clone().unwrap_or_default();
    let mut report = QuantizeReport::default();
    // input entry and axis of every tensor to quantise
    let mut planned: Vec<(usize, usize)> = Vec::new();
    for (i, entry) in file.entries.iter().enumerate() {
        let name = &entry.name;
        if let Some(reason) = filter.decide(name, entry.dtype, &entry.shape)? {
            report.kept.push(KeptTensor {
                name: name.clone(),
                reason,
            });
            outs.push(kept_entry(input, i));
            continue;
        }
        let layout = BlockLayout::new(&entry.shape, job.axis, job.scheme.block_size()).map_err(
            |source| QuantizeError::Block {
                name: name.clone(),
                shape: entry.shape.clone(),
                axis: job.axis,
                reason: Box::new(source),
            },
        )?;
        let axis = layout.axis();
        let k = planned.len();
        let (codes_name, scales_name, tensor_scale_name) = part_names(job.scheme, name);
        let mut parts = vec![
            OutEntry {
                name: codes_name,
                dtype: Dtype::U8,
                shape: codes_shape(job.scheme, &entry.shape, axis),
                len: job.scheme.code_bytes(layout.len()) as u64,
                data: Data::Codes(k),
            },
            OutEntry {
                name: scales_name,
                dtype: scale_dtype(job.scheme),
                shape: layout.scale_shape(),
                len: layout.block_count() as u64,
                data: Data::Scales(k),
            },
        ];
        if let Some(n) = tensor_scale_name {
            parts.push(OutEntry {
                name: n,
                dtype: Dtype::F32,
                shape: Vec::new(),
                len: 4,
                data: Data::TensorScale(k),
            });
        }
        for part in &parts {
            let p = &part.name;
            let taken = p != name && file.names.iter().any(|n| n == p);
            if taken || outs.iter().any(|o| &o.name == p) {
                return Err(QuantizeError::NameTaken {
                    name: name.clone(),
                    part: "stored part",
                    taken: p.clone(),
                });
            }
        }
        let rule = job
            .scheme
            .is_mx()
            .then(|| job.scale_rule.unwrap_or_default());
        let record = Record::new(job.scheme, rule, axis, &entry.shape, entry.dtype);
        let text = serde_json::to_string(&record).unwrap_or_default();
        metadata.insert(format!("{RECORD_PREFIX}{name}"), text);
        outs.extend(parts);
        planned.push((i, axis));
    }
    // A later tensor of the input may carry a name a part took.
    for (i, a) in outs.iter().enumerate() {
        if outs[..i].iter().any(|b| b.name == a.name) {
            return Err(QuantizeError::NameTaken {
                name: a.name.clone(),
                part: "stored part",
                taken: a.name.clone(),
            });
        }
    }
    if require_some && planned.is_empty() {
        return Err(QuantizeError::NothingToQuantize {
            tensors: file.names.len(),
        });
    }
    let order = in_layout_order(&outs);
    header(out, &outs, &order, &metadata)?;
    let total = input.data_len;
    let mut done = 0u64;
    // the parts of the last tensor quantised, in buffers reused from tensor to tensor
    let mut parts = PartBuffers::default();
    let mut reports: Vec<Option<QuantizedTensor>> = vec![None; planned.len()];
    let mut data_bytes = 0u64;
    for &i in &order {
        let o = &outs[i];
        data_bytes += o.len;
        if copy_kept(input, o, out)? {
            done += o.len;
            progress(done, total);
            continue;
        }
        let k = match o.data {
            Data::Codes(k) | Data::Scales(k) | Data::TensorScale(k) => k,
            Data::Kept(_) | Data::Dequantized(_) => continue,
        };
        let entry = input.file.entries[planned[k].0].clone();
        if let (Data::TensorScale(_), false) = (o.data, parts.tensor == Some(k)) {
            let values = read_values(input, &entry)?;
            let p = nvfp4_tensor_scale(values.source());
            out.write_all(&p.to_le_bytes()).map_err(IoError::Os)?;
            continue;
        }
        if parts.tensor != Some(k) {
            parts.tensor = None;
            let values = read_values(input, &entry)?;
            let rep = quantize_one(
                job,
                &entry.name,
                entry.dtype,
                &entry.shape,
                &values,
                &mut parts,
            )?;
            drop(values);
            if reports[k].is_none() {
                reports[k] = Some(rep);
                done += entry.len();
                progress(done, total);
            }
            parts.tensor = Some(k);
        }
        let scale = parts.tensor_scale.unwrap_or(1.0).to_le_bytes();
        let bytes: &[u8] = match o.data {
            Data::Codes(_) => &parts.codes,
            Data::Scales(_) => &parts.scales,
            _ => &scale,
        };
        out.write_all(bytes).map_err(IoError::Os)?;
    }
    report.quantized = reports.into_iter().flatten().collect();
    Ok(Streamed {
        report,
        names: outs.into_iter().map(|o| o.name).collect(),
        data_bytes,
    })
}

/// The values of the floating tensor `entry`.
fn read_values<R: Read + Seek>(
    input: &mut Input<R>,
    entry: &crate::safetensors::TensorEntry,
) -> Result<Values, QuantizeError> {
    input
        .values(entry)?
        .ok_or_else(|| QuantizeError::NotQuantizable {
            name: entry.name.clone(),
            dtype: entry.dtype,
            shape: entry.shape.clone(),
        })
}

/// The stored parts of one quantised tensor, in buffers reused from tensor to tensor (a fresh
/// output per tensor would cost its page faults again).
#[derive(Default)]
struct PartBuffers {
    /// The planned tensor whose parts the buffers hold (`None` while they are rewritten).
    tensor: Option<usize>,
    /// Its element codes.
    codes: Vec<u8>,
    /// Its block scales.
    scales: Vec<u8>,
    /// Its per-tensor scale (NVFP4).
    tensor_scale: Option<f32>,
}

/// Quantises one tensor into `parts` (resized to its parts' lengths); returns its report.
fn quantize_one(
    job: &QuantizeJob,
    name: &str,
    dtype: Dtype,
    shape: &[usize],
    values: &Values,
    parts: &mut PartBuffers,
) -> Result<QuantizedTensor, QuantizeError> {
    let block_err = |source: npusim_numerics::block::BlockError| QuantizeError::Block {
        name: name.to_string(),
        shape: shape.to_vec(),
        axis: job.axis,
        reason: Box::new(source),
    };
    let opts = Options {
        scale_rule: job.scale_rule,
        tensor_scale: TensorScale::FromAmax,
        policy: job.policy,
        seed: job.seed,
        first_index: 0,
    };
    let layout = BlockLayout::new(shape, job.axis, job.scheme.block_size()).map_err(block_err)?;
    parts.codes.resize(job.scheme.code_bytes(layout.len()), 0);
    parts.scales.resize(layout.block_count(), 0);
    let summary = quantize_into(
        values.source(),
        shape,
        job.axis,
        job.scheme,
        &opts,
        KernelChoice::Fastest,
        &mut parts.codes,
        &mut parts.scales,
    )
    .map_err(block_err)?;
    parts.tensor_scale = summary.tensor_scale;
    let axis = summary.layout.axis();
    let error = if job.stats {
        let q = Quantized::from_parts(
            job.scheme,
            shape,
            job.axis,
            parts.codes.clone(),
            parts.scales.clone(),
            summary.tensor_scale,
        )
        .map_err(block_err)?;
        Some(error_stats(values, &q, &summary.stats))
    } else {
        None
    };
    let (codes_name, scales_name, tensor_scale_name) = part_names(job.scheme, name);
    let mut part_list = vec![codes_name, scales_name];
    if let (Some(n), Some(_)) = (tensor_scale_name, summary.tensor_scale) {
        part_list.push(n);
    }
    Ok(QuantizedTensor {
        name: name.to_string(),
        dtype,
        shape: shape.to_vec(),
        axis,
        scheme: job.scheme,
        scale_rule: job
            .scheme
            .is_mx()
            .then(|| job.scale_rule.unwrap_or_default()),
        parts: part_list,
        blocks: summary.stats,
        error,
    })
}

/// The error of `q`'s f32 values against the input. An element's saturation is the
/// quantiser's (`stats`: clamped to the element format's max normal), not a comparison with a
/// range.
fn error_stats(values: &Values, q: &Quantized, stats: &BlockStats) -> ErrorStats {
    let mut s = ErrorStats::default();
    let src = values.source();
    for (i, y) in q.dequantize().into_iter().enumerate() {
        s.add(source_value(&src, i), f64::from(y), f64::INFINITY);
    }
    s.saturated = stats.elements.get(Status::SATURATED);
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
