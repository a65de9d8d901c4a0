//! A floating tensor's values as the quantiser's source, and its values for the error figures.

use std::ops::Range;
use std::sync::Arc;

use memmap2::Mmap;
use npusim_numerics::Format;
use npusim_numerics::block::Source;
use safetensors::Dtype;

/// A floating tensor's values, read out of the file's bytes (which need not be aligned), or
/// borrowed in place from the file's memory map.
pub(crate) enum Values {
    /// Values of `dtype` (F32, F64, F16 or BF16) at `range` of a mapped file, aligned for
    /// their type (little-endian targets only).
    Mapped {
        /// The file's map.
        map: Arc<Mmap>,
        /// The tensor's bytes.
        range: Range<usize>,
        /// The dtype.
        dtype: Dtype,
    },
    /// f32 values.
    F32(Vec<f32>),
    /// f64 values.
    F64(Vec<f64>),
    /// f16 bit patterns.
    F16(Vec<u16>),
    /// bf16 bit patterns.
    BF16(Vec<u16>),
}

impl Values {
    /// The values at `range` of `map`, when `dtype` is a floating one, the bytes are aligned
    /// for it and this target is little-endian.
    pub(crate) fn mapped(map: Arc<Mmap>, range: Range<usize>, dtype: Dtype) -> Option<Values> {
        if !cfg!(target_endian = "little") {
            return None;
        }
        let bytes = map.get(range.clone())?;
        let aligned = match dtype {
            Dtype::F32 => bytemuck::try_cast_slice::<u8, f32>(bytes).is_ok(),
            Dtype::F64 => bytemuck::try_cast_slice::<u8, f64>(bytes).is_ok(),
            Dtype::F16 | Dtype::BF16 => bytemuck::try_cast_slice::<u8, u16>(bytes).is_ok(),
            _ => false,
        };
        aligned.then_some(Values::Mapped { map, range, dtype })
    }

    /// The quantiser's view.
    pub(crate) fn source(&self) -> Source<'_> {
        match self {
            Values::Mapped { map, range, dtype } => {
                // checked aligned when made; an empty source (refused by its shape) otherwise
                let bytes = map.get(range.clone()).unwrap_or(&[]);
                match dtype {
                    Dtype::F64 => Source::F64(bytemuck::try_cast_slice(bytes).unwrap_or(&[])),
                    Dtype::F16 => Source::F16(bytemuck::try_cast_slice(bytes).unwrap_or(&[])),
                    Dtype::BF16 => Source::BF16(bytemuck::try_cast_slice(bytes).unwrap_or(&[])),
                    _ => Source::F32(bytemuck::try_cast_slice(bytes).unwrap_or(&[])),
                }
            }
            Values::F32(v) => Source::F32(v),
            Values::F64(v) => Source::F64(v),
            Values::F16(v) => Source::F16(v),
            Values::BF16(v) => Source::BF16(v),
        }
    }
}

/// Value `i` of `src` as f64 (exact for every source format).
pub(crate) fn source_value(src: &Source<'_>, i: usize) -> f64 {
    match src {
        Source::F32(v) => f64::from(v[i]),
        Source::F64(v) => v[i],
        Source::F16(v) => Format::F16.decode(u64::from(v[i])).to_f64(),
        Source::BF16(v) => f64::from(f32::from_bits(u32::from(v[i]) << 16)),
    }
}
