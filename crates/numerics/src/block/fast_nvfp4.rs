//! NVFP4's per-block arithmetic for the fast driver: the e4m3 block scale from the block's
//! amax by the same f32 steps as the reference routine (a correctly rounded division by 6 is
//! IEEE's `/`), the scale's round-to-nearest-even to e4m3 with integer operations, and the
//! elements multiplied by the scale's reciprocal in f32, as published.

use rayon::prelude::*;

use super::fast::{BlockKernel, BlockPlan};
use super::fused_element::SmallFloat;
use super::nvfp4::{self, E4M3_MAX, SCALE_MIN};
use super::source::Source;
use super::stats::BlockStats;
use crate::bulk::Storage;
use crate::format::Format;
use crate::policy::CastPolicy;

/// NVFP4 under a per-tensor scale (finite, above zero) or none.
pub(crate) struct Nvfp4Kernel {
    tensor_scale: Option<f32>,
    params: (u64, u64),
    policy: CastPolicy,
}

impl Nvfp4Kernel {
    /// The kernel; `policy` and the stochastic `(seed, first_index)` are the reference
    /// routine's for the blocks it redoes.
    pub(crate) fn new(
        tensor_scale: Option<f32>,
        policy: CastPolicy,
        params: (u64, u64),
    ) -> Nvfp4Kernel {
        Nvfp4Kernel {
            tensor_scale,
            params,
            policy,
        }
    }
}

/// The e4m3fn code of `t` in [2^-6, 448], rounded to nearest, ties to even.
#[inline(always)]
fn e4m3_code(t: f32) -> u8 {
    let bits = t.to_bits();
    let e = (bits >> 23) as i32 - 127;
    let m = bits & 0x007F_FFFF;
    let mut code = (((e + 7) as u32) << 3) | (m >> 20);
    let rem = m & 0x000F_FFFF;
    if rem > 0x0008_0000 || (rem == 0x0008_0000 && code & 1 == 1) {
        code += 1;
    }
    code as u8
}

/// The f32 value of a normal e4m3fn code.
#[inline(always)]
fn e4m3_value(code: u8) -> f32 {
    let e = i32::from(code >> 3) - 7;
    f32::from_bits((((e + 127) as u32) << 23) | (u32::from(code & 7) << 20))
}

impl BlockKernel for Nvfp4Kernel {
    fn element(&self) -> Storage {
        Storage::native(Format::F4E2M1)
    }

    #[inline(always)]
    fn plan(&self, amax_bits: u32, stats: &mut BlockStats) -> BlockPlan {
        if amax_bits >= 0x7F80_0000 {
            return BlockPlan::Reference;
        }
        let amax = f32::from_bits(amax_bits);
        let a6 = amax / 6.0;
        let t = match self.tensor_scale {
            Some(p) => a6 / p,
            None => a6,
        };
        let code = e4m3_code(t.clamp(SCALE_MIN, E4M3_MAX));
        let s = e4m3_value(code);
        let r = match self.tensor_scale {
            Some(p) => (1.0 / p) / s,
            None => 1.0 / s,
        };
        if !(amax * r).is_finite() {
            // a tensor scale so small that its reciprocal, or the scaled amax, overflows
            return BlockPlan::Reference;
        }
        stats.blocks += 1;
        if amax_bits == 0 {
            stats.zero_blocks += 1;
        } else if t < SCALE_MIN {
            stats.scale_underflow += 1;
        } else if t > E4M3_MAX {
            stats.scale_saturated += 1;
        }
        stats.blocks_with_saturated_elements += u64::from(amax * r > 6.0);
        BlockPlan::Fast { byte: code, mul: r }
    }

    #[inline(always)]
    fn scale(&self, x: u32, mul: f32) -> f32 {
        f32::from_bits(x) * mul
    }

    fn fused(&self) -> Option<SmallFloat> {
        SmallFloat::new(Format::F4E2M1)
    }

    fn multiplies(&self) -> bool {
        true
    }

    #[inline(always)]
    fn fused_operand(&self, x: u32, _byte: u8, mul: f32) -> (u32, i32) {
        ((f32::from_bits(x) * mul).to_bits(), 0)
    }

    fn reference(
        &self,
        src: &Source<'_>,
        idx: &[usize],
        codes: (&mut [u8], usize),
        stats: &mut BlockStats,
    ) -> u8 {
        nvfp4::quantize_block(
            src,
            idx,
            self.tensor_scale,
            &self.policy,
            self.params,
            codes,
            stats,
        )
    }
}

/// The largest magnitude of `src` as f64 (NaN if any value is NaN), as
/// [`nvfp4::amax_of`] computes it, from the bits and in parallel.
pub(crate) fn tensor_amax(src: &Source<'_>) -> f64 {
    const CHUNK: usize = 1 << 16;
    let fold = |a: u32, b: u32| a.max(b);
    match src {
        Source::F32(v) => {
            let m = v
                .par_chunks(CHUNK)
                .map(|c| c.iter().fold(0u32, |m, x| m.max(x.to_bits() & 0x7FFF_FFFF)))
                .reduce(|| 0, fold);
            if m > 0x7F80_0000 {
                f64::NAN
            } else {
                f64::from(f32::from_bits(m))
            }
        }
        Source::BF16(v) | Source::F16(v) => {
            let m = v
                .par_chunks(CHUNK)
                .map(|c| c.iter().fold(0u32, |m, &h| m.max(u32::from(h & 0x7FFF))))
                .reduce(|| 0, fold);
            let (inf, value) = match src {
                Source::BF16(_) => (0x7F80, f64::from(f32::from_bits(m << 16))),
                _ => (0x7C00, Format::F16.decode(u64::from(m)).to_f64()),
            };
            if m > inf { f64::NAN } else { value }
        }
        Source::F64(_) => nvfp4::amax_of(src, 0..src.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::convert;

    #[test]
    fn e4m3_rounding_is_the_reference_conversion() {
        let p = CastPolicy::default();
        let mut t = SCALE_MIN;
        while t <= E4M3_MAX {
            for d in [0.0f32, 0.5, 0.999, 1.0001] {
                let x = (t + d * t / 16.0).min(E4M3_MAX);
                let want = convert(u64::from(x.to_bits()), Format::F32, Format::F8E4M3FN, &p);
                assert_eq!(u64::from(e4m3_code(x)), want, "{x}");
                let v = convert(want, Format::F8E4M3FN, Format::F32, &p);
                assert_eq!(e4m3_value(want as u8).to_bits() as u64, v, "{x}");
            }
            t *= 1.0625;
        }
    }
}
