//! The native half of the Python package `npusim` (module `npusim._native`): thin PyO3
//! bindings over the npusim crates. The Python half (`python/npusim`) turns arrays into
//! byte buffers and back; every value is computed by the Rust crates.

mod cast;
mod errors;
mod formats;
mod stats;
mod threads;

use pyo3::prelude::*;

/// The `npusim._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_class::<stats::CastStats>()?;
    m.add_function(wrap_pyfunction!(cast::cast_into, m)?)?;
    m.add_function(wrap_pyfunction!(formats::format_table, m)?)?;
    m.add_function(wrap_pyfunction!(formats::format_row, m)?)?;
    m.add_function(wrap_pyfunction!(formats::round_name, m)?)?;
    m.add_function(wrap_pyfunction!(formats::round_names, m)?)?;
    Ok(())
}
