//! How a long `quantize` or `dequantize` reports its progress.

/// Told `(done, total)` in bytes of the input's tensor data after each tensor (for a
/// directory, over all its shards): `done` grows to `total`.
pub type Progress<'a> = &'a mut dyn FnMut(u64, u64);
