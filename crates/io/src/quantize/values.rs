//! A floating tensor's values as the quantiser's source, and its values for the error figures.

use npusim_numerics::Format;
use npusim_numerics::block::Source;

/// A floating tensor's values, read out of the file's bytes (which need not be aligned).
pub(crate) enum Values {
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
    /// The quantiser's view.
    pub(crate) fn source(&self) -> Source<'_> {
        match self {
            Values::F32(v) => Source::F32(v),
            Values::F64(v) => Source::F64(v),
            Values::F16(v) => Source::F16(v),
            Values::BF16(v) => Source::BF16(v),
        }
    }

    /// Value `i` as f64 (exact for every source format).
    pub(crate) fn value(&self, i: usize) -> f64 {
        match self {
            Values::F32(v) => f64::from(v[i]),
            Values::F64(v) => v[i],
            Values::F16(v) => Format::F16.decode(u64::from(v[i])).to_f64(),
            Values::BF16(v) => f64::from(f32::from_bits(u32::from(v[i]) << 16)),
        }
    }
}
