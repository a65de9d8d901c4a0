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
    if fmt == Format::F32
        && let Some(r) = mac_f32_host(a, b, x)
    {
        return r;
    }
    mac_exact(a, b, x, fmt)
}

/// [`mac`] through the exact values: decode, exact product and sum, one rounding.
pub fn mac_exact(a: u32, b: u32, x: u32, fmt: Format) -> u32 {
    let p = mul_exact(&decode(b, fmt), &decode(x, fmt));
    round(&add_exact(&decode(a, fmt), &p), fmt)
}

/// [`mac`] of f32 codes with the host's binary64 arithmetic, `None` when an operand is an
/// infinity or a NaN (those take [`mac_exact`], whose NaN is canonical).
///
/// Why it is the one rounding of the exact `a + b x`: the product of two f32 values has at
/// most 48 significant bits and an exponent within binary64's normal range, so `p = b x` is
/// exact in binary64. The sum `s = a + p` rounds once to binary64; TwoSum gives its error
/// `t` exactly. If `t` is not zero and `s` has an even last bit, `s` moves one step toward
/// `t`: that is the sum rounded to odd on 53 bits. A value rounded to odd with at least two
/// bits more than the target format rounds to nearest even exactly as the value itself does
/// (Boldo and Melquiond, "Emulation of FMA and correctly rounded sums: proved algorithms
/// using rounding to odd", IEEE TC 2008), and binary64 has 29 bits more than binary32 at
/// every binary32 magnitude, subnormals included (every sum here is a multiple of 2^-298, far
/// above binary64's subnormals). The final conversion to binary32 rounds to nearest even,
/// overflowing to an infinity exactly where the exact value does. Zeros: an exact zero sum
/// is `-0` only when both addends are `-0`, in both paths. Tested against [`mac_exact`].
fn mac_f32_host(a: u32, b: u32, x: u32) -> Option<u32> {
    let (a, b, x) = (f32::from_bits(a), f32::from_bits(b), f32::from_bits(x));
    if !(a.is_finite() && b.is_finite() && x.is_finite()) {
        return None;
    }
    let p = f64::from(b) * f64::from(x);
    let c = f64::from(a);
    let s = p + c;
    // TwoSum: t = (p + c) - s exactly
    let pv = s - c;
    let cv = s - pv;
    let t = (p - pv) + (c - cv);
    let bits = s.to_bits();
    let odd = if t != 0.0 && bits & 1 == 0 {
        // s is not zero here (a zero sum is exact); step its magnitude toward t
        if (t > 0.0) == (s > 0.0) {
            f64::from_bits(bits + 1)
        } else {
            f64::from_bits(bits - 1)
        }
    } else {
        s
    };
    Some((odd as f32).to_bits())
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

    /// A generator of test values (xorshift64*), deterministic.
    struct Bits(u64);

    impl Bits {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }

        /// An f32 code: any bits, or one of the edge classes (zeros, subnormals, the
        /// smallest and largest normals, infinities, NaNs, small integers, near one).
        fn f32(&mut self) -> u32 {
            let r = self.next();
            let sign = ((r >> 63) as u32) << 31;
            let m = (r >> 8) as u32 & 0x7F_FFFF;
            sign | match r % 12 {
                0 => 0,
                1 => m,                                                // subnormal
                2 => 0x0080_0000 | (m & 0xF),                          // smallest normals
                3 => 0x7F7F_FFFF - (m & 0xF),                          // largest finite
                4 => 0x7F80_0000,                                      // infinity
                5 => 0x7F80_0000 | m.max(1),                           // NaN
                6 => (((r >> 40) % 64) as f32).to_bits(),              // small integer
                7 => 0x3F80_0000 | (m & 0xFF) | (m << 15 & 0x7F_0000), // near one
                8 => (((r >> 32) as u32 % 30 + 112) << 23) | m,        // around one, wide
                _ => (r >> 16) as u32 & 0x7FFF_FFFF,                   // any
            }
        }
    }

    #[test]
    fn the_host_path_of_the_f32_multiply_add_is_the_exact_one() {
        let mut g = Bits(0x9E37_79B9_7F4A_7C15);
        for _ in 0..2_000_000 {
            let (a, b, x) = (g.f32(), g.f32(), g.f32());
            assert_eq!(
                mac(a, b, x, Format::F32),
                mac_exact(a, b, x, Format::F32),
                "{a:#010x} + {b:#010x} * {x:#010x}"
            );
        }
    }

    #[test]
    fn the_host_path_rounds_sums_near_a_midpoint_as_the_exact_one() {
        // a + b x with b x = ulp(a) / 2 +- a tiny part: the binary64 sum lands on (or next to)
        // a binary32 midpoint, where rounding twice would go wrong
        let mut g = Bits(0x1234_5678_9ABC_DEF1);
        // sums that binary64 rounding followed by binary32 rounding gets wrong: the cases
        // reach what the rounding to odd is there for
        let mut twice_wrong = 0;
        for _ in 0..400_000 {
            let r = g.next();
            // a: any significand, exponent e; h: half its ulp
            let e = (r % 190) as i32 - 90;
            let a = f32::from_bits(((e + 127) as u32) << 23 | (r >> 20) as u32 & 0x7F_FFFF);
            // b x = h (1 - i^2 2^-46), i small: h less a part below binary64's resolution
            // at a, so the binary64 sum is exactly the binary32 midpoint a + h
            let i = ((r >> 43) % 300 + 1) as f32;
            let eb = ((r >> 52) % 41) as i32 - 20;
            let b = (1.0 + i * 2f32.powi(-23)) * 2f32.powi(eb);
            let x = (1.0 - i * 2f32.powi(-23)) * 2f32.powi(e - 24 - eb);
            for (a, b, x) in [(a, b, x), (a, -b, x), (-a, b, x), (-a, -b, x)] {
                let twice = (f64::from(a) + f64::from(b) * f64::from(x)) as f32;
                let (a, b, x) = (a.to_bits(), b.to_bits(), x.to_bits());
                twice_wrong += usize::from(twice.to_bits() != mac_exact(a, b, x, Format::F32));
                assert_eq!(
                    mac(a, b, x, Format::F32),
                    mac_exact(a, b, x, Format::F32),
                    "{a:#010x} + {b:#010x} * {x:#010x}"
                );
            }
        }
        assert!(twice_wrong > 1000, "{twice_wrong}");
        // exactly at a midpoint, and a product a binary32 rounding of which would hide the
        // excess: 1 + (2^-24 + 2^-48) rounds up, 1 + 2^-24 to even, 1 - 2^-25 - 2^-50 down
        for (a, b, x) in [
            (
                1.0f32,
                2f32.powi(-12) * (1.0 + 2f32.powi(-12)),
                2f32.powi(-12) * (1.0 + 2f32.powi(-12)),
            ),
            (1.0, 2f32.powi(-12), 2f32.powi(-12)),
            (
                1.0,
                -(2f32.powi(-13)),
                2f32.powi(-12) * (1.0 + 2f32.powi(-12)),
            ),
            (f32::MAX, f32::MAX, 2f32.powi(-104)),
            (-f32::MAX, -(f32::MAX), 2f32.powi(-105)),
            (f32::from_bits(1), f32::from_bits(1), 0.5),
            (-0.0, 0.0, -1.0),
            (-0.0, 0.0, 1.0),
            (0.0, -0.0, 1.0),
            (1.5, 1.5, -1.0),
        ] {
            let (a, b, x) = (a.to_bits(), b.to_bits(), x.to_bits());
            assert_eq!(
                mac(a, b, x, Format::F32),
                mac_exact(a, b, x, Format::F32),
                "{a:#010x} + {b:#010x} * {x:#010x}"
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
