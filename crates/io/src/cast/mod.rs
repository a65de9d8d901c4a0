//! File casts: read a tensor file, cast its tensors, produce the output and a report.
//!
//! A [`CastJob`] says what to do; [`cast_bytes`] does it on a file held in memory and returns
//! a [`CastOutcome`] (one [`TensorReport`] per tensor and the [`CastOutput`] to write);
//! [`cast_file`] reads the input, casts and writes the output atomically. Large buffers are
//! cast in chunks ([`cast_buffer`]) whose stochastic-rounding index continues from chunk to
//! chunk, so results equal a one-shot cast; progress goes to a [`CastProgress`].

mod driver;
mod error_stats;
mod job;
mod multi;
mod progress;
mod report;
mod select;
mod single;
mod stats;

use std::path::Path;

pub use driver::{CHUNK_ELEMENTS, cast_buffer, cast_buffer_with};
pub use error_stats::ErrorStats;
pub use job::CastJob;
pub use progress::{CastProgress, NoProgress};
pub use report::{
    CastOutcome, CastOutput, CastSummary, KeptSummary, SingleTensor, TensorReport, tally,
};
pub use select::{KeepReason, PlannedTensor, SelectError, TensorFilter, plan};
pub use stats::Stats;

use crate::error::IoError;

/// Casts the file `bytes` as `job` says; `input` names the file in messages and reports.
/// Nothing is written: the outcome holds the output.
pub fn cast_bytes<'a>(
    job: &CastJob,
    input: &Path,
    bytes: &'a [u8],
    progress: &mut dyn CastProgress,
) -> Result<CastOutcome<'a>, IoError> {
    job.check_containers()?;
    if job.input.is_single_tensor() {
        single::cast_single(job, input, bytes, progress)
    } else {
        multi::cast_safetensors(job, input, bytes, progress)
    }
}

/// Reads `input`, casts it as `job` says and writes `output` atomically (a failed run leaves
/// no file and does not touch an existing one). Returns one report per tensor.
pub fn cast_file(
    job: &CastJob,
    input: &Path,
    output: &Path,
    progress: &mut dyn CastProgress,
) -> Result<Vec<TensorReport>, IoError> {
    job.check_containers()?;
    let bytes = std::fs::read(input).map_err(|source| IoError::CannotRead {
        path: input.to_path_buf(),
        source,
    })?;
    let outcome = cast_bytes(job, input, &bytes, progress)?;
    job.check_nonfinite(&outcome.reports)?;
    outcome.output.write_atomic(output)?;
    Ok(outcome.reports)
}
