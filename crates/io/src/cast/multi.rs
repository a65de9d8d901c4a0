//! Planning the cast of a `.safetensors` file into a `.safetensors` file: the header is read
//! and checked, and every tensor's fate, output size and place in the output decided (the
//! output header is written from the plan, before any data, when it runs).

use std::collections::HashMap;
use std::io::{Read, Seek};

use super::chunks::TensorStream;
use super::input::Input;
use super::job::CastJob;
use super::plan::{CastStep, CopyStep, OutHeader, Plan, SHRINK_BYTES, Step};
use super::select::{Selection, TensorFilter, select};
use crate::elements::element_count;
use crate::error::IoError;
use crate::packing::is_nibble;
use crate::safetensors::{self as st, Dtype, META_PREFIX, TensorEntry};

/// Plans the cast of the `.safetensors` file `input` as `job` says (its header only is read).
pub(super) fn plan_safetensors<R: Read + Seek>(
    job: &CastJob,
    input: &mut Input<R>,
) -> Result<Plan, IoError> {
    check_options(job)?;
    let path = input.path().to_path_buf();
    let file_len = input.len();
    let first = input.head(8)?;
    let header_len = st::header_len(&first, file_len).map_err(|e| e.reading(&path))?;
    let data_start = 8 + header_len;
    // Parsed as it is read: the header text is never held whole.
    let header = input
        .stream_at(8, header_len, |json| {
            st::parse_header_from(json, file_len - data_start)
        })?
        .map_err(|e| e.reading(&path))?;
    let filter = TensorFilter::of(job)?;
    filter.check_matches(|| header.tensors.iter().map(|t| t.name.as_str()), &path)?;
    let mut metadata = header.metadata.clone();
    // Whether the input records formats in its metadata (whose entries a cast replaces).
    let recorded = metadata
        .as_ref()
        .is_some_and(|m| m.keys().any(|k| k.starts_with(META_PREFIX)));
    let mut entries = header.tensors;
    let mut steps: Vec<Step> = Vec::with_capacity(entries.len());
    // The entries become steps in data order, taken from the back of the reversed list,
    // their names and shapes moved, the list shrinking as it empties: the entries and the
    // steps are never both whole in memory.
    entries.reverse();
    let shrink_every = (SHRINK_BYTES / size_of::<TensorEntry>().max(1)).max(1);
    while let Some(t) = entries.pop() {
        if entries.capacity() - entries.len() >= shrink_every {
            entries.shrink_to_fit();
        }
        let interp = st::interpret(&t.name, t.dtype, &t.shape, header.metadata.as_ref())
            .map_err(|e| e.reading(&path))?;
        let format = interp.as_ref().map(|i| i.format);
        let len = t.len();
        let offset = data_start + t.begin;
        match select(&t.name, t.dtype, interp, &filter)? {
            Selection::Keep(reason) => steps.push(Step::Copy(CopyStep {
                name: t.name.into_boxed_str(),
                shape: t.shape.into_boxed_slice(),
                offset,
                len,
                dtype: t.dtype,
                format,
                reason,
            })),
            Selection::Cast(interp) => {
                let metadata = Metadata {
                    recorded,
                    entries: &mut metadata,
                };
                steps.push(Step::Cast(cast_step(job, t, interp, offset, metadata)?));
            }
        }
    }
    drop(entries);
    // Output data in the layout order (widest dtype first, then by name; names are unique),
    // each tensor read from wherever it is in the input.
    steps.sort_unstable_by(|a, b| layout_order(a).cmp(&layout_order(b)));
    Ok(Plan {
        header: OutHeader::Safetensors {
            metadata,
            packed: job.packed,
        },
        steps,
        name_tensors: true,
        single_dtype: None,
    })
}

/// Refuses the options a `.safetensors` input cannot take: a source format or a shape (the
/// header gives both), and packing into a format that is not 4 bits wide.
fn check_options(job: &CastJob) -> Result<(), IoError> {
    if job.from.is_some() {
        return Err(IoError::FromOnSafetensors);
    }
    if job.shape.is_some() {
        return Err(IoError::ShapeOnSafetensors);
    }
    if job.packed && !is_nibble(job.to) {
        return Err(IoError::PackedNot4BitTo { to: job.to });
    }
    Ok(())
}

/// The output's metadata as planning rewrites it.
struct Metadata<'a> {
    /// Whether the input records formats in its metadata (entries a cast replaces).
    recorded: bool,
    /// The metadata entries.
    entries: &'a mut Option<HashMap<String, String>>,
}

/// The step that casts tensor `t` (read as `interp` says, its data at `offset` in the file),
/// after checking its byte size; records the output's format in `metadata` where it needs it.
fn cast_step(
    job: &CastJob,
    t: TensorEntry,
    interp: st::Interp,
    offset: u64,
    metadata: Metadata<'_>,
) -> Result<CastStep, IoError> {
    let len = t.len();
    let count = element_count(&interp.shape)?;
    if interp.sub.file_bytes(interp.format, count) != usize::try_from(len).ok() {
        return Err(IoError::TensorSize {
            name: t.name,
            bytes: usize::try_from(len).unwrap_or(usize::MAX),
            count,
            format: interp.format,
        });
    }
    let enc = st::encode(job.to, &interp.shape, job.packed).map_err(|e| e.in_tensor(&t.name))?;
    let stream = TensorStream {
        offset,
        count,
        from: interp.format,
        src_sub: interp.sub,
        swap: 1,
        to: job.to,
        dst_sub: enc.sub,
    };
    stream.output_bytes().map_err(|_| IoError::TensorTooLarge {
        name: t.name.clone(),
    })?;
    if metadata.recorded || enc.meta.is_some() {
        let key = format!("{META_PREFIX}{}", t.name);
        if let Some(m) = metadata.entries.as_mut() {
            m.remove(&key);
        }
        if let Some(value) = enc.meta {
            metadata
                .entries
                .get_or_insert_with(HashMap::new)
                .insert(key, value);
        }
    }
    Ok(CastStep {
        name: t.name.into_boxed_str(),
        shape: interp.shape.into_boxed_slice(),
        count,
        offset,
        from: interp.format,
        to: job.to,
        src_sub: interp.sub,
        dst_sub: enc.sub,
        swap: 1,
        dtype: Some(t.dtype),
        out_dtype: Some(enc.dtype),
    })
}

/// Where a step's tensor goes in the output ([`st::layout_key`]'s order).
fn layout_order(step: &Step) -> (std::cmp::Reverse<Option<Dtype>>, &str) {
    let dtype = match step {
        Step::Cast(c) => c.out_dtype,
        Step::Copy(k) => Some(k.dtype),
    };
    (std::cmp::Reverse(dtype), step.name())
}
