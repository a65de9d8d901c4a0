//! The FP16 type a program is compiled for (`--fp16-format`, spec §1.1): the `h` operations
//! and `f16` arrays compute in it.

use std::fmt;

use npusim_numerics::Format;

use super::fp;
use super::operand::Scalar;
use crate::elem::ElemTy;

/// The 16-bit float format of a PE's `f16` values.
///
/// `cb16` (Cerebras 16-bit float: 6 exponent bits, 9 mantissa bits) is not offered: the
/// numerics crate has no such format yet, and no rounding may bypass it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Fp16Format {
    /// IEEE binary16 (the default).
    #[default]
    Ieee,
    /// bfloat16.
    Bf16,
}

impl Fp16Format {
    /// The numerics format.
    pub const fn format(self) -> Format {
        match self {
            Fp16Format::Ieee => Format::F16,
            Fp16Format::Bf16 => Format::BF16,
        }
    }

    /// An `f16` scalar in this format: `x` rounded to nearest even (numerics).
    pub fn scalar(self, x: f32) -> Scalar {
        Scalar::from_bits(
            ElemTy::F16,
            fp::convert(x.to_bits(), Format::F32, self.format()),
        )
    }

    /// The value of `f16` bits in this format, widened exactly to `f32`.
    pub fn value(self, bits: u16) -> f32 {
        f32::from_bits(fp::convert(u32::from(bits), self.format(), Format::F32))
    }
}

impl fmt::Display for Fp16Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fp16Format::Ieee => "f16",
            Fp16Format::Bf16 => "bf16",
        })
    }
}
