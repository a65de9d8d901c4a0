//! Planning the cast of a single-tensor file (`.npy` or raw) into a single-tensor file.

use std::io::{Read, Seek};

use super::input::Input;
use super::job::CastJob;
use super::plan::{CastStep, OutHeader, Plan, Step};
use super::select_error::SelectError;
use crate::container::Container;
use crate::elements::{SubByte, element_count};
use crate::error::IoError;
use crate::npy;
use crate::packing::is_nibble;
use crate::raw;
use npusim_numerics::Format;

/// The source of a single-tensor input: where its data is, its format, layout and shape.
struct Source {
    /// The element type as the file writes it.
    dtype: String,
    offset: u64,
    from: Format,
    sub: SubByte,
    /// Width of big-endian elements to swap (1: none).
    swap: u8,
    shape: Vec<usize>,
    fortran: bool,
}

/// Plans the cast of the `.npy` or raw file `input` as `job` says (headers only are read).
pub(super) fn plan_single<R: Read + Seek>(
    job: &CastJob,
    input: &mut Input<R>,
) -> Result<Plan, IoError> {
    if !job.tensors.is_empty() {
        return Err(IoError::TensorOnSingle {
            container: job.input.name(),
        });
    }
    if !job.exclude.is_empty() {
        return Err(SelectError::ExcludeOnSingle {
            container: job.input.name(),
        }
        .into());
    }
    let path = input.path().to_path_buf();
    let src = match job.input {
        Container::Npy => read_npy(job, input)?,
        _ => read_raw(job, input)?,
    };
    let to = job.to;
    let count = element_count(&src.shape)?;
    let out_packed = job.packed && is_nibble(to);
    let (dst_sub, header) = match job.output {
        Container::Npy => {
            if out_packed && src.shape.is_empty() {
                return Err(IoError::PackedScalar);
            }
            if out_packed && src.fortran {
                return Err(IoError::PackedFortran { path });
            }
            let file_shape = npy::file_shape(&src.shape, out_packed)?;
            let descr = npy::descr_for(to, out_packed);
            (
                npy::file_sub_byte(to, &src.shape, out_packed),
                npy::header_bytes(descr, src.fortran, &file_shape),
            )
        }
        _ => (raw::file_sub_byte(to, out_packed), Vec::new()),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let step = Step::Cast(CastStep {
        name: name.into_boxed_str(),
        shape: src.shape.into_boxed_slice(),
        count,
        offset: src.offset,
        from: src.from,
        to,
        src_sub: src.sub,
        dst_sub,
        swap: src.swap,
        dtype: None,
        out_dtype: None,
    });
    Ok(Plan {
        header: OutHeader::Bytes(header),
        steps: vec![step],
        name_tensors: false,
        single_dtype: Some(src.dtype),
    })
}

/// The source of a `.npy` input, from its header.
fn read_npy<R: Read + Seek>(job: &CastJob, input: &mut Input<R>) -> Result<Source, IoError> {
    let file_len = input.len();
    let path = input.path().to_path_buf();
    let preamble = input.head(npy::PREAMBLE_BYTES as u64)?;
    let data_start = npy::header_end(&preamble, file_len).map_err(|e| e.reading(&path))?;
    let prefix = input.head(data_start as u64)?;
    let head =
        npy::parse_head(&prefix, file_len - data_start as u64).map_err(|e| e.reading(&path))?;
    let from = npy::head_format(&head, job.from).map_err(|e| e.reading(&path))?;
    job.check_packed(from)?;
    let src_packed = job.packed && is_nibble(from);
    if job.shape.is_some() && !src_packed {
        return Err(IoError::ShapeOnNpy);
    }
    if src_packed && head.fortran {
        return Err(IoError::PackedFortran {
            path: input.path().to_path_buf(),
        });
    }
    let shape = npy::logical_shape(&head.shape, src_packed, job.shape.as_deref())
        .map_err(|e| e.reading(&path))?;
    let count = element_count(&shape).map_err(|e| e.reading(&path))?;
    let sub = npy::file_sub_byte(from, &shape, src_packed);
    let need = sub
        .file_bytes(from, count)
        .ok_or(IoError::NpyLogicalShapeTooLarge)
        .map_err(|e| e.reading(&path))?;
    let have = usize::try_from(file_len - data_start as u64).unwrap_or(usize::MAX);
    if need != have {
        let e = IoError::NpyDataSize {
            have,
            count,
            format: from,
            shape,
            need,
        };
        return Err(e.reading(&path));
    }
    let swap = if head.big_endian {
        u8::try_from(head.item_bytes).unwrap_or(u8::MAX)
    } else {
        1
    };
    Ok(Source {
        dtype: head.descr,
        offset: data_start as u64,
        from,
        sub,
        swap,
        shape,
        fortran: head.fortran,
    })
}

/// The source of a raw input, whose format and shape the job gives.
fn read_raw<R: Read + Seek>(job: &CastJob, input: &mut Input<R>) -> Result<Source, IoError> {
    let (Some(from), Some(shape)) = (job.from, job.shape.as_deref()) else {
        return Err(IoError::RawNeedsFromAndShape);
    };
    job.check_packed(from)?;
    let packed = job.packed && is_nibble(from);
    let sub =
        raw::check_size(input.len(), from, shape, packed).map_err(|e| e.reading(input.path()))?;
    Ok(Source {
        dtype: format!("raw {from}"),
        offset: 0,
        from,
        sub,
        swap: 1,
        shape: shape.to_vec(),
        fortran: false,
    })
}
