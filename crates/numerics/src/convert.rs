//! Scalar conversion between any two formats under a policy: the reference path, and the one
//! rounding routine every conversion in npusim ends in.
//!
//! Decode the source to an [`Exact`] value, cut it at the destination's quantum, classify what
//! was cut off ([`Loss`](crate::round::Loss)), let the mode decide, then encode — with a
//! [`Status`] saying what happened. Binary floats, HiF8's tapered grid and integers are grids
//! like any other (one private `Grid` trait). Bulk kernels and vendor casts are defined by, and tested
//! against, this.

use std::cmp::Ordering;

use crate::encoding::hif8::HiF8Grid;
use crate::encoding::int::IntGrid;
use crate::encoding::{Grid, bit_len128};
use crate::exact::Exact;
use crate::format::{Format, Kind};
use crate::policy::{CastPolicy, InfRule, IntOverflow, NanRule, Overflow, UnsignedNegative};
use crate::round::{Cut, RoundMode, rounds_up};
use crate::status::{Rounded, Status};

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
    convert_with_status(code, src, dst, policy, 0).code
}

/// Like [`convert()`], with the random threshold that [`RoundMode::Hybrid`] compares against.
pub fn convert_with_entropy(
    code: u64,
    src: Format,
    dst: Format,
    policy: &CastPolicy,
    entropy: u32,
) -> u64 {
    convert_with_status(code, src, dst, policy, entropy).code
}

/// Converts one code and says what happened ([`Rounded`]: the code and its [`Status`]).
///
/// A cast to the same format is a copy: the code comes back unchanged whatever the policy
/// (±Inf is not saturated, a signalling NaN is not quieted), as bulk casts copy the bytes of
/// equal storages; its status only marks NaN and Inf.
///
/// ```
/// use npusim_numerics::{convert_with_status, CastPolicy, Format, RoundMode, Status};
/// let tiny = u64::from(1e-9f32.to_bits());
/// let r = convert_with_status(tiny, Format::F32, Format::F16, &CastPolicy::default(), 0);
/// assert_eq!(r.code, 0);
/// assert!(r.status.contains(Status::FLUSHED_TO_ZERO | Status::UNDERFLOW | Status::INEXACT));
/// ```
pub fn convert_with_status(
    code: u64,
    src: Format,
    dst: Format,
    policy: &CastPolicy,
    entropy: u32,
) -> Rounded {
    if src == dst {
        let code = code & dst.code_mask();
        let status = match dst.decode(code) {
            Exact::Nan { .. } => Status::NAN,
            Exact::Inf { .. } => Status::INF,
            Exact::Finite { .. } => Status::OK,
        };
        return Rounded::new(code, status);
    }
    round_exact(&src.decode(code), dst, policy, entropy)
}

/// Rounds an exact value to `dst` under `policy` (code only); see [`round_exact`].
pub fn convert_exact(x: &Exact, dst: Format, policy: &CastPolicy, entropy: u32) -> u64 {
    round_exact(x, dst, policy, entropy).code
}

/// The one rounding routine: rounds an exact value to `dst` under `policy`, with its status.
///
/// ```
/// use npusim_numerics::{round_exact, CastPolicy, Exact, Format, RoundMode, Status};
/// // 2.5 to i8: ties to even gives 2, inexact
/// let r = round_exact(&Exact::finite(false, 5, -1), Format::I8, &CastPolicy::default(), 0);
/// assert_eq!((r.code, r.status), (2, Status::INEXACT));
/// ```
pub fn round_exact(x: &Exact, dst: Format, policy: &CastPolicy, entropy: u32) -> Rounded {
    let value = Value::from(*x);
    round_value(&value, dst, policy, entropy)
}

/// An exact value whose significand may be 128 bits wide (a product of two decoded values).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Value {
    /// `(-1)^negative × sig × 2^exp`.
    Finite { negative: bool, sig: u128, exp: i32 },
    /// ±Inf.
    Inf { negative: bool },
    /// NaN with its sign and left-aligned payload.
    Nan { negative: bool, payload: u64 },
}

impl From<Exact> for Value {
    fn from(x: Exact) -> Value {
        match x {
            Exact::Finite { negative, sig, exp } => Value::Finite {
                negative,
                sig: u128::from(sig),
                exp,
            },
            Exact::Inf { negative } => Value::Inf { negative },
            Exact::Nan { negative, payload } => Value::Nan { negative, payload },
        }
    }
}

/// Rounds a (possibly 128-bit) exact value onto the grid of `dst`.
pub(crate) fn round_value(x: &Value, dst: Format, policy: &CastPolicy, entropy: u32) -> Rounded {
    match dst.kind() {
        Kind::Binary(spec) => round_on(&spec, x, policy, entropy),
        Kind::HiF8 => round_on(&HiF8Grid, x, policy, entropy),
        Kind::Int { signed } => round_on(
            &IntGrid {
                bits: dst.bits(),
                signed,
            },
            x,
            policy,
            entropy,
        ),
    }
}

const QUIET_PAYLOAD: u64 = 1 << 63;

/// Compares `n × 2^q` with `m × 2^p`, exactly.
fn cmp_scaled(n: u128, q: i32, (m, p): (u64, i32)) -> Ordering {
    let m = u128::from(m);
    if n == 0 || m == 0 {
        return n.cmp(&m);
    }
    let d = q - p;
    if d >= 0 {
        if bit_len128(n) + d > 128 {
            Ordering::Greater
        } else {
            (n << d).cmp(&m)
        }
    } else if bit_len128(m) - d > 128 {
        Ordering::Less
    } else {
        n.cmp(&(m << -d))
    }
}

/// The code of ±0, or the smallest positive value where the format has no zero (e8m0).
fn zero_or_smallest<G: Grid>(g: &G, negative: bool) -> u64 {
    g.zero_code(negative)
        .unwrap_or_else(|| g.encode(false, 1, g.quantum(i32::MIN / 2)))
}

/// Code of the extreme finite value on the given side.
fn max_code<G: Grid>(g: &G, negative: bool) -> u64 {
    let (n, q) = g.max_magnitude(negative);
    if n == 0 {
        return zero_or_smallest(g, false);
    }
    g.encode(negative, n, q)
}

/// A NaN code (with `status` and the NAN flag) if the format has one, else `otherwise`.
fn nan_or<G: Grid>(g: &G, negative: bool, status: Status, otherwise: Rounded) -> Rounded {
    match g.nan_code(negative, QUIET_PAYLOAD) {
        Some(code) => Rounded::new(code, status | Status::NAN),
        None => otherwise,
    }
}

/// What a finite value beyond the largest finite one becomes (`n` units of `2^q`, the rounded
/// magnitude modulo 2^128), per the policy and mode.
fn overflow<G: Grid>(
    g: &G,
    negative: bool,
    n: u128,
    policy: &CastPolicy,
    mode: RoundMode,
) -> Rounded {
    let base = Status::OVERFLOW | Status::INEXACT;
    let saturated = Rounded::new(max_code(g, negative), base | Status::SATURATED);
    if g.is_int() {
        return match policy.int_overflow {
            IntOverflow::Saturate => saturated,
            IntOverflow::Wrap => match g.wrap(negative, n) {
                Some(code) => Rounded::new(code, base | Status::WRAPPED),
                None => saturated,
            },
        };
    }
    let to_max = match policy.overflow {
        Overflow::Saturate => true,
        Overflow::Ieee => match mode {
            RoundMode::Trunc | RoundMode::Odd => true,
            RoundMode::Floor => !negative,
            RoundMode::Ceil => negative,
            RoundMode::Rint | RoundMode::Round | RoundMode::Hybrid | RoundMode::None => false,
        },
    };
    if to_max {
        return saturated;
    }
    match g.inf_code(negative) {
        Some(code) => Rounded::new(code, base | Status::INF),
        None => nan_or(g, negative, base, saturated),
    }
}

fn round_on<G: Grid>(g: &G, x: &Value, policy: &CastPolicy, entropy: u32) -> Rounded {
    let unsigned_negative_nan = || {
        let invalid = Status::INVALID | Status::INEXACT;
        nan_or(
            g,
            false,
            invalid,
            Rounded::new(zero_or_smallest(g, false), invalid),
        )
    };
    match *x {
        Value::Nan { negative, payload } => {
            let substitute = Rounded::new(
                zero_or_smallest(g, false),
                Status::INVALID | Status::INEXACT,
            );
            match policy.nan {
                NanRule::Keep => match g.nan_code(negative && !g.is_unsigned_float(), payload) {
                    Some(code) => Rounded::new(code, Status::NAN),
                    None => substitute,
                },
                NanRule::Zero => substitute,
            }
        }
        Value::Inf { negative } => {
            if negative
                && g.is_unsigned_float()
                && policy.unsigned_negative == UnsignedNegative::Nan
            {
                return unsigned_negative_nan();
            }
            let negative = negative && !g.is_unsigned_float();
            let saturated =
                Rounded::new(max_code(g, negative), Status::SATURATED | Status::INEXACT);
            match policy.inf {
                InfRule::Saturate => saturated,
                InfRule::Keep => match g.inf_code(negative) {
                    Some(code) => Rounded::new(code, Status::INF),
                    None => match policy.overflow {
                        Overflow::Ieee => nan_or(g, negative, Status::INEXACT, saturated),
                        Overflow::Saturate => saturated,
                    },
                },
            }
        }
        Value::Finite { negative, sig, exp } => {
            if sig == 0 {
                let code = zero_or_smallest(g, negative && !g.is_unsigned_float());
                let status = if g.zero_code(false).is_some() {
                    Status::OK
                } else {
                    Status::INEXACT
                };
                return Rounded::new(code, status);
            }
            let mut status = Status::OK;
            if negative && g.is_unsigned_float() {
                if policy.unsigned_negative == UnsignedNegative::Nan {
                    return unsigned_negative_nan();
                }
                status |= Status::INEXACT;
            }
            let negative = negative && !g.is_unsigned_float();
            round_finite(g, negative, sig, exp, policy, entropy, status)
        }
    }
}

/// The finite, non-zero case: cut, decide, check the range, encode.
fn round_finite<G: Grid>(
    g: &G,
    negative: bool,
    sig: u128,
    exp: i32,
    policy: &CastPolicy,
    entropy: u32,
    mut status: Status,
) -> Rounded {
    let binade = exp + bit_len128(sig) - 1;
    let mode = g.mode_at(policy.round, binade);
    let q = g.quantum(binade);
    let cut = Cut::new(sig, exp, q);
    let max = g.max_magnitude(negative);
    let truncated = if cut.huge {
        Ordering::Greater
    } else {
        cmp_scaled(cut.n, q, max)
    };
    let beyond = truncated == Ordering::Greater || (truncated == Ordering::Equal && cut.frac != 0);
    let lsb_odd = if g.is_int() {
        cut.n & 1 == 1
    } else {
        cut.n != 0 && truncated != Ordering::Greater && g.encode(false, cut.n as u64, q) & 1 == 1
    };
    let up = rounds_up(mode, negative, lsb_odd, &cut, policy.stochastic, entropy);
    if cut.frac != 0 || up {
        status |= Status::INEXACT;
    }
    let n = cut.n.wrapping_add(u128::from(up));
    if n == 0 && !cut.huge {
        if g.zero_code(negative).is_some() {
            status |= Status::FLUSHED_TO_ZERO;
        }
        if g.min_normal_binade().is_some() {
            status |= Status::UNDERFLOW;
        }
        if beyond {
            // An unsigned integer's negative side: its extreme value is 0.
            status |= Status::SATURATED;
        }
        return Rounded::new(zero_or_smallest(g, negative), status);
    }
    if cut.huge || cmp_scaled(n, q, max) == Ordering::Greater {
        let r = overflow(g, negative, n, policy, mode);
        return Rounded::new(r.code, r.status | status);
    }
    if beyond {
        status |= Status::SATURATED;
    }
    if status.contains(Status::INEXACT)
        && g.min_normal_binade()
            .is_some_and(|emin| q + bit_len128(n) - 1 < emin)
    {
        status |= Status::UNDERFLOW;
    }
    Rounded::new(g.encode(negative, n as u64, q), status)
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
