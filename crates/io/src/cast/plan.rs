//! A file cast decided before any element is cast: the output header, and for each tensor
//! whether it is cast (and how) or copied. Running the plan streams the output; listing it is
//! the dry run ([`super::preview()`]), so the two cannot disagree.
//!
//! A plan holds one [`Step`] per tensor and nothing else per tensor: its name and shape
//! (moved from the parsed header, never copied), what happens to it and where its bytes
//! are. Running a step turns it into the tensor's report, the step's memory given back as
//! the reports are made. A `.safetensors` output header is not held but written from the
//! steps when the plan runs. So a file of a million small tensors costs about one report per
//! tensor, not copies of its names or of its header.

use std::collections::HashMap;
use std::io::{Read, Seek, Write};

use npusim_numerics::Format;
use safetensors::Dtype;

use super::chunks::{Buffers, ChunkCast, TensorStream};
use super::driver::{cast_stream, copy_stream};
use super::input::Input;
use super::job::CastJob;
use super::keep_reason::KeepReason;
use super::preview::TensorPreview;
use super::progress::CastProgress;
use super::report::{CastSummary, KeptSummary, TensorReport};
use super::sink::{SinkWriter, write_behind};
use crate::elements::SubByte;
use crate::error::IoError;
use crate::safetensors::{self as st, EntryOut};

/// One tensor to cast.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CastStep {
    /// Its name (a single-tensor file's file name).
    pub name: Box<str>,
    /// Its logical shape.
    pub shape: Box<[usize]>,
    /// Elements.
    pub count: usize,
    /// Offset of its bytes in the input.
    pub offset: u64,
    /// Source format.
    pub from: Format,
    /// Destination format.
    pub to: Format,
    /// How the input lays out 4-bit source elements.
    pub src_sub: SubByte,
    /// How the output lays out 4-bit destination elements.
    pub dst_sub: SubByte,
    /// Width of big-endian source elements to swap (1: none).
    pub swap: u8,
    /// The input's safetensors dtype (`None`: a single-tensor file, whose element type is
    /// [`Plan::single_dtype`]).
    pub dtype: Option<Dtype>,
    /// The output's safetensors dtype (`None` for a single-tensor output).
    pub out_dtype: Option<Dtype>,
}

impl CastStep {
    /// Where and how its elements are cast.
    fn stream(&self) -> TensorStream {
        TensorStream {
            offset: self.offset,
            count: self.count,
            from: self.from,
            src_sub: self.src_sub,
            swap: usize::from(self.swap),
            to: self.to,
            dst_sub: self.dst_sub,
        }
    }
}

/// One tensor copied unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CopyStep {
    /// Its name.
    pub name: Box<str>,
    /// Its shape as written.
    pub shape: Box<[usize]>,
    /// Offset of its bytes in the input.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
    /// Its dtype.
    pub dtype: Dtype,
    /// Its npusim format, if it has one.
    pub format: Option<Format>,
    /// Why it is kept.
    pub reason: KeepReason,
}

/// What happens to one tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Cast it.
    Cast(CastStep),
    /// Copy its bytes unchanged.
    Copy(CopyStep),
}

impl Step {
    /// Bytes of the tensor in the input and in the output.
    pub(crate) fn bytes(&self) -> Result<(u64, u64), IoError> {
        match self {
            Step::Cast(c) => {
                let s = c.stream();
                Ok((s.input_bytes()?, s.output_bytes()?))
            }
            Step::Copy(k) => Ok((k.len, k.len)),
        }
    }

    /// The tensor's name.
    pub(crate) fn name(&self) -> &str {
        match self {
            Step::Cast(c) => &c.name,
            Step::Copy(k) => &k.name,
        }
    }

    /// The dry run's row for this step (`single_dtype`: a single-tensor file's element
    /// type): the byte counts are the ones the cast reads and writes.
    fn preview(&self, single_dtype: Option<&str>) -> Result<TensorPreview, IoError> {
        let (bytes_in, bytes_out) = self.bytes()?;
        Ok(match self {
            Step::Cast(c) => TensorPreview {
                name: c.name.to_string(),
                dtype: match (single_dtype, c.dtype) {
                    (Some(text), _) => text.to_string(),
                    (None, Some(d)) => d.to_string(),
                    (None, None) => String::new(),
                },
                from: Some(c.from),
                action: Ok(c.to),
                shape: c.shape.to_vec(),
                bytes_in,
                bytes_out,
            },
            Step::Copy(k) => TensorPreview {
                name: k.name.to_string(),
                dtype: k.dtype.to_string(),
                from: k.format,
                action: Err(k.reason),
                shape: k.shape.to_vec(),
                bytes_in,
                bytes_out,
            },
        })
    }
}

/// The output's header.
pub(crate) enum OutHeader {
    /// These bytes (empty for raw files).
    Bytes(Vec<u8>),
    /// A `.safetensors` header, written from the steps in their order when the plan runs.
    Safetensors {
        /// The output's `__metadata__`.
        metadata: Option<HashMap<String, String>>,
        /// Whether 4-bit formats are packed (the job's `packed`).
        packed: bool,
    },
}

/// A whole file cast.
pub(crate) struct Plan {
    /// The output's header.
    pub header: OutHeader,
    /// The tensors in output order.
    pub steps: Vec<Step>,
    /// Whether to name each cast tensor to the progress display (multi-tensor files).
    pub name_tensors: bool,
    /// A single-tensor file's element type as it writes it (`<f4`, `raw f32`).
    pub single_dtype: Option<String>,
}

/// Bytes of steps taken from the front of a plan's list after which the list is shrunk, so
/// that the steps run and the reports made are never both whole in memory.
pub(crate) const SHRINK_BYTES: usize = 1 << 20;

impl Plan {
    /// Whether no tensor is cast (every one is copied unchanged).
    pub(crate) fn casts_nothing(&self) -> bool {
        !self.steps.iter().any(|s| matches!(s, Step::Cast(_)))
    }

    /// Elements the plan casts.
    fn total_elements(&self) -> u64 {
        self.steps
            .iter()
            .map(|s| match s {
                Step::Cast(c) => c.count as u64,
                Step::Copy(_) => 0,
            })
            .sum()
    }

    /// One row per tensor, in output order: what the cast would do and the bytes it would
    /// read and write.
    pub(crate) fn preview(&self) -> Result<Vec<TensorPreview>, IoError> {
        let single = self.single_dtype.as_deref();
        self.steps.iter().map(|s| s.preview(single)).collect()
    }

    /// Writes the output's header to `out`.
    fn write_header(&self, job: &CastJob, out: &mut SinkWriter<'_>) -> Result<(), IoError> {
        match &self.header {
            OutHeader::Bytes(bytes) => out.write_all(bytes).map_err(IoError::Os),
            OutHeader::Safetensors { metadata, packed } => {
                st::write_header(out, metadata.as_ref(), |entry| {
                    for step in &self.steps {
                        let (_, len) = step.bytes()?;
                        match step {
                            Step::Cast(c) => {
                                let enc = st::encode(job.to, &c.shape, *packed)
                                    .map_err(|e| e.in_tensor(&*c.name))?;
                                entry(EntryOut {
                                    name: &c.name,
                                    dtype: enc.dtype,
                                    shape: &enc.file_shape,
                                    len,
                                })?;
                            }
                            Step::Copy(k) => entry(EntryOut {
                                name: &k.name,
                                dtype: k.dtype,
                                shape: &k.shape,
                                len,
                            })?,
                        }
                    }
                    Ok(())
                })
            }
        }
    }

    /// Writes the output to `out`, streaming each tensor from `input`; returns one report
    /// per tensor. With [`CastJob::fail_on_nan`], a cast that made NaN or ±Inf out of finite
    /// inputs ends in [`IoError::NonFiniteFromFinite`] once everything is cast (the caller
    /// then discards the output).
    pub(crate) fn run<R: Read + Seek>(
        mut self,
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
            let mut header = SinkWriter::new(sink);
            self.write_header(job, &mut header)?;
            header.finish()?;
            self.header = OutHeader::Bytes(Vec::new());
            let mut bufs = Buffers::default();
            let mut reports = Vec::with_capacity(self.steps.len());
            // Taken from the back: the steps are reversed first.
            self.steps.reverse();
            let shrink_every = (SHRINK_BYTES / size_of::<Step>().max(1)).max(1);
            while let Some(step) = self.steps.pop() {
                let report = match step {
                    Step::Cast(c) => {
                        if self.name_tensors {
                            progress.set_message(&c.name);
                        }
                        let stream = c.stream();
                        let stats = cast_stream(input, &stream, sink, &how, progress, &mut bufs)?;
                        TensorReport::Cast(CastSummary {
                            name: c.name.into_string(),
                            from: c.from,
                            to: c.to,
                            count: c.count,
                            shape: c.shape.into_vec(),
                            stats,
                        })
                    }
                    Step::Copy(k) => {
                        copy_stream(input, k.offset, k.len, sink)?;
                        TensorReport::Kept(KeptSummary {
                            name: k.name.into_string(),
                            dtype: k.dtype,
                            shape: k.shape.into_vec(),
                            reason: k.reason,
                        })
                    }
                };
                reports.push(report);
                if self.steps.capacity() - self.steps.len() >= shrink_every {
                    self.steps.shrink_to_fit();
                }
            }
            Ok(reports)
        })?;
        progress.finish();
        job.check_nonfinite(&reports)?;
        Ok(reports)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_step_holds_a_tensor_in_at_most_96_bytes_before_its_name_and_shape() {
        // Name and shape (16 + 16), count and offset (16), two layouts (32), formats, swap and
        // dtypes (7): 88 bytes. A step must not grow into a copy of the report (112 bytes) or
        // hold copies of the names.
        assert!(size_of::<Step>() <= 96, "{} bytes", size_of::<Step>());
        assert!(size_of::<TensorReport>() <= 112);
    }
}
