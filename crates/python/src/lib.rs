//! The native half of the Python package `npusim` (module `npusim._native`): thin PyO3
//! bindings over the npusim crates. The Python half (`python/npusim`) turns arrays into
//! byte buffers and back; every value is computed by the Rust crates.

mod ascend;
mod cast;
mod cerebras;
mod errors;
mod file_cast;
mod formats;
mod furiosa;
mod furiosa_kernel;
mod layout;
mod mx;
mod stats;
mod threads;

use pyo3::prelude::*;

/// The `npusim._native` module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(errors::_panic_for_tests, m)?)?;
    m.add_class::<stats::CastStats>()?;
    m.add_function(wrap_pyfunction!(cast::cast_into, m)?)?;
    m.add_class::<cast::Prepared>()?;
    m.add_function(wrap_pyfunction!(cast::kernel_name, m)?)?;
    m.add_function(wrap_pyfunction!(formats::format_table, m)?)?;
    m.add_function(wrap_pyfunction!(formats::format_row, m)?)?;
    m.add_function(wrap_pyfunction!(formats::round_name, m)?)?;
    m.add_function(wrap_pyfunction!(formats::round_names, m)?)?;
    m.add_function(wrap_pyfunction!(file_cast::cast_file, m)?)?;
    m.add_function(wrap_pyfunction!(mx::mx_quantize, m)?)?;
    m.add_function(wrap_pyfunction!(mx::mx_dequantize, m)?)?;
    m.add_function(wrap_pyfunction!(ascend::ascend_cast, m)?)?;
    m.add_class::<furiosa::Mapping>()?;
    m.add_function(wrap_pyfunction!(furiosa::furiosa_input, m)?)?;
    m.add_function(wrap_pyfunction!(furiosa::furiosa_run, m)?)?;
    m.add_function(wrap_pyfunction!(furiosa_kernel::furiosa_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(cerebras::cerebras_access, m)?)?;
    m.add_function(wrap_pyfunction!(cerebras::cerebras_run, m)?)?;
    m.add_function(wrap_pyfunction!(cerebras::cerebras_programs, m)?)?;
    Ok(())
}
