//! Scalar conversion between any two formats under a policy: the reference path.
//!
//! Decode the source to an [`Exact`] value, then round it once to the destination. Every other
//! conversion in npusim (bulk kernels, vendor casts) is defined by, and tested against, this.

use crate::encoding::hif8::{self, HiF8Grid};
use crate::encoding::{FloatGrid, bit_len, int};
use crate::exact::Exact;
use crate::format::{Format, Kind};
use crate::policy::{CastPolicy, InfRule, IntOverflow, NanRule, Overflow, UnsignedNegative};
use crate::round::{Cut, RoundMode, rounds_up};

/// Converts one code of `src` to a code of `dst` (in the low bits of the result).
///
/// [`RoundMode::Hybrid`] reads an entropy of 0 here; use [`convert_with_entropy`] or the bulk
/// API's seed for real stochastic rounding.
///
/// ```
/// use npusim_numerics::{convert, CastPolicy, Format, RoundMode};
/// // f32 0.5 + 2^-12 to f16: 0x3800 (0.5) under rint, 0x3801 under ceil and odd
/// let x = u64::from((0.5f32 + 2f32.powi(-12)).to_bits());
/// assert_eq!(convert(x, Format::F32, Format::F16, &CastPolicy::new(RoundMode::Rint)), 0x3800);
/// assert_eq!(convert(x, Format::F32, Format::F16, &CastPolicy::new(RoundMode::Ceil)), 0x3801);
/// assert_eq!(convert(x, Format::F32, Format::F16, &CastPolicy::new(RoundMode::Odd)), 0x3801);
/// ```
pub fn convert(code: u64, src: Format, dst: Format, policy: &CastPolicy) -> u64 {
    convert_with_entropy(code, src, dst, policy, 0)
}

/// Like [`convert()`], with the random threshold that [`RoundMode::Hybrid`] compares against.
///
/// A cast to the same format is a copy: the code comes back unchanged whatever the policy
/// (±Inf is not saturated, a signalling NaN is not quieted), as bulk casts copy the bytes of
/// equal storages.
pub fn convert_with_entropy(
    code: u64,
    src: Format,
    dst: Format,
    policy: &CastPolicy,
    entropy: u32,
) -> u64 {
    if src == dst {
        return code & dst.code_mask();
    }
    convert_exact(&src.decode(code), dst, policy, entropy)
}

/// Rounds an exact value to `dst` under `policy`: the one rounding routine.
pub fn convert_exact(x: &Exact, dst: Format, policy: &CastPolicy, entropy: u32) -> u64 {
    match dst.kind() {
        Kind::Binary(spec) => to_float(&spec, spec.signed, x, policy, entropy, |m, _| m),
        Kind::HiF8 => to_float(&HiF8Grid, true, x, policy, entropy, hif8::effective_mode),
        Kind::Int { signed } => to_int(x, dst.bits(), signed, policy, entropy),
    }
}

const QUIET_PAYLOAD: u64 = 1 << 63;

/// `n × 2^q > m × 2^p`, exactly.
fn exceeds(n: u64, q: i32, (m, p): (u64, i32)) -> bool {
    let d = q - p;
    if d >= 0 {
        bit_len(n) + d > 64 || (n << d) > m
    } else {
        bit_len(m) - d <= 64 && n > (m << -d)
    }
}

fn zero_or_smallest<G: FloatGrid>(g: &G, negative: bool) -> u64 {
    g.zero_code(negative)
        .unwrap_or_else(|| g.encode_magnitude(1, g.quantum(i32::MIN / 2)))
}

fn max_code<G: FloatGrid>(g: &G, negative: bool) -> u64 {
    let (n, q) = g.max_value();
    let sign = if negative { g.sign_mask() } else { 0 };
    sign | g.encode_magnitude(n, q)
}

fn nan_or<G: FloatGrid>(g: &G, negative: bool, payload: u64, otherwise: u64) -> u64 {
    g.nan_code(negative, payload).unwrap_or(otherwise)
}

/// The code for a finite value beyond max finite, per the overflow policy and mode.
fn overflow_code<G: FloatGrid>(g: &G, negative: bool, policy: &CastPolicy, mode: RoundMode) -> u64 {
    let to_max = match policy.overflow {
        Overflow::Saturate => true,
        Overflow::Ieee => match mode {
            RoundMode::Trunc | RoundMode::Odd => true,
            RoundMode::Floor => !negative,
            RoundMode::Ceil => negative,
            RoundMode::Rint | RoundMode::Round | RoundMode::Hybrid | RoundMode::None => false,
        },
    };
    let max = max_code(g, negative);
    if to_max {
        max
    } else {
        g.inf_code(negative)
            .unwrap_or_else(|| nan_or(g, negative, QUIET_PAYLOAD, max))
    }
}

fn to_float<G: FloatGrid>(
    g: &G,
    signed: bool,
    x: &Exact,
    policy: &CastPolicy,
    entropy: u32,
    mode_for_binade: impl Fn(RoundMode, i32) -> RoundMode,
) -> u64 {
    let unsigned_negative_nan = || nan_or(g, false, QUIET_PAYLOAD, 0);
    match *x {
        Exact::Nan { negative, payload } => match policy.nan {
            NanRule::Keep => g
                .nan_code(negative && signed, payload)
                .unwrap_or_else(|| zero_or_smallest(g, false)),
            NanRule::Zero => zero_or_smallest(g, false),
        },
        Exact::Inf { negative } => {
            if negative && !signed && policy.unsigned_negative == UnsignedNegative::Nan {
                return unsigned_negative_nan();
            }
            let negative = negative && signed;
            let max = max_code(g, negative);
            match policy.inf {
                InfRule::Saturate => max,
                InfRule::Keep => g
                    .inf_code(negative)
                    .unwrap_or_else(|| match policy.overflow {
                        Overflow::Ieee => nan_or(g, negative, QUIET_PAYLOAD, max),
                        Overflow::Saturate => max,
                    }),
            }
        }
        Exact::Finite { negative, sig, exp } => {
            if sig == 0 {
                return zero_or_smallest(g, negative && signed);
            }
            if negative && !signed && policy.unsigned_negative == UnsignedNegative::Nan {
                return unsigned_negative_nan();
            }
            let negative = negative && signed;
            let binade = exp + bit_len(sig) - 1;
            let mode = mode_for_binade(policy.round, binade);
            let q = g.quantum(binade);
            let cut = Cut::new(sig, exp, q);
            let lsb_odd = cut.n != 0 && g.encode_magnitude(cut.n, q) & 1 == 1;
            let up = rounds_up(
                mode,
                negative,
                lsb_odd,
                cut.frac,
                policy.stochastic,
                entropy,
            );
            let n = cut.n + u64::from(up);
            if n == 0 {
                return zero_or_smallest(g, negative);
            }
            if exceeds(n, q, g.max_value()) {
                return overflow_code(g, negative, policy, mode);
            }
            let sign = if negative { g.sign_mask() } else { 0 };
            sign | g.encode_magnitude(n, q)
        }
    }
}

fn to_int(x: &Exact, bits: u32, signed: bool, policy: &CastPolicy, entropy: u32) -> u64 {
    let (lo, hi) = int::range(bits, signed);
    let (negative, magnitude) = match *x {
        Exact::Nan { .. } => return 0,
        Exact::Inf { negative } => return int::encode(if negative { lo } else { hi }, bits),
        Exact::Finite { negative, sig, exp } => {
            if sig == 0 {
                return 0;
            }
            let magnitude: Option<u128> = if exp >= 0 {
                (exp < 64).then(|| u128::from(sig) << exp)
            } else {
                let cut = Cut::new(sig, exp, 0);
                let up = rounds_up(
                    policy.round,
                    negative,
                    cut.n & 1 == 1,
                    cut.frac,
                    policy.stochastic,
                    entropy,
                );
                Some(u128::from(cut.n) + u128::from(up))
            };
            (negative, magnitude)
        }
    };
    let Some(m) = magnitude else {
        // |x| ≥ 2^64: its low 64 bits are all zero.
        return match policy.int_overflow {
            IntOverflow::Saturate => int::encode(if negative { lo } else { hi }, bits),
            IntOverflow::Wrap => 0,
        };
    };
    let v = if negative { -(m as i128) } else { m as i128 };
    if (lo..=hi).contains(&v) {
        return int::encode(v, bits);
    }
    match policy.int_overflow {
        IntOverflow::Saturate => int::encode(v.clamp(lo, hi), bits),
        IntOverflow::Wrap => int::encode(v, bits),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::round::RoundMode::*;

    fn f32_to(dst: Format, x: f32, p: &CastPolicy) -> u64 {
        convert(u64::from(x.to_bits()), Format::F32, dst, p)
    }

    #[test]
    fn e4m3fn_top_of_range() {
        let p = CastPolicy::default();
        assert_eq!(f32_to(Format::F8E4M3FN, 448.0, &p), 0x7E);
        assert_eq!(f32_to(Format::F8E4M3FN, 464.0, &p), 0x7E); // tie, 0x7E is even
        assert_eq!(f32_to(Format::F8E4M3FN, 464.01, &p), 0x7F); // NaN
        assert_eq!(f32_to(Format::F8E4M3FN, -464.01, &p), 0xFF);
        assert_eq!(f32_to(Format::F8E4M3FN, f32::INFINITY, &p), 0x7F);
        assert_eq!(f32_to(Format::F8E4M3FN, 1000.0, &p.with_round(Trunc)), 0x7E);
        assert_eq!(f32_to(Format::F8E4M3FN, 450.0, &p.with_round(Odd)), 0x7E);
        assert_eq!(f32_to(Format::F8E4M3FN, 447.0, &p.with_round(Odd)), 0x7D);
        let sat = CastPolicy::saturating(Rint);
        assert_eq!(f32_to(Format::F8E4M3FN, 1e9, &sat), 0x7E);
        assert_eq!(f32_to(Format::F8E4M3FN, f32::NEG_INFINITY, &sat), 0xFE);
    }

    #[test]
    fn f16_overflow_and_subnormals() {
        let p = CastPolicy::default();
        assert_eq!(f32_to(Format::F16, 65519.99, &p), 0x7BFF);
        assert_eq!(f32_to(Format::F16, 65520.0, &p), 0x7C00);
        assert_eq!(f32_to(Format::F16, 1e-8, &p), 0x0000);
        assert_eq!(f32_to(Format::F16, -1e-8, &p), 0x8000);
        assert_eq!(f32_to(Format::F16, 2f32.powi(-24), &p), 0x0001);
        assert_eq!(f32_to(Format::F16, 2f32.powi(-25), &p), 0x0000); // tie to even 0
        assert_eq!(
            f32_to(Format::F16, 2f32.powi(-25), &p.with_round(Round)),
            0x0001
        );
        assert_eq!(
            f32_to(Format::F16, 2f32.powi(-14) - 2f32.powi(-25), &p),
            0x0400
        );
        assert_eq!(f32_to(Format::F16, 70000.0, &p.with_round(Floor)), 0x7BFF);
        assert_eq!(f32_to(Format::F16, -70000.0, &p.with_round(Floor)), 0xFC00);
        assert_eq!(f32_to(Format::F16, f32::NAN, &p), 0x7E00);
    }

    #[test]
    fn e8m0_rounds_on_the_code() {
        let p = CastPolicy::default();
        // 3 = 1.5 × 2^1: tie between 2 (code 0x80, even) and 4 (0x81, odd) → 2
        assert_eq!(f32_to(Format::F8E8M0, 3.0, &p), 0x80);
        // 6 = 1.5 × 2^2: tie between 4 (0x81) and 8 (0x82) → 8
        assert_eq!(f32_to(Format::F8E8M0, 6.0, &p), 0x82);
        assert_eq!(f32_to(Format::F8E8M0, 3.0, &p.with_round(Round)), 0x81);
        assert_eq!(f32_to(Format::F8E8M0, 3.9, &p.with_round(Trunc)), 0x80);
        assert_eq!(f32_to(Format::F8E8M0, -2.0, &p), 0xFF);
        assert_eq!(f32_to(Format::F8E8M0, 0.0, &p), 0x00);
        assert_eq!(f32_to(Format::F8E8M0, f32::NAN, &p), 0xFF);
        assert_eq!(convert(0x7F, Format::F8E8M0, Format::F32, &p), 0x3F80_0000);
        assert_eq!(convert(0x00, Format::F8E8M0, Format::F32, &p), 0x0040_0000); // 2^-127, an f32 subnormal
    }

    #[test]
    fn ints_saturate_or_wrap() {
        let p = CastPolicy::default();
        assert_eq!(f32_to(Format::I8, 300.0, &p), 0x7F);
        assert_eq!(f32_to(Format::I8, -300.0, &p), 0x80);
        assert_eq!(f32_to(Format::U8, -3.0, &p), 0);
        assert_eq!(f32_to(Format::I8, f32::NAN, &p), 0);
        assert_eq!(f32_to(Format::I8, f32::INFINITY, &p), 0x7F);
        let w = CastPolicy::non_saturating(Trunc);
        assert_eq!(f32_to(Format::I8, 300.0, &w), 44);
        assert_eq!(f32_to(Format::U8, 257.0, &w), 1);
        assert_eq!(f32_to(Format::I8, -129.0, &w), 127);
        assert_eq!(f32_to(Format::I32, 1e30, &w), 0);
        assert_eq!(convert(256, Format::I32, Format::U8, &w), 0);
        assert_eq!(convert(0xFFFF, Format::I16, Format::U32, &p), 0);
        assert_eq!(convert(0x8, Format::I4, Format::I8, &p), 0xF8);
        assert_eq!(f32_to(Format::I4, 7.5, &p), 0x7);
        assert_eq!(f32_to(Format::I4, -9.0, &p), 0x8);
    }

    #[test]
    fn fp4_has_no_specials() {
        let p = CastPolicy::default();
        assert_eq!(f32_to(Format::F4E2M1, 7.0, &p), 0x7);
        assert_eq!(f32_to(Format::F4E2M1, 1e9, &p), 0x7);
        assert_eq!(f32_to(Format::F4E2M1, f32::NEG_INFINITY, &p), 0xF);
        assert_eq!(f32_to(Format::F4E2M1, f32::NAN, &p), 0x0);
        assert_eq!(f32_to(Format::F4E2M1, 0.25, &p), 0x0); // tie to even 0
        assert_eq!(f32_to(Format::F4E2M1, -0.25, &p), 0x8);
        assert_eq!(f32_to(Format::F4E2M1, 2.5, &p), 0x4);
        assert_eq!(f32_to(Format::F4E1M2, 0.76171875, &p), 0x3);
        assert_eq!(f32_to(Format::F4E1M2, 2.5, &p), 0x7);
    }

    #[test]
    fn no_double_rounding_from_f64() {
        // -431.99999999999994 is just below the e4m3fn tie at -432 (between -416 and -448):
        // one rounding gives -416 (0xFD); rounding through f32 first would give -448.
        let x = f64::from_bits((-432.0f64).to_bits() - 1);
        assert_eq!(
            convert(
                x.to_bits(),
                Format::F64,
                Format::F8E4M3FN,
                &CastPolicy::default()
            ),
            0xFD
        );
    }
}
