//! `npusim.cast_file`: a whole `.npy` / `.safetensors` file cast by npusim-io (streamed, written
//! through its atomic writer), with one report per tensor.

use std::path::PathBuf;

use npusim_io::{CastJob, Container, Durability, NoProgress, TensorReport, WriteOptions};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::cast::{format, policy};
use crate::errors::{Kind, guarded, to_py};
use crate::stats::CastStats;

/// Casts file `src` into `dst` (types from their extensions) and returns one dict per tensor:
/// `name`, `action` ("cast" or "kept"), `shape`, `text` (the CLI's line), and for cast tensors
/// `from`, `to`, `count`, `nan`, `inf`, `saturated`, `nonfinite_from_finite`, `stats` (a CastStats when
/// asked for), for kept ones `dtype` and `reason`.
#[pyfunction]
#[pyo3(signature = (src, dst, to, tensors=Vec::new(), exclude=Vec::new(), round="rint", saturate=None, seed=None, from_=None, stats=false, fail_on_nan=false, fail_on_empty=false, force=false, sync=false))]
#[allow(clippy::too_many_arguments)]
pub fn cast_file<'py>(
    py: Python<'py>,
    src: PathBuf,
    dst: PathBuf,
    to: &str,
    tensors: Vec<String>,
    exclude: Vec<String>,
    round: &str,
    saturate: Option<bool>,
    seed: Option<u64>,
    from_: Option<&str>,
    stats: bool,
    fail_on_nan: bool,
    fail_on_empty: bool,
    force: bool,
    sync: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    guarded(|| {
        let input = Container::of(&src).map_err(|e| to_py(Kind::File, &e))?;
        let output = Container::of(&dst).map_err(|e| to_py(Kind::File, &e))?;
        let mut job = CastJob::new(input, output, format(to)?);
        job.from = from_.map(format).transpose()?;
        job.policy = policy(round, saturate)?;
        job.seed = seed;
        job.tensors = tensors;
        job.exclude = exclude;
        job.error_stats = stats;
        job.fail_on_nan = fail_on_nan;
        job.fail_on_empty = fail_on_empty;
        let opts = WriteOptions {
            durability: if sync {
                Durability::Synced
            } else {
                Durability::Lazy
            },
            replace_read_only: force,
        };
        let reports = py
            .detach(|| npusim_io::cast_file_opts(&job, &src, &dst, &opts, &mut NoProgress))
            .map_err(|e| to_py(Kind::File, &e))?;
        reports.iter().map(|r| report(py, r)).collect()
    })
}

/// One tensor's report as a dict.
fn report<'py>(py: Python<'py>, r: &TensorReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("text", r.to_string())?;
    match r {
        TensorReport::Cast(c) => {
            d.set_item("name", &c.name)?;
            d.set_item("action", "cast")?;
            d.set_item("from", c.from.name())?;
            d.set_item("to", c.to.name())?;
            d.set_item("count", c.count)?;
            d.set_item("shape", c.shape.clone())?;
            d.set_item("nan", c.stats.nan)?;
            d.set_item("inf", c.stats.inf)?;
            d.set_item("saturated", c.stats.saturated)?;
            d.set_item("nonfinite_from_finite", c.stats.nonfinite_from_finite)?;
            d.set_item("stats", c.stats.error.as_deref().map(CastStats::of_errors))?;
        }
        TensorReport::Kept(k) => {
            d.set_item("name", &k.name)?;
            d.set_item("action", "kept")?;
            d.set_item("dtype", format!("{:?}", k.dtype))?;
            d.set_item("shape", k.shape.clone())?;
            d.set_item("reason", k.reason.to_string())?;
        }
    }
    Ok(d)
}
