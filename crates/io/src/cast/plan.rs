//! A file cast decided before any element is cast: the output header, and for each tensor
//! whether it is cast (and how) or copied. Running the plan streams the output; listing it is
//! the dry run ([`super::preview`]), so the two cannot disagree.

use std::io::{Read, Seek, Write};

use npusim_numerics::Format;

use super::driver::{Buffers, ChunkCast, TensorStream, cast_stream, copy_stream};
use super::input::Input;
use super::job::CastJob;
use super::preview::TensorPreview;
use super::progress::CastProgress;
use super::report::{CastSummary, KeptSummary, TensorReport};
use super::sink::write_behind;
use crate::error::IoError;

/// What happens to one tensor.
pub(crate) enum Step {
    /// Cast it; the summary's counts are filled in as it is cast.
    Cast {
        /// Where and how.
        stream: TensorStream,
        /// Its report, counts still zero (boxed: its statistics are large).
        summary: Box<CastSummary>,
        /// Its element type as the input file writes it (`<f4`, `F32`, `raw f32`).
        dtype: String,
    },
    /// Copy its bytes unchanged.
    Copy {
        /// Offset in the input.
        offset: u64,
        /// Bytes.
        len: u64,
        /// Its report.
        summary: KeptSummary,
        /// Its npusim format, if it has one.
        format: Option<Format>,
    },
}

impl Step {
    /// The dry run's row for this step: the byte counts are the ones the cast reads and
    /// writes.
    fn preview(&self) -> Result<TensorPreview, IoError> {
        Ok(match self {
            Step::Cast {
                stream,
                summary,
                dtype,
            } => TensorPreview {
                name: summary.name.clone(),
                dtype: dtype.clone(),
                from: Some(summary.from),
                action: Ok(summary.to),
                shape: summary.shape.clone(),
                bytes_in: stream.input_bytes()?,
                bytes_out: stream.output_bytes()?,
            },
            Step::Copy {
                len,
                summary,
                format,
                ..
            } => TensorPreview {
                name: summary.name.clone(),
                dtype: summary.dtype.to_string(),
                from: *format,
                action: Err(summary.reason),
                shape: summary.shape.clone(),
                bytes_in: *len,
                bytes_out: *len,
            },
        })
    }
}

/// A whole file cast.
pub(crate) struct Plan {
    /// The output's header bytes (empty for raw files).
    pub header: Vec<u8>,
    /// The tensors in output order.
    pub steps: Vec<Step>,
    /// Whether to name each cast tensor to the progress display (multi-tensor files).
    pub name_tensors: bool,
}

impl Plan {
    /// Whether no tensor is cast (every one is copied unchanged).
    pub(crate) fn casts_nothing(&self) -> bool {
        !self.steps.iter().any(|s| matches!(s, Step::Cast { .. }))
    }

    /// Elements the plan casts.
    fn total_elements(&self) -> u64 {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Cast { stream, .. } => stream.count as u64,
                Step::Copy { .. } => 0,
            })
            .sum()
    }

    /// One row per tensor, in output order: what the cast would do and the bytes it would
    /// read and write.
    pub(crate) fn preview(&self) -> Result<Vec<TensorPreview>, IoError> {
        self.steps.iter().map(Step::preview).collect()
    }

    /// Writes the output to `out`, streaming each tensor from `input`; returns one report
    /// per tensor. With [`CastJob::fail_on_nan`], a cast that made NaN or ±Inf out of finite
    /// inputs ends in [`IoError::NonFiniteFromFinite`] once everything is cast (the caller
    /// then discards the output).
    pub(crate) fn run<R: Read + Seek>(
        self,
        job: &CastJob,
        input: &mut Input<R>,
        out: &mut (dyn Write + Send),
        progress: &mut dyn CastProgress,
    ) -> Result<Vec<TensorReport>, IoError> {
        progress.begin(input.len(), self.total_elements());
        let how = ChunkCast {
            policy: &job.policy,
            bulk: job.bulk(),
            error_stats: job.error_stats,
        };
        let reports = write_behind(out, |sink| {
            sink.send(self.header)?;
            let mut bufs = Buffers::default();
            let mut reports = Vec::with_capacity(self.steps.len());
            for step in self.steps {
                match step {
                    Step::Cast {
                        stream,
                        mut summary,
                        ..
                    } => {
                        if self.name_tensors {
                            progress.set_message(&summary.name);
                        }
                        summary.stats =
                            cast_stream(input, &stream, sink, &how, progress, &mut bufs)?;
                        reports.push(TensorReport::Cast(*summary));
                    }
                    Step::Copy {
                        offset,
                        len,
                        summary,
                        ..
                    } => {
                        copy_stream(input, offset, len, sink)?;
                        reports.push(TensorReport::Kept(summary));
                    }
                }
            }
            Ok(reports)
        })?;
        progress.finish();
        job.check_nonfinite(&reports)?;
        Ok(reports)
    }
}
