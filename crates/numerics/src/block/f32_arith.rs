//! Correctly rounded f32 steps on exact values: the divisions the scale rules publish in f32
//! (amax / max normal, amax / 6, amax / 2688), rounded once whatever the source format.

use crate::convert::round_exact;
use crate::exact::Exact;
use crate::format::Format;
use crate::policy::CastPolicy;

/// `x / (d × 2^-shift)` (i.e. `x × 2^shift / d`) rounded once to f32, nearest-even, IEEE
/// overflow to ±Inf. `d` is odd and below 2^20; NaN and ±Inf pass through.
pub(crate) fn div_to_f32(x: &Exact, d: u64, shift: i32) -> f32 {
    let (negative, sig, exp) = match *x {
        Exact::Nan { .. } => return f32::NAN,
        Exact::Inf { negative } => {
            return if negative {
                f32::NEG_INFINITY
            } else {
                f32::INFINITY
            };
        }
        Exact::Finite { negative, sig, exp } => (negative, sig, exp),
    };
    if sig == 0 {
        return if negative { -0.0 } else { 0.0 };
    }
    // Scale the significand so the quotient has 62 or 63 bits, then keep a sticky bit.
    let d_bits = 64 - d.leading_zeros() as i32;
    let s_bits = 64 - sig.leading_zeros() as i32;
    let up = 62 - s_bits + d_bits;
    let n = u128::from(sig) << up;
    let q = n / u128::from(d);
    let sticky = u128::from(!n.is_multiple_of(u128::from(d)));
    let wide = (q << 1) | sticky;
    let exact = Exact::finite(negative, wide as u64, exp + shift - up - 1);
    let r = round_exact(&exact, Format::F32, &CastPolicy::default(), 0);
    f32::from_bits(r.code as u32)
}

/// The exact value of an f32.
pub(crate) fn exact_f32(x: f32) -> Exact {
    Format::F32.decode(u64::from(x.to_bits()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisions_round_once() {
        for x in [
            1.0f32,
            448.0,
            3.0e38,
            1e-40,
            0.1,
            2688.0,
            6.0,
            f32::MIN_POSITIVE,
        ] {
            assert_eq!(div_to_f32(&exact_f32(x), 3, -1), x / 6.0, "{x}");
            assert_eq!(div_to_f32(&exact_f32(x), 21, -7), x / 2688.0, "{x}");
            assert_eq!(div_to_f32(&exact_f32(x), 7, -6), x / 448.0, "{x}");
        }
        // f64 1e300 / 6 overflows f32
        assert_eq!(div_to_f32(&Exact::from_f64(1e300), 3, -1), f32::INFINITY);
        // one rounding: f64 just above an f32 midpoint after division
        let v = 3.0 * (1.0 + 2f64.powi(-24) + 2f64.powi(-50));
        assert_eq!(div_to_f32(&Exact::from_f64(v), 3, 0), 1.0 + 2f32.powi(-23));
    }
}
