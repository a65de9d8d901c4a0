//! Two's complement and unsigned integers of 2 to 64 bits.

use crate::exact::Exact;

/// Decodes the low `bits` bits of `code` as a signed (two's complement) or unsigned integer.
pub fn decode(code: u64, bits: u32, signed: bool) -> Exact {
    if signed && (code >> (bits - 1)) & 1 == 1 {
        // Negative: magnitude = 2^bits - code.
        let magnitude = if bits == 64 {
            code.wrapping_neg()
        } else {
            (1u64 << bits) - code
        };
        Exact::finite(true, magnitude, 0)
    } else {
        Exact::finite(false, code, 0)
    }
}

/// Smallest and largest representable value as i128.
pub const fn range(bits: u32, signed: bool) -> (i128, i128) {
    if signed {
        (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
    } else {
        (0, (1i128 << bits) - 1)
    }
}

/// Encodes an in-range value (two's complement for signed formats) into `bits` bits.
pub const fn encode(v: i128, bits: u32) -> u64 {
    let mask = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    (v as u64) & mask
}

/// The grid of a `bits`-bit integer format: every integer in its range, quantum 1.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IntGrid {
    /// Width in bits.
    pub bits: u32,
    /// Two's complement (true) or unsigned.
    pub signed: bool,
}

impl super::Grid for IntGrid {
    fn quantum(&self, _binade: i32) -> i32 {
        0
    }

    fn max_magnitude(&self, negative: bool) -> (u64, i32) {
        let (lo, hi) = range(self.bits, self.signed);
        let m = if negative {
            lo.unsigned_abs()
        } else {
            hi as u128
        };
        (m as u64, 0)
    }

    fn encode(&self, negative: bool, n: u64, _q: i32) -> u64 {
        let v = i128::from(n);
        encode(if negative { -v } else { v }, self.bits)
    }

    fn zero_code(&self, _negative: bool) -> Option<u64> {
        Some(0)
    }

    fn inf_code(&self, _negative: bool) -> Option<u64> {
        None
    }

    fn nan_code(&self, _negative: bool, _payload: u64) -> Option<u64> {
        None
    }

    fn is_int(&self) -> bool {
        true
    }

    fn wrap(&self, negative: bool, n: u128) -> Option<u64> {
        let low = n as u64;
        let v = if negative { low.wrapping_neg() } else { low };
        Some(encode(i128::from(v), self.bits))
    }

    fn min_normal_binade(&self) -> Option<i32> {
        None
    }
}
