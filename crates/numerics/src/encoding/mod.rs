//! Bit-level encodings: how each kind of format turns codes into exact values and back.
//!
//! Decoding is exact. Encoding only ever receives values that are already representable
//! (the rounding routine in [`crate::round`] decides which one); the [`FloatGrid`] trait tells
//! that routine where a float format's representable values lie.

pub mod binary;
pub mod hif8;
pub mod int;

/// Where a floating-point format's representable values lie, and how to write one as a code.
///
/// Values are handled as `n × 2^q` with `n` a positive integer. For a value in binade `e`
/// (`2^e ≤ |x| < 2^(e+1)`) the representable neighbours are the multiples of `2^quantum(e)`.
pub trait FloatGrid {
    /// Exponent of the unit in the last place for values in binade `e` (subnormal ranges
    /// return the fixed quantum of the subnormal grid).
    fn quantum(&self, binade: i32) -> i32;
    /// The largest finite value as `(n, q)`.
    fn max_value(&self) -> (u64, i32);
    /// Code (without sign) of the representable positive value `n × 2^q`, `n ≥ 1`.
    fn encode_magnitude(&self, n: u64, q: i32) -> u64;
    /// The sign bit's mask (0 for unsigned formats).
    fn sign_mask(&self) -> u64;
    /// Code of ±0, or `None` where the format has no zero (e8m0).
    fn zero_code(&self, negative: bool) -> Option<u64>;
    /// Code of ±Inf, if the format has infinities.
    fn inf_code(&self, negative: bool) -> Option<u64>;
    /// Code of a NaN carrying `payload` (left-aligned, quiet bit at bit 63), if NaN exists.
    fn nan_code(&self, negative: bool, payload: u64) -> Option<u64>;
}

/// Number of significant bits of `n` (0 for 0).
pub(crate) const fn bit_len(n: u64) -> i32 {
    64 - n.leading_zeros() as i32
}
