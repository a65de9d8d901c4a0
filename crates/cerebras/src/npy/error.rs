//! What can go wrong moving a PE array to or from a `.npy` file.

use std::path::PathBuf;

use thiserror::Error;

use crate::elem::ElemTy;
use crate::memory::MemoryError;

/// A `.npy` file that does not fit the array it is read into, or a file or memory error.
#[derive(Debug, Error)]
pub enum NpyError {
    /// The file's element type is not the array's.
    #[error("{}: holds {found}, but array `{array}` holds {expected}", .path.display())]
    Dtype {
        /// The file.
        path: PathBuf,
        /// The array.
        array: String,
        /// The file's dtype (`<f4`, ...).
        found: String,
        /// The array's element type.
        expected: ElemTy,
    },
    /// A dtype no PE array can hold (8- or 64-bit, or narrower formats).
    #[error("{}: dtype {descr} is not a PE element type (u16, i16, f16, u32, i32, f32)", .path.display())]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// The file's dtype.
        descr: String,
    },
    /// The file's shape is not the array's.
    #[error("{}: shape {found:?}, but array `{array}` has shape {expected:?}", .path.display())]
    Shape {
        /// The file.
        path: PathBuf,
        /// The array.
        array: String,
        /// The file's shape.
        found: Vec<usize>,
        /// The array's shape.
        expected: Vec<u64>,
    },
    /// A Fortran-order file (PE arrays are row-major).
    #[error("{}: Fortran order is not supported; PE arrays are row-major", .path.display())]
    Fortran {
        /// The file.
        path: PathBuf,
    },
    /// Reading or writing the file.
    #[error("{}: {source}", .path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The `.npy` format itself.
    #[error(transparent)]
    Io(#[from] npusim_io::IoError),
    /// The PE memory.
    #[error(transparent)]
    Memory(#[from] MemoryError),
}
