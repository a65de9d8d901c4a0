//! Deterministic source data for speed measurements (`npusim bench`, the criterion benches).

use super::Storage;
use crate::Format;

/// `n` deterministic pseudo-random codes of `format`, little-endian in its native storage:
/// f32 and f64 values with a random sign and mantissa over the binades 2^-20 to 2^11 (the
/// range of weights and activations: normal, finite, no special lanes), every other format
/// uniform over all its codes.
///
/// ```
/// use npusim_numerics::Format;
/// use npusim_numerics::bulk::sample_source;
///
/// let src = sample_source(Format::F32, 1000);
/// assert_eq!(src.len(), 4000);
/// let x = f32::from_le_bytes([src[0], src[1], src[2], src[3]]).abs();
/// assert!(x >= 2f32.powi(-20) && x < 2f32.powi(12));
/// assert_eq!(sample_source(Format::F32, 1000), src);
/// ```
pub fn sample_source(format: Format, n: usize) -> Vec<u8> {
    let s = Storage::native(format);
    let mut buf = vec![0u8; s.bytes_for(n)];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    for i in 0..n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let code = if format == Format::F32 {
            // sign, exponent 2^-20..2^11, random mantissa
            let e = 107 + (x >> 40) % 32;
            ((x & 1) << 31) | (e << 23) | ((x >> 8) & 0x7F_FFFF)
        } else if format == Format::F64 {
            // the same binades as the f32 values, a random 52-bit mantissa
            let e = 1003 + (x >> 56) % 32;
            let m = (x >> 1) ^ (x << 23);
            ((x & 1) << 63) | (e << 52) | (m & 0xF_FFFF_FFFF_FFFF)
        } else {
            x & format.code_mask()
        };
        s.write(&mut buf, i, code);
    }
    buf
}
