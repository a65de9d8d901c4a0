//! `npusim.formats()` and the constants behind `npusim.finfo`: the numerics format table as
//! Python dicts.

use npusim_numerics::{CastPolicy, FORMATS, Format, Kind, convert};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::cast::format;
use crate::errors::guarded;

/// The value of `f`'s code `c`, as f64.
fn value(f: Format, c: u64) -> f64 {
    f.decode(c).to_f64()
}

/// The gap between 1 and the next larger value of `f` (its machine epsilon); `None` for
/// integer formats and formats whose largest value is below 2.
fn eps(f: Format) -> Option<f64> {
    if f.is_int() || f.max_finite() < 2.0 {
        return None;
    }
    let one = convert(1.0f64.to_bits(), Format::F64, f, &CastPolicy::default());
    Some(value(f, one + 1) - 1.0)
}

/// One row of the table as a dict.
fn row<'py>(py: Python<'py>, f: Format) -> PyResult<Bound<'py, PyDict>> {
    let info = f.info();
    let d = PyDict::new(py);
    d.set_item("name", info.name)?;
    d.set_item("bits", info.bits)?;
    let kind = match f.kind() {
        Kind::Binary(_) => "float",
        Kind::HiF8 => "hif8",
        Kind::Int { signed: true } => "int",
        Kind::Int { signed: false } => "uint",
    };
    d.set_item("kind", kind)?;
    d.set_item("exp_bits", f.exp_bits())?;
    d.set_item("man_bits", f.man_bits())?;
    d.set_item("bias", f.bias())?;
    if f.is_int() {
        let bits = f.bits();
        let (lo, hi) = if f.is_signed() {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        d.set_item("max", hi)?;
        d.set_item("min", lo)?;
        d.set_item("min_normal", py.None())?;
        d.set_item("min_positive", 1)?;
    } else {
        d.set_item("max", f.max_finite())?;
        d.set_item("min", f.min_finite())?;
        d.set_item("min_normal", f.min_normal())?;
        d.set_item("min_positive", f.min_positive())?;
    }
    d.set_item("eps", eps(f))?;
    d.set_item("has_inf", f.has_inf())?;
    d.set_item("has_nan", f.has_nan())?;
    d.set_item("has_negative_zero", f.has_negative_zero())?;
    d.set_item("signed", f.is_signed())?;
    d.set_item("aliases", info.aliases.to_vec())?;
    d.set_item("summary", info.summary)?;
    Ok(d)
}

/// Every format of the table, in table order, as dicts (name, bits, kind, exp_bits, man_bits,
/// bias, max, min, min_normal, min_positive, eps, has_inf, has_nan, has_negative_zero,
/// signed, aliases, summary).
#[pyfunction]
pub fn format_table(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    guarded(|| FORMATS.iter().map(|i| row(py, i.format)).collect())
}

/// The row of one format, by canonical name or alias.
#[pyfunction]
pub fn format_row<'py>(py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| row(py, format(name)?))
}

/// The canonical name of a rounding mode given by any spelling the library accepts
/// (`"rint"`, `"CAST_RINT"`, `"roundTiesToEven"`, ...).
#[pyfunction]
pub fn round_name(name: &str) -> PyResult<&'static str> {
    guarded(|| {
        npusim_numerics::RoundMode::parse_name(name)
            .map(|m| m.name())
            .map_err(|e| crate::errors::to_py(crate::errors::Kind::Format, &e))
    })
}

/// Every rounding mode's canonical name.
#[pyfunction]
pub fn round_names() -> Vec<&'static str> {
    npusim_numerics::RoundMode::ALL
        .iter()
        .map(|m| m.name())
        .collect()
}
