//! Binary floating-point formats (sign, biased exponent, mantissa): f64 down to fp4, and e8m0.
//!
//! One parametrised implementation serves every row of the format table whose kind is
//! [`Kind::Binary`](crate::format::Kind::Binary); the [`Specials`] of a row decide which
//! codes are Inf/NaN.

use super::{Grid, bit_len};
use crate::exact::Exact;
use crate::format::{BinarySpec, Specials};

/// Decodes a binary-float code exactly.
pub fn decode(code: u64, spec: &BinarySpec) -> Exact {
    let m = spec.man_bits;
    let e_bits = spec.exp_bits;
    let man = code & ((1u64 << m) - 1);
    let biased = ((code >> m) & ((1u64 << e_bits) - 1)) as u32;
    let negative = spec.signed && (code >> (m + e_bits)) & 1 == 1;
    let all_ones = (1u32 << e_bits) - 1;
    match spec.specials {
        Specials::Ieee if biased == all_ones => {
            return if man == 0 {
                Exact::Inf { negative }
            } else {
                Exact::Nan {
                    negative,
                    payload: man << (64 - m),
                }
            };
        }
        Specials::NanOnlyAllOnes if biased == all_ones && man == (1u64 << m) - 1 => {
            return Exact::Nan {
                negative,
                payload: man << (64 - m),
            };
        }
        Specials::NanAtNegativeZero if negative && biased == 0 && man == 0 => {
            return Exact::NAN;
        }
        Specials::ExponentOnly => {
            if biased == all_ones {
                return Exact::Nan {
                    negative: false,
                    payload: 1 << 63,
                };
            }
            return Exact::finite(false, 1, biased as i32 - spec.bias);
        }
        _ => {}
    }
    if biased == 0 {
        Exact::finite(negative, man, spec.emin() - m as i32)
    } else {
        Exact::finite(
            negative,
            man | (1u64 << m),
            biased as i32 - spec.bias - m as i32,
        )
    }
}

/// Code of the largest finite value.
pub fn max_code(spec: &BinarySpec) -> u64 {
    (u64::from(spec.max_biased_exp()) << spec.man_bits) | spec.max_top_mantissa()
}

impl Grid for BinarySpec {
    fn quantum(&self, binade: i32) -> i32 {
        binade.max(self.emin()) - self.man_bits as i32
    }

    fn max_magnitude(&self, _negative: bool) -> (u64, i32) {
        let n = (1u64 << self.man_bits) | self.max_top_mantissa();
        (n, self.emax() - self.man_bits as i32)
    }

    fn encode(&self, negative: bool, n: u64, q: i32) -> u64 {
        let sign = if negative { self.sign_mask() } else { 0 };
        sign | self.encode_magnitude(n, q)
    }

    fn is_unsigned_float(&self) -> bool {
        !self.signed
    }

    fn min_normal_binade(&self) -> Option<i32> {
        Some(self.emin())
    }
    fn zero_code(&self, negative: bool) -> Option<u64> {
        if !self.has_subnormals() {
            return None;
        }
        let has_negative_zero = !matches!(self.specials, Specials::NanAtNegativeZero);
        Some(if negative && has_negative_zero {
            self.sign_mask()
        } else {
            0
        })
    }

    fn inf_code(&self, negative: bool) -> Option<u64> {
        match self.specials {
            Specials::Ieee => {
                let inf = ((1u64 << self.exp_bits) - 1) << self.man_bits;
                Some(if negative {
                    inf | self.sign_mask()
                } else {
                    inf
                })
            }
            _ => None,
        }
    }

    fn nan_code(&self, negative: bool, payload: u64) -> Option<u64> {
        let m = self.man_bits;
        let exp_ones = ((1u64 << self.exp_bits) - 1) << m;
        let sign = if negative { self.sign_mask() } else { 0 };
        match self.specials {
            Specials::Ieee => {
                // Quiet the NaN, keep the top payload bits (what x86 and Arm conversions do).
                let quiet = 1u64 << (m - 1);
                let man = (payload >> (64 - m)) | quiet;
                Some(sign | exp_ones | man)
            }
            Specials::NanOnlyAllOnes => Some(sign | exp_ones | ((1u64 << m) - 1)),
            Specials::ExponentOnly => Some(exp_ones),
            Specials::NanAtNegativeZero => Some(self.sign_mask()),
            Specials::FiniteOnly => None,
        }
    }
}

impl BinarySpec {
    /// Code (without sign) of the representable positive value `n × 2^q`, `n ≥ 1`.
    fn encode_magnitude(&self, n: u64, q: i32) -> u64 {
        let m = self.man_bits as i32;
        let e = q + bit_len(n) - 1;
        if e < self.emin() {
            // Subnormal: the mantissa counts units of 2^(emin - m).
            let shift = q - (self.emin() - m);
            return n << shift;
        }
        let top = bit_len(n) - 1; // position of the leading one
        let frac = if top >= m {
            (n >> (top - m)) & ((1u64 << m) - 1)
        } else {
            (n << (m - top)) & ((1u64 << m) - 1)
        };
        let biased = (e + self.bias) as u64;
        (biased << m) | frac
    }

    /// The sign bit's mask (0 for unsigned formats).
    fn sign_mask(&self) -> u64 {
        if self.signed {
            1u64 << (self.man_bits + self.exp_bits)
        } else {
            0
        }
    }
}
