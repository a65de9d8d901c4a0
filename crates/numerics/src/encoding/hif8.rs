//! HiFloat8: a tapered 8-bit float whose mantissa width depends on the exponent.
//!
//! Byte layout, MSB first: `S | dot prefix | exponent (sign-magnitude, implicit leading one) | M`.
//!
//! | prefix after S | exponents | stored E bits | M bits |
//! |---|---|---|---|
//! | `11` | ±8..±15 | 4 (sign + 3 low bits) | 1 |
//! | `10` | ±4..±7 | 3 (sign + 2 low bits) | 2 |
//! | `01` | ±2, ±3 | 2 (sign + 1 low bit) | 3 |
//! | `001` | ±1 | 1 (sign) | 3 |
//! | `0001` | 0 | 0 | 3 |
//! | `0000` | denormal: 2^(m-23), m = 1..7 | – | 3-bit payload m |
//!
//! 0x00 is the only zero, 0x80 the only NaN, 0x6F / 0xEF are ±Inf. The largest finite value
//! is 0x6E = 2^15 and the smallest positive 0x01 = 2^-22.

use super::{Grid, bit_len};
use crate::exact::Exact;
use crate::round::RoundMode;

/// Code of the largest finite value, 2^15.
pub const MAX_CODE: u8 = 0x6E;
/// Code of +Inf.
pub const INF_CODE: u8 = 0x6F;
/// The NaN code.
pub const NAN_CODE: u8 = 0x80;
/// Code of 2^-15, the smallest value with a mantissa bit.
pub const MIN_NORMAL_CODE: u8 = 0x7E;
/// Binade of the smallest value with a mantissa bit (2^-15, code 0x7E).
pub const MIN_NORMAL_EXP: i32 = -15;
/// Binade of the smallest positive value (2^-22, code 0x01).
pub const MIN_DENORMAL_EXP: i32 = -22;
/// Binade of the largest finite value.
pub const MAX_EXP: i32 = 15;

/// The HiF8 value grid (a unit type: the format has no parameters).
#[derive(Clone, Copy, Debug, Default)]
pub struct HiF8Grid;

/// Mantissa bits available to a value in binade `e` (`|e| ≤ 15`), 0 in the denormal band.
pub const fn mantissa_bits(e: i32) -> i32 {
    let a = e.unsigned_abs();
    if e < MIN_NORMAL_EXP {
        0
    } else if a <= 3 {
        3
    } else if a <= 7 {
        2
    } else {
        1
    }
}

/// Decodes one HiF8 byte exactly.
pub fn decode(code: u8) -> Exact {
    if code == NAN_CODE {
        return Exact::NAN;
    }
    let negative = code & 0x80 != 0;
    let c = code & 0x7F;
    if c == INF_CODE {
        return Exact::Inf { negative };
    }
    if c == 0 {
        return Exact::ZERO;
    }
    // (exponent, mantissa bits, mantissa)
    let (e, mb, m): (i32, u32, u64) = if c & 0x60 == 0x60 {
        let mag = 8 + i32::from((c >> 1) & 0x7);
        (
            if c & 0x10 != 0 { -mag } else { mag },
            1,
            u64::from(c & 0x1),
        )
    } else if c & 0x60 == 0x40 {
        let mag = 4 + i32::from((c >> 2) & 0x3);
        (
            if c & 0x10 != 0 { -mag } else { mag },
            2,
            u64::from(c & 0x3),
        )
    } else if c & 0x60 == 0x20 {
        let mag = 2 + i32::from((c >> 3) & 0x1);
        (
            if c & 0x10 != 0 { -mag } else { mag },
            3,
            u64::from(c & 0x7),
        )
    } else if c & 0x70 == 0x10 {
        (if c & 0x08 != 0 { -1 } else { 1 }, 3, u64::from(c & 0x7))
    } else if c & 0x78 == 0x08 {
        (0, 3, u64::from(c & 0x7))
    } else {
        // Denormal: 0x01..0x07 = 2^(m - 23).
        return Exact::finite(negative, 1, i32::from(c) - 23);
    };
    Exact::finite(negative, (1u64 << mb) | m, e - mb as i32)
}

impl Grid for HiF8Grid {
    /// HiF8's hybrid rounding is ties-away (`round`) in the 3-mantissa-bit band `|e| ≤ 3` and
    /// below 2^-23 (where it flushes to zero); it is stochastic elsewhere. Other modes apply
    /// unchanged.
    fn mode_at(&self, mode: RoundMode, binade: i32) -> RoundMode {
        if matches!(mode, RoundMode::Hybrid) && (binade.unsigned_abs() <= 3 || binade < -23) {
            RoundMode::Round
        } else {
            mode
        }
    }

    fn min_normal_binade(&self) -> Option<i32> {
        Some(MIN_NORMAL_EXP)
    }

    fn encode(&self, negative: bool, n: u64, q: i32) -> u64 {
        let sign = if negative { 0x80 } else { 0 };
        sign | self.encode_magnitude(n, q)
    }

    fn quantum(&self, binade: i32) -> i32 {
        if binade < MIN_DENORMAL_EXP {
            MIN_DENORMAL_EXP
        } else {
            binade - mantissa_bits(binade.min(MAX_EXP + 1))
        }
    }

    fn max_magnitude(&self, _negative: bool) -> (u64, i32) {
        (1, MAX_EXP)
    }

    fn zero_code(&self, _negative: bool) -> Option<u64> {
        // The only zero; there is no -0 (0x80 is NaN).
        Some(0)
    }

    fn inf_code(&self, negative: bool) -> Option<u64> {
        Some(u64::from(INF_CODE) | if negative { 0x80 } else { 0 })
    }

    fn nan_code(&self, _negative: bool, _payload: u64) -> Option<u64> {
        Some(u64::from(NAN_CODE))
    }
}

impl HiF8Grid {
    /// Code (without sign) of the representable positive value `n × 2^q`, `n ≥ 1`.
    fn encode_magnitude(&self, n: u64, q: i32) -> u64 {
        let top = bit_len(n) - 1;
        let e = q + top;
        if e < MIN_NORMAL_EXP {
            return (e + 23) as u64;
        }
        let mb = mantissa_bits(e);
        let frac = if top >= mb {
            (n >> (top - mb)) & ((1u64 << mb) - 1)
        } else {
            (n << (mb - top)) & ((1u64 << mb) - 1)
        };
        let es = u64::from(e < 0);
        let a = u64::from(e.unsigned_abs());
        match e.unsigned_abs() {
            0 => 0x08 | frac,
            1 => 0x10 | (es << 3) | frac,
            2..=3 => 0x20 | (es << 4) | ((a - 2) << 3) | frac,
            4..=7 => 0x40 | (es << 4) | ((a - 4) << 2) | frac,
            _ => 0x60 | (es << 4) | ((a - 8) << 1) | frac,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The decode table of the HiF8 definition, row by row, as values (0x00..0x7F).
    #[test]
    fn decode_matches_the_published_table() {
        let p = |e: i32| 2f64.powi(e);
        let expect: Vec<f64> = [
            // 0x00..0x07 zero and denormals, 0x08..0x0F 1.0..1.875
            vec![0.0, p(-22), p(-21), p(-20), p(-19), p(-18), p(-17), p(-16)],
            (0..8).map(|m| 1.0 + f64::from(m) / 8.0).collect(),
            (0..8).map(|m| 2.0 * (1.0 + f64::from(m) / 8.0)).collect(),
            (0..8).map(|m| 0.5 * (1.0 + f64::from(m) / 8.0)).collect(),
            (0..8).map(|m| 4.0 * (1.0 + f64::from(m) / 8.0)).collect(),
            (0..8).map(|m| 8.0 * (1.0 + f64::from(m) / 8.0)).collect(),
            (0..8).map(|m| p(-2) * (1.0 + f64::from(m) / 8.0)).collect(),
            (0..8).map(|m| p(-3) * (1.0 + f64::from(m) / 8.0)).collect(),
            (0..16)
                .map(|i| p(4 + i / 4) * (1.0 + f64::from(i % 4) / 4.0))
                .collect(),
            (0..16)
                .map(|i| p(-4 - i / 4) * (1.0 + f64::from(i % 4) / 4.0))
                .collect(),
            (0..15)
                .map(|i| p(8 + i / 2) * (1.0 + f64::from(i % 2) / 2.0))
                .collect(),
            vec![f64::INFINITY],
            (0..16)
                .map(|i| p(-8 - i / 2) * (1.0 + f64::from(i % 2) / 2.0))
                .collect(),
        ]
        .concat();
        assert_eq!(expect.len(), 128);
        for (c, want) in expect.iter().enumerate() {
            let got = decode(c as u8).to_f64();
            assert_eq!(got, *want, "code {c:#04x}");
            if c != 0 {
                assert_eq!(
                    decode(c as u8 | 0x80).to_f64(),
                    -want,
                    "code {:#04x}",
                    c | 0x80
                );
            }
        }
        assert!(decode(0x80).is_nan());
    }

    #[test]
    fn encode_inverts_decode_for_every_finite_code() {
        for c in 1u8..0x80 {
            if c == INF_CODE {
                continue;
            }
            let Exact::Finite { sig, exp, .. } = decode(c) else {
                panic!("{c:#x} not finite")
            };
            assert_eq!(
                HiF8Grid.encode_magnitude(sig, exp),
                u64::from(c),
                "{c:#04x}"
            );
        }
    }
}
