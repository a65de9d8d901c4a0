//! Two's complement and unsigned integers of 4 to 64 bits.

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
