//! Sharded Hugging Face checkpoint directories (`model.safetensors.index.json` + shards): each
//! shard quantised (or dequantised) into a shard of the same name in the output directory,
//! the index rewritten for the new tensor names, the directory's other files copied.
//!
//! Two shards are done at once, each on a thread of its own with one tensor in memory at a
//! time, so that one shard's reading and quantising overlaps the other's writing and sync
//! (the quantising itself runs on every thread); the progress of the `_with_progress`
//! functions counts the tensor bytes of every shard. Every file goes through the atomic writer (complete
//! or absent); the index is written last, so an output directory with an index is a finished
//! one. From the shards' headers, before anything is written: the selection's patterns must
//! match a tensor of the checkpoint (not of every shard), a tensor named exactly must be a
//! float, every tensor to quantise must have the axis, and something must be quantised (or,
//! for `dequantize`, found). A shard that turns out broken later (its data) stops the run with
//! the shards before it (and the one being done beside it) written but no index. The index's `metadata.total_size` is set
//! to the bytes of tensor data of the new shards; its other metadata entries are kept.
//! Subdirectories are not copied.

use std::collections::BTreeMap;
use std::path::Path;

use npusim_numerics::Format;
use serde_json::{Map, Value, json};

use std::io::Read;

use npusim_numerics::block::BlockLayout;

use super::dequantize_file::{self, count_quantized};
use super::error::QuantizeError;
use super::input::{Input, open_file, read_input};
use super::job::QuantizeJob;
use super::progress::Progress;
use super::quantize_file::{self, Streamed, write_through};
use super::report::{DequantizeReport, QuantizeReport};
use super::select::Filter;
use crate::error::IoError;
use crate::safetensors::{SafetensorsFile, header_len, parse_header_from};

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

/// Refuses an output directory that is the input directory.
fn check_not_same(input: &Path, output: &Path) -> Result<(), QuantizeError> {
    if let (Ok(a), Ok(b)) = (input.canonicalize(), output.canonicalize())
        && a == b
    {
        return Err(QuantizeError::SameDirectory {
            path: input.to_path_buf(),
        });
    }
    Ok(())
}

/// The header of the `.safetensors` file `path` (its data is not read; the returned file's
/// data section is empty).
fn read_header(path: &Path) -> Result<SafetensorsFile<'static>, QuantizeError> {
    let cannot = |source| {
        QuantizeError::Io(IoError::CannotRead {
            path: path.to_path_buf(),
            source,
        })
    };
    let mut f = std::fs::File::open(path).map_err(cannot)?;
    let file_len = f.metadata().map_err(cannot)?.len();
    let mut first = [0u8; 8];
    let got = f.read(&mut first).map_err(cannot)?;
    let named = |e| in_shard(e, path);
    let len = header_len(&first[..got], file_len).map_err(named)?;
    let header = parse_header_from(f.take(len), file_len - 8 - len).map_err(named)?;
    Ok(SafetensorsFile {
        metadata: header.metadata,
        names: header.tensors.iter().map(|t| t.name.clone()).collect(),
        entries: header.tensors,
        data: &[],
    })
}

/// The output directory's shards and index, written as the shards are done.
struct Output<'a> {
    dir: &'a Path,
    weight_map: BTreeMap<String, String>,
    total: u64,
}

impl Output<'_> {
    /// Records shard `name`'s tensors and data bytes, as written.
    fn record<T>(&mut self, name: &str, s: Streamed<T>) -> T {
        self.total += s.data_bytes;
        for t in s.names {
            self.weight_map.insert(t, name.to_string());
        }
        s.report
    }

    /// Copies the other files of `input`, then writes the index.
    fn finish(self, input: &Path, index: Index) -> Result<(), QuantizeError> {
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
            let from = entry.path();
            let mut f = std::fs::File::open(&from).map_err(|source| IoError::CannotRead {
                path: from.clone(),
                source,
            })?;
            crate::write_atomic(&self.dir.join(&name), |w| {
                std::io::copy(&mut f, w).map(drop).map_err(IoError::Os)
            })?;
        }
        let mut metadata = index.metadata;
        metadata.insert("total_size".to_string(), json!(self.total));
        let doc = json!({ "metadata": metadata, "weight_map": self.weight_map });
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        write(&self.dir.join(INDEX_FILE), text.as_bytes())
    }
}

/// Creates the output directory.
fn create(output: &Path) -> Result<Output<'_>, QuantizeError> {
    std::fs::create_dir_all(output).map_err(|source| IoError::CannotOpenOutput {
        path: output.to_path_buf(),
        source,
    })?;
    Ok(Output {
        dir: output,
        weight_map: BTreeMap::new(),
        total: 0,
    })
}

/// Writes `bytes` to `path` through the atomic writer.
fn write(path: &Path, bytes: &[u8]) -> Result<(), QuantizeError> {
    crate::write_atomic(path, |w| w.write_all(bytes).map_err(IoError::Os))?;
    Ok(())
}

/// Quantises the sharded checkpoint in directory `input` into directory `output`, one
/// tensor in memory at a time. The selection, the dtypes of named tensors and the axis of every
/// tensor to quantise are checked from the shards' headers before anything is written.
pub fn quantize_dir(
    job: &QuantizeJob,
    input: &Path,
    output: &Path,
) -> Result<QuantizeReport, QuantizeError> {
    quantize_dir_with_progress(job, input, output, &mut |_, _| {})
}

/// [`quantize_dir`], telling `progress` the tensor bytes of all shards done and in total.
pub fn quantize_dir_with_progress(
    job: &QuantizeJob,
    input: &Path,
    output: &Path,
    progress: Progress<'_>,
) -> Result<QuantizeReport, QuantizeError> {
    let index = read_index(input)?;
    check_not_same(input, output)?;
    let filter = Filter::new(&job.tensors, &job.exclude)?;
    let headers = index
        .shards
        .iter()
        .map(|s| read_header(&input.join(s)))
        .collect::<Result<Vec<_>, _>>()?;
    let names: Vec<String> = headers.iter().flat_map(|h| h.names.clone()).collect();
    filter.check_matches(&names)?;
    let mut to_quantize = 0;
    for e in headers.iter().flat_map(|h| &h.entries) {
        if filter.decide(&e.name, e.dtype, &e.shape)?.is_none() {
            BlockLayout::new(&e.shape, job.axis, job.scheme.block_size()).map_err(|source| {
                QuantizeError::Block {
                    name: e.name.clone(),
                    shape: e.shape.clone(),
                    axis: job.axis,
                    reason: Box::new(source),
                }
            })?;
            to_quantize += 1;
        }
    }
    if to_quantize == 0 {
        return Err(QuantizeError::NothingToQuantize {
            tensors: names.len(),
        });
    }
    let total: u64 = headers.iter().map(data_len).sum();
    let mut out = create(output)?;
    let mut report = QuantizeReport::default();
    let done = run_shards(
        &index.shards,
        input,
        output,
        total,
        progress,
        |file, w, p| quantize_file::stream(job, &filter, file, w, p, false),
    )?;
    for (s, r) in index.shards.iter().zip(done) {
        let r = out.record(s, r);
        report.quantized.extend(r.quantized);
        report.kept.extend(r.kept);
    }
    out.finish(input, index)?;
    Ok(report)
}

/// Dequantises the sharded checkpoint in directory `input` into directory `output` as `to`,
/// one tensor in memory at a time.
pub fn dequantize_dir(
    input: &Path,
    output: &Path,
    to: Format,
) -> Result<DequantizeReport, QuantizeError> {
    dequantize_dir_with_progress(input, output, to, &mut |_, _| {})
}

/// [`dequantize_dir`], telling `progress` the tensor bytes of all shards done and in total.
pub fn dequantize_dir_with_progress(
    input: &Path,
    output: &Path,
    to: Format,
    progress: Progress<'_>,
) -> Result<DequantizeReport, QuantizeError> {
    let dtype = dequantize_file::out_dtype(to)?;
    let index = read_index(input)?;
    check_not_same(input, output)?;
    let mut found = 0;
    let mut headers = Vec::new();
    for s in &index.shards {
        let path = input.join(s);
        let h = read_header(&path)?;
        found += count_quantized(&h).map_err(|e| in_shard_q(e, &path))?;
        headers.push(h);
    }
    if found == 0 {
        return Err(QuantizeError::NothingToDequantize);
    }
    let total: u64 = headers.iter().map(data_len).sum();
    let mut out = create(output)?;
    let mut report = DequantizeReport::default();
    let done = run_shards(
        &index.shards,
        input,
        output,
        total,
        progress,
        |file, w, p| dequantize_file::stream(file, to, dtype, w, p, false),
    )?;
    for (s, r) in index.shards.iter().zip(done) {
        let r = out.record(s, r);
        report.dequantized.extend(r.dequantized);
        report.kept.extend(r.kept);
    }
    out.finish(input, index)?;
    Ok(report)
}

/// Shards in flight at once: while one is read and quantised, the one before it is written
/// and synced.
const SHARDS_IN_FLIGHT: usize = 2;

/// Runs `work` on every shard of `shards` (in `input`), each into the shard of the same name
/// in `output` through the atomic writer, up to [`SHARDS_IN_FLIGHT`] shards at once on
/// threads of their own, so that one shard's reading and quantising overlaps another's
/// writing and its sync before the rename (the quantising itself runs on every thread).
/// `progress` is told the tensor bytes done over all shards (of `total`) on this thread. The
/// results come back in the shards' order; the first error in that order is returned, after
/// every started shard has finished (a shard after a broken one may then be written, but the
/// index is not).
fn run_shards<T: Send>(
    shards: &[String],
    input: &Path,
    output: &Path,
    total: u64,
    progress: Progress<'_>,
    work: impl Fn(
        &mut Input<std::fs::File>,
        &mut dyn std::io::Write,
        Progress<'_>,
    ) -> Result<Streamed<T>, QuantizeError>
    + Sync,
) -> Result<Vec<Streamed<T>>, QuantizeError> {
    use std::sync::mpsc;
    let (tx, rx) = mpsc::channel::<(usize, u64)>();
    let mut done = vec![0u64; shards.len()];
    let mut results: Vec<Option<Result<Streamed<T>, QuantizeError>>> =
        (0..shards.len()).map(|_| None).collect();
    let work = &work;
    std::thread::scope(|scope| {
        let mut running = std::collections::VecDeque::new();
        let mut pump = |done: &mut [u64], msg: (usize, u64)| {
            done[msg.0] = msg.1;
            progress(done.iter().sum(), total);
        };
        for (k, name) in shards.iter().enumerate() {
            if running.len() == SHARDS_IN_FLIGHT
                && let Some((j, handle)) = running.pop_front()
            {
                wait(handle, &rx, &mut |m| pump(&mut done, m), &mut results[j]);
            }
            let tx = tx.clone();
            let path = input.join(name);
            let to = output.join(name);
            let handle = scope.spawn(move || {
                let mut file = open_file(&path)?;
                let mut p = |d: u64, _: u64| {
                    let _ = tx.send((k, d));
                };
                write_through(&to, |w| work(&mut file, w, &mut p)).map_err(|e| in_shard_q(e, &path))
            });
            running.push_back((k, handle));
        }
        while let Some((j, handle)) = running.pop_front() {
            wait(handle, &rx, &mut |m| pump(&mut done, m), &mut results[j]);
        }
        while let Ok(m) = rx.try_recv() {
            pump(&mut done, m);
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.unwrap_or_else(|| {
                Err(QuantizeError::Io(IoError::Os(std::io::Error::other(
                    "a shard's worker returned nothing",
                ))))
            })
        })
        .collect()
}

/// Waits for a shard's thread, passing its progress messages on meanwhile; its result (an
/// error if it panicked) into `slot`.
fn wait<T>(
    handle: std::thread::ScopedJoinHandle<'_, Result<T, QuantizeError>>,
    rx: &std::sync::mpsc::Receiver<(usize, u64)>,
    pump: &mut dyn FnMut((usize, u64)),
    slot: &mut Option<Result<T, QuantizeError>>,
) {
    while !handle.is_finished() {
        if let Ok(m) = rx.recv_timeout(std::time::Duration::from_millis(20)) {
            pump(m);
        }
    }
    *slot = Some(handle.join().unwrap_or_else(|_| {
        Err(QuantizeError::Io(IoError::Os(std::io::Error::other(
            "a shard's worker stopped unexpectedly",
        ))))
    }));
}

/// Bytes of tensor data a shard's header describes.
fn data_len(h: &SafetensorsFile<'_>) -> u64 {
    h.entries.iter().map(|e| e.end).max().unwrap_or(0)
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
