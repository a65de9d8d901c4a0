//! The AVX-512 formula kernels for f32 → e8m0 (`f32-e8m0-avx512`) and f32 → HiF8
//! (`f32-hif8-avx512`) equal the reference routine bit for bit, codes and status counts, in
//! every deterministic mode under every combination of the policy rules that matter for these
//! destinations: on every f32 exponent with the mantissas at each rounding boundary of each
//! mantissa width the destinations use (0, 1, tie − 1, tie, tie + 1, all ones below each kept
//! pattern), both signs; on ±0, ±Inf, NaN payloads, f32 subnormals, the largest value and
//! beyond; on random codes in the formulas' range (steps without a rare lane) and on random
//! 32-bit patterns, 2^16 of each by default (2^`NPUSIM_SWEEP_LOG2` when set, 2^24 for the full
//! sweep; 1/64 of that under the non-standard policies); and on every length 0..200. All
//! casts go through `kernel_support::cast`, which repeats each with its output streamed. The
//! kernel names at the AVX-512 level are checked so that a silent fallback fails. Where the
//! kernels may not use the AVX-512 level (the CPU lacks it or `NPUSIM_KERNEL` caps it away)
//! each test says `SKIPPED: ... needs avx512` and checks the same cases at the best level
//! there is (the key table).

use crate::kernel_support;
use kernel_support::{
    assert_absent_level_names_portable, assert_best_equals_reference, bytes, f32s, level_here,
    options, random_f32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

/// The destinations, with their kernel names at the AVX-512 level.
const DSTS: [(Format, &str); 2] = [
    (Format::F8E8M0, "f32-e8m0-avx512"),
    (Format::HiF8, "f32-hif8-avx512"),
];

/// Every f32 exponent field with, for each mantissa width 0 to 3 (e8m0 keeps 0 bits, HiF8 0
/// to 3) and each kept pattern, the cut-off part 0, 1, tie − 1, tie, tie + 1 and all ones,
/// and the tie with only a bit below the top 16 set; each with both signs.
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

/// ±0, f32 subnormals, ±Inf and NaN payloads, the f32 max, and each destination value,
/// midpoint and the range's ends (HiF8's 2^-23, 2^-22, 2^15 and beyond), with their f32
/// neighbours.
fn special_classes(dst: Format) -> Vec<u32> {
    let mut v = kernel_support::common_classes();
    for c in [0x0020_0000, 0x0060_0000, 0x0000_FFFF, 0x0001_0000] {
        kernel_support::around(c, 1, &mut v);
    }
    let vals = kernel_support::finite_magnitudes(dst);
    let max = vals[vals.len() - 1];
    let mids: Vec<f64> = vals.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    let beyond = [max * 1.25, max * 1.5, max * 1.75, max * 2.0, vals[0] / 2.0];
    for x in vals.iter().chain(&mids).chain(&beyond) {
        kernel_support::around((*x as f32).to_bits(), 2, &mut v);
    }
    v
}

/// `n` pseudo-random f32 codes of either sign with the exponent field in `lo..=hi` (a quarter
/// of them with the low 16 bits clear, so that ties occur).
fn in_range(n: usize, seed: u64, lo: u32, hi: u32) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .zip(random_f32(n, seed ^ 0x5555))
        .map(|(r, q)| {
            let e = lo + (q >> 8) % (hi - lo + 1);
            let low = if q & 3 == 0 { 0 } else { r & 0xFFFF };
            (r & 0x8000_0000) | (e << 23) | (r & 0x7F_0000) | low
        })
        .collect()
}

/// The exponent fields a destination's formula covers without a rare lane (e8m0: normal f32
/// below the top binade; HiF8: up to 2^15, from 2^-40 to reach the tiny values).
fn formula_range(dst: Format) -> (u32, u32) {
    if dst == Format::HiF8 {
        (87, 141)
    } else {
        (1, 253)
    }
}

/// The log2 count of the random sweeps by default: a quick check.
const QUICK_LOG2: u32 = 16;

/// How many random codes a sweep casts: 2^[`QUICK_LOG2`], or 2^`NPUSIM_SWEEP_LOG2`.
fn sweep_len() -> usize {
    crate::sweep::sweep_len(QUICK_LOG2)
}

#[test]
fn the_avx512_level_runs_the_formula_kernels_for_every_mode_and_policy() {
    let here = level_here(SimdLevel::Avx512);
    for (dst, name) in DSTS {
        for mode in RoundMode::DETERMINISTIC {
            for p in kernel_support::key_policies(mode) {
                let d = Storage::native(dst);
                if here {
                    assert_eq!(
                        kernel_name_at(f32s(), d, &p, SimdLevel::Avx512),
                        name,
                        "{dst:?} {p:?}"
                    );
                } else {
                    assert_absent_level_names_portable(f32s(), d, &p, SimdLevel::Avx512);
                }
            }
        }
    }
}

#[test]
fn rounding_boundaries_equal_the_reference_in_every_mode_and_policy() {
    level_here(SimdLevel::Avx512);
    let codes = rounding_boundaries();
    for (dst, _) in DSTS {
        for mode in RoundMode::DETERMINISTIC {
            for p in kernel_support::key_policies(mode) {
                assert_best_equals_reference(&codes, dst, &p);
            }
        }
    }
}

#[test]
fn special_classes_mixed_with_formula_steps_equal_the_reference() {
    level_here(SimdLevel::Avx512);
    for (k, (dst, _)) in DSTS.into_iter().enumerate() {
        let classes = special_classes(dst);
        let (lo, hi) = formula_range(dst);
        // the classes alone, then each one among codes in the formula's range (so that a step
        // without a rare lane holds it, or a rare one does)
        let mut codes = classes.clone();
        let mut filler = in_range(classes.len() * 64, 17 + k as u64, lo, hi).into_iter();
        for &c in &classes {
            codes.push(c);
            codes.extend(filler.by_ref().take(63));
        }
        for mode in RoundMode::DETERMINISTIC {
            for p in kernel_support::key_policies(mode) {
                assert_best_equals_reference(&codes, dst, &p);
            }
        }
    }
}

#[test]
fn random_codes_equal_the_reference_in_every_mode_and_policy() {
    level_here(SimdLevel::Avx512);
    let n = sweep_len();
    for (k, (dst, _)) in DSTS.into_iter().enumerate() {
        let (lo, hi) = formula_range(dst);
        for (j, mode) in RoundMode::DETERMINISTIC.into_iter().enumerate() {
            for (i, p) in kernel_support::key_policies(mode).iter().enumerate() {
                // the full count under the standard policies, 1/64 of it under every other one
                let m = if i <= 1 || *p == CastPolicy::saturating(mode) {
                    n
                } else {
                    n >> 6
                };
                let seed = 1000 * k as u64 + 100 * j as u64 + i as u64;
                // odd lengths: the tail after the last 64-element step too
                assert_best_equals_reference(&in_range(m + 37, seed, lo, hi), dst, p);
                assert_best_equals_reference(&random_f32(m + 21, seed), dst, p);
            }
        }
    }
}

#[test]
fn every_length_up_to_200_equals_the_reference() {
    level_here(SimdLevel::Avx512);
    for (k, (dst, _)) in DSTS.into_iter().enumerate() {
        let (lo, hi) = formula_range(dst);
        for mode in RoundMode::DETERMINISTIC {
            for p in [CastPolicy::new(mode), CastPolicy::saturating(mode)] {
                for n in 0..200 {
                    assert_best_equals_reference(
                        &in_range(n, (n + 300 * k) as u64, lo, hi),
                        dst,
                        &p,
                    );
                }
            }
        }
    }
}

#[test]
fn the_kernels_are_split_over_threads_and_offsets_like_any_other() {
    level_here(SimdLevel::Avx512);
    for (dst, _) in DSTS {
        let (lo, hi) = formula_range(dst);
        let codes = in_range(300_000, 5, lo, hi);
        let src = bytes(&codes);
        let d = Storage::native(dst);
        let p = CastPolicy::default();
        let reference = options(KernelChoice::Reference, false);
        let want = kernel_support::cast(&src, f32s(), d, codes.len(), &p, &reference);
        for at in [1usize, 63, 64, 129] {
            let n = codes.len() - at;
            let o = options(KernelChoice::Level(SimdLevel::best()), true);
            let got = kernel_support::cast(&src[4 * at..], f32s(), d, n, &p, &o);
            let r = kernel_support::cast(&src[4 * at..], f32s(), d, n, &p, &reference);
            assert_eq!(got, r, "{dst:?} from {at}");
            assert_eq!(&got.0[..], &want.0[at..], "{dst:?} from {at}");
        }
    }
}
