//! Round to an integral value in the same float format (IEEE `roundToIntegral`), under any mode.

use crate::convert::round_exact;
use crate::exact::Exact;
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::round::{Cut, RoundMode, rounds_up};
use crate::status::{Rounded, Status};

/// Rounds the value of `code` (a `format` code) to an integral value under `policy.round`,
/// and encodes it in `format` again.
///
/// NaN, ±Inf, zeros and values that are already integral come back unchanged (NaN not
/// quieted). A result of zero keeps the input's sign where the format has -0. Integer formats
/// are returned as they are. [`RoundMode::Hybrid`] reads an entropy of 0, as in
/// [`convert()`](crate::convert()). e8m0 has no zero: a value that rounds to 0 gives its
/// smallest value, 2^-127.
///
/// ```
/// use npusim_numerics::{round_to_integral, CastPolicy, Format, RoundMode};
/// let f = |x: f32, m| f32::from_bits(round_to_integral(u64::from(x.to_bits()), Format::F32,
///                                                      &CastPolicy::new(m)).code as u32);
/// assert_eq!(f(2.5, RoundMode::Rint), 2.0);
/// assert_eq!(f(2.5, RoundMode::Round), 3.0);
/// assert_eq!(f(-2.5, RoundMode::Floor), -3.0);
/// assert!(f(-0.3, RoundMode::Trunc).is_sign_negative());
/// ```
pub fn round_to_integral(code: u64, format: Format, policy: &CastPolicy) -> Rounded {
    let code = code & format.code_mask();
    let unchanged = |status| Rounded::new(code, status);
    let (negative, sig, exp) = match format.decode(code) {
        Exact::Nan { .. } => return unchanged(Status::NAN),
        Exact::Inf { .. } => return unchanged(Status::INF),
        Exact::Finite { negative, sig, exp } => (negative, sig, exp),
    };
    if sig == 0 || exp >= 0 || format.is_int() {
        return unchanged(Status::OK);
    }
    let cut = Cut::new(u128::from(sig), exp, 0);
    let lsb_odd = cut.n & 1 == 1;
    let up = rounds_up(policy.round, negative, lsb_odd, &cut, policy.stochastic, 0);
    let n = cut.n + u128::from(up);
    let inexact = if cut.frac != 0 || up {
        Status::INEXACT
    } else {
        Status::OK
    };
    if n == 0 {
        let zero = round_exact(&Exact::finite(negative, 0, 0), format, policy, 0);
        return Rounded::new(zero.code, zero.status | inexact | Status::FLUSHED_TO_ZERO);
    }
    // exp < 0 here, so n ≤ sig + 1 (≤ 2^64 only if sig = u64::MAX, which no format decodes to).
    let whole = Exact::finite(negative, n as u64, 0);
    let exact_policy = policy.with_round(RoundMode::Rint);
    let r = round_exact(&whole, format, &exact_policy, 0);
    Rounded::new(r.code, r.status | inexact)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_via(x: f32, m: RoundMode) -> f32 {
        let r = round_to_integral(u64::from(x.to_bits()), Format::F32, &CastPolicy::new(m));
        f32::from_bits(r.code as u32)
    }

    /// Against the host's own rounding functions over many f32 values (the host FPU is an
    /// independent oracle for f32 round-to-integral).
    #[test]
    fn f32_matches_the_host_for_every_mode() {
        let mut x = 1u32;
        for i in 0..200_000u32 {
            x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            let v = f32::from_bits(x ^ (i << 13));
            if !v.is_finite() {
                continue;
            }
            assert_eq!(
                f32_via(v, RoundMode::Rint).to_bits(),
                v.round_ties_even().to_bits()
            );
            assert_eq!(f32_via(v, RoundMode::Round).to_bits(), v.round().to_bits());
            assert_eq!(f32_via(v, RoundMode::Floor).to_bits(), v.floor().to_bits());
            assert_eq!(f32_via(v, RoundMode::Ceil).to_bits(), v.ceil().to_bits());
            assert_eq!(
                f32_via(v, RoundMode::Trunc).to_bits(),
                v.trunc().to_bits(),
                "{v:e}"
            );
        }
    }

    #[test]
    fn other_formats_and_specials() {
        let p = CastPolicy::new(RoundMode::Rint);
        // f16 2.5 (0x4100) -> 2.0 (0x4000); bf16 -0.75 (0xBF40) -> -1.0 (0xBF80)
        assert_eq!(round_to_integral(0x4100, Format::F16, &p).code, 0x4000);
        assert_eq!(round_to_integral(0xBF40, Format::BF16, &p).code, 0xBF80);
        // e4m3fn 0.5 (0x30) -> +0; fnuz -0.5 -> +0 (no -0)
        assert_eq!(round_to_integral(0x30, Format::F8E4M3FN, &p).code, 0x00);
        assert_eq!(round_to_integral(0xB8, Format::F8E4M3FNUZ, &p).code, 0x00);
        // odd: 2.25 in f16 -> 3.0 (jammed), 2.0 stays
        let odd = CastPolicy::new(RoundMode::Odd);
        assert_eq!(round_to_integral(0x4080, Format::F16, &odd).code, 0x4200);
        assert_eq!(round_to_integral(0x4000, Format::F16, &odd).code, 0x4000);
        // NaN and Inf unchanged, with their flags
        let nan = round_to_integral(0x7D00, Format::F16, &p);
        assert_eq!((nan.code, nan.status), (0x7D00, Status::NAN));
        assert_eq!(
            round_to_integral(0xFC00, Format::F16, &p).status,
            Status::INF
        );
        assert_eq!(
            round_to_integral(0x4100, Format::F16, &p).status,
            Status::INEXACT
        );
        // HiF8 1.125 (0x09) -> 1.0 (0x08)
        assert_eq!(round_to_integral(0x09, Format::HiF8, &p).code, 0x08);
    }
}
