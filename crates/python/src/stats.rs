//! `npusim.CastStats`: what a cast did, in numbers: the status counts of every cast and, when
//! asked for, the error statistics of `npusim cast --stats` (same definitions: npusim-io's
//! `ErrorStats`).

use npusim_io::cast::ErrorStats;
use npusim_numerics::{Status, StatusCounts};
use pyo3::prelude::*;
use pyo3::types::PyDict;

/// What a cast did: element counts by status, and the error figures when `stats=True`.
#[pyclass(module = "npusim", frozen, get_all)]
#[derive(Clone, Debug)]
pub struct CastStats {
    /// Elements cast.
    pub total: u64,
    /// Results equal to their input (a NaN that stays NaN included).
    pub exact: u64,
    /// Non-zero finite inputs whose result is zero.
    pub flushed: u64,
    /// Inputs beyond the destination's finite range (±Inf included) whose result is its
    /// largest finite magnitude.
    pub saturated: u64,
    /// Results that are NaN.
    pub nan: u64,
    /// Results that are ±Inf.
    pub inf: u64,
    /// Inputs that are NaN (error statistics only; else None).
    pub nan_inputs: Option<u64>,
    /// Inputs that are ±Inf (error statistics only).
    pub inf_inputs: Option<u64>,
    /// Elements with a finite input and a finite result, which the error figures cover.
    pub measured: Option<u64>,
    /// Largest |y - x| (error statistics only).
    pub max_abs: Option<f64>,
    /// Largest |y - x| / |x| over x != 0 (error statistics only).
    pub max_rel: Option<f64>,
    /// Root-mean-square error (error statistics only).
    pub rmse: Option<f64>,
    /// Signal-to-quantization-noise ratio in dB (error statistics only).
    pub sqnr_db: Option<f64>,
    /// The rounding routine's status flags, each with the number of elements that raised it
    /// (inexact, overflow, underflow, flushed-to-zero, saturated, wrapped, inf, nan, invalid).
    pub status: Vec<(String, u64)>,
}

impl CastStats {
    /// The figures of a cast: `counts` always, `errors` when the error statistics were asked for
    /// (then the exact / flushed / saturated / NaN / Inf counts are theirs, as the CLI prints).
    pub fn new(counts: &StatusCounts, errors: Option<&ErrorStats>) -> CastStats {
        let status = Status::NAMED
            .iter()
            .map(|(s, name)| (name.to_string(), counts.get(*s)))
            .collect();
        CastStats::with_status(counts, errors, status)
    }

    /// The error statistics of a file cast (which counts no status flags).
    pub fn of_errors(errors: &ErrorStats) -> CastStats {
        CastStats::with_status(&StatusCounts::default(), Some(errors), Vec::new())
    }

    fn with_status(
        counts: &StatusCounts,
        errors: Option<&ErrorStats>,
        status: Vec<(String, u64)>,
    ) -> CastStats {
        match errors {
            Some(e) => CastStats {
                total: e.total,
                exact: e.exact,
                flushed: e.flushed_to_zero,
                saturated: e.saturated,
                nan: e.nan,
                inf: e.inf,
                nan_inputs: Some(e.nan_inputs),
                inf_inputs: Some(e.inf_inputs),
                measured: Some(e.measured),
                max_abs: Some(e.max_abs_error),
                max_rel: Some(e.max_rel_error),
                rmse: Some(e.rmse()),
                sqnr_db: Some(e.sqnr_db()),
                status,
            },
            None => CastStats {
                total: counts.total,
                exact: counts.exact,
                flushed: counts.get(Status::FLUSHED_TO_ZERO),
                saturated: counts.get(Status::SATURATED),
                nan: counts.get(Status::NAN),
                inf: counts.get(Status::INF),
                nan_inputs: None,
                inf_inputs: None,
                measured: None,
                max_abs: None,
                max_rel: None,
                rmse: None,
                sqnr_db: None,
                status,
            },
        }
    }
}

#[pymethods]
impl CastStats {
    /// The figures as a dict.
    fn as_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("total", self.total)?;
        d.set_item("exact", self.exact)?;
        d.set_item("flushed", self.flushed)?;
        d.set_item("saturated", self.saturated)?;
        d.set_item("nan", self.nan)?;
        d.set_item("inf", self.inf)?;
        d.set_item("nan_inputs", self.nan_inputs)?;
        d.set_item("inf_inputs", self.inf_inputs)?;
        d.set_item("measured", self.measured)?;
        d.set_item("max_abs", self.max_abs)?;
        d.set_item("max_rel", self.max_rel)?;
        d.set_item("rmse", self.rmse)?;
        d.set_item("sqnr_db", self.sqnr_db)?;
        d.set_item(
            "status",
            PyDict::from_sequence(&self.status.clone().into_pyobject(py)?)?,
        )?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let mut s = format!(
            "CastStats(total={}, exact={}, flushed={}, saturated={}, nan={}, inf={}",
            self.total, self.exact, self.flushed, self.saturated, self.nan, self.inf
        );
        if let (Some(a), Some(r), Some(q)) = (self.max_abs, self.rmse, self.sqnr_db) {
            s += &format!(", max_abs={a:e}, rmse={r:e}, sqnr_db={q:.2}");
        }
        s + ")"
    }
}
