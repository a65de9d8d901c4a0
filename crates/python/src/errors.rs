//! The exception classes of the package and the one way library errors and panics become
//! them: every error carries the library's own message, and no panic reaches Python.

use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

pyo3::create_exception!(
    npusim,
    NpusimError,
    PyValueError,
    "Base class of npusim's errors: a value the library refused, with its message."
);
pyo3::create_exception!(
    npusim,
    FormatError,
    NpusimError,
    "An unknown format, rounding mode or scheme name, or a cast the formats do not allow."
);
pyo3::create_exception!(
    npusim,
    CastError,
    NpusimError,
    "A cast the numerics core refused (buffer sizes, kernel switch, ...)."
);
pyo3::create_exception!(
    npusim,
    FileError,
    NpusimError,
    "A tensor file that cannot be read, cast or written."
);
pyo3::create_exception!(
    npusim,
    BlockError,
    NpusimError,
    "A block-scaled (MX, NVFP4) quantisation the scheme does not allow."
);
pyo3::create_exception!(
    npusim,
    AscendError,
    NpusimError,
    "An AscendC Cast call the Ascend model refused."
);
pyo3::create_exception!(
    npusim,
    FuriosaError,
    NpusimError,
    "A Furiosa mapping or pipeline the Furiosa model refused."
);
pyo3::create_exception!(
    npusim,
    CerebrasError,
    NpusimError,
    "A Cerebras access expression or program the Cerebras model refused."
);
pyo3::create_exception!(
    npusim,
    DtypeError,
    PyTypeError,
    "An array whose element type npusim has no format for."
);

/// Which exception class a library error becomes.
#[derive(Clone, Copy, Debug)]
pub enum Kind {
    /// [`FormatError`].
    Format,
    /// [`CastError`].
    Cast,
    /// [`FileError`].
    File,
    /// [`BlockError`].
    Block,
    /// [`AscendError`].
    Ascend,
    /// [`FuriosaError`].
    Furiosa,
    /// [`CerebrasError`].
    Cerebras,
}

/// The Python exception of kind `kind` carrying `err`'s message (and its causes').
pub fn to_py(kind: Kind, err: &dyn std::error::Error) -> PyErr {
    let mut msg = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        let text = s.to_string();
        if !msg.contains(&text) {
            msg.push_str(": ");
            msg.push_str(&text);
        }
        source = s.source();
    }
    raise(kind, msg)
}

/// The Python exception of kind `kind` with message `msg`.
pub fn raise(kind: Kind, msg: String) -> PyErr {
    match kind {
        Kind::Format => FormatError::new_err(msg),
        Kind::Cast => CastError::new_err(msg),
        Kind::File => FileError::new_err(msg),
        Kind::Block => BlockError::new_err(msg),
        Kind::Ascend => AscendError::new_err(msg),
        Kind::Furiosa => FuriosaError::new_err(msg),
        Kind::Cerebras => CerebrasError::new_err(msg),
    }
}

/// Runs `f`, turning a panic into an [`NpusimError`] that says it is a bug, so that a panic
/// never unwinds into the interpreter.
pub fn guarded<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| (*s).to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string());
            Err(NpusimError::new_err(format!(
                "internal error in npusim (a bug; please report it): {what}"
            )))
        }
    }
}

/// A test hook: panics inside [`guarded`], as a bug in a native call would, so that the tests
/// can check that a panic reaches Python as an [`NpusimError`] and never aborts it.
#[pyfunction]
pub fn _panic_for_tests() -> PyResult<()> {
    guarded(|| panic!("a deliberate panic (npusim._native._panic_for_tests)"))
}

/// Registers the exception classes on the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("NpusimError", py.get_type::<NpusimError>())?;
    m.add("FormatError", py.get_type::<FormatError>())?;
    m.add("CastError", py.get_type::<CastError>())?;
    m.add("FileError", py.get_type::<FileError>())?;
    m.add("BlockError", py.get_type::<BlockError>())?;
    m.add("AscendError", py.get_type::<AscendError>())?;
    m.add("FuriosaError", py.get_type::<FuriosaError>())?;
    m.add("CerebrasError", py.get_type::<CerebrasError>())?;
    m.add("DtypeError", py.get_type::<DtypeError>())?;
    Ok(())
}
