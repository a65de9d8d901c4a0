//! The values to quantise: f32, f64, f16 or bf16.

use crate::exact::Exact;
use crate::format::Format;

/// A tensor's values in one of the source formats (f16 and bf16 as their bit patterns).
#[derive(Clone, Copy, Debug)]
pub enum Source<'a> {
    /// IEEE binary32 values.
    F32(&'a [f32]),
    /// IEEE binary64 values.
    F64(&'a [f64]),
    /// IEEE binary16 bit patterns.
    F16(&'a [u16]),
    /// bfloat16 bit patterns.
    BF16(&'a [u16]),
}

impl Source<'_> {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Source::F32(v) => v.len(),
            Source::F64(v) => v.len(),
            Source::F16(v) | Source::BF16(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The source format.
    pub fn format(&self) -> Format {
        match self {
            Source::F32(_) => Format::F32,
            Source::F64(_) => Format::F64,
            Source::F16(_) => Format::F16,
            Source::BF16(_) => Format::BF16,
        }
    }

    /// Value `i` as an f64 (exact for every source format).
    pub(crate) fn value(&self, i: usize) -> f64 {
        match self {
            Source::F32(v) => f64::from(v[i]),
            Source::F64(v) => v[i],
            Source::F16(v) => match Format::F16.decode(u64::from(v[i])) {
                // |sig| < 2^11 and exp in [-24, 5]: exact in f64
                Exact::Finite { negative, sig, exp } => {
                    let m = sig as f64 * 2f64.powi(exp);
                    if negative { -m } else { m }
                }
                Exact::Inf { negative: true } => f64::NEG_INFINITY,
                Exact::Inf { negative: false } => f64::INFINITY,
                Exact::Nan { .. } => f64::NAN,
            },
            Source::BF16(v) => f64::from(f32::from_bits(u32::from(v[i]) << 16)),
        }
    }

    /// Value `i`, exactly decoded.
    pub(crate) fn exact(&self, i: usize) -> Exact {
        match self {
            Source::F32(v) => Format::F32.decode(u64::from(v[i].to_bits())),
            Source::F64(v) => Format::F64.decode(v[i].to_bits()),
            Source::F16(v) => Format::F16.decode(u64::from(v[i])),
            Source::BF16(v) => Format::BF16.decode(u64::from(v[i])),
        }
    }
}

impl<'a> From<&'a [f32]> for Source<'a> {
    fn from(v: &'a [f32]) -> Self {
        Source::F32(v)
    }
}

impl<'a> From<&'a [f64]> for Source<'a> {
    fn from(v: &'a [f64]) -> Self {
        Source::F64(v)
    }
}
