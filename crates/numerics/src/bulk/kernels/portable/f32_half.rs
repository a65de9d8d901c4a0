//! What the f32 → 16-bit float SIMD loops ([`crate::bulk::kernels::x86_avx2::f16c`],
//! [`crate::bulk::kernels::x86_avx2::f32_bf16`]) are given: the rounding mode, and the results
//! the policy fixes for the lanes they do not round themselves (NaN, ±Inf and finite
//! overflow, by sign; NaN: plus the payload's top bits).

/// The rounding modes, as const-generic parameters of the kernels' loops.
pub(crate) use crate::bulk::kernels::mode as rounding;

/// A result fixed by the policy: destination code and raw status bits.
pub(crate) type Fixed = (u32, u16);

/// The results the policy gives the special lanes, by sign (`[+, −]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SpecialResults {
    /// NaN inputs: the code's fixed bits and the status ...
    pub nan: [Fixed; 2],
    /// ... and the mask of the payload bits kept (the f32 magnitude shifted down by the
    /// mantissa bits dropped; zero when NaN gives a fixed code).
    pub nan_payload: u32,
    /// ±Inf inputs.
    pub inf: [Fixed; 2],
    /// Finite inputs whose rounded magnitude exceeds the largest finite value.
    pub overflow: [Fixed; 2],
}

/// f32 → f16 in one mode under one policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct F16c {
    /// The rounding mode (see [`rounding`]).
    pub(crate) mode: u8,
    /// What NaN, ±Inf and overflow become.
    pub(crate) specials: SpecialResults,
    /// By sign, the f32 magnitude bits from which a finite input overflows in this mode,
    /// minus one (a lane overflows when its magnitude is greater).
    pub(crate) overflow_above: [u32; 2],
}

/// Largest finite f16 (65504) as f32 bits.
pub(crate) const MAX_F32: u32 = 0x477F_E000;
/// The f32 bits of 65536: a magnitude that large or larger overflows in every mode.
const BEYOND_F32: u32 = 0x4780_0000;

impl F16c {
    /// The kernel for rounding mode `mode` (see [`rounding`]) whose special lanes become
    /// `specials`.
    pub(crate) fn new(mode: u8, specials: SpecialResults) -> F16c {
        // Nearest modes overflow from max + half an ulp (65520, a tie that goes up in both);
        // the modes that round the magnitude down from 65536; a magnitude rounded up (floor of
        // a negative, ceil of a positive) from anything beyond max.
        let (pos, neg) = match mode {
            rounding::NEAREST_EVEN | rounding::NEAREST_AWAY => (MAX_F32 + 0x1000, MAX_F32 + 0x1000),
            rounding::FLOOR => (BEYOND_F32, MAX_F32 + 1),
            rounding::CEIL => (MAX_F32 + 1, BEYOND_F32),
            _ => (BEYOND_F32, BEYOND_F32),
        };
        F16c {
            mode,
            specials,
            overflow_above: [pos - 1, neg - 1],
        }
    }
}

/// f32 → bf16 in one mode under one policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bf16 {
    /// The rounding mode (see [`rounding`]).
    pub(crate) mode: u8,
    /// What NaN, ±Inf and overflow become.
    pub(crate) specials: SpecialResults,
}

impl Bf16 {
    /// The kernel for rounding mode `mode` (see [`rounding`]) whose special lanes become
    /// `specials`.
    pub(crate) fn new(mode: u8, specials: SpecialResults) -> Bf16 {
        Bf16 { mode, specials }
    }
}
