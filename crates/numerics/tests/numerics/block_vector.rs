//! The vector block kernel (explicit AVX-512 and AVX2 loops over full blocks along the last
//! axis, codes narrowed or packed in registers) against the reference routine
//! (`block::quantize_reference`), bit for bit (codes, scales, tensor scale, every count), at
//! every instruction-set level here: blocks of every input class (random normals at many
//! scales, f32 subnormals, all-zero blocks with signed zeros, one NaN, one ±Inf, amax at and
//! one ulp around binade edges, saturating amax, elements that scale below the smallest
//! subnormal), every MX element format and scale rule and NVFP4 tensor scale, every
//! deterministic rounding mode and stochastic rounding, rows whose length is not a multiple
//! of the block size (even and odd: the packed codes' tail blocks), every axis.

use npusim_numerics::block::{
    Options, Quantized, ScaleRule, Scheme, Source, TensorScale, quantize_reference, quantize_with,
};
use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{CastPolicy, KernelChoice, RoundMode, Stochastic, StochasticCompare};

use crate::kernel_support::level_here;
use crate::sweep::sweep_log2;

/// xorshift64*.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn pow2(k: i32) -> f32 {
    2f32.powi(k.clamp(-149, 127))
}

/// 16 values of one input class.
fn chunk(rng: &mut Rng) -> [f32; 16] {
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

pub(crate) fn values(rng: &mut Rng, n: usize) -> Vec<f32> {
    let mut v = Vec::with_capacity(n + 16);
    while v.len() < n {
        v.extend(chunk(rng));
    }
    v.truncate(n);
    v
}

fn first_difference(a: &[u8], b: &[u8]) -> Option<(usize, u8, u8)> {
    a.iter()
        .zip(b)
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i, *x, *y))
}

fn assert_same(fast: &Quantized, reference: &Quantized, what: &str) {
    assert_eq!(fast.codes().len(), reference.codes().len(), "{what}");
    assert_eq!(
        first_difference(fast.codes(), reference.codes()),
        None,
        "codes (index, fast, reference) of {what}"
    );
    assert_eq!(
        first_difference(fast.scales(), reference.scales()),
        None,
        "scales (index, fast, reference) of {what}"
    );
    assert_eq!(
        fast.tensor_scale().map(f32::to_bits),
        reference.tensor_scale().map(f32::to_bits),
        "{what}"
    );
    assert_eq!(fast.stats(), reference.stats(), "{what}");
}

pub(crate) fn levels() -> Vec<SimdLevel> {
    [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
        .into_iter()
        .filter(|&l| level_here(l))
        .collect()
}

pub(crate) fn variants() -> Vec<(Scheme, Option<ScaleRule>, TensorScale)> {
    let mut out = Vec::new();
    for scheme in Scheme::ALL {
        if scheme.is_mx() {
            for rule in ScaleRule::ALL {
                out.push((scheme, Some(rule), TensorScale::FromAmax));
            }
        } else {
            for ts in [
                TensorScale::FromAmax,
                TensorScale::Off,
                TensorScale::Given(0.01),
            ] {
                out.push((scheme, None, ts));
            }
        }
    }
    out
}

pub(crate) fn policies() -> Vec<CastPolicy> {
    let mut out: Vec<CastPolicy> = RoundMode::DETERMINISTIC.map(CastPolicy::new).to_vec();
    out.push(CastPolicy {
        stochastic: Stochastic {
            bits: 12,
            compare: StochasticCompare::GreaterOrEqual,
        },
        ..CastPolicy::new(RoundMode::Hybrid)
    });
    out
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

/// Every class, scheme, rule, mode, shape and level: the vector kernel's bits are the
/// reference routine's.
#[test]
fn vector_kernel_matches_the_reference_on_every_class_scheme_rule_mode_and_axis() {
    let levels = levels();
    let mut rng = Rng(0x5eed_b10c_4a11);
    for _round in 0..1usize << sweep_log2(0) {
        for (shape, axis) in SHAPES {
            let n: usize = shape.iter().product();
            let v = values(&mut rng, n);
            for (scheme, rule, ts) in variants() {
                for policy in policies() {
                    let opts = Options {
                        scale_rule: rule,
                        tensor_scale: ts,
                        policy,
                        seed: rng.next(),
                        first_index: 2 * rng.below(3),
                    };
                    let src = Source::F32(&v);
                    let reference = quantize_reference(src, shape, axis, scheme, &opts)
                        .expect("reference quantize");
                    for &level in &levels {
                        let fast = quantize_with(
                            src,
                            shape,
                            axis,
                            scheme,
                            &opts,
                            KernelChoice::Level(level),
                        )
                        .expect("fast quantize");
                        let what = format!(
                            "{scheme} {rule:?} {ts:?} {:?} shape {shape:?} axis {axis} at {}",
                            policy.round,
                            level.name()
                        );
                        assert_same(&fast, &reference, &what);
                    }
                }
            }
        }
    }
}

/// Blocks of a single class each (so that a class is a whole block, not a part of one):
/// every class at every level, every scheme and rule, round to nearest even.
#[test]
fn vector_kernel_matches_the_reference_on_whole_blocks_of_one_class() {
    let levels = levels();
    let mut rng = Rng(0x0c1a_55e5);
    let mut v = Vec::new();
    for _ in 0..400 {
        let c = chunk(&mut rng);
        // two halves of the same class and scale make one MX block of 32
        v.extend(c);
        v.extend(c.map(|x| if x.is_nan() { 1.0 } else { -x / 2.0 }));
    }
    let shape = [v.len() / 32, 32];
    for (scheme, rule, ts) in variants() {
        let opts = Options {
            scale_rule: rule,
            tensor_scale: ts,
            ..Options::default()
        };
        let src = Source::F32(&v);
        let reference =
            quantize_reference(src, &shape, -1, scheme, &opts).expect("reference quantize");
        for &level in &levels {
            let fast = quantize_with(src, &shape, -1, scheme, &opts, KernelChoice::Level(level))
                .expect("fast quantize");
            assert_same(
                &fast,
                &reference,
                &format!("{scheme} {rule:?} {ts:?} at {level:?}"),
            );
        }
    }
}

/// The shortest of `calls` timed calls of `f`, in nanoseconds: on a loaded machine the
/// fastest call is the one that was not interrupted.
pub(crate) fn min_call_ns(calls: usize, mut f: impl FnMut()) -> f64 {
    (0..calls)
        .map(|_| {
            let t = std::time::Instant::now();
            f();
            t.elapsed().as_nanos() as f64
        })
        .fold(f64::INFINITY, f64::min)
}

/// Not a check: prints the time per element of `quantize` and `dequantize` (one thread,
/// 256 Ki elements in cache, along the last axis, the fastest of 200 calls) at each level
/// here, for the Speed notes of `docs/quantize.md`: `cargo test --release -p
/// npusim-numerics --test numerics -- --ignored block_vector::time --nocapture`.
#[test]
#[ignore]
fn time_per_element_at_each_level() {
    let n = 256 << 10;
    let mut rng = Rng(7);
    let v: Vec<f32> = (0..n)
        .map(|_| (rng.below(1 << 20) as f32 - 524_288.0) * 1e-7)
        .collect();
    let shape = [n / 4096, 4096];
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    for scheme in [Scheme::Mxfp8E4m3, Scheme::Mxfp4, Scheme::Nvfp4] {
        for level in levels() {
            let opts = Options::default();
            let k = KernelChoice::Level(level);
            let q = quantize_with(Source::F32(&v), &shape, -1, scheme, &opts, k).expect("q");
            let (tq, td) = pool.install(|| {
                let tq = min_call_ns(200, || {
                    let q = quantize_with(Source::F32(&v), &shape, -1, scheme, &opts, k);
                    std::hint::black_box(&q);
                });
                let td = min_call_ns(200, || {
                    std::hint::black_box(&q.dequantize_with(k));
                });
                (tq, td)
            });
            println!(
                "{scheme} at {}: quantize {:.3} ns/element ({:.2} G elem/s), dequantize to f32 \
                 {:.3} ns/element ({:.2} G elem/s)",
                level.name(),
                tq / n as f64,
                n as f64 / tq,
                td / n as f64,
                n as f64 / td
            );
        }
    }
}
