//! A file cast decided before any element is cast: the output header, and for each tensor
//! whether it is cast (and how) or copied. Running the plan streams the output.

use std::io::{Read, Seek, Write};

use super::driver::{Buffers, TensorStream, cast_stream, copy_stream};
use super::input::Input;
use super::job::CastJob;
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
        /// Its report, counts still zero.
        summary: CastSummary,
    },
    /// Copy its bytes unchanged.
    Copy {
        /// Offset in the input.
        offset: u64,
        /// Bytes.
        len: u64,
        /// Its report.
        summary: KeptSummary,
    },
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

    /// Writes the output to `out`, streaming each tensor from `input`; returns one report
    /// per tensor.
    pub(crate) fn run<R: Read + Seek>(
        self,
        job: &CastJob,
        input: &mut Input<R>,
        out: &mut (dyn Write + Send),
        progress: &mut dyn CastProgress,
    ) -> Result<Vec<TensorReport>, IoError> {
        progress.begin(input.len(), self.total_elements());
        let reports = write_behind(out, |sink| {
            sink.send(self.header)?;
            let mut bufs = Buffers::default();
            let bulk = job.bulk();
            let mut reports = Vec::with_capacity(self.steps.len());
            for step in self.steps {
                match step {
                    Step::Cast {
                        stream,
                        mut summary,
                    } => {
                        if self.name_tensors {
                            progress.set_message(&summary.name);
                        }
                        summary.stats = cast_stream(
                            input,
                            &stream,
                            sink,
                            &job.policy,
                            &bulk,
                            progress,
                            &mut bufs,
                        )?;
                        reports.push(TensorReport::Cast(summary));
                    }
                    Step::Copy {
                        offset,
                        len,
                        summary,
                    } => {
                        copy_stream(input, offset, len, sink)?;
                        reports.push(TensorReport::Kept(summary));
                    }
                }
            }
            Ok(reports)
        })?;
        progress.finish();
        Ok(reports)
    }
}
