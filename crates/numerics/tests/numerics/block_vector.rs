//! The vector block kernel (explicit AVX-512 and AVX2 loops over full blocks along the last
//! axis, codes narrowed or packed in registers) against the reference routine
//! (`block::quantize_reference`), bit for bit (codes, scales, tensor scale, every count), at
//! every instruction-set level here: blocks of every input class (random normals at many
//! scales, f32 subnormals, all-zero blocks with signed zeros, one NaN, one ±Inf, amax at and
//! one ulp around binade edges, saturating amax, elements that scale below the smallest
//! subnormal), every MX element format and scale rule and NVFP4 tensor scale, every
//! deterministic rounding mode and stochastic rounding, rows whose length is not a multiple
//! of the block size (even and odd: the packed codes' tail blocks), every axis: the cases of
//! `block_sweep.rs`.

use npusim_numerics::KernelChoice;
use npusim_numerics::block::{
    Options, Quantized, Scheme, Source, quantize_reference, quantize_with,
};

use crate::block_sweep::{Rng, chunk, for_each_case, levels, variants};
use crate::sweep::sweep_log2;

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

/// Every class, scheme, rule, mode, shape and level: the vector kernel's bits are the
/// reference routine's.
#[test]
fn vector_kernel_matches_the_reference_on_every_class_scheme_rule_mode_and_axis() {
    let levels = levels();
    let mut rng = Rng(0x5eed_b10c_4a11);
    for _round in 0..1usize << sweep_log2(0) {
        for_each_case(&mut rng, |c| {
            let (shape, axis, scheme, opts) = (c.shape, c.axis, c.scheme, &c.opts);
            let src = Source::F32(c.values);
            let reference =
                quantize_reference(src, shape, axis, scheme, opts).expect("reference quantize");
            for &level in &levels {
                let fast =
                    quantize_with(src, shape, axis, scheme, opts, KernelChoice::Level(level))
                        .expect("fast quantize");
                let what = format!(
                    "{scheme} {:?} {:?} {:?} shape {shape:?} axis {axis} at {}",
                    opts.scale_rule,
                    opts.tensor_scale,
                    opts.policy.round,
                    level.name()
                );
                assert_same(&fast, &reference, &what);
            }
        });
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
