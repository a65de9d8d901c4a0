//! The start of a cast: the input file opened, and the plan read from its header. The cast
//! and its dry run ([`super::preview()`]) both start here.

use std::fs::File;
use std::io::{Read, Seek};
use std::path::Path;

use super::input::Input;
use super::job::CastJob;
use super::plan::Plan;
use super::{multi, single};
use crate::error::IoError;

/// Plans the cast of `input` as `job` says (its header only is read).
pub(super) fn plan_cast<R: Read + Seek>(
    job: &CastJob,
    input: &mut Input<R>,
) -> Result<Plan, IoError> {
    job.check_containers()?;
    let plan = if job.input.is_single_tensor() {
        single::plan_single(job, input)?
    } else {
        multi::plan_safetensors(job, input)?
    };
    if job.fail_on_empty && plan.casts_nothing() {
        return Err(IoError::NothingToCast {
            tensors: plan.steps.len(),
        });
    }
    Ok(plan)
}

/// Opens the input file `path` (a directory is refused by name).
pub(super) fn open_input(path: &Path) -> Result<Input<File>, IoError> {
    let cannot_read = |source| IoError::CannotRead {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(cannot_read)?;
    let meta = file.metadata().map_err(cannot_read)?;
    if meta.is_dir() {
        return Err(IoError::InputIsDirectory {
            path: path.to_path_buf(),
        });
    }
    // A second handle for positional reads from several threads at once.
    let positional = file.try_clone().ok();
    Ok(Input::new(file, path, meta.len()).with_positional(positional))
}
