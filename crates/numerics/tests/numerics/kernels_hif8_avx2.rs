//! The AVX2 f32 → HiF8 kernel to nearest even (`f32-hif8-avx2`: a float add at the binade's
//! quantum, the code from byte lookups, statuses in byte counters) equals the reference
//! routine bit for bit, codes and status counts, under every combination of the policy rules
//! that matter for HiF8 (`rint` and `none`): on every f32 exponent with the mantissa at each
//! rounding boundary of the widths HiF8 keeps (0 to 3 bits); on every HiF8 value, midpoint
//! (the ties) and their f32 neighbours, from the denormal band (2^-22 to 2^-16) and below it
//! (2^-23, the tie to zero, and the values flushed) to 2^15 and beyond (overflow, ±Inf, NaN
//! payloads, ±0, f32 subnormals), each both alone in steps of the formula and as the one rare
//! lane of a step; on random codes in the formula's range and random 32-bit patterns; on
//! long runs of one class (the byte counters' flushes); at every length 0..100 from odd
//! offsets, split over threads, and streamed (`kernel_support::cast` repeats each cast
//! streamed). The kernel names at the AVX2 level are checked, so that a silent fallback to
//! the gathered table fails; where the AVX2 level is missing or capped away the tests say
//! `SKIPPED` and the casts run the portable code.

use crate::kernel_support::{
    self, around, bytes, f32s, finite_magnitudes, key_policies, level_here, options, random_f32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

fn hif8() -> Storage {
    Storage::native(Format::HiF8)
}

/// The policies the kernel serves: every rule combination of [`key_policies`] to nearest
/// even, and the standard policies of `none` (to nearest even too).
fn served_policies() -> Vec<CastPolicy> {
    let mut v = key_policies(RoundMode::Rint);
    v.extend(kernel_support::policies(RoundMode::None));
    v
}

/// `codes` cast at the AVX2 level equal the reference, codes and counts (and streamed).
fn check(codes: &[u32], policy: &CastPolicy, parallel: bool, what: &str) {
    let src = bytes(codes);
    let n = codes.len();
    let run = |k, par| kernel_support::cast(&src, f32s(), hif8(), n, policy, &options(k, par));
    let want = run(KernelChoice::Reference, false);
    let got = run(KernelChoice::Level(SimdLevel::Avx2), parallel);
    kernel_support::assert_same_codes(&got, &want, codes, hif8(), &format!("{policy:?} {what}"));
}

/// Every exponent field, mantissas at each rounding boundary of 0 to 3 kept bits (0, 1,
/// tie − 1, tie, tie + 1, all ones, the tie with only a bit below the top 16), both signs.
fn rounding_boundaries() -> Vec<u32> {
    let mut v = Vec::new();
    for e in 0..=255u32 {
        for w in 0..=3u32 {
            let s = 23 - w;
            let (unit, half) = (1u32 << s, 1u32 << (s - 1));
            for kept in 0..1u32 << w {
                for cut in [0, 1, half - 1, half, half + 1, unit - 1, half | 0x8000] {
                    let x = (e << 23) | (kept << s) | cut;
                    v.extend([x, x | 0x8000_0000]);
                }
            }
        }
    }
    v
}

/// Every HiF8 value and midpoint (below the smallest: 2^-23, and half of that), 1.25, 1.5,
/// 1.75 and 2 times the largest, each with its f32 neighbours two codes away and both signs;
/// and the common classes (±0, f32 subnormals, ±Inf, NaN payloads, the f32 max).
fn value_classes() -> Vec<u32> {
    let vals = finite_magnitudes(Format::HiF8);
    let max = vals[vals.len() - 1];
    let mut xs: Vec<f64> = vals.clone();
    xs.extend(vals.windows(2).map(|w| (w[0] + w[1]) / 2.0));
    xs.extend([vals[1] / 2.0, vals[1] / 4.0, vals[1] / 2.0 * 1.5]);
    xs.extend([max * 1.25, max * 1.5, max * 1.75, max * 2.0]);
    let mut v = kernel_support::common_classes();
    for x in xs {
        around((x as f32).to_bits(), 2, &mut v);
    }
    v
}

/// Whether `x` is a magnitude the formula takes (at most 2^15).
fn in_formula(x: u32) -> bool {
    x & 0x7FFF_FFFF <= 0x4700_0000
}

/// `n` pseudo-random f32 codes of either sign from 2^-40 to below 2^15 (a quarter with the
/// low 16 bits clear, so that ties occur).
fn in_range(n: usize, seed: u64) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .zip(random_f32(n, seed ^ 0x5555))
        .map(|(r, q)| {
            let e = 87 + (q >> 8) % 55;
            let low = if q & 3 == 0 { 0 } else { r & 0xFFFF };
            (r & 0x8000_0000) | (e << 23) | (r & 0x7F_0000) | low
        })
        .collect()
}

#[test]
fn the_avx2_level_runs_the_hif8_kernel_to_nearest_even_only() {
    let here = level_here(SimdLevel::Avx2);
    for p in served_policies() {
        let want = if here { "f32-hif8-avx2" } else { "f32-key" };
        assert_eq!(
            kernel_name_at(f32s(), hif8(), &p, SimdLevel::Avx2),
            want,
            "{p:?}"
        );
    }
    for mode in RoundMode::DETERMINISTIC {
        if mode == RoundMode::Rint {
            continue;
        }
        for p in key_policies(mode) {
            let want = if here { "f32-key-avx2" } else { "f32-key" };
            assert_eq!(
                kernel_name_at(f32s(), hif8(), &p, SimdLevel::Avx2),
                want,
                "{p:?}"
            );
        }
    }
}

#[test]
fn rounding_boundaries_equal_the_reference_under_every_policy() {
    level_here(SimdLevel::Avx2);
    let all = rounding_boundaries();
    // the formula's lanes in steps of their own, then everything (rare lanes in most steps)
    let fast: Vec<u32> = all.iter().copied().filter(|&x| in_formula(x)).collect();
    for p in served_policies() {
        check(&fast, &p, false, "boundaries in the formula's range");
        check(&all, &p, false, "all boundaries");
    }
}

#[test]
fn every_value_tie_and_special_equals_the_reference_alone_and_among_formula_steps() {
    level_here(SimdLevel::Avx2);
    let classes = value_classes();
    let fast: Vec<u32> = classes.iter().copied().filter(|&x| in_formula(x)).collect();
    // each class at a different lane of a step of formula values
    let mut mixed = Vec::new();
    let mut filler = in_range(classes.len() * 32, 17).into_iter();
    for (i, &c) in classes.iter().enumerate() {
        let at = i % 32;
        mixed.extend(filler.by_ref().take(at));
        mixed.push(c);
        mixed.extend(filler.by_ref().take(31 - at));
    }
    for p in served_policies() {
        check(
            &fast,
            &p,
            false,
            "values, ties, tiny and zero in formula steps",
        );
        check(&classes, &p, false, "the classes alone");
        check(&mixed, &p, false, "each class among formula lanes");
    }
}

#[test]
fn random_codes_equal_the_reference() {
    level_here(SimdLevel::Avx2);
    for (i, p) in served_policies().iter().enumerate() {
        let m = if i <= 1 { 1 << 16 } else { 1 << 11 };
        check(
            &in_range(m + 37, i as u64),
            p,
            false,
            "random, formula range",
        );
        check(
            &random_f32(m + 21, 99 + i as u64),
            p,
            false,
            "random 32-bit",
        );
    }
}

#[test]
fn long_runs_of_one_class_count_past_the_byte_counters() {
    level_here(SimdLevel::Avx2);
    // 300 steps of 32 (the counters are flushed every 255): zero, -0, exact, inexact,
    // underflowing, flushed, rounding up to the smallest value, and a mix
    let n = 32 * 300 + 5;
    let p = CastPolicy::new(RoundMode::Rint);
    for x in [
        0u32,
        0x8000_0000,
        0x3F80_0000,
        0xBF80_0001,
        0x3580_0001,
        0xB080_0000,
        0x3480_0001,
        0x4700_0000,
    ] {
        check(&vec![x; n], &p, false, &format!("{x:#010x} repeated"));
    }
    let mut codes = in_range(n, 3);
    for (i, c) in codes.iter_mut().enumerate() {
        if i % 3 == 0 {
            *c &= 0x8000_0000;
        }
    }
    check(&codes, &p, false, "a third zeros");
}

#[test]
fn every_length_offset_and_thread_split_equals_the_reference() {
    level_here(SimdLevel::Avx2);
    let mut codes = in_range(200, 7);
    // a rare lane in the second and fourth steps
    codes[40] = 0x7F80_0000;
    codes[100] = 0xFFC0_0001;
    for p in [
        CastPolicy::new(RoundMode::Rint),
        CastPolicy::saturating(RoundMode::Rint),
    ] {
        for n in 0..100 {
            for offset in [0, 1, 3] {
                check(&codes[offset..offset + n], &p, false, "length and offset");
            }
        }
        let big = in_range(300_000, 5);
        check(&big, &p, true, "split over threads");
        check(&big[3..], &p, true, "split over threads, offset");
    }
}
