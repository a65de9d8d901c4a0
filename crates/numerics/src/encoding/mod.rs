//! Bit-level encodings: how each kind of format turns codes into exact values and back.
//!
//! Decoding is exact. Encoding only ever receives values that are already representable
//! (the rounding routine in [`crate::convert`] decides which one); the [`Grid`] trait tells
//! that routine where a format's representable values lie.

pub(crate) mod binary;
pub(crate) mod hif8;
pub(crate) mod int;

use crate::round::RoundMode;

/// Where a format's representable values lie, and how to write one as a code: the grid the one
/// rounding routine rounds onto. Binary floats, HiF8's tapered grid and integers are all grids.
///
/// Values are handled as `n × 2^q` with `n` a positive integer. For a value in binade `e`
/// (`2^e ≤ |x| < 2^(e+1)`) the representable neighbours are the multiples of `2^quantum(e)`.
pub(crate) trait Grid {
    /// Exponent of the unit in the last place for values in binade `e` (subnormal ranges
    /// return the fixed quantum of the subnormal grid; integers 0).
    fn quantum(&self, binade: i32) -> i32;
    /// The largest finite magnitude on the given side as `(n, q)` (`n` may be 0: no negative
    /// values in an unsigned integer).
    fn max_magnitude(&self, negative: bool) -> (u64, i32);
    /// Code of the representable value `±n × 2^q`, `n ≥ 1`, within range.
    fn encode(&self, negative: bool, n: u64, q: i32) -> u64;
    /// Code of ±0, or `None` where the format has no zero (e8m0). Formats without -0 give +0.
    fn zero_code(&self, negative: bool) -> Option<u64>;
    /// Code of ±Inf, if the format has infinities.
    fn inf_code(&self, negative: bool) -> Option<u64>;
    /// Code of a NaN carrying `payload` (left-aligned, quiet bit at bit 63), if NaN exists.
    fn nan_code(&self, negative: bool, payload: u64) -> Option<u64>;
    /// Whether this is an integer grid (out-of-range values saturate or wrap, no specials).
    fn is_int(&self) -> bool {
        false
    }
    /// The code keeping the low bits of the integer `±n` (`n` modulo 2^128), for integer grids
    /// under a wrapping policy; `None` for float grids.
    fn wrap(&self, _negative: bool, _n: u128) -> Option<u64> {
        None
    }
    /// Whether negative values lose their sign or become NaN here (unsigned floats: e8m0).
    fn is_unsigned_float(&self) -> bool {
        false
    }
    /// Binade of the smallest normal magnitude (for the underflow flag); `None` for integers.
    fn min_normal_binade(&self) -> Option<i32>;
    /// The mode actually applied in `binade` (HiF8 changes `hybrid` in some bands).
    fn mode_at(&self, mode: RoundMode, _binade: i32) -> RoundMode {
        mode
    }
}

/// Number of significant bits of `n` (0 for 0).
pub(crate) const fn bit_len(n: u64) -> i32 {
    64 - n.leading_zeros() as i32
}

/// Number of significant bits of a 128-bit `n` (0 for 0).
pub(crate) const fn bit_len128(n: u128) -> i32 {
    128 - n.leading_zeros() as i32
}
