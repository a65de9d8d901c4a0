//! The AVX-512 kernel for f32 → e8m0 and f32 → HiF8 (`f32-key-avx512`) equals the reference
//! routine bit for bit, codes and status counts: on every f32 exponent with the mantissas that
//! matter (0, 1, the destination's ties and their neighbours, all ones), every destination
//! value and midpoint, the largest value and beyond, subnormals, ±0, ±Inf and NaN payloads,
//! mixed with random codes, and on 2^16 random patterns by default (2^`NPUSIM_SWEEP_LOG2` when
//! set, 2^24 for the full sweep), in every
//! deterministic mode under every policy the key table serves, with the output streamed too.
//! The kernel name at the AVX-512 level is checked so that a silent fallback fails. Where the
//! kernels may not use the AVX-512 level (the CPU lacks it or `NPUSIM_KERNEL` caps it away)
//! each test says `SKIPPED: ... needs avx512` and checks the same cases at the best level
//! there is (the key table).

use crate::kernel_support;
use kernel_support::{
    around, assert_absent_level_names_portable, assert_best_equals_reference, bytes, f32s,
    level_here, mixed, options, random_f32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

use crate::sweep::sweep_log2;

/// The log2 count of the random sweep by default: a quick check.
const QUICK_LOG2: u32 = 16;

/// The destinations.
const DSTS: [Format; 2] = [Format::F8E8M0, Format::HiF8];

/// The name of the kernel the AVX-512 level runs for `dst`: the formula kernels
/// (`kernels_e8m0_hif8.rs`) take precedence over the gather kernel, which serves only where
/// a formula's construction-time check fails.
fn name(dst: Format) -> &'static str {
    if dst == Format::HiF8 {
        "f32-hif8-avx512"
    } else {
        "f32-e8m0-avx512"
    }
}

/// The boundary classes of `dst`: every f32 exponent with mantissa 0, 1, the halves, quarters
/// and eighths of the binade (HiF8's ties and values) and their neighbours, all ones; every
/// destination value and midpoint with neighbours; beyond the largest value; f32 subnormals,
/// ±0, ±Inf, NaN payloads. Each with both signs.
fn classes(dst: Format) -> Vec<u32> {
    let mut v = Vec::new();
    for e in 0..=255u32 {
        for m in [0u32, 1, 0x7F_FFFF, 0x7F_FFFE] {
            around((e << 23) | m, 0, &mut v);
        }
        // mantissa points j / 16 of the binade: the ties of 1, 2 and 3 mantissa bits and e8m0's
        for j in 1..16u32 {
            around((e << 23) | (j << 19), 1, &mut v);
            around((e << 23) | (j << 19) | 0x8000, 0, &mut v);
            around((e << 23) | (j << 19) | 0x1_0000, 1, &mut v);
        }
    }
    let vals = kernel_support::finite_magnitudes(dst);
    let max = vals[vals.len() - 1];
    let mids: Vec<f64> = vals.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    let beyond = [max * 1.25, max * 1.5, max * 1.75, max * 2.0, vals[0] / 2.0];
    for x in vals.iter().chain(&mids).chain(&beyond) {
        around((*x as f32).to_bits(), 2, &mut v);
    }
    // f32 subnormals between the common ones, then ±0, the f32 max, ±Inf and NaN payloads
    for c in [0x0020_0000, 0x0060_0000] {
        around(c, 1, &mut v);
    }
    v.extend(kernel_support::common_classes());
    v
}

#[test]
fn the_avx512_level_runs_the_kernel_for_every_mode_and_policy() {
    let here = level_here(SimdLevel::Avx512);
    for dst in DSTS {
        for mode in RoundMode::DETERMINISTIC {
            for p in kernel_support::key_policies(mode) {
                let d = Storage::native(dst);
                if here {
                    assert_eq!(
                        kernel_name_at(f32s(), d, &p, SimdLevel::Avx512),
                        name(dst),
                        "{dst:?} {p:?}"
                    );
                } else {
                    assert_absent_level_names_portable(f32s(), d, &p, SimdLevel::Avx512);
                }
                // at the AVX2 level: e8m0's formula, HiF8's formula to nearest even
                // (kernels_hif8_avx2.rs) and its gathered lookup in the other modes
                // (kernels_avx2_key.rs)
                let avx2 = if !SimdLevel::Avx2.is_available() {
                    "f32-key"
                } else if dst == Format::F8E8M0 {
                    "f32-e8m0-avx2"
                } else if mode == RoundMode::Rint {
                    "f32-hif8-avx2"
                } else {
                    "f32-key-avx2"
                };
                assert_eq!(kernel_name_at(f32s(), d, &p, SimdLevel::Avx2), avx2);
            }
        }
    }
}

#[test]
fn boundary_classes_equal_the_reference_in_every_mode_and_policy() {
    level_here(SimdLevel::Avx512);
    for (k, dst) in DSTS.into_iter().enumerate() {
        let codes = mixed(&classes(dst), 11 + k as u64);
        for mode in RoundMode::DETERMINISTIC {
            for p in kernel_support::key_policies(mode) {
                assert_best_equals_reference(&codes, dst, &p);
            }
        }
    }
}

#[test]
fn random_patterns_equal_the_reference_in_every_mode_and_policy() {
    level_here(SimdLevel::Avx512);
    let log2 = sweep_log2(QUICK_LOG2);
    for (k, dst) in DSTS.into_iter().enumerate() {
        for (j, mode) in RoundMode::DETERMINISTIC.into_iter().enumerate() {
            let all = kernel_support::key_policies(mode);
            // the full count under the standard policies, 1/64 of it under every other one
            for (i, p) in all.iter().enumerate() {
                let n = if i <= 1 || *p == CastPolicy::saturating(mode) {
                    1usize << log2
                } else {
                    1 << log2.saturating_sub(6)
                };
                let seed = 1000 * k as u64 + 100 * j as u64 + i as u64;
                // odd lengths: the tail after the last 64-element step too
                assert_best_equals_reference(&random_f32(n + 37, seed), dst, p);
            }
        }
    }
}

#[test]
fn the_kernel_is_split_over_threads_and_offsets_like_any_other() {
    level_here(SimdLevel::Avx512);
    let codes = random_f32(300_000, 5);
    let src = bytes(&codes);
    for dst in DSTS {
        let d = Storage::native(dst);
        let p = CastPolicy::default();
        let want = kernel_support::cast(
            &src,
            f32s(),
            d,
            codes.len(),
            &p,
            &options(KernelChoice::Reference, false),
        );
        for at in [1usize, 63, 64, 129] {
            let n = codes.len() - at;
            let o = options(KernelChoice::Level(SimdLevel::best()), true);
            let got = kernel_support::cast(&src[4 * at..], f32s(), d, n, &p, &o);
            let r = kernel_support::cast(
                &src[4 * at..],
                f32s(),
                d,
                n,
                &p,
                &options(KernelChoice::Reference, false),
            );
            assert_eq!(got, r, "{dst:?} from {at}");
            assert_eq!(&got.0[..], &want.0[at..], "{dst:?} from {at}");
        }
    }
}
