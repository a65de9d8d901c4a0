//! The MX schemes' per-block arithmetic for the fast driver: the shared exponent of a block
//! from its amax's f32 bits with integer operations (and, for RCEIL, the one f32 division the
//! rule publishes), the elements multiplied by the exact power of two 2^-e.

use super::fast::{BlockKernel, BlockPlan};
use super::fused_element::SmallFloat;
use super::mx::{self, E8M0_NAN};
use super::scale_rule::ScaleRule;
use super::scheme::Scheme;
use super::source::Source;
use super::stats::BlockStats;
use crate::bulk::Storage;
use crate::format::Format;
use crate::policy::CastPolicy;

/// Smallest and largest biased f32 exponent of an amax the integer rules handle: the shared
/// exponent then lies well inside e8m0's range and 2^-e (times 2^6 for MXINT8) is a normal
/// f32. Other blocks (subnormal amax, amax near f32's top) go to the reference routine.
const AMAX_EXP_MIN: u32 = 40;
/// See [`AMAX_EXP_MIN`].
const AMAX_EXP_MAX: u32 = 230;
/// A stand-in for scaled values below 2^-126 (f32 subnormals, or zero where the product
/// underflowed): every element grid's smallest quantum is 2^-16 or more, so any non-zero
/// magnitude below 2^-48 rounds the same way in every mode (stochastic rounding compares the
/// top 32 fraction bits, all zero), with the same statuses.
const TINY_BITS: u32 = 27 << 23; // 2^-100

/// An MX kernel's per-block rule as plain numbers: what a vector plan needs to give
/// [`BlockKernel::plan`]'s bits for many blocks at once (`docs/block_formats.md`, "The block
/// plan in vectors").
#[derive(Clone, Copy, Debug)]
pub(crate) struct MxRule {
    /// The scale rule.
    pub(crate) rule: ScaleRule,
    /// Top binade of the element grid.
    pub(crate) emax: i32,
    /// Mantissa bits of the top binade.
    pub(crate) man: u32,
    /// Max normal = `max_sig × 2^max_exp`.
    pub(crate) max_sig: f32,
    /// See `max_sig`.
    pub(crate) max_exp: i32,
    /// Extra power of two of the element (6 for MXINT8).
    pub(crate) shift: i32,
    /// The largest scaled magnitude that does not saturate.
    pub(crate) max_scaled: f32,
    /// Whether a saturating block goes to the reference routine (MXINT8).
    pub(crate) saturating_is_reference: bool,
    /// Smallest and largest biased f32 exponent of an amax the integer rules handle.
    pub(crate) amax_exp: (u32, u32),
}

/// An MX scheme and scale rule, ready for the driver.
pub(crate) struct MxKernel {
    scheme: Scheme,
    rule: ScaleRule,
    params: (u64, u64),
    policy: CastPolicy,
    /// Top binade of the element grid.
    emax: i32,
    /// Mantissa bits of the top binade.
    man: u32,
    /// Max normal = `max_sig × 2^max_exp`.
    max_sig: f32,
    max_exp: i32,
    /// Extra power of two of the element (6 for MXINT8, whose codes mean code / 64).
    shift: i32,
    /// The largest scaled magnitude that does not saturate.
    max_scaled: f32,
}

impl MxKernel {
    /// The kernel of `scheme` under `rule`; `policy` and the stochastic `(seed, first_index)`
    /// are the reference routine's for the blocks it redoes.
    pub(crate) fn new(
        scheme: Scheme,
        rule: ScaleRule,
        policy: CastPolicy,
        params: (u64, u64),
    ) -> MxKernel {
        let g = mx::grid(scheme);
        let shift = if scheme == Scheme::Mxint8 { 6 } else { 0 };
        let max_normal = g.max_sig as f32 * pow2(g.max_exp);
        MxKernel {
            scheme,
            rule,
            params,
            policy,
            emax: g.emax,
            man: g.man,
            max_sig: g.max_sig as f32,
            max_exp: g.max_exp,
            shift,
            max_scaled: max_normal * pow2(shift),
        }
    }

    /// The unclamped shared exponent of a normal amax inside the handled range.
    #[inline(always)]
    fn exponent(&self, amax_bits: u32) -> i32 {
        let biased = (amax_bits >> 23) as i32;
        let mant = amax_bits & 0x007F_FFFF;
        let e = biased - 127;
        match self.rule {
            ScaleRule::Floor => e - self.emax,
            ScaleRule::Ceil => e + i32::from(mant != 0) - self.emax,
            ScaleRule::Even => {
                // R(amax) reaches the next binade iff the top man + 1 mantissa bits are ones.
                let top = mant >> (22 - self.man);
                let ones = (1u32 << (self.man + 1)) - 1;
                e + i32::from(top == ones) - self.emax
            }
            ScaleRule::Rceil => {
                // fl32(amax / max_normal): one correctly rounded division, then an exact
                // power of two (the quotient is a normal f32 in the handled range)
                let d = (f32::from_bits(amax_bits) / self.max_sig) * pow2(-self.max_exp);
                let db = d.to_bits();
                ((db >> 23) as i32 - 127) + i32::from(db & 0x007F_FFFF != 0)
            }
        }
    }
}

/// 2^k as an f32, for k in the normal range [-126, 127].
#[inline(always)]
fn pow2(k: i32) -> f32 {
    f32::from_bits(((k + 127) as u32) << 23)
}

impl BlockKernel for MxKernel {
    fn element(&self) -> Storage {
        Storage::native(if self.scheme == Scheme::Mxint8 {
            Format::I8
        } else {
            self.scheme.element()
        })
    }

    #[inline(always)]
    fn plan(&self, amax_bits: u32, stats: &mut BlockStats) -> BlockPlan {
        if amax_bits >= 0x7F80_0000 {
            // a NaN or ±Inf: a NaN scale, codes 0, as the reference routine has it
            stats.blocks += 1;
            stats.nan_blocks += 1;
            return BlockPlan::Zeros { byte: E8M0_NAN };
        }
        if amax_bits == 0 {
            stats.blocks += 1;
            stats.zero_blocks += 1;
            return BlockPlan::Fast { byte: 0, mul: 1.0 };
        }
        let biased = amax_bits >> 23;
        if !(AMAX_EXP_MIN..=AMAX_EXP_MAX).contains(&biased) {
            return BlockPlan::Reference;
        }
        let e = self.exponent(amax_bits);
        let mul = pow2(self.shift - e);
        let top = f32::from_bits(amax_bits) * mul;
        let saturates = top > self.max_scaled;
        if saturates && self.scheme == Scheme::Mxint8 {
            // -128 is clamped to -127 after the cast: the reference routine does it
            return BlockPlan::Reference;
        }
        stats.blocks += 1;
        stats.blocks_with_saturated_elements += u64::from(saturates);
        BlockPlan::Fast {
            byte: (e + 127) as u8,
            mul,
        }
    }

    #[inline(always)]
    fn scale(&self, x: u32, mul: f32) -> f32 {
        // branch-free, so that the compiler vectorises the loops it is inlined into
        let yb = (f32::from_bits(x) * mul).to_bits();
        let tiny = u32::from(x & 0x7FFF_FFFF != 0) * TINY_BITS;
        let small = (x & 0x8000_0000) | tiny;
        f32::from_bits(if yb & 0x7F80_0000 == 0 { small } else { yb })
    }

    fn fused(&self) -> Option<SmallFloat> {
        if self.scheme == Scheme::Mxint8 {
            return None;
        }
        SmallFloat::new(self.scheme.element())
    }

    fn multiplies(&self) -> bool {
        false
    }

    #[inline(always)]
    fn fused_operand(&self, x: u32, byte: u8, _mul: f32) -> (u32, i32) {
        (x, i32::from(byte) - 127)
    }

    fn mx_rule(&self) -> Option<MxRule> {
        Some(MxRule {
            rule: self.rule,
            emax: self.emax,
            man: self.man,
            max_sig: self.max_sig,
            max_exp: self.max_exp,
            shift: self.shift,
            max_scaled: self.max_scaled,
            saturating_is_reference: self.scheme == Scheme::Mxint8,
            amax_exp: (AMAX_EXP_MIN, AMAX_EXP_MAX),
        })
    }

    fn reference(
        &self,
        src: &Source<'_>,
        idx: &[usize],
        codes: (&mut [u8], usize),
        stats: &mut BlockStats,
    ) -> u8 {
        mx::quantize_block(
            src,
            idx,
            self.scheme,
            self.rule,
            &self.policy,
            self.params,
            codes,
            stats,
        )
    }
}
