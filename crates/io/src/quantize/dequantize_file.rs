//! `dequantize` of a whole `.safetensors` file: every quantised tensor found (by its
//! `npusim.quantize.<name>` record, or by the published names alone) read back and written
//! as a plain float tensor; every other tensor and the rest of the metadata kept.
//!
//! Without a record, `<name>_blocks` (`U8`, shape `[..., n, 16]`) with `<name>_scales` (`U8`,
//! `[..., n]`) is read as MXFP4 along the last axis (gpt-oss's layout), and `<name>` (`U8`)
//! with `<name>_scale` (`F8_E4M3`) and `<name>_scale_2` (`F32`, one value) as NVFP4 along the
//! last axis (ModelOpt's layout), the last dimension twice the bytes of a row.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, Write};
use std::path::Path;

use npusim_numerics::Format;
use npusim_numerics::block::{BlockError, BlockLayout, Quantized, Scheme};
use safetensors::Dtype;

use super::error::QuantizeError;
use super::input::{Input, open_file};
use super::layout::{RECORD_PREFIX, Record, part_names, scale_dtype};
use super::progress::Progress;
use super::quantize_file::{
    Data, OutEntry, Streamed, copy_kept, header, in_layout_order, kept_entry, without_records,
    write_through,
};
use super::report::{DequantizeReport, DequantizedTensor};
use crate::error::IoError;
use crate::safetensors::{SafetensorsFile, TensorEntry};

/// Values written at a time when the output is f32.
const WRITE_CHUNK: usize = 1 << 18;

/// One quantised tensor found in a file.
struct Found {
    name: String,
    scheme: Scheme,
    axis: usize,
    shape: Vec<usize>,
}

/// A found tensor with its parts checked: the input entries of its codes and scales, and
/// its per-tensor scale.
struct Planned {
    found: usize,
    codes: usize,
    scales: usize,
    tensor_scale: Option<f32>,
}

/// The safetensors dtype of a `dequantize` output format.
pub(crate) fn out_dtype(to: Format) -> Result<Dtype, QuantizeError> {
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
    let mut out = Vec::new();
    let report = dequantize_to(std::io::Cursor::new(input), to, &mut out, &mut |_, _| {})?;
    Ok((out, report))
}

/// Reads every quantised tensor of the `.safetensors` data `input` holds back as `to` into
/// `out`, one tensor in memory at a time; `progress` is told the input's tensor bytes done
/// and in total. Everything the header shows (the parts, their dtypes and sizes) is checked
/// before anything is written.
pub fn dequantize_to<R: Read + Seek>(
    input: R,
    to: Format,
    out: &mut dyn Write,
    progress: Progress<'_>,
) -> Result<DequantizeReport, QuantizeError> {
    let dtype = out_dtype(to)?;
    let mut input = Input::new(input)?;
    Ok(stream(&mut input, to, dtype, out, progress, true)?.report)
}

/// Dequantises `input` to `to` and writes `output` through the atomic writer, one tensor in
/// memory at a time.
pub fn dequantize_file(
    input: &Path,
    output: &Path,
    to: Format,
) -> Result<DequantizeReport, QuantizeError> {
    dequantize_file_with_progress(input, output, to, &mut |_, _| {})
}

/// [`dequantize_file`], telling `progress` the input's tensor bytes done and in total.
pub fn dequantize_file_with_progress(
    input: &Path,
    output: &Path,
    to: Format,
    progress: Progress<'_>,
) -> Result<DequantizeReport, QuantizeError> {
    let dtype = out_dtype(to)?;
    let mut file = open_file(input)?;
    write_through(output, |w| {
        stream(&mut file, to, dtype, w, progress, true).map(|s| s.report)
    })
}

/// Dequantises the input into `out`; with `require_some`, a file without quantised tensors
/// is refused before anything is written (a shard of a directory is copied).
pub(crate) fn stream<R: Read + Seek>(
    input: &mut Input<R>,
    to: Format,
    dtype: Dtype,
    out: &mut dyn Write,
    progress: Progress<'_>,
    require_some: bool,
) -> Result<Streamed<DequantizeReport>, QuantizeError> {
    let found = find(&input.file)?;
    if require_some && found.is_empty() {
        return Err(QuantizeError::NothingToDequantize);
    }
    let width = to.bits() as u64 / 8;
    let mut used: HashSet<String> = HashSet::new();
    let mut outs: Vec<OutEntry> = Vec::new();
    let mut planned: Vec<Planned> = Vec::new();
    let mut report = DequantizeReport::default();
    for (k, f) in found.iter().enumerate() {
        let (codes_name, scales_name, ts_name) = part_names(f.scheme, &f.name);
        let file = &input.file;
        let part = |part: &'static str, n: &str, want: Dtype| -> Result<usize, QuantizeError> {
            let i = file
                .entries
                .iter()
                .position(|e| e.name == n)
                .ok_or_else(|| QuantizeError::MissingPart {
                    name: f.name.clone(),
                    scheme: f.scheme.to_string(),
                    part,
                    missing: n.to_string(),
                })?;
            let t = &file.entries[i];
            if t.dtype != want {
                return Err(QuantizeError::PartDtype {
                    name: f.name.clone(),
                    part: n.to_string(),
                    dtype: t.dtype,
                    expected: want,
                });
            }
            Ok(i)
        };
        let codes = part("codes", &codes_name, Dtype::U8)?;
        let scales = part("scales", &scales_name, scale_dtype(f.scheme))?;
        let mut parts = vec![codes_name, scales_name];
        let tensor_scale = match ts_name {
            Some(n) => {
                let i = part("tensor scale", &n, Dtype::F32)?;
                let e = input.file.entries[i].clone();
                let b = input.bytes(&e)?;
                parts.push(n);
                Some(f32::from_le_bytes(b.as_slice().try_into().map_err(
                    |_| QuantizeError::BadRecord {
                        key: parts[2].clone(),
                        value: format!("{} bytes", b.len()),
                        reason: "the per-tensor scale must be one F32 value".to_string(),
                    },
                )?))
            }
            None => None,
        };
        let entries = &input.file.entries;
        check_parts(f, entries[codes].len(), entries[scales].len(), tensor_scale)?;
        used.extend(parts.iter().cloned());
        let count: u64 = f.shape.iter().map(|&d| d as u64).product();
        outs.push(OutEntry {
            name: f.name.clone(),
            dtype,
            shape: f.shape.clone(),
            len: count * width,
            data: Data::Dequantized(k),
        });
        planned.push(Planned {
            found: k,
            codes,
            scales,
            tensor_scale,
        });
        report.dequantized.push(DequantizedTensor {
            name: f.name.clone(),
            scheme: f.scheme,
            shape: f.shape.clone(),
            parts,
        });
    }
    let dequantized = outs.len();
    for (i, e) in input.file.entries.iter().enumerate() {
        if used.contains(&e.name) {
            continue;
        }
        if outs[..dequantized].iter().any(|o| o.name == e.name) {
            return Err(QuantizeError::NameTaken {
                name: e.name.clone(),
                part: "dequantized tensor",
                taken: e.name.clone(),
            });
        }
        report.kept.push(e.name.clone());
        outs.push(kept_entry(input, i));
    }
    let names: Vec<String> = found.iter().map(|f| f.name.clone()).collect();
    let metadata = without_records(input.file.metadata.as_ref(), &names);
    let order = in_layout_order(&outs);
    header(out, &outs, &order, &metadata)?;
    let total = input.data_len;
    let mut done = 0u64;
    let mut data_bytes = 0u64;
    for &i in &order {
        let o = &outs[i];
        data_bytes += o.len;
        if copy_kept(input, o, out)? {
            done += o.len;
            progress(done, total);
            continue;
        }
        let Data::Dequantized(k) = o.data else {
            continue;
        };
        let p = &planned[k];
        let f = &found[p.found];
        let codes_entry = input.file.entries[p.codes].clone();
        let scales_entry = input.file.entries[p.scales].clone();
        let codes = input.bytes(&codes_entry)?;
        let scales = input.bytes(&scales_entry)?;
        done += codes_entry.len() + scales_entry.len();
        let block_err = |source: BlockError| QuantizeError::Block {
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
            p.tensor_scale,
        )
        .map_err(block_err)?;
        if to == Format::F32 {
            // the values as they are, written a chunk at a time (no second copy)
            let values = q.dequantize();
            drop(q);
            let mut buf = Vec::with_capacity(WRITE_CHUNK * 4);
            for chunk in values.chunks(WRITE_CHUNK) {
                buf.clear();
                buf.extend(chunk.iter().flat_map(|v| v.to_le_bytes()));
                out.write_all(&buf).map_err(IoError::Os)?;
            }
        } else {
            let bytes = q.dequantize_bytes(to).map_err(block_err)?;
            drop(q);
            out.write_all(&bytes).map_err(IoError::Os)?;
        }
        progress(done, total);
    }
    Ok(Streamed {
        report,
        names: outs.into_iter().map(|o| o.name).collect(),
        data_bytes,
    })
}

/// What [`Quantized::from_parts`] checks, from the parts' sizes alone (before anything is
/// written): the layout, the codes' and scales' bytes, the per-tensor scale.
fn check_parts(
    f: &Found,
    codes: u64,
    scales: u64,
    tensor_scale: Option<f32>,
) -> Result<(), QuantizeError> {
    let block_err = |source: BlockError| QuantizeError::Block {
        name: f.name.clone(),
        shape: f.shape.clone(),
        axis: f.axis as isize,
        reason: Box::new(source),
    };
    let layout =
        BlockLayout::new(&f.shape, f.axis as isize, f.scheme.block_size()).map_err(block_err)?;
    let check = |what, len: u64, needed: usize| {
        if len == needed as u64 {
            Ok(())
        } else {
            Err(block_err(BlockError::PartsLength {
                what,
                len: len as usize,
                needed,
                shape: f.shape.clone(),
                scheme: f.scheme.to_string(),
            }))
        }
    };
    check("codes", codes, f.scheme.code_bytes(layout.len()))?;
    check("scales", scales, layout.block_count())?;
    if let Some(value) = tensor_scale
        && !(value.is_finite() && value > 0.0)
    {
        return Err(block_err(BlockError::BadTensorScale { value }));
    }
    Ok(())
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
