//! One NVFP4 block: an e4m3 block scale from the block's amax (and the tensor scale), then
//! each element multiplied by the scale's reciprocal and cast to e2m1, every step in f32.

use super::f32_arith::{div_to_f32, exact_f32};
use super::source::Source;
use super::stats::BlockStats;
use crate::bulk::entropy;
use crate::convert::{convert, round_exact};
use crate::exact::Exact;
use crate::format::Format;
use crate::multiply::mul_round;
use crate::policy::CastPolicy;
use crate::status::Status;

/// The largest e4m3fn value, the top of the block-scale range.
pub(crate) const E4M3_MAX: f32 = 448.0;
/// The bottom of the block-scale range (the smallest normal e4m3fn value).
pub(crate) const SCALE_MIN: f32 = 0.015_625;

/// The amax of some values: NaN if any is NaN, else the largest magnitude (±Inf included).
pub(crate) fn amax_of(src: &Source<'_>, idx: impl Iterator<Item = usize>) -> f64 {
    let mut amax = 0.0f64;
    for i in idx {
        let v = src.value(i);
        if v.is_nan() {
            return f64::NAN;
        }
        amax = amax.max(v.abs());
    }
    amax
}

/// The published per-tensor scale fl32(amax / (448 × 6)); 0 becomes 1 (nothing to scale).
pub(crate) fn tensor_scale_from_amax(amax: f64) -> f32 {
    let p = div_to_f32(&Exact::from_f64(amax), 21, -7);
    if p == 0.0 { 1.0 } else { p }
}

fn f32_of(code: u64) -> f32 {
    f32::from_bits(code as u32)
}

/// Quantises the block at `idx`, writing its codes into `codes` (flat index `i` at
/// `codes[i - base]`); returns the e4m3fn scale byte.
pub(crate) fn quantize_block(
    src: &Source<'_>,
    idx: &[usize],
    tensor_scale: Option<f32>,
    policy: &CastPolicy,
    (seed, first_index): (u64, u64),
    (codes, base): (&mut [u8], usize),
    stats: &mut BlockStats,
) -> u8 {
    stats.blocks += 1;
    let amax = amax_of(src, idx.iter().copied());
    let a6 = div_to_f32(&Exact::from_f64(amax), 3, -1);
    let t = match tensor_scale {
        Some(p) => a6 / p,
        None => a6,
    };
    if amax == 0.0 {
        stats.zero_blocks += 1;
    } else if t < SCALE_MIN {
        stats.scale_underflow += 1;
    } else if t > E4M3_MAX {
        stats.scale_saturated += 1;
    }
    let t = t.clamp(SCALE_MIN, E4M3_MAX);
    let ieee = CastPolicy::default();
    let s_code = convert(u64::from(t.to_bits()), Format::F32, Format::F8E4M3FN, &ieee);
    let s = f32_of(convert(s_code, Format::F8E4M3FN, Format::F32, &ieee));
    if s.is_nan() {
        stats.nan_blocks += 1;
    }
    let r = match tensor_scale {
        Some(p) => (1.0 / p) / s,
        None => 1.0 / s,
    };
    let r = exact_f32(r);
    let mut saturated = false;
    for &i in idx {
        let y = mul_round(&src.exact(i), &r, Format::F32, &ieee, 0);
        let q = round_exact(
            &Format::F32.decode(y.code),
            Format::F4E2M1,
            policy,
            entropy(seed, first_index.wrapping_add(i as u64)),
        );
        if !s.is_nan() {
            saturated |= q.status.contains(Status::SATURATED);
            stats.elements.record(q.status);
        }
        codes[i - base] = q.code as u8;
    }
    if saturated {
        stats.blocks_with_saturated_elements += 1;
    }
    s_code as u8
}

/// The f32 value of an NVFP4 element: fl32(code × fl32(p × s)), or fl32(code × s).
pub(crate) fn element_value(code: u8, scale: u8, tensor_scale: Option<f32>) -> f32 {
    let ieee = CastPolicy::default();
    let s = f32_of(convert(
        u64::from(scale),
        Format::F8E4M3FN,
        Format::F32,
        &ieee,
    ));
    let v = f32_of(convert(u64::from(code), Format::F4E2M1, Format::F32, &ieee));
    let sf = match tensor_scale {
        Some(p) => p * s,
        None => s,
    };
    v * sf
}
