//! One row of a cast's dry run (`npusim cast --dry-run`, [`super::preview()`]): what would
//! become what, and the bytes read and written, from the input's header alone. It lists the
//! very plan a cast runs, so the selection and the predicted sizes are the cast's own.

use npusim_numerics::Format;

use super::keep_reason::KeepReason;

/// One tensor of a cast's dry run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorPreview {
    /// Its name (a single-tensor file's file name).
    pub name: String,
    /// Its element type as the input file writes it (`<f4`, `<V2`, `F32`, `raw f16`).
    pub dtype: String,
    /// Its npusim format, if it has one.
    pub from: Option<Format>,
    /// What it becomes: `Ok(format)` cast, `Err(reason)` copied unchanged.
    pub action: Result<Format, KeepReason>,
    /// Its logical shape (a kept tensor's shape as written).
    pub shape: Vec<usize>,
    /// Data bytes read from the input.
    pub bytes_in: u64,
    /// Data bytes written to the output.
    pub bytes_out: u64,
}
