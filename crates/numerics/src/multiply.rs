//! Exact multiply, rounded once: `a × b` computed without loss (a 128-bit significand), then
//! rounded to the destination by the one rounding routine. What a fused dequantise/scale step
//! in hardware does, without the double rounding of multiplying on the host FPU first.

use crate::convert::{Value, round_value};
use crate::exact::Exact;
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::status::{Rounded, Status};

/// `a × b`, exactly, rounded once to `dst` under `policy` (IEEE rules for the specials:
/// NaN × anything is NaN, keeping the first NaN's sign and payload; ±Inf × 0 is NaN; ±Inf × a
/// non-zero value is ±Inf; signs multiply).
///
/// `entropy` is the threshold that [`RoundMode::Hybrid`](crate::RoundMode::Hybrid) compares
/// against.
///
/// ```
/// use npusim_numerics::{mul_round, CastPolicy, Exact, Format, RoundMode};
/// // int32 100000 × half 0.5, rounded once to f16: 50000 → 49984 (nearest f16)
/// let r = mul_round(&Exact::from_i64(100_000), &Format::F16.decode(0x3800), Format::F16,
///                   &CastPolicy::new(RoundMode::Rint), 0);
/// assert_eq!(r.code, 0x7A1A);
/// ```
pub fn mul_round(a: &Exact, b: &Exact, dst: Format, policy: &CastPolicy, entropy: u32) -> Rounded {
    let r = round_value(&product(a, b), dst, policy, entropy);
    if is_invalid_product(a, b) {
        return Rounded::new(r.code, r.status | Status::INVALID);
    }
    r
}

/// The exact product of two decoded values.
fn product(a: &Exact, b: &Exact) -> Value {
    let negative = a.is_negative() != b.is_negative();
    match (*a, *b) {
        (Exact::Nan { negative, payload }, _) | (_, Exact::Nan { negative, payload }) => {
            Value::Nan { negative, payload }
        }
        (Exact::Inf { .. }, x) | (x, Exact::Inf { .. }) => {
            if x.is_zero() {
                Value::Nan {
                    negative: false,
                    payload: 1 << 63,
                }
            } else {
                Value::Inf { negative }
            }
        }
        (
            Exact::Finite {
                sig: sa, exp: ea, ..
            },
            Exact::Finite {
                sig: sb, exp: eb, ..
            },
        ) => Value::Finite {
            negative,
            sig: u128::from(sa) * u128::from(sb),
            exp: ea.saturating_add(eb),
        },
    }
}

/// Whether a product of these two values is invalid (±Inf × 0), the IEEE invalid operation.
fn is_invalid_product(a: &Exact, b: &Exact) -> bool {
    (a.is_inf() && b.is_zero()) || (a.is_zero() && b.is_inf())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::RoundMode;

    fn f32x(x: f32) -> Exact {
        Format::F32.decode(u64::from(x.to_bits()))
    }

    /// f32 × f32 rounded once to f32 is what the host FPU computes (an independent oracle);
    /// to f64 it is exact.
    #[test]
    fn f32_products_match_the_host() {
        let p = CastPolicy::new(RoundMode::Rint);
        let mut s = 7u32;
        for _ in 0..100_000 {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let a = f32::from_bits(s);
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let b = f32::from_bits(s);
            let host = a * b;
            let r = mul_round(&f32x(a), &f32x(b), Format::F32, &p, 0);
            if host.is_nan() {
                assert!(f32::from_bits(r.code as u32).is_nan(), "{a:e} × {b:e}");
                assert!(r.status.contains(Status::NAN));
            } else {
                assert_eq!(r.code as u32, host.to_bits(), "{a:e} × {b:e}");
            }
            let wide = mul_round(&f32x(a), &f32x(b), Format::F64, &p, 0);
            if !host.is_nan() {
                assert_eq!(f64::from_bits(wide.code), f64::from(a) * f64::from(b));
            }
        }
    }

    #[test]
    fn specials_and_wide_products() {
        let p = CastPolicy::default();
        let inf = Exact::Inf { negative: false };
        assert!(is_invalid_product(&inf, &Exact::ZERO));
        let r = mul_round(&inf, &Exact::ZERO, Format::F16, &p, 0);
        assert!(r.status.contains(Status::NAN | Status::INVALID));
        let r = mul_round(&inf, &Exact::from_i64(-2), Format::F16, &p, 0);
        assert_eq!(r.code, 0xFC00);
        // (2^64 - 1)^2 needs 128 bits: rounded once to f64 it is 2^128 (nearest)
        let big = Exact::from_u64(u64::MAX);
        let r = mul_round(&big, &big, Format::F64, &p, 0);
        assert_eq!(f64::from_bits(r.code), 2f64.powi(128));
        assert!(r.status.contains(Status::INEXACT));
        // into an integer: 3 × 0.5 = 1.5 → 2 (ties to even), exact 6 × 0.5 = 3
        let half = f32x(0.5);
        assert_eq!(
            mul_round(&Exact::from_i64(3), &half, Format::I8, &p, 0).code,
            2
        );
        let r = mul_round(&Exact::from_i64(-6), &half, Format::I8, &p, 0);
        assert_eq!((r.code, r.status), (0xFD, Status::OK));
    }
}
