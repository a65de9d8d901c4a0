//! What compiling, loading or running a PE program refuses.

use thiserror::Error;

use npusim_cerebras::MemoryError;
use npusim_cerebras::sched::SimError;

use crate::diagnostic::Diagnostic;

/// Why a PE program does not compile, load or run.
#[derive(Clone, Debug, PartialEq, Error)]
pub enum PeError {
    /// A syntax, type or compile-time error in the file, or an error of its code at run time
    /// (integer overflow, an index outside an array), at the expression that failed.
    #[error("{0}")]
    Source(#[from] Diagnostic),
    /// A param value was given for a name the program does not declare.
    #[error("a value is given for param `{name}`, which {file} does not declare")]
    UnknownParam {
        /// The param.
        name: String,
        /// The program file.
        file: String,
    },
    /// The program's arrays do not fit, or its DSDs do not lower, on PE `(x, y)`.
    #[error("PE ({x}, {y}): {source}")]
    Memory {
        /// The PE's column.
        x: i64,
        /// The PE's row.
        y: i64,
        /// What the memory refused.
        source: MemoryError,
    },
    /// A construct the lowering does not handle yet.
    #[error("not supported yet: {0}")]
    NotYet(String),
    /// The simulator refused the program or its run.
    #[error(transparent)]
    Sim(#[from] SimError),
}
