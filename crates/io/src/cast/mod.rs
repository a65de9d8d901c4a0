//! File casts: read a tensor file, cast its tensors, write the output and a report.
//!
//! A [`CastJob`] says what to do. [`cast_file`] reads the input's header, decides every
//! tensor's fate and output size, writes the output header, then streams each tensor in
//! chunks (read, cast, write; a file's chunks by one worker per thread at once, their writes
//! behind them on another thread) into a temporary file renamed over the output at the end:
//! memory stays bounded whatever the file's size. [`cast_bytes`] does the same on a
//! file held in memory and returns the output bytes. Chunks continue the stochastic-rounding
//! index from one to the next, so results equal a one-shot cast; the NaN / Inf counts and,
//! if asked, the [`ErrorStats`] are gathered chunk by chunk; progress goes to a
//! [`CastProgress`]. [`cast_reader`] streams any seekable input to any writer (pipes), and
//! [`preview()`] lists what the cast would do without doing it (`--dry-run`).

mod chunks;
mod driver;
mod error_stats;
mod input;
mod job;
mod keep_reason;
mod multi;
mod open;
mod plan;
mod preview;
mod progress;
mod report;
mod select;
pub(crate) mod select_error;
mod single;
mod sink;
mod stats;
mod workers;

use std::io::{Cursor, Read, Seek, Write};
use std::path::Path;

pub use driver::{CHUNK_ELEMENTS, WORKER_CHUNK_ELEMENTS};
pub use error_stats::ErrorStats;
pub use job::CastJob;
pub use keep_reason::KeepReason;
pub use preview::TensorPreview;
pub use progress::{CastProgress, NoProgress};
pub use report::{CastOutcome, CastSummary, KeptSummary, TensorReport, tally};
pub use select_error::{PatternList, SelectError};
pub use stats::Stats;

use crate::atomic::{Durability, WriteOptions, write_atomic_opts};
use crate::error::IoError;
use input::Input;
use open::{open_input, plan_cast};

/// Casts the file `bytes` as `job` says; `input` names the file in messages and reports.
/// Nothing is written to disk: the outcome holds the output's bytes.
pub fn cast_bytes(
    job: &CastJob,
    input: &Path,
    bytes: &[u8],
    progress: &mut dyn CastProgress,
) -> Result<CastOutcome, IoError> {
    let mut out = Vec::new();
    let reports = cast_reader(
        job,
        input,
        Cursor::new(bytes),
        bytes.len() as u64,
        &mut out,
        progress,
    )?;
    Ok(CastOutcome {
        reports,
        bytes: out,
    })
}

/// Casts the `len`-byte file `reader` as `job` says, writing the output to `out` in chunks as
/// it is cast; `input` names the file in messages and reports. Returns one report per
/// tensor. On an error (including [`CastJob::fail_on_nan`]'s) part of the output may have been
/// written: [`cast_file`] writes through a temporary file for that reason. (Standard input
/// is seekable once read into memory: wrap the bytes in a [`Cursor`].)
pub fn cast_reader<R: Read + Seek>(
    job: &CastJob,
    input: &Path,
    reader: R,
    len: u64,
    out: &mut (dyn Write + Send),
    progress: &mut dyn CastProgress,
) -> Result<Vec<TensorReport>, IoError> {
    let mut source = Input::new(reader, input, len);
    plan_cast(job, &mut source)?.run(job, &mut source, out, progress)
}

/// What `job` would do with the file `input`, one row per tensor in output order, reading its
/// header only: nothing is cast or written. The header and sizes are checked as the cast
/// checks them.
pub fn preview(job: &CastJob, input: &Path) -> Result<Vec<TensorPreview>, IoError> {
    let mut source = open_input(input)?;
    plan_cast(job, &mut source)?.preview()
}

/// Reads `input`, casts it as `job` says and writes `output` atomically, streaming (a failed
/// or interrupted run leaves no file and does not touch an existing one; so does a cast that
/// [`CastJob::fail_on_nan`] refuses), synced to the disk before the rename. Returns one
/// report per tensor.
pub fn cast_file(
    job: &CastJob,
    input: &Path,
    output: &Path,
    progress: &mut dyn CastProgress,
) -> Result<Vec<TensorReport>, IoError> {
    cast_file_with(job, input, output, Durability::Synced, progress)
}

/// [`cast_file`] with the choice of syncing the output before the rename ([`Durability::Lazy`]
/// leaves the write-back to the kernel, as `np.save` does).
pub fn cast_file_with(
    job: &CastJob,
    input: &Path,
    output: &Path,
    sync: Durability,
    progress: &mut dyn CastProgress,
) -> Result<Vec<TensorReport>, IoError> {
    let opts = WriteOptions {
        durability: sync,
        ..WriteOptions::default()
    };
    cast_file_opts(job, input, output, &opts, progress)
}

/// [`cast_file`] with every option of the atomic writer (durability, replacing a read-only
/// output).
pub fn cast_file_opts(
    job: &CastJob,
    input: &Path,
    output: &Path,
    opts: &WriteOptions,
    progress: &mut dyn CastProgress,
) -> Result<Vec<TensorReport>, IoError> {
    job.check_containers()?;
    let mut source = open_input(input)?;
    let plan = plan_cast(job, &mut source)?;
    if job.fail_on_nan && crate::atomic::is_streamed(output, opts)? {
        // A device or FIFO is written as the cast goes: hold the output back until the cast
        // has passed, so a refused cast writes nothing there either.
        let mut held = Vec::new();
        let reports = plan.run(job, &mut source, &mut held, progress)?;
        write_atomic_opts(output, opts, |w| {
            w.write_all(&held)?;
            Ok(())
        })?;
        return Ok(reports);
    }
    let mut reports = Vec::new();
    write_atomic_opts(output, opts, |w| {
        reports = plan.run(job, &mut source, w, progress)?;
        Ok(())
    })?;
    Ok(reports)
}
