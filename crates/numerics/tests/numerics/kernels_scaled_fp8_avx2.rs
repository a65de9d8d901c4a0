//! The AVX2 level's to-nearest-even and to-odd loop for f32 → small binary floats (the scaled
//! float add, 32 elements a step, statuses counted on packed bytes) equals the reference bit
//! for bit, codes and status counts, at the AVX2 level itself (not only the machine's best):
//! on every boundary class of each destination (its values, the ties between them, beyond
//! its largest value, fractions of its smallest, f32 subnormals, ±0, ±Inf, NaNs), exactly
//! overflowing values (powers of two beyond each destination's range, which the loop marks as
//! the inexact overflows), runs of −∞ as in a causal mask, NaN payloads of both signs and
//! random finite values, across its 255-step counter flush, at lengths around its step, one
//! code per byte and packed, under the three standard policies of both modes.

use crate::kernel_support::{assert_same_codes, bytes, cast, f32s, layouts, level_here, options};
use crate::kernel_support::{float_classes, mixed, policies, random_f32};
use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{Format, KernelChoice, RoundMode};

/// Destinations the loop serves: fp8, fp6 and fp4 (packed too).
const DSTS: [Format; 5] = [
    Format::F8E4M3FN,
    Format::F8E5M2,
    Format::F6E2M3FN,
    Format::F6E3M2FN,
    Format::F4E2M1,
];

/// `n` codes: random finite values of every magnitude, with exact overflows (±2^17 ..
/// ±2^127), runs of −∞ and NaNs of both signs spread among them.
fn codes(n: usize, seed: u64) -> Vec<u32> {
    let mut v: Vec<u32> = random_f32(n, seed)
        .into_iter()
        .map(|c| {
            if c & 0x7F80_0000 == 0x7F80_0000 {
                c & 0xBFFF_FFFF
            } else {
                c
            }
        })
        .collect();
    for i in (0..n).step_by(37) {
        let e = 144 + (i / 37) as u32 % 111;
        v[i] = ((i as u32 & 1) << 31) | (e << 23);
    }
    for i in (0..n).step_by(1000) {
        for x in v.iter_mut().skip(i + 300).take(200) {
            *x = 0xFF80_0000;
        }
    }
    for (k, i) in (0..n).step_by(53).enumerate() {
        v[i] = if k % 2 == 0 { 0x7FC0_1234 } else { 0xFFA0_0001 };
    }
    v
}

/// [`codes`] with `dst`'s boundary classes ([`float_classes`], shuffled among random codes)
/// in front.
fn pool(dst: Format) -> Vec<u32> {
    let mut v = mixed(&float_classes(dst), 11);
    v.extend(codes(32 * 255 * 2 + 200, 25));
    v
}

#[test]
fn the_scaled_loop_equals_the_reference_at_the_avx2_level() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    for dst in DSTS {
        let pool = pool(dst);
        for d in layouts(dst) {
            for policy in [RoundMode::Rint, RoundMode::Odd]
                .into_iter()
                .flat_map(policies)
            {
                let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx2);
                assert_eq!(name, "f32-float-avx2", "{d:?} {policy:?}");
                for n in [pool.len(), 32 * 255 + 31, 33, 32, 31] {
                    let src = bytes(&pool[..n]);
                    let opts = |k| options(k, false);
                    let want = cast(&src, f32s(), d, n, &policy, &opts(KernelChoice::Reference));
                    let k = KernelChoice::Level(SimdLevel::Avx2);
                    let got = cast(&src, f32s(), d, n, &policy, &opts(k));
                    assert_same_codes(&got, &want, &pool[..n], d, &format!("{policy:?} n = {n}"));
                }
            }
        }
    }
}
