//! `.safetensors` files (header parsed and written by npusim), and npusim's metadata
//! convention.
//!
//! Dtypes with an npusim format: `F64 F32 F16 BF16 F8_E4M3 (f8e4m3fn) F8_E5M2 F8_E8M0 F4
//! (f4e2m1, packed two per byte over the whole tensor, element 0 in the low nibble) I8 I16 I32
//! I64 U8 U16 U32`. Formats without a safetensors dtype (`hif8`, `f4e1m2`, `i4`, and `f4e2m1`
//! with an odd element count, which `F4` cannot hold) are stored as `U8` tensors plus a
//! `__metadata__` entry `npusim.dtype.<tensor>` whose value is the format name, one element per
//! byte (`"hif8"`), or, packed, `"<format>:packed"`: the last dimension packed two per byte
//! (`ceil(d / 2)` bytes per row, element 0 in the low nibble), with `":<d>"` appended when `d`
//! is odd (e.g. `"f4e1m2:packed:5"`). The reader honours these entries.

mod convention;
mod header;
mod read;
mod write;

pub use convention::{Encoding, Interp, META_PREFIX, encode, interpret, native_format};
pub use header::{
    EntryOut, Header, MAX_HEADER_BYTES, TensorEntry, header_bytes, header_len, layout_key,
    parse_header, parse_header_from, write_header,
};
pub use read::{SafetensorsFile, TensorView, parse};
pub use write::{OutTensor, to_bytes};

/// The safetensors element type names (`F32`, `BF16`, `U8`, ...), re-exported.
pub use safetensors::Dtype;
