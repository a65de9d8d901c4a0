//! Planning the cast of a `.safetensors` file into a `.safetensors` file: the header is read
//! and checked, every tensor's fate and output size decided, and the output header written
//! before any data.

use std::collections::HashMap;
use std::io::{Read, Seek};

use super::driver::TensorStream;
use super::input::Input;
use super::job::CastJob;
use super::plan::{Plan, Step};
use super::report::{CastSummary, KeptSummary};
use super::select::{Selection, TensorFilter, select};
use super::stats::Stats;
use crate::elements::element_count;
use crate::error::IoError;
use crate::packing::is_nibble;
use crate::safetensors::{self as st, EntryOut, META_PREFIX};

/// Plans the cast of the `.safetensors` file `input` as `job` says (its header only is read).
pub(super) fn plan_safetensors<R: Read + Seek>(
    job: &CastJob,
    input: &mut Input<R>,
) -> Result<Plan, IoError> {
    if job.from.is_some() {
        return Err(IoError::FromOnSafetensors);
    }
    if job.shape.is_some() {
        return Err(IoError::ShapeOnSafetensors);
    }
    if job.packed && !is_nibble(job.to) {
        return Err(IoError::PackedNot4BitTo { to: job.to });
    }
    let path = input.path().to_path_buf();
    let file_len = input.len();
    let first = input.head(8)?;
    let header_len = st::header_len(&first, file_len).map_err(|e| e.reading(&path))?;
    let mut json = vec![0u8; usize::try_from(header_len).unwrap_or(usize::MAX)];
    input.read_at(8, &mut json)?;
    let data_start = 8 + header_len;
    let header = st::parse_header(&json, file_len - data_start).map_err(|e| e.reading(&path))?;
    drop(json);
    let names: Vec<String> = header.tensors.iter().map(|t| t.name.clone()).collect();
    let filter = TensorFilter::of(job)?;
    filter.check_matches(&names, &path)?;
    let mut metadata = header.metadata.clone();
    let mut steps: Vec<Step> = Vec::with_capacity(header.tensors.len());
    // Output header entries: name, dtype, header shape, bytes.
    let mut out_entries = Vec::with_capacity(header.tensors.len());
    for t in &header.tensors {
        let interp = st::interpret(&t.name, t.dtype, &t.shape, header.metadata.as_ref())
            .map_err(|e| e.reading(&path))?;
        let format = interp.as_ref().map(|i| i.format);
        match select(&t.name, t.dtype, interp, &filter)? {
            Selection::Keep(reason) => {
                out_entries.push((t.name.clone(), t.dtype, t.shape.clone(), t.len()));
                steps.push(Step::Copy {
                    offset: data_start + t.begin,
                    len: t.len(),
                    summary: KeptSummary {
                        name: t.name.clone(),
                        dtype: t.dtype,
                        shape: t.shape.clone(),
                        reason,
                    },
                    format,
                });
            }
            Selection::Cast(interp) => {
                let count = element_count(&interp.shape)?;
                if interp.sub.file_bytes(interp.format, count) != usize::try_from(t.len()).ok() {
                    return Err(IoError::TensorSize {
                        name: t.name.clone(),
                        bytes: usize::try_from(t.len()).unwrap_or(usize::MAX),
                        count,
                        format: interp.format,
                    });
                }
                let enc = st::encode(job.to, &interp.shape, job.packed)
                    .map_err(|e| e.in_tensor(&t.name))?;
                let stream = TensorStream {
                    offset: data_start + t.begin,
                    count,
                    from: interp.format,
                    src_sub: interp.sub,
                    swap: 1,
                    to: job.to,
                    dst_sub: enc.sub,
                };
                let out_len = stream.output_bytes().map_err(|_| IoError::TensorTooLarge {
                    name: t.name.clone(),
                })?;
                let key = format!("{META_PREFIX}{}", t.name);
                if let Some(m) = metadata.as_mut() {
                    m.remove(&key);
                }
                if let Some(value) = enc.meta {
                    metadata.get_or_insert_with(HashMap::new).insert(key, value);
                }
                out_entries.push((t.name.clone(), enc.dtype, enc.file_shape, out_len));
                steps.push(Step::Cast {
                    stream,
                    summary: Box::new(CastSummary {
                        name: t.name.clone(),
                        from: interp.format,
                        to: job.to,
                        count,
                        shape: interp.shape,
                        stats: Stats::default(),
                    }),
                    dtype: t.dtype.to_string(),
                });
            }
        }
    }
    // Output data in the layout order, each tensor read from wherever it is in the input.
    let mut both: Vec<_> = out_entries.into_iter().zip(steps).collect();
    both.sort_by_key(|((name, dtype, _, _), _)| st::layout_key(name, *dtype));
    let (out_entries, steps): (Vec<_>, Vec<_>) = both.into_iter().unzip();
    let entries: Vec<EntryOut<'_>> = out_entries
        .iter()
        .map(|(name, dtype, shape, len)| EntryOut {
            name,
            dtype: *dtype,
            shape,
            len: *len,
        })
        .collect();
    Ok(Plan {
        header: st::header_bytes(&entries, metadata.as_ref()),
        steps,
        name_tensors: true,
    })
}
