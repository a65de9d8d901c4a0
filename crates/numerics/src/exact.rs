//! The exact value a code stands for: sign, integer significand and binary exponent, or Inf/NaN.
//!
//! Every conversion decodes its source to an [`Exact`] first, so no precision is lost
//! before the one rounding step (no double rounding, f64 → e4m3fn rounds once).

use crate::encoding::{binary, hif8, int};
use crate::format::{Format, Kind};

/// An exactly decoded value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exact {
    /// `(-1)^negative × sig × 2^exp`. Zero is `sig == 0` (with its sign).
    Finite {
        /// Sign.
        negative: bool,
        /// Integer significand.
        sig: u64,
        /// Binary exponent of the significand's unit.
        exp: i32,
    },
    /// ±Infinity.
    Inf {
        /// Sign.
        negative: bool,
    },
    /// Not a number.
    Nan {
        /// Sign bit of the NaN code.
        negative: bool,
        /// Payload (the mantissa field), left-aligned in 64 bits; bit 63 is the quiet bit.
        payload: u64,
    },
}

impl Exact {
    /// A finite value `(-1)^negative × sig × 2^exp`.
    pub const fn finite(negative: bool, sig: u64, exp: i32) -> Exact {
        Exact::Finite { negative, sig, exp }
    }

    /// Positive zero.
    pub const ZERO: Exact = Exact::Finite {
        negative: false,
        sig: 0,
        exp: 0,
    };

    /// The canonical quiet NaN.
    pub const NAN: Exact = Exact::Nan {
        negative: false,
        payload: 1 << 63,
    };

    /// The exact value of a signed 64-bit integer.
    pub const fn from_i64(v: i64) -> Exact {
        Exact::Finite {
            negative: v < 0,
            sig: v.unsigned_abs(),
            exp: 0,
        }
    }

    /// The exact value of an unsigned 64-bit integer.
    pub const fn from_u64(v: u64) -> Exact {
        Exact::Finite {
            negative: false,
            sig: v,
            exp: 0,
        }
    }

    /// The exact value of an `f64`.
    pub fn from_f64(x: f64) -> Exact {
        Format::F64.decode(x.to_bits())
    }

    /// Whether this is a NaN.
    pub const fn is_nan(&self) -> bool {
        matches!(self, Exact::Nan { .. })
    }

    /// Whether this is ±Inf.
    pub const fn is_inf(&self) -> bool {
        matches!(self, Exact::Inf { .. })
    }

    /// Whether this is ±0.
    pub const fn is_zero(&self) -> bool {
        matches!(self, Exact::Finite { sig: 0, .. })
    }

    /// The sign bit.
    pub const fn is_negative(&self) -> bool {
        match *self {
            Exact::Finite { negative, .. }
            | Exact::Inf { negative }
            | Exact::Nan { negative, .. } => negative,
        }
    }

    /// Floor of log2 of the magnitude (the binade), for finite non-zero values.
    pub fn binade(&self) -> Option<i32> {
        match *self {
            Exact::Finite { sig, exp, .. } if sig != 0 => {
                Some(exp + 63 - sig.leading_zeros() as i32)
            }
            _ => None,
        }
    }

    /// The value as an `f64`, rounded to nearest-even where it is not exact (display only;
    /// every format here except `i64`/`u64`-sized integers decodes exactly).
    pub fn to_f64(&self) -> f64 {
        match *self {
            Exact::Nan { negative, .. } => {
                if negative {
                    -f64::NAN
                } else {
                    f64::NAN
                }
            }
            Exact::Inf { negative } => {
                if negative {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                }
            }
            Exact::Finite { negative, sig, exp } => {
                let mag = crate::convert::convert_exact(
                    &Exact::finite(false, sig, exp),
                    Format::F64,
                    &crate::policy::CastPolicy::default(),
                    0,
                );
                let v = f64::from_bits(mag);
                if negative { -v } else { v }
            }
        }
    }
}

/// Decodes the low `fmt.bits()` bits of `code`.
pub fn decode(code: u64, fmt: Format) -> Exact {
    let code = code & fmt.code_mask();
    match fmt.kind() {
        Kind::Binary(spec) => binary::decode(code, &spec),
        Kind::HiF8 => hif8::decode(code as u8),
        Kind::Int { signed } => int::decode(code, fmt.bits(), signed),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn f32_codes_decode_to_their_value() {
        for x in [1.0f32, -2.5, 1e-45, f32::MAX, f32::MIN_POSITIVE, 0.1] {
            assert_eq!(
                Format::F32.decode(u64::from(x.to_bits())).to_f64(),
                f64::from(x)
            );
        }
        assert!(Format::F32.decode(0x7fc0_0000).is_nan());
        assert_eq!(
            Format::F32.decode(0xff80_0000),
            Exact::Inf { negative: true }
        );
        assert_eq!(
            Format::F32.decode(0x8000_0000),
            Exact::finite(true, 0, -149)
        );
    }

    #[test]
    fn ints_decode_with_sign() {
        assert_eq!(Format::I4.decode(0x8).to_f64(), -8.0);
        assert_eq!(Format::I4.decode(0x7).to_f64(), 7.0);
        assert_eq!(Format::I8.decode(0xff).to_f64(), -1.0);
        assert_eq!(Format::U8.decode(0xff).to_f64(), 255.0);
        assert_eq!(Format::I64.decode(1 << 63).to_f64(), -(2f64.powi(63)));
        assert_eq!(Exact::from_i64(-12).to_f64(), -12.0);
    }
}
