//! IEEE binary16/binary32 arithmetic of the DSD operations, with one rounding per operation
//! (spec §4.3): operands decode exactly, the exact result (or a 64-bit significand with a
//! sticky bit, which rounds identically) goes once through numerics' rounding routine,
//! round to nearest even.

use npusim_numerics::{CastPolicy, Exact, Format, RoundMode, mul_round, round_exact};

fn policy() -> CastPolicy {
    CastPolicy::new(RoundMode::Rint)
}

/// Rounds an exact value to `fmt` (f16 or f32), returning the code.
pub fn round(x: &Exact, fmt: Format) -> u32 {
    round_exact(x, fmt, &policy(), 0).code as u32
}

/// The exact value of `code` in `fmt`.
pub fn decode(code: u32, fmt: Format) -> Exact {
    fmt.decode(u64::from(code))
}

/// `a + b` exactly for finite values, as a value with at most 64 significant bits whose lowest
/// bit may be a sticky bit (jammed), which is enough for any rounding to 32 bits or fewer.
fn add_finite(an: bool, asig: u64, aexp: i32, bn: bool, bsig: u64, bexp: i32) -> Exact {
    if asig == 0 && bsig == 0 {
        // -0 + -0 = -0; any other sum of zeros is +0 under round to nearest
        return Exact::finite(an && bn, 0, 0);
    }
    if asig == 0 {
        return Exact::finite(bn, bsig, bexp);
    }
    if bsig == 0 {
        return Exact::finite(an, asig, aexp);
    }
    // hi has the larger exponent
    let ((hn, hs, he), (ln, ls, le)) = if aexp >= bexp {
        ((an, asig, aexp), (bn, bsig, bexp))
    } else {
        ((bn, bsig, bexp), (an, asig, aexp))
    };
    let shift = (he - le) as u32;
    let hb = 64 - hs.leading_zeros();
    // (magnitude of hi, magnitude of lo) in units of 2^exp, with a sticky flag for lo
    let (hm, lm, exp, sticky) = if shift + hb <= 126 {
        (u128::from(hs) << shift, u128::from(ls), le, false)
    } else {
        let s = 126 - hb;
        let drop = shift - s;
        let (lm, sticky) = if drop >= 128 {
            (0, true)
        } else {
            let lm = u128::from(ls) >> drop;
            (lm, u128::from(ls) != lm << drop)
        };
        (u128::from(hs) << s, lm, he - s as i32, sticky)
    };
    // double everything so the sticky part sits strictly between two integers
    let (hm, lm, exp) = (hm << 1, lm << 1, exp - 1);
    let (negative, mag) = if hn == ln {
        (hn, hm + lm + u128::from(sticky))
    } else if hm > lm || (hm == lm && sticky) {
        // |hi| > |lo| (when equal at this precision, the sticky part of lo is below hi)
        (hn, hm - lm - u128::from(sticky))
    } else if hm == lm {
        return Exact::finite(false, 0, 0);
    } else {
        (ln, lm - hm + u128::from(sticky))
    };
    let bits = 128 - mag.leading_zeros();
    if bits <= 64 {
        return Exact::finite(negative, mag as u64, exp);
    }
    let k = bits - 64;
    let kept = (mag >> k) as u64;
    let lost = mag & ((1u128 << k) - 1) != 0;
    Exact::finite(negative, kept | u64::from(lost), exp + k as i32)
}

/// `a + b` exactly (Inf and NaN follow IEEE: Inf - Inf is NaN).
pub fn add_exact(a: &Exact, b: &Exact) -> Exact {
    match (*a, *b) {
        (Exact::Nan { .. }, _) | (_, Exact::Nan { .. }) => Exact::NAN,
        (Exact::Inf { negative: x }, Exact::Inf { negative: y }) if x != y => Exact::NAN,
        (Exact::Inf { negative }, _) | (_, Exact::Inf { negative }) => Exact::Inf { negative },
        (
            Exact::Finite {
                negative: an,
                sig: asig,
                exp: aexp,
            },
            Exact::Finite {
                negative: bn,
                sig: bsig,
                exp: bexp,
            },
        ) => add_finite(an, asig, aexp, bn, bsig, bexp),
    }
}

/// `-x` exactly.
pub fn neg_exact(x: &Exact) -> Exact {
    match *x {
        Exact::Finite { negative, sig, exp } => Exact::finite(!negative, sig, exp),
        Exact::Inf { negative } => Exact::Inf {
            negative: !negative,
        },
        nan => nan,
    }
}

/// `a × b` exactly, for operands whose significands multiply within 64 bits (f16, f32).
pub fn mul_exact(a: &Exact, b: &Exact) -> Exact {
    match (*a, *b) {
        (Exact::Nan { .. }, _) | (_, Exact::Nan { .. }) => Exact::NAN,
        (
            Exact::Inf { negative: x },
            Exact::Finite {
                negative: y, sig, ..
            },
        )
        | (
            Exact::Finite {
                negative: y, sig, ..
            },
            Exact::Inf { negative: x },
        ) => {
            if sig == 0 {
                Exact::NAN
            } else {
                Exact::Inf { negative: x != y }
            }
        }
        (Exact::Inf { negative: x }, Exact::Inf { negative: y }) => Exact::Inf { negative: x != y },
        (
            Exact::Finite {
                negative: an,
                sig: asig,
                exp: aexp,
            },
            Exact::Finite {
                negative: bn,
                sig: bsig,
                exp: bexp,
            },
        ) => {
            let p = u128::from(asig) * u128::from(bsig);
            let bits = 128 - p.leading_zeros();
            if bits <= 64 {
                Exact::finite(an != bn, p as u64, aexp + bexp)
            } else {
                // not reached for f16/f32 operands (at most 48 bits); jam to stay correct
                let k = bits - 64;
                let lost = p & ((1u128 << k) - 1) != 0;
                Exact::finite(
                    an != bn,
                    (p >> k) as u64 | u64::from(lost),
                    aexp + bexp + k as i32,
                )
            }
        }
    }
}

/// The binary floating-point operations of the DSD builtins, on codes of `fmt`.
pub fn add(a: u32, b: u32, fmt: Format) -> u32 {
    round(&add_exact(&decode(a, fmt), &decode(b, fmt)), fmt)
}

/// `a - b`, one rounding.
pub fn sub(a: u32, b: u32, fmt: Format) -> u32 {
    round(
        &add_exact(&decode(a, fmt), &neg_exact(&decode(b, fmt))),
        fmt,
    )
}

/// `a × b`, one rounding (numerics' `mul_round`).
pub fn mul(a: u32, b: u32, fmt: Format) -> u32 {
    mul_round(&decode(a, fmt), &decode(b, fmt), fmt, &policy(), 0).code as u32
}

/// `a + b × x`, fused: one rounding of the exact result.
pub fn mac(a: u32, b: u32, x: u32, fmt: Format) -> u32 {
    let p = mul_exact(&decode(b, fmt), &decode(x, fmt));
    round(&add_exact(&decode(a, fmt), &p), fmt)
}

/// `a + b × x` with `a` and the result f32, `b` and `x` FP16 in `half` (`@fmachs`, "16-bit
/// multiply, 32-bit add" per the `<dsd_ops>` type table): the product is exact, the sum
/// rounds once.
pub fn mac_mixed(a: u32, b: u32, x: u32, half: Format) -> u32 {
    let p = mul_exact(&decode(b, half), &decode(x, half));
    round(&add_exact(&decode(a, Format::F32), &p), Format::F32)
}

/// `a + b` with `a` and the result f32 and `b` FP16 in `half` (`@faddhs`; the `<dsd_ops>`
/// type table maps add(f32, fp16) to it): `b` widens exactly, the sum rounds once.
pub fn add_mixed(a: u32, b: u32, half: Format) -> u32 {
    round(
        &add_exact(&decode(a, Format::F32), &decode(b, half)),
        Format::F32,
    )
}

/// `max(a, b)`; a NaN operand gives the other one (NaN behaviour is undocumented, spec §4.3).
pub fn max(a: u32, b: u32, fmt: Format) -> u32 {
    let (x, y) = (decode(a, fmt), decode(b, fmt));
    if x.is_nan() {
        return b;
    }
    if y.is_nan() {
        return a;
    }
    if x.to_f64() >= y.to_f64() { a } else { b }
}

/// Converts a code between formats with one rounding.
pub fn convert(code: u32, from: Format, to: Format) -> u32 {
    round(&decode(code, from), to)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32s(x: f32) -> u32 {
        x.to_bits()
    }

    #[test]
    fn sums_agree_with_the_hardware_float_on_hard_cases() {
        let cases = [
            (1.0f32, 1e-30f32),
            (1.0, -1e-30),
            (16777216.0, 1.0),
            (16777216.0, 1.0000001),
            (3.0e38, 3.0e38),
            (1.5, -1.5),
            (-0.0, -0.0),
            (-0.0, 0.0),
            (1e-45, 1e-45),
            (f32::MAX, -f32::MAX),
            (1.0, f32::MIN_POSITIVE),
            (-3.25, 1e10),
        ];
        for (a, b) in cases {
            assert_eq!(
                add(f32s(a), f32s(b), Format::F32),
                (a + b).to_bits(),
                "{a} + {b}"
            );
            assert_eq!(
                sub(f32s(a), f32s(b), Format::F32),
                (a - b).to_bits(),
                "{a} - {b}"
            );
            assert_eq!(
                mul(f32s(a), f32s(b), Format::F32),
                (a * b).to_bits(),
                "{a} * {b}"
            );
            assert_eq!(
                mac(f32s(a), f32s(b), f32s(0.75), Format::F32),
                b.mul_add(0.75, a).to_bits(),
                "{a} + {b} * 0.75"
            );
        }
    }

    #[test]
    fn fused_multiply_add_rounds_once() {
        // 1 + 2^-12 squared = 1 + 2^-11 + 2^-24: fused keeps the 2^-24 that a separate
        // rounding of the product would lose
        let a = (1.0f32 + 2f32.powi(-12)).to_bits();
        let m = (-1.0f32).to_bits();
        let got = mac(m, a, a, Format::F32);
        let want = (1.0f32 + 2f32.powi(-12)).mul_add(1.0 + 2f32.powi(-12), -1.0);
        assert_eq!(got, want.to_bits());
        assert_ne!(
            want,
            (1.0f32 + 2f32.powi(-12)) * (1.0 + 2f32.powi(-12)) - 1.0
        );
    }
}
