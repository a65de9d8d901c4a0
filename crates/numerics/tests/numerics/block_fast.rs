//! The fast block quantiser (`block::quantize`) against the reference routine it replaces
//! (`block::quantize_reference`), and the fast dequantisation against the element-by-element
//! one: bit for bit (codes, scales, tensor scale and every count) on random tensors mixing
//! zeros, f32 subnormals, NaN, ±Inf, amax at binade edges and at the element's max normal,
//! amax outside the range the integer rules handle, under every scheme, scale rule, rounding
//! mode (stochastic with two comparisons), source format, axis and tail-block shape, and
//! on tensors large enough to be split over threads.

use npusim_numerics::block::{
    Options, Quantized, ScaleRule, Scheme, Source, TensorScale, quantize, quantize_reference,
    quantize_with,
};
use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode};

use crate::kernel_support::level_here;
use crate::sweep::sweep_log2;

/// splitmix64.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A value of the class `class` near 2^`e` (f32 bits).
fn value(rng: &mut Rng, e: i32) -> f32 {
    let sign = if rng.below(2) == 0 { 1.0 } else { -1.0 };
    let p = |k: i32| 2f32.powi(k.clamp(-149, 127));
    match rng.below(40) {
        0 => 0.0 * sign,
        1 => f32::from_bits(rng.below(0x0080_0000) as u32) * sign, // subnormal (or 0)
        2 if rng.below(8) == 0 => f32::NAN,
        3 if rng.below(8) == 0 => f32::INFINITY * sign,
        // binade edges and the max normals' mantissas: 1, 1.5, 1.75, 1.875, 1.9375 and their
        // neighbours
        4..=9 => {
            let m = [1.0f32, 1.5, 1.75, 1.875, 1.9375, 1.984_375][rng.below(6) as usize];
            let b = f32::from_bits((m * p(e)).to_bits().wrapping_add(rng.below(3) as u32));
            let b = if rng.below(2) == 0 {
                f32::from_bits(b.to_bits().wrapping_sub(1))
            } else {
                b
            };
            b * sign
        }
        10 => sign * p(e + 1) * (1.0 - f32::EPSILON / 2.0), // just below the next binade
        11 => sign * p(e - 120), // far below the block's amax: scaled to an f32 subnormal
        _ => {
            let m = 1.0 + (rng.below(1 << 23) as f32) / (1u32 << 23) as f32;
            sign * m * p(e - rng.below(12) as i32)
        }
    }
}

/// `n` values whose magnitude wanders (so blocks have different amax), now and then far out
/// of the range the integer rules handle.
fn values(rng: &mut Rng, n: usize) -> Vec<f32> {
    let mut out = Vec::with_capacity(n);
    let mut e = 0;
    for i in 0..n {
        if i % 7 == 0 {
            e = match rng.below(16) {
                0 => -140 + rng.below(40) as i32,
                1 => 100 + rng.below(28) as i32,
                _ => rng.below(40) as i32 - 20,
            };
        }
        out.push(value(rng, e));
    }
    out
}

/// The shapes and axes swept: tail blocks, odd inner strides, every axis.
const SHAPES: [(&[usize], isize); 7] = [
    (&[4, 96], -1),
    (&[3, 77], 1),
    (&[77, 3], 0),
    (&[5, 33, 3], 1),
    (&[2, 3, 45], -1),
    (&[7, 2, 5], 0),
    (&[1, 31], -1),
];

fn policies() -> Vec<CastPolicy> {
    crate::block_sweep::policies_with(&RoundMode::ALL, 9)
}

/// Every scheme with its rules (MX) or tensor scales (NVFP4), two given scales among them.
fn variants() -> Vec<(Scheme, Option<ScaleRule>, TensorScale)> {
    crate::block_sweep::variants_with(&[0.003, 1e-39])
}

fn to_half(v: &[f32], format: Format) -> Vec<u16> {
    let mut bytes = vec![0u8; v.len() * 2];
    npusim_numerics::cast_from_f32(v, format, &mut bytes, &CastPolicy::default())
        .expect("a cast to f16 or bf16");
    bytes
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// The first index where two byte lists differ, for a short message.
fn first_difference(a: &[u8], b: &[u8]) -> Option<(usize, u8, u8)> {
    a.iter()
        .zip(b)
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| (i, *x, *y))
}

fn check(src: Source<'_>, shape: &[usize], axis: isize, scheme: Scheme, opts: &Options) {
    let fast = quantize(src, shape, axis, scheme, opts).expect("fast quantize");
    let reference = quantize_reference(src, shape, axis, scheme, opts).expect("reference quantize");
    let what = format!(
        "{scheme} {:?} {:?} {:?} shape {shape:?} axis {axis} source {:?}",
        opts.scale_rule,
        opts.tensor_scale,
        opts.policy,
        src.format()
    );
    assert_same(&fast, &reference, &what);
    check_dequantize(&fast);
}

/// `fast` has the codes, scales, tensor scale and counts of `reference`.
fn assert_same(fast: &Quantized, reference: &Quantized, what: &str) {
    assert_eq!(fast.layout(), reference.layout(), "{what}");
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

fn check_dequantize(q: &Quantized) {
    for f in [Format::F32, Format::BF16, Format::F16, Format::F64] {
        let fast = q.dequantize_to(f).expect("fast dequantize");
        let reference = q.dequantize_reference_to(f).expect("reference dequantize");
        let at = fast.iter().zip(&reference).position(|(a, b)| a != b);
        assert_eq!(
            at.map(|i| (i, fast[i], reference[i])),
            None,
            "{} to {f}: (index, fast, reference)",
            q.scheme()
        );
    }
    let bits: Vec<u64> = q
        .dequantize()
        .iter()
        .map(|x| u64::from(x.to_bits()))
        .collect();
    assert_eq!(
        bits,
        q.dequantize_reference_to(Format::F32).expect("to f32")
    );
}

#[test]
fn fast_quantize_matches_the_reference_on_every_class_rule_mode_and_axis() {
    let rounds = 1usize << sweep_log2(0);
    let mut rng = Rng(0x5eed_b10c);
    for _ in 0..rounds {
        for (shape, axis) in SHAPES {
            let n: usize = shape.iter().product();
            let v = values(&mut rng, n);
            let bf = to_half(&v, Format::BF16);
            let h = to_half(&v, Format::F16);
            for (scheme, rule, ts) in variants() {
                for policy in policies() {
                    let opts = Options {
                        scale_rule: rule,
                        tensor_scale: ts,
                        policy,
                        seed: rng.next(),
                        first_index: rng.below(4),
                    };
                    check(Source::F32(&v), shape, axis, scheme, &opts);
                    if policy.round == RoundMode::Hybrid || policy.round == RoundMode::Rint {
                        check(Source::BF16(&bf), shape, axis, scheme, &opts);
                        check(Source::F16(&h), shape, axis, scheme, &opts);
                    }
                }
            }
        }
    }
}

#[test]
fn fast_quantize_matches_the_reference_when_split_over_threads() {
    let mut rng = Rng(0xb16);
    // 70 000+ elements: above the parallel threshold, an odd axis stride, a tail block
    for (shape, axis) in [
        (&[3usize, 33, 709][..], 1isize),
        (&[97, 777][..], -1),
        (&[40_001, 2][..], 0),
    ] {
        let n: usize = shape.iter().product();
        let v = values(&mut rng, n);
        for scheme in [
            Scheme::Mxfp4,
            Scheme::Mxfp8E4m3,
            Scheme::Mxint8,
            Scheme::Nvfp4,
        ] {
            let opts = Options {
                policy: CastPolicy::new(RoundMode::Hybrid),
                ..Options::default()
            };
            check(Source::F32(&v), shape, axis, scheme, &opts);
        }
    }
}

#[test]
fn ordinary_weights_take_the_fast_path_for_nearly_every_block() {
    // Not a timing: the counts the fast path adds per block equal the reference's, and a
    // tensor of plain weights has no NaN, no clamped scale.
    let mut rng = Rng(7);
    let v: Vec<f32> = (0..64 * 32)
        .map(|_| (rng.below(2000) as f32 - 1000.0) / 3000.0)
        .collect();
    let q = quantize(
        Source::F32(&v),
        &[64, 32],
        -1,
        Scheme::Mxfp4,
        &Options::default(),
    )
    .unwrap();
    let s = q.stats();
    assert_eq!((s.blocks, s.nan_blocks, s.scale_underflow), (64, 0, 0));
    assert_eq!(s.elements.total, 64 * 32);
}

/// The levels the fused kernels run at here, each named on standard output; a level this
/// machine (or `NPUSIM_KERNEL`) does not allow is reported as skipped by `level_here`.
fn levels_here() -> Vec<SimdLevel> {
    let mut out = Vec::new();
    for level in [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512] {
        if level_here(level) {
            println!("block fused kernels: running at {}", level.name());
            out.push(level);
        }
    }
    out
}

/// The fused quantize kernel (every deterministic mode, every floating-point element, NVFP4)
/// and the fused dequantisation, at every instruction-set level here, against the reference
/// routine: random tensors with zeros, f32 subnormals, NaN, ±Inf, amax at binade edges and
/// out of the integer rules' range, every scale rule and tensor scale, every axis and tail
/// block, and tensors split over threads.
#[test]
fn fused_kernels_match_the_reference_at_every_level() {
    let levels = levels_here();
    let rounds = 1usize << sweep_log2(0);
    let mut rng = Rng(0xf0_5ed);
    let modes = [
        RoundMode::Rint,
        RoundMode::Round,
        RoundMode::Floor,
        RoundMode::Ceil,
        RoundMode::Trunc,
        RoundMode::Odd,
        RoundMode::None,
    ];
    let mut shapes: Vec<(&[usize], isize)> = SHAPES.to_vec();
    shapes.push((&[97, 777], -1));
    shapes.push((&[3, 33, 709], 1));
    for round in 0..rounds {
        for &(shape, axis) in &shapes {
            let n: usize = shape.iter().product();
            let v = values(&mut rng, n);
            let bf = to_half(&v, Format::BF16);
            for (scheme, rule, ts) in variants() {
                if scheme == Scheme::Mxint8 {
                    continue;
                }
                for (k, &mode) in modes.iter().enumerate() {
                    // the large shapes: one mode per round and variant
                    if n > 10_000 && (k + round) % modes.len() != 0 {
                        continue;
                    }
                    let opts = Options {
                        scale_rule: rule,
                        tensor_scale: ts,
                        policy: CastPolicy::new(mode),
                        seed: rng.next(),
                        first_index: 2 * rng.below(2),
                    };
                    let sources = [Source::F32(&v), Source::BF16(&bf)];
                    for src in sources {
                        let reference = quantize_reference(src, shape, axis, scheme, &opts)
                            .expect("reference quantize");
                        let deq = reference
                            .dequantize_reference_to(Format::F32)
                            .expect("reference dequantize");
                        for &level in &levels {
                            let what = format!(
                                "{scheme} {rule:?} {ts:?} {mode:?} shape {shape:?} axis {axis} \
                                 source {:?} at {}",
                                src.format(),
                                level.name()
                            );
                            let fast = quantize_with(
                                src,
                                shape,
                                axis,
                                scheme,
                                &opts,
                                KernelChoice::Level(level),
                            )
                            .expect("fast quantize");
                            assert_same(&fast, &reference, &what);
                            let back: Vec<u64> = reference
                                .dequantize_with(KernelChoice::Level(level))
                                .iter()
                                .map(|x| u64::from(x.to_bits()))
                                .collect();
                            let at = back.iter().zip(&deq).position(|(a, b)| a != b);
                            assert_eq!(
                                at.map(|i| (i, back[i], deq[i])),
                                None,
                                "dequantize (index, fast, reference) of {what}"
                            );
                        }
                    }
                }
            }
        }
    }
}

/// Hand-made blocks where the fused step's integer rounding has its edges: a tie at every
/// element grid point, values one ulp either side of the max normal, a block whose amax is
/// exactly a power of two (FLOOR and CEIL agree, EVEN and RCEIL may not), elements that
/// scale below the smallest subnormal, negative zeros.
#[test]
fn fused_kernels_match_the_reference_on_edge_blocks() {
    let levels = levels_here();
    let mut blocks: Vec<Vec<f32>> = Vec::new();
    for top in [6.0f32, 448.0, 57344.0, 7.5, 28.0, 1.0, 3.0e-30] {
        let mut b = vec![0.0f32; 32];
        b[0] = top;
        for (i, x) in b.iter_mut().enumerate().skip(1) {
            let step = top / 64.0;
            *x = match i % 4 {
                0 => step * (i as f32 + 0.5),
                1 => -step * (i as f32 + 0.5),
                2 => f32::from_bits(top.to_bits() + 1) / (i as f32),
                _ => -0.0,
            };
        }
        b[31] = f32::from_bits(top.to_bits() - 1);
        b[30] = top * 2f32.powi(-40);
        blocks.push(b);
    }
    let v: Vec<f32> = blocks.concat();
    let shape = [blocks.len(), 32];
    for scheme in [
        Scheme::Mxfp4,
        Scheme::Mxfp6E2m3,
        Scheme::Mxfp6E3m2,
        Scheme::Mxfp8E4m3,
        Scheme::Mxfp8E5m2,
        Scheme::Nvfp4,
    ] {
        for rule in crate::block_sweep::rules_of(scheme) {
            for mode in RoundMode::DETERMINISTIC {
                let opts = Options {
                    scale_rule: rule,
                    policy: CastPolicy::new(mode),
                    ..Options::default()
                };
                let src = Source::F32(&v);
                let reference =
                    quantize_reference(src, &shape, -1, scheme, &opts).expect("reference");
                for &level in &levels {
                    let fast =
                        quantize_with(src, &shape, -1, scheme, &opts, KernelChoice::Level(level))
                            .expect("fast");
                    let what = format!("{scheme} {rule:?} {mode:?} at {}", level.name());
                    assert_same(&fast, &reference, &what);
                }
            }
        }
    }
}
