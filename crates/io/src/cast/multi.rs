//! Casting the tensors of a `.safetensors` file into a `.safetensors` file.

use crate::packing::is_nibble;
use std::collections::HashMap;
use std::path::Path;

use super::driver::cast_buffer_with;
use super::job::CastJob;
use super::progress::CastProgress;
use super::report::{CastOutcome, CastOutput, CastSummary, KeptSummary, TensorReport};
use super::select::{Selection, TensorFilter, select};
use crate::elements::{Elements, element_count};
use crate::error::IoError;
use crate::safetensors::{self as st, Interp, META_PREFIX, OutTensor};

/// Casts the `.safetensors` file `bytes` (read from `input`) as `job` says.
pub(super) fn cast_safetensors<'a>(
    job: &CastJob,
    input: &Path,
    bytes: &'a [u8],
    progress: &mut dyn CastProgress,
) -> Result<CastOutcome<'a>, IoError> {
    if job.from.is_some() {
        return Err(IoError::FromOnSafetensors);
    }
    if job.shape.is_some() {
        return Err(IoError::ShapeOnSafetensors);
    }
    if job.packed && !is_nibble(job.to) {
        return Err(IoError::PackedNot4BitTo { to: job.to });
    }
    let file = st::parse(bytes).map_err(|e| e.reading(input))?;
    let filter = TensorFilter::of(job)?;
    filter.check_matches(&file.names, input)?;
    // Decide first, so that the progress report knows the total.
    let mut selections = Vec::with_capacity(file.names.len());
    let mut total = 0u64;
    for name in &file.names {
        let view = file.tensors.tensor(name)?;
        let interp = st::interpret(name, view.dtype(), view.shape(), file.metadata.as_ref())
            .map_err(|e| e.reading(input))?;
        let selection = select(name, view.dtype(), interp, &filter)?;
        if let Selection::Cast(i) = &selection {
            total += element_count(&i.shape)? as u64;
        }
        selections.push(selection);
    }
    progress.begin(bytes.len() as u64, total);
    let mut metadata = file.metadata.clone();
    let mut tensors = Vec::with_capacity(file.names.len());
    let mut reports = Vec::with_capacity(file.names.len());
    for (name, selection) in file.names.iter().zip(selections) {
        let view = file.tensors.tensor(name)?;
        match selection {
            Selection::Keep(reason) => {
                reports.push(TensorReport::Kept(KeptSummary {
                    name: name.clone(),
                    dtype: view.dtype(),
                    shape: view.shape().to_vec(),
                    reason,
                }));
                let kept = OutTensor {
                    dtype: view.dtype(),
                    shape: view.shape().to_vec(),
                    data: view.data().into(),
                };
                tensors.push((name.clone(), kept));
            }
            Selection::Cast(interp) => {
                progress.set_message(name);
                let (tensor, summary, meta) =
                    cast_tensor(name, view.data(), &interp, job, progress)?;
                let key = format!("{META_PREFIX}{name}");
                if let Some(m) = metadata.as_mut() {
                    m.remove(&key);
                }
                if let Some(value) = meta {
                    metadata.get_or_insert_with(HashMap::new).insert(key, value);
                }
                reports.push(TensorReport::Cast(summary));
                tensors.push((name.clone(), tensor));
            }
        }
    }
    progress.finish();
    Ok(CastOutcome {
        reports,
        output: CastOutput::Safetensors { tensors, metadata },
    })
}

/// Casts one tensor; returns it, its summary and its `npusim.dtype` entry.
fn cast_tensor(
    name: &str,
    data: &[u8],
    interp: &Interp,
    job: &CastJob,
    progress: &mut dyn CastProgress,
) -> Result<(OutTensor<'static>, CastSummary, Option<String>), IoError> {
    let count = element_count(&interp.shape)?;
    if interp.sub.file_bytes(interp.format, count) != Some(data.len()) {
        return Err(IoError::TensorSize {
            name: name.to_string(),
            bytes: data.len(),
            count,
            format: interp.format,
        });
    }
    let src = Elements::from_file(data, interp.format, interp.sub, count);
    let enc = st::encode(job.to, &interp.shape, job.packed).map_err(|e| e.in_tensor(name))?;
    let dst = enc.sub.storage(job.to, count);
    let (out, stats) = cast_buffer_with(
        &src,
        dst,
        &job.policy,
        &job.bulk(),
        job.error_stats,
        progress,
    )?;
    let out = Elements {
        storage: dst,
        count,
        bytes: out.into(),
    };
    let file_bytes = out.to_file(enc.sub).into_owned();
    let summary = CastSummary {
        name: name.to_string(),
        from: interp.format,
        to: job.to,
        count,
        shape: interp.shape.clone(),
        stats,
    };
    let tensor = OutTensor {
        dtype: enc.dtype,
        shape: enc.file_shape,
        data: file_bytes.into(),
    };
    Ok((tensor, summary, enc.meta))
}
