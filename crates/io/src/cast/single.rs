//! Casting a single-tensor file (`.npy` or raw) into a single-tensor file.

use crate::packing::is_nibble;
use std::path::Path;

use super::driver::cast_buffer_with;
use super::job::CastJob;
use super::progress::CastProgress;
use super::report::{CastOutcome, CastOutput, CastSummary, SingleTensor, TensorReport};
use crate::container::Container;
use crate::elements::Elements;
use crate::error::IoError;
use crate::{npy, raw};

/// The source elements of a single-tensor input, its logical shape and its order.
struct Source<'a> {
    elements: Elements<'a>,
    shape: Vec<usize>,
    fortran: bool,
}

/// Casts the `.npy` or raw file `bytes` (read from `input`) as `job` says.
pub(super) fn cast_single(
    job: &CastJob,
    input: &Path,
    bytes: &[u8],
    progress: &mut dyn CastProgress,
) -> Result<CastOutcome<'static>, IoError> {
    if !job.tensors.is_empty() {
        return Err(IoError::TensorOnSingle {
            container: job.input.name(),
        });
    }
    let src = match job.input {
        Container::Npy => read_npy(job, input, bytes)?,
        _ => read_raw(job, input, bytes)?,
    };
    let to = job.to;
    let count = src.elements.count;
    let out_packed = job.packed && is_nibble(to);
    let sub = match job.output {
        Container::Npy => {
            if out_packed && src.shape.is_empty() {
                return Err(IoError::PackedScalar);
            }
            if out_packed && src.fortran {
                return Err(IoError::PackedFortran {
                    path: input.to_path_buf(),
                });
            }
            npy::file_sub_byte(to, &src.shape, out_packed)
        }
        _ => raw::file_sub_byte(to, out_packed),
    };
    let dst = sub.storage(to, count);
    progress.begin(bytes.len() as u64, count as u64);
    let (out, stats) = cast_buffer_with(
        &src.elements,
        dst,
        &job.policy,
        &job.bulk(),
        job.error_stats,
        progress,
    )?;
    progress.finish();
    let name = input
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let report = TensorReport::Cast(CastSummary {
        name,
        from: src.elements.storage.format(),
        to,
        count,
        shape: src.shape.clone(),
        stats,
    });
    let output = CastOutput::Single(SingleTensor {
        container: job.output,
        elements: Elements {
            storage: dst,
            count,
            bytes: out.into(),
        },
        shape: src.shape,
        fortran: src.fortran,
        packed: out_packed,
    });
    Ok(CastOutcome {
        reports: vec![report],
        output,
    })
}

/// The elements of a `.npy` input.
fn read_npy<'a>(job: &CastJob, input: &Path, bytes: &'a [u8]) -> Result<Source<'a>, IoError> {
    let array = npy::parse(bytes).map_err(|e| e.reading(input))?;
    let from = npy::element_format(&array, job.from).map_err(|e| e.reading(input))?;
    job.check_packed(from)?;
    let src_packed = job.packed && is_nibble(from);
    if job.shape.is_some() && !src_packed {
        return Err(IoError::ShapeOnNpy);
    }
    if src_packed && array.fortran {
        return Err(IoError::PackedFortran {
            path: input.to_path_buf(),
        });
    }
    let shape = npy::logical_shape(&array.shape, src_packed, job.shape.as_deref())
        .map_err(|e| e.reading(input))?;
    let elements = npy::elements(&array, from, &shape, src_packed).map_err(|e| e.reading(input))?;
    Ok(Source {
        elements,
        shape,
        fortran: array.fortran,
    })
}

/// The elements of a raw input, whose format and shape the job gives.
fn read_raw<'a>(job: &CastJob, input: &Path, bytes: &'a [u8]) -> Result<Source<'a>, IoError> {
    let (Some(from), Some(shape)) = (job.from, job.shape.as_deref()) else {
        return Err(IoError::RawNeedsFromAndShape);
    };
    job.check_packed(from)?;
    let packed = job.packed && is_nibble(from);
    let elements = raw::elements(bytes, from, shape, packed).map_err(|e| e.reading(input))?;
    Ok(Source {
        elements,
        shape: shape.to_vec(),
        fortran: false,
    })
}
