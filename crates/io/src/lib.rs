//! Tensor files for the npusim golden model, read and written one way for every crate.
//!
//! * [`npy`]: numpy `.npy`, including ml_dtypes' void dtypes (`<V2`, `<V1`, `<f1`), packed
//!   4-bit rows, and big-endian dtypes (swapped on read).
//! * [`safetensors`]: `.safetensors`, with the `npusim.dtype.<tensor>` metadata entries for
//!   formats safetensors has no dtype for.
//! * [`raw`]: bare little-endian element bytes.
//! * [`Elements`] is a buffer of elements in memory; [`SubByte`] is how a file lays out
//!   4-bit elements. Element codes are read and written only through
//!   [`npusim_numerics::Storage`].
//! * [`write_atomic`]: output through a temporary file and a rename; [`remove_temp_files`]
//!   removes unfinished ones (for a signal handler).
//! * [`cast`]: whole-file casts ([`CastJob`] → [`cast_file`] / [`cast_bytes`] /
//!   [`cast_reader`]), streamed in bounded memory, with per-tensor reports, error statistics
//!   and progress callbacks; [`cast::preview`] lists what a cast would do (`--dry-run`).
//! * [`quantize`]: block-scaled quantisation of whole `.safetensors` files (MX, NVFP4) in
//!   the published checkpoint layouts, and reading them back.
//! * [`inspect`]: what a file holds, from its header alone (`npusim info`).
//! * [`report`]: reports of casts and quantisations as text tables and JSON.
//!
//! ```
//! use std::path::Path;
//! use npusim_io::{CastJob, Container, NoProgress, cast_bytes};
//! use npusim_numerics::Format;
//! // Two f32 values in a raw buffer, cast to bf16.
//! let bytes: Vec<u8> = [1.0f32, 2.5].iter().flat_map(|x| x.to_le_bytes()).collect();
//! let mut job = CastJob::new(Container::Raw, Container::Raw, Format::BF16);
//! job.from = Some(Format::F32);
//! job.shape = Some(vec![2]);
//! let done = cast_bytes(&job, Path::new("x.bin"), &bytes, &mut NoProgress).unwrap();
//! assert_eq!(done.bytes, [0x80, 0x3f, 0x20, 0x40]);
//! assert_eq!(
//!     done.reports[0].to_string(),
//!     "x.bin: f32 -> bf16, 2 elements [2] (0 NaN, 0 Inf, 0 saturated)"
//! );
//! ```

mod atomic;
pub mod cast;
mod container;
mod destination;
mod elements;
mod error;
pub mod inspect;
pub mod npy;
mod packing;
pub mod quantize;
pub mod raw;
mod replace;
pub mod report;
pub mod safetensors;

pub use atomic::{
    Durability, WriteOptions, check_destination, is_streamed, remove_temp_files, write_atomic,
    write_atomic_opts, write_atomic_via_path, write_atomic_with,
};
pub use cast::{
    CastJob, CastOutcome, CastProgress, NoProgress, Stats, TensorReport, cast_bytes, cast_file,
    cast_file_opts, cast_file_with, cast_reader,
};
pub use container::Container;
pub use elements::{Elements, SubByte, element_count, shape_str};
pub use error::{IoError, MetaProblem};
pub use inspect::{FileInfo, InspectError, TensorInfo, inspect_file};
pub use packing::nibble_formats;
pub use quantize::{
    QuantizeError, QuantizeJob, QuantizeReport, dequantize_bytes, dequantize_file, quantize_bytes,
    quantize_file,
};
