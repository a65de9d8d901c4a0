//! `npusim ascend cast`: run one AscendC `Cast` call over an input .npy, write the destination
//! tensor as .npy and say which destination lanes the call wrote.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use npusim_ascend::DType;
use npusim_ascend::call::{CallOutcome, run_call};
use npusim_io::{Elements, IoError, npy};
use npusim_numerics::Storage;

use super::call_args::{AscendCastArgs, build_call};
use crate::npy_file::{npy_bytes, relaid};
use crate::output::{is_stdio, report, write_output};

/// Reads an .npy tensor as AscendC stores it (4-bit types packed two per byte). `dtype` is the
/// type to read it as, if one was given, with the option or field that gave it (named in the
/// message when the file's element size disagrees).
fn read_tensor(path: &Path, dtype: Option<(DType, &str)>) -> Result<(DType, Vec<u8>)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    let array = npy::parse(&bytes).with_context(|| format!("reading `{}`", path.display()))?;
    let read_as = npy::element_format(&array, dtype.map(|(t, _)| t.format()));
    let format = match (read_as, dtype) {
        (Ok(f), _) => f,
        (
            Err(IoError::NpyFromSize {
                from_bytes,
                descr,
                file_bytes,
                ..
            }),
            Some((t, given_by)),
        ) => {
            bail!(
                "reading `{}`: {given_by} {t} has {from_bytes}-byte elements but the file's dtype '{descr}' has {file_bytes}-byte elements",
                path.display()
            );
        }
        (Err(e), _) => {
            return Err(anyhow::Error::from(e).context(format!("reading `{}`", path.display())));
        }
    };
    // A standard dtype says what the elements are: another type of the same width is refused,
    // never read bit for bit (an f32 1.0 is not the int32 1065353216). Only a dtype that does
    // not say (`<V2`, `<V1`) takes the type the call names.
    if let (Some((t, given_by)), npy::NpyDtype::Standard(f)) = (dtype, &array.dtype)
        && format != *f
    {
        let held = DType::from_format(*f).map_or_else(|| f.to_string(), |d| d.to_string());
        bail!(
            "reading `{}`: {given_by} {t}, but the file's dtype '{}' holds {held} elements (npusim does not reinterpret another type's bits)",
            path.display(),
            array.descr
        );
    }
    let dtype = DType::from_format(format).with_context(|| {
        format!(
            "`{}` holds {format} elements, which AscendC has no type for",
            path.display()
        )
    })?;
    let elements = npy::elements(&array, format, &array.shape, false)
        .with_context(|| format!("reading `{}`", path.display()))?;
    Ok((dtype, relaid(&elements, Storage::native(format))?))
}

/// `0-31, 64-95, ...`
fn ranges(idx: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let start = idx[i];
        let mut end = start;
        while i + 1 < idx.len() && idx[i + 1] == end + 1 {
            i += 1;
            end = idx[i];
        }
        out.push(if start == end {
            format!("{start}")
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(", ")
}

/// Runs `npusim ascend cast`: one call over the input, the destination written as .npy and a
/// report of the lanes written.
pub fn run(a: &AscendCastArgs) -> Result<ExitCode> {
    let mut call = build_call(a)?;
    let Some(dst) = call.dst else {
        bail!("no destination type: give --dst (or dst = \"...\" in the call file)");
    };
    let src_given_by = if a.src.is_some() {
        "--src"
    } else {
        "`src =` in the call file"
    };
    let (src, input) = read_tensor(&a.input, call.src.map(|t| (t, src_given_by)))?;
    call.src = Some(src);
    let prior = match &a.prior {
        Some(p) => {
            let dst_given_by = if a.dst.is_some() {
                "--prior must hold the --dst type:"
            } else {
                "--prior must hold the type of `dst =` in the call file:"
            };
            let (t, bytes) = read_tensor(p, Some((dst, dst_given_by)))?;
            if t != dst {
                bail!("--prior holds {t} elements but the destination type is {dst}");
            }
            Some(bytes)
        }
        None => None,
    };
    let out: CallOutcome =
        run_call(&call, &input, prior.as_deref()).map_err(anyhow::Error::from)?;
    let elements = Elements {
        storage: Storage::native(out.dst_dtype.format()),
        count: out.dst_len,
        bytes: out.dst.as_slice().into(),
    };
    let bytes = npy_bytes(&elements, &[out.dst_len])?;
    write_output(&a.output, |w| w.write_all(&bytes))?;
    let written = if a.show_lanes {
        format!("{:?}", out.written)
    } else {
        ranges(&out.written)
    };
    let text = format!(
        "{}written: {written}\noutput: {}\n",
        summary(&out, src),
        a.output.display()
    );
    // With `-o -` standard output holds the .npy alone; the report goes to standard error.
    report(&text, is_stdio(&a.output))?;
    Ok(ExitCode::SUCCESS)
}

/// The first line of the report: product, API (as the call ran it), types, steps, lanes.
fn summary(out: &CallOutcome, src: DType) -> String {
    format!(
        "{} {} Cast {} -> {}: {} {}, wrote {} of {} destination elements\n",
        out.product,
        out.api.title(),
        src,
        out.dst_dtype,
        out.steps,
        out.api.step_unit(),
        out.written.len(),
        out.dst_len,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_compress_runs() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
        assert_eq!(ranges(&[]), "");
    }
}
