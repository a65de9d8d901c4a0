//! What the f32 → small float SIMD loops ([`crate::bulk::kernels::x86_avx2::f32_small_float`],
//! [`crate::bulk::kernels::x86_avx512::f32_small_float`]) are given: the destination's layout,
//! the mode and the policy's fixed results, and which destinations each loop serves.

/// A result fixed by the policy: destination code and raw status bits.
pub(crate) type Fixed = (u32, u16);

/// One f32 → small float cast: the layout, the mode and the policy's fixed results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SmallFloat {
    /// Destination width in bits (at most 8).
    pub bits: u32,
    /// Mantissa bits dropped from a normal f32.
    pub shift: u32,
    /// The f32 biased exponent of the destination's biased exponent 0.
    pub e0: u32,
    /// Smallest normal magnitude code.
    pub min_normal: u32,
    /// Largest finite magnitude code.
    pub max_code: u32,
    /// The f32 magnitude bits of the largest finite value.
    pub max_abs: u32,
    /// The mode (see [`mode`](crate::bulk::kernels::mode)).
    pub mode: u8,
    /// ±Inf inputs, by sign.
    pub inf: [Fixed; 2],
    /// Finite inputs beyond the largest finite value after rounding, by sign.
    pub overflow: [Fixed; 2],
    /// NaN inputs, by sign: the code's fixed bits and the status ...
    pub nan_fixed: [Fixed; 2],
    /// ... and the mask of the payload bits kept (the f32 mantissa shifted by `shift`).
    pub nan_payload: u32,
}

impl SmallFloat {
    /// Whether the AVX2 loop serves the destination: at most 8 bits, and at most 4 when `packed`.
    pub(crate) fn serves(&self, packed: bool) -> bool {
        self.bits <= 8 && (!packed || self.bits <= 4)
    }

    /// Whether the AVX-512 loop serves this cast (laid out one code per byte, or two per
    /// byte when `packed`).
    pub(crate) fn serves_avx512(&self, packed: bool) -> bool {
        // the magnitude codes up to the clamp code stay below the inexact bit (0x80), and the
        // code offsets of every binade below 2^23
        self.serves(packed)
            && (1..=7).contains(&(23 - self.shift))
            && self.e0 <= 126
            && self.max_code < 0x7F
    }

    /// Whether the AVX-512 loop serves this cast into an fnuz destination (8 bits, no
    /// negative zero, one code per byte): its clamp code, one above the largest finite
    /// magnitude, may be 0x80, since the loop keeps the inexact lanes apart.
    pub(crate) fn serves_avx512_fnuz(&self) -> bool {
        self.bits == 8
            && (1..=7).contains(&(23 - self.shift))
            && self.e0 <= 126
            && self.max_code <= 0x7F
    }
}
