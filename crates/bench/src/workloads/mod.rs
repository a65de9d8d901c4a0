//! Workloads other than a slice cast (a simulator run, a block-scaled quantization): each
//! timed against a same-run parallel copy of as many bytes as it reads, on the same threads,
//! and reported in its own unit (cells, PE-cycles or elements per second).
//!
//! A workload module adds its workloads to [`all`]; each gives its name, unit, how much one
//! call does and the bytes it reads and writes, and the call itself.

use std::hint::black_box;

use rayon::prelude::*;

mod block;
mod cerebras;
mod furiosa;

use crate::error::BenchError;
use crate::timing::{Sampling, Timed, median3};

/// The result of a workload's steps.
type Result<T> = std::result::Result<T, BenchError>;

/// What a workload's speed is counted in (a simulator adds its own: cells, PE-cycles).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// Tensor elements.
    Elements,
    /// Input cells of a simulated stream (one element at one physical position).
    Cells,
    /// Simulated PE-cycles (PEs x cycles).
    PeCycles,
}

impl Unit {
    /// The unit as the table's column heading writes it, per second.
    pub(crate) fn per_second(self) -> &'static str {
        match self {
            Unit::Elements => "elem/s",
            Unit::Cells => "cells/s",
            Unit::PeCycles => "PE-cycles/s",
        }
    }

    /// The unit's stem in the JSON keys, e.g. `cells` in `cells_s_median`.
    pub(crate) fn json_stem(self) -> &'static str {
        match self {
            Unit::Elements => "elements",
            Unit::Cells => "cells",
            Unit::PeCycles => "pe_cycles",
        }
    }
}

/// One workload: a call that does `units` of work reading `input_bytes` and writing
/// `output_bytes`, on a pool of `threads` threads.
pub(crate) struct Workload<'a> {
    /// Its name in the table and in the case filter, e.g. `furiosa inter-slice reduce`.
    pub(crate) name: String,
    /// What `units` counts.
    pub(crate) unit: Unit,
    /// Work done by one call.
    pub(crate) units: u64,
    /// Bytes one call reads (the copy baseline copies this many).
    pub(crate) input_bytes: usize,
    /// Bytes one call writes.
    pub(crate) output_bytes: usize,
    /// Threads of the pool the call and its baseline run on.
    pub(crate) threads: usize,
    /// One call.
    pub(crate) call: Box<dyn FnMut() -> Result<()> + Send + 'a>,
}

/// One workload's measurement.
pub(crate) struct WorkloadRow {
    /// The workload's name.
    pub(crate) name: String,
    /// What the rates count.
    pub(crate) unit: Unit,
    /// Work done by one call.
    pub(crate) units: u64,
    /// Threads of the pool.
    pub(crate) threads: usize,
    /// Units per second: min, median, max over the samples.
    pub(crate) rate: [f64; 3],
    /// Median input + output bytes per second, in GB/s.
    pub(crate) gb_s: f64,
    /// Median bytes per second as a percentage of the same-run copy's (its bytes in + out);
    /// `None` for a workload that reads nothing.
    pub(crate) pct_copy: Option<f64>,
}

/// Every workload whose name contains one of `filters` (all when `filters` is empty), built
/// for a quick run or a full one.
pub(crate) fn all(quick: bool, filters: &[String]) -> Result<Vec<Workload<'static>>> {
    let picked = |name: &str| filters.is_empty() || filters.iter().any(|f| name.contains(f));
    let big = if quick { 16 << 20 } else { 64 << 20 };
    let all_threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut workloads: Vec<Workload<'static>> = Vec::new();
    workloads.extend(block::workloads(1 << 20, 1)?);
    workloads.extend(block::workloads(big, all_threads)?);
    workloads.extend(furiosa::workloads()?);
    workloads.extend(
        [1, all_threads]
            .iter()
            .flat_map(|&t| cerebras::workloads(t)),
    );
    workloads.retain(|w| picked(&w.name));
    Ok(workloads)
}

/// Times `w` interleaved with a parallel copy of its input bytes on the same threads.
pub(crate) fn measure(w: Workload<'_>, sampling: Sampling) -> Result<WorkloadRow> {
    let Workload {
        name,
        unit,
        units,
        input_bytes,
        output_bytes,
        threads,
        call,
    } = w;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(BenchError::ThreadPool)?;
    let src = vec![0x5au8; input_bytes];
    let mut dst = vec![0u8; input_bytes];
    let (t_work, t_copy) = pool.install(|| -> Result<_> {
        let mut work = Timed::new(call);
        let mut copy = (input_bytes > 0).then(|| {
            Timed::new(|| {
                let share = input_bytes.div_ceil(threads).max(1);
                dst.par_chunks_mut(share)
                    .zip(black_box(&src).par_chunks(share))
                    .for_each(|(d, s)| d.copy_from_slice(s));
                black_box(&dst);
                Ok(())
            })
        });
        work.calibrate(sampling.min_seconds)?;
        if let Some(c) = copy.as_mut() {
            c.calibrate(sampling.min_seconds)?;
        }
        for _ in 0..sampling.repeats {
            work.sample(sampling.repeats)?;
            if let Some(c) = copy.as_mut() {
                c.sample(sampling.repeats)?;
            }
        }
        Ok((work.samples, copy.map(|c| c.samples)))
    })?;
    let rate = median3(t_work.iter().map(|t| units as f64 / t).collect());
    let seconds = median3(t_work)[1];
    let bytes = (input_bytes + output_bytes) as f64;
    let gb_s = if seconds > 0.0 {
        bytes / seconds / 1e9
    } else {
        0.0
    };
    let pct_copy = t_copy.map(|t| {
        let copy_seconds = median3(t)[1];
        let copy_gb_s = 2.0 * input_bytes as f64 / copy_seconds / 1e9;
        100.0 * gb_s / copy_gb_s
    });
    Ok(WorkloadRow {
        name,
        unit,
        units,
        threads,
        rate,
        gb_s,
        pct_copy,
    })
}

/// One row as a JSON object, e.g. with `cells_s_median` for a workload counted in cells.
pub(crate) fn json_row(r: &WorkloadRow) -> String {
    let stem = r.unit.json_stem();
    let pct = r.pct_copy.map_or("null".to_string(), |p| format!("{p:.1}"));
    format!(
        "{{\"case\": \"{}\", \"unit\": \"{}\", \"units\": {}, \"threads\": {}, \"{stem}_s_min\": {:.1}, \"{stem}_s_median\": {:.1}, \"{stem}_s_max\": {:.1}, \"gb_s_median\": {:.3}, \"pct_copy_median\": {pct}}}",
        r.name,
        r.unit.per_second(),
        r.units,
        r.threads,
        r.rate[0],
        r.rate[1],
        r.rate[2],
        r.gb_s,
    )
}

/// Writes the rows as a table, with what its columns mean (nothing when there are none).
pub(crate) fn print(out: &mut dyn std::io::Write, rows: &[WorkloadRow]) -> std::io::Result<()> {
    if rows.is_empty() {
        return Ok(());
    }
    writeln!(
        out,
        "\n{:<40} {:>12} {:>3} {:>14} {:>7} {:>7}  min/median/max",
        "workload", "units/call", "thr", "median", "GB/s", "%copy"
    )?;
    for r in rows {
        let pct = r.pct_copy.map_or("-".to_string(), |p| format!("{p:.1}%"));
        writeln!(
            out,
            "{:<40} {:>12} {:>3} {:>14} {:>7.2} {:>7}  {}/{}/{}",
            r.name,
            r.units,
            r.threads,
            format!("{} {}", si(r.rate[1]), r.unit.per_second()),
            r.gb_s,
            pct,
            si(r.rate[0]),
            si(r.rate[1]),
            si(r.rate[2]),
        )?;
    }
    writeln!(
        out,
        "\nA workload's GB/s counts the bytes it reads and writes; %copy compares that with a same-run parallel copy of its input on as many threads (its bytes in + out)."
    )
}

/// `x` with an SI prefix and three significant digits, e.g. `21.4M`.
fn si(x: f64) -> String {
    let (v, p) = if x >= 1e9 {
        (x / 1e9, "G")
    } else if x >= 1e6 {
        (x / 1e6, "M")
    } else if x >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    format!("{v:.3}{p}")
}
