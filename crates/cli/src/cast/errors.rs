//! The library's cast errors in the words of `npusim cast`'s options: `npusim_io` says what is
//! wrong in its own terms (the source format, the shape, packed 4-bit storage, the tensor
//! selection); this module names the option that gave it (`--from`, `--shape`, `--packed`,
//! `--tensor`, ...), so a user reads the flag to change.

use anyhow::anyhow;
use npusim_io::cast::{PatternList, SelectError};
use npusim_io::{IoError, nibble_formats};
use npusim_numerics::Format;

/// The library's error as `npusim cast` reports it: the places it happened (input file,
/// tensor, output) kept as context, the fault reworded to name the option that overrides or
/// gave it.
pub fn explain(e: IoError) -> anyhow::Error {
    // A place's message is the place alone; its fault is the boxed source.
    let place = e.to_string();
    match e {
        IoError::Reading { source, .. }
        | IoError::InTensor { source, .. }
        | IoError::WriteFailed { source, .. } => explain(*source).context(place),
        e => in_option_words(e),
    }
}

/// One fault (not a place) in the words of the options.
fn in_option_words(e: IoError) -> anyhow::Error {
    match e {
        IoError::ReadOnlyOutput { .. } => anyhow!("{e}; give --force to replace it (as cp -f)"),
        IoError::NothingToCast { .. } => anyhow!(
            "{e}: --tensor/--exclude select none of them, or none has a format to cast (--fail-on-empty)"
        ),
        IoError::NpyUnsupportedDtype { .. } => anyhow!("{e} (--from FMT)"),
        IoError::NpyOpaqueNeedsFrom {
            descr,
            bytes,
            hint,
            formats,
        } => anyhow!(
            "the file's dtype '{descr}' holds raw {bytes}-byte elements and does not say their format; {hint}: use {}",
            from_examples(formats)
        ),
        IoError::NpyFromSize {
            from,
            from_bytes,
            descr,
            file_bytes,
        } => anyhow!(
            "--from {from} has {from_bytes}-byte elements but the file's dtype '{descr}' has {file_bytes}-byte elements"
        ),
        IoError::NpyShapeMismatch { given, file } => {
            anyhow!("--shape {given:?} does not match the .npy file's shape {file:?}")
        }
        IoError::NpyPackedShape {
            given,
            file,
            last_bytes,
        } => anyhow!(
            "--shape {given:?} does not fit the packed .npy shape {file:?} (the last dimension must be {} or {})",
            2 * last_bytes - 1,
            2 * last_bytes
        ),
        IoError::PackedScalar => anyhow!("--packed needs an array with at least one dimension"),
        IoError::PackedScalarTensor => {
            anyhow!("--packed needs tensors with at least one dimension")
        }
        IoError::PackedFortran { path } => anyhow!(
            "--packed needs a C-order .npy array (`{}` is in Fortran order)",
            path.display()
        ),
        IoError::RawShapeTooLarge { shape } => anyhow!("--shape {shape:?} is too large"),
        IoError::RawSize {
            have,
            shape,
            format,
            need,
            count,
            packed,
        } => anyhow!(
            "the raw file has {have} bytes but --shape {shape:?} of --from {format} needs {need} bytes ({count} elements, {})",
            per_element(format, packed)
        ),
        IoError::RawNeedsFromAndShape => anyhow!(
            "a raw .bin input has no header: give its element format and shape with --from FMT --shape DIMS"
        ),
        IoError::PackedNot4Bit { from, to } => anyhow!(
            "--packed applies only to 4-bit formats ({}), but this casts {from} ({} bits) to {to} ({} bits)",
            packable(),
            from.bits(),
            to.bits()
        ),
        IoError::PackedNot4BitTo { to } => anyhow!(
            "--packed applies only to 4-bit formats ({}), not to --to {to} ({} bits); a .safetensors file records how its own tensors are stored",
            packable(),
            to.bits()
        ),
        IoError::TensorOnSingle { container } => {
            anyhow!("--tensor applies to .safetensors files; a {container} file holds one tensor")
        }
        IoError::ShapeOnNpy => anyhow!(
            "--shape is for raw .bin inputs (and packed 4-bit .npy inputs); a .npy file states its shape"
        ),
        IoError::FromOnSafetensors => {
            anyhow!(
                "--from does not apply to .safetensors inputs: each tensor's dtype is in the file"
            )
        }
        IoError::ShapeOnSafetensors => {
            anyhow!(
                "--shape does not apply to .safetensors inputs: each tensor's shape is in the file"
            )
        }
        IoError::NonFiniteFromFinite { count, tensors } => anyhow!(
            "--fail-on-nan: {count} finite input value(s) became NaN or Inf ({tensors}); nothing was written (use --saturate to clamp overflow to ±max)"
        ),
        IoError::Select(s) => selection(s),
        e => e.into(),
    }
}

/// A tensor-pattern problem, naming `--tensor` or `--exclude`.
fn selection(e: SelectError) -> anyhow::Error {
    match e {
        SelectError::BadPattern {
            option,
            pattern,
            reason,
            pos,
        } => anyhow!(
            "{} `{pattern}` is not a valid glob pattern: {reason} (at character {pos})",
            option_of(option)
        ),
        SelectError::NoMatch {
            option,
            pattern,
            path,
            count,
            names,
        } => anyhow!(
            "{} `{pattern}` matches no tensor of `{}` ({count} tensors: {names})",
            option_of(option),
            path.display()
        ),
        SelectError::ExcludeOnSingle { container } => {
            anyhow!("--exclude applies to .safetensors files; a {container} file holds one tensor")
        }
    }
}

/// The option that gives a pattern list.
fn option_of(list: PatternList) -> &'static str {
    match list {
        PatternList::Selection => "--tensor",
        PatternList::Exclusion => "--exclude",
    }
}

/// `--from bf16`, or `e.g. --from f8e4m3fn, f8e5m2 or i4`.
fn from_examples(formats: &[Format]) -> String {
    let names: Vec<&str> = formats.iter().map(|f| f.name()).collect();
    match names.as_slice() {
        [] => "--from".to_string(),
        [one] => format!("--from {one}"),
        [rest @ .., last] => format!("e.g. --from {} or {last}", rest.join(", ")),
    }
}

/// The formats `--packed` applies to, from the format table.
fn packable() -> String {
    let names: Vec<&str> = nibble_formats().map(Format::name).collect();
    names.join(", ")
}

/// How a raw file stores each element: two per byte for packed 4-bit formats.
fn per_element(format: Format, packed: bool) -> String {
    if packed && format.per_packed_byte() == Some(2) {
        "two 4-bit elements per byte".to_string()
    } else {
        format!("{} byte(s) each", format.unpacked_bytes())
    }
}
