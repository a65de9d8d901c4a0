//! The dry run of a cast (`npusim cast --dry-run`): what would become what, and the bytes read
//! and written, from the input's header alone. It lists the very plan a cast runs, so the
//! selection and the predicted sizes are the cast's own.

use std::path::Path;

use npusim_numerics::Format;

use super::job::CastJob;
use super::select::KeepReason;
use super::{open_input, plan_cast};
use crate::error::IoError;

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

/// What `job` would do with the file `input`, one row per tensor in output order, reading its
/// header only: nothing is cast or written. The header and sizes are checked as the cast
/// checks them.
pub fn preview(job: &CastJob, input: &Path) -> Result<Vec<TensorPreview>, IoError> {
    let mut source = open_input(input)?;
    plan_cast(job, &mut source)?.preview()
}
