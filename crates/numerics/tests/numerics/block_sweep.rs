//! The one sweep of the block-format tests (`block_vector.rs`, `block_into.rs`): input classes
//! (random normals at many scales, f32 subnormals, all-zero blocks with signed zeros, one NaN,
//! one ±Inf, amax at and one ulp around binade edges, saturating amax, elements that scale
//! below the smallest subnormal, amaxes outside the integer rules' range, ties at the element
//! grids) × every scheme and scale rule (NVFP4: every kind of tensor scale) × every
//! deterministic rounding mode and stochastic rounding × shapes with full rows, even and odd
//! tails, short blocks, a batch-sized row and the other axes; and the instruction-set levels
//! here.

use npusim_numerics::block::{Options, ScaleRule, Scheme, TensorScale};
use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{CastPolicy, RoundMode, Stochastic, StochasticCompare};

use crate::kernel_support::level_here;

/// xorshift64*.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// The next 64 bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A draw below `n`.
    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn pow2(k: i32) -> f32 {
    2f32.powi(k.clamp(-149, 127))
}

/// 16 values of one input class.
pub(crate) fn chunk(rng: &mut Rng) -> [f32; 16] {
    let mut c = [0.0f32; 16];
    let sign = |rng: &mut Rng| if rng.below(2) == 0 { 1.0 } else { -1.0 };
    let e = rng.below(200) as i32 - 100;
    let normal = |rng: &mut Rng, e: i32| {
        let m = 1.0 + (rng.below(1 << 23) as f32) / (1u32 << 23) as f32;
        sign(rng) * m * pow2(e - rng.below(10) as i32)
    };
    match rng.below(12) {
        // random normals at one scale
        0..=3 => c.iter_mut().for_each(|x| *x = normal(rng, e)),
        // f32 subnormals only
        4 => c.iter_mut().for_each(|x| {
            *x = sign(rng) * f32::from_bits(rng.below(0x0080_0000) as u32);
        }),
        // all zero, signs mixed
        5 => c.iter_mut().for_each(|x| *x = 0.0 * sign(rng)),
        // one NaN or one ±Inf among normals
        6 => {
            c.iter_mut().for_each(|x| *x = normal(rng, e));
            c[rng.below(16) as usize] = if rng.below(2) == 0 {
                f32::NAN
            } else {
                sign(rng) * f32::INFINITY
            };
        }
        // amax at a binade edge, one ulp either side, or at the max normals' mantissas
        7 | 8 => {
            c.iter_mut().for_each(|x| *x = normal(rng, e - 2));
            let m = [1.0f32, 1.5, 1.75, 1.875, 1.9375, 1.999_999_9][rng.below(6) as usize];
            let top = (m * pow2(e)).to_bits();
            let top = match rng.below(3) {
                0 => top - 1,
                1 => top,
                _ => top + 1,
            };
            c[rng.below(16) as usize] = sign(rng) * f32::from_bits(top);
        }
        // a large amax with elements that scale to subnormals or below them
        9 => {
            c.iter_mut().for_each(|x| {
                let d = 20 + rng.below(120) as i32;
                *x = normal(rng, e - d);
            });
            c[rng.below(16) as usize] = normal(rng, e);
        }
        // out of the integer rules' range (the reference routine redoes these)
        10 => c.iter_mut().for_each(|x| {
            let far = if rng.below(2) == 0 { 120 } else { -130 };
            *x = normal(rng, far);
        }),
        // ties at the element grids: small integers and halves times a power of two
        _ => c.iter_mut().for_each(|x| {
            *x = sign(rng) * (rng.below(64) as f32 / 2.0) * pow2(e);
        }),
    }
    c
}

/// `n` values, 16 at a time of one class each.
pub(crate) fn values(rng: &mut Rng, n: usize) -> Vec<f32> {
    let mut v = Vec::with_capacity(n + 16);
    while v.len() < n {
        v.extend(chunk(rng));
    }
    v.truncate(n);
    v
}

/// The instruction-set levels this machine has (or the test refuses to be skipped).
pub(crate) fn levels() -> Vec<SimdLevel> {
    [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
        .into_iter()
        .filter(|&l| level_here(l))
        .collect()
}

/// Every scheme with each of its scale rules (MX) or kinds of tensor scale (NVFP4: from the
/// amax, off, and each of `given`).
pub(crate) fn variants_with(given: &[f32]) -> Vec<(Scheme, Option<ScaleRule>, TensorScale)> {
    let mut out = Vec::new();
    for scheme in Scheme::ALL {
        if scheme.is_mx() {
            for rule in ScaleRule::ALL {
                out.push((scheme, Some(rule), TensorScale::FromAmax));
            }
        } else {
            let scales = [TensorScale::FromAmax, TensorScale::Off]
                .into_iter()
                .chain(given.iter().map(|&g| TensorScale::Given(g)));
            out.extend(scales.map(|ts| (scheme, None, ts)));
        }
    }
    out
}

/// [`variants_with`] one given NVFP4 tensor scale, 0.01.
pub(crate) fn variants() -> Vec<(Scheme, Option<ScaleRule>, TensorScale)> {
    variants_with(&[0.01])
}

/// Every deterministic rounding mode and stochastic rounding.
pub(crate) fn policies() -> Vec<CastPolicy> {
    policies_with(&RoundMode::DETERMINISTIC, 12)
}

/// A policy per mode of `modes`, and stochastic rounding on `bits` random bits.
pub(crate) fn policies_with(modes: &[RoundMode], bits: u8) -> Vec<CastPolicy> {
    let mut out: Vec<CastPolicy> = modes.iter().map(|&m| CastPolicy::new(m)).collect();
    out.push(CastPolicy {
        stochastic: Stochastic {
            bits,
            compare: StochasticCompare::GreaterOrEqual,
        },
        ..CastPolicy::new(RoundMode::Hybrid)
    });
    out
}

/// The scale rules a scheme takes: each rule for MX, none for NVFP4.
pub(crate) fn rules_of(scheme: Scheme) -> Vec<Option<ScaleRule>> {
    if scheme.is_mx() {
        ScaleRule::ALL.map(Some).to_vec()
    } else {
        vec![None]
    }
}

/// Rows of full blocks, rows with an even and an odd tail, one short block, a row long
/// enough to be a batch of its own, and the other axes.
pub(crate) const SHAPES: [(&[usize], isize); 9] = [
    (&[6, 64], -1),
    (&[5, 100], -1),
    (&[3, 40], 1),
    (&[4, 18], -1),
    (&[7, 6], -1),
    (&[3, 45], -1),
    (&[2, 8240], -1),
    (&[70, 3], 0),
    (&[2, 36, 2], 1),
];

/// One case of the sweep: a tensor, its blocking, its scheme and options.
pub(crate) struct Case<'a> {
    /// The shape.
    pub(crate) shape: &'a [usize],
    /// The axis blocked.
    pub(crate) axis: isize,
    /// The values (row-major).
    pub(crate) values: &'a [f32],
    /// The scheme.
    pub(crate) scheme: Scheme,
    /// Scale rule, tensor scale, rounding, stochastic seed and first index.
    pub(crate) opts: Options,
}

/// Calls `f` on every case of the sweep: each shape's values drawn from `rng` once, then for
/// every scheme (rule, tensor scale) and policy a stochastic seed and an even first index.
pub(crate) fn for_each_case(rng: &mut Rng, mut f: impl FnMut(&Case<'_>)) {
    for (shape, axis) in SHAPES {
        let n: usize = shape.iter().product();
        let v = values(rng, n);
        for (scheme, rule, ts) in variants() {
            for policy in policies() {
                let opts = Options {
                    scale_rule: rule,
                    tensor_scale: ts,
                    policy,
                    seed: rng.next(),
                    first_index: 2 * rng.below(3),
                };
                f(&Case {
                    shape,
                    axis,
                    values: &v,
                    scheme,
                    opts,
                });
            }
        }
    }
}
