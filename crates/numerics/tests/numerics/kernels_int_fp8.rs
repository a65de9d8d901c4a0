//! The explicit AVX2 kernels for f32 → 4/8/16-bit integers (4-bit packed or one per byte) and f32 → small binary floats
//! (e4m3fn, e5m2, the other fp8/fp6/fp4 formats, packed e2m1) equal the reference routine bit
//! for bit, codes and status counts: on every boundary class of each destination (ties, the
//! largest value, half an ulp beyond it, overflow, ±Inf, NaN payloads, ±0, f32 and destination
//! subnormals) mixed with random codes, in every deterministic mode under the three standard
//! policies, at every instruction-set level, at awkward lengths and offsets, across the
//! status-counter flush, and split over threads. The kernel names at the AVX2 level are
//! checked too, so that a silent fallback to the per-element loop fails a test.

use crate::kernel_support;
use kernel_support::{
    assert_same_codes, bytes, f32s, float_classes, int_classes, level_here, mixed, options,
    policies, random_f32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{
    CastPolicy, Format, KernelChoice, Layout, RoundMode, StatusCounts, Storage, kernel_name,
};

const INTS: [Format; 6] = [
    Format::I4,
    Format::U4,
    Format::I8,
    Format::U8,
    Format::I16,
    Format::U16,
];

/// The storages of `f`: native, and one code per byte where that differs.
fn layouts(f: Format) -> Vec<Storage> {
    let mut v = vec![Storage::native(f)];
    if let Ok(u) = Storage::new(f, Layout::Unpacked)
        && u != v[0]
    {
        v.push(u);
    }
    v
}

/// Binary-float destinations of at most 8 bits that the f32 float kernel serves.
fn small_floats() -> Vec<Format> {
    let v: Vec<Format> = Format::ALL
        .into_iter()
        .filter(|&f| {
            f.bits() <= 8
                && kernel_name(f32s(), Storage::native(f), &CastPolicy::default())
                    .starts_with("f32-float")
        })
        .collect();
    // A renamed kernel must not empty the list and leave the tests vacuous.
    assert!(
        v.contains(&Format::F8E4M3FN) && v.contains(&Format::F4E2M1),
        "{v:?}"
    );
    v
}

fn cast(
    src: &[u8],
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    kernels: KernelChoice,
    parallel: bool,
) -> (Vec<u8>, StatusCounts) {
    kernel_support::cast(src, f32s(), d, n, policy, &options(kernels, parallel))
}

/// Fast (every level) equals reference for `codes` into `d` under `policy`; on a difference,
/// names the first differing code.
fn assert_fast_equals_reference(codes: &[u32], d: Storage, policy: &CastPolicy) {
    let src = bytes(codes);
    let n = codes.len();
    let want = cast(&src, d, n, policy, KernelChoice::Reference, false);
    for level in SimdLevel::available() {
        let got = cast(&src, d, n, policy, KernelChoice::Level(level), false);
        assert_same_codes(&got, &want, codes, d, &format!("{policy:?} {level:?}"));
    }
}

#[test]
fn avx2_kernels_are_the_ones_that_run() {
    let avx2 = level_here(SimdLevel::Avx2);
    for d in INTS.into_iter().flat_map(layouts) {
        let dst = d.format();
        for mode in RoundMode::DETERMINISTIC {
            for policy in policies(mode) {
                let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx2);
                let portable = kernel_name_at(f32s(), d, &policy, SimdLevel::Portable);
                if mode == RoundMode::Odd {
                    // no integer kernel rounds to odd (4-bit saturating ones take the key table)
                    assert!(
                        matches!(name, "reference" | "f32-key" | "f32-key-avx2"),
                        "{dst} {policy:?}"
                    );
                    continue;
                }
                let want = if avx2 { "f32-int-avx2" } else { "f32-int" };
                assert_eq!(name, want, "{dst} {policy:?}");
                assert_eq!(portable, "f32-int", "{dst} {policy:?}");
            }
        }
    }
    let floats = small_floats();
    for must in [Format::F8E4M3FN, Format::F8E5M2, Format::F4E2M1] {
        assert!(floats.contains(&must), "{floats:?}");
    }
    for dst in floats {
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx2);
                    let want = if avx2 { "f32-float-avx2" } else { "f32-float" };
                    assert_eq!(name, want, "{d:?} {policy:?}");
                    let portable = kernel_name_at(f32s(), d, &policy, SimdLevel::Portable);
                    assert_eq!(portable, "f32-float", "{d:?} {policy:?}");
                }
            }
        }
    }
}

#[test]
fn f32_to_4_8_and_16_bit_integers_equal_the_reference_on_every_class() {
    for (k, dst) in INTS.into_iter().enumerate() {
        let codes = mixed(&int_classes(dst), 17 + k as u64);
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    assert_fast_equals_reference(&codes, d, &policy);
                }
            }
        }
    }
}

#[test]
fn f32_to_small_floats_equal_the_reference_on_every_class() {
    for (k, dst) in small_floats().into_iter().enumerate() {
        let codes = mixed(&float_classes(dst), 101 + k as u64);
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    assert_fast_equals_reference(&codes, d, &policy);
                }
            }
        }
    }
}

/// Lengths around the 16-element step and offsets of the source and destination, including
/// packed 4-bit outputs with odd counts.
#[test]
fn awkward_lengths_and_offsets_equal_the_reference() {
    let mut cases: Vec<(Storage, CastPolicy)> = Vec::new();
    for d in INTS.into_iter().flat_map(layouts) {
        cases.push((d, CastPolicy::new(RoundMode::Rint)));
        cases.push((d, CastPolicy::non_saturating(RoundMode::Round)));
    }
    for dst in [Format::F8E4M3FN, Format::F8E5M2, Format::F4E2M1] {
        for d in layouts(dst) {
            cases.push((d, CastPolicy::saturating(RoundMode::Rint)));
            cases.push((d, CastPolicy::new(RoundMode::Floor)));
            cases.push((d, CastPolicy::new(RoundMode::Odd)));
        }
    }
    let pool = mixed(&float_classes(Format::F8E4M3FN), 7);
    for (d, policy) in cases {
        for n in [0, 1, 7, 9, 15, 16, 17, 31, 33, 47, 1023] {
            for offset in [0, 1, 3] {
                let codes = &pool[offset..offset + n];
                let src = bytes(codes);
                // the source also misaligned in memory by one byte
                let mut shifted = vec![0u8; src.len() + 1];
                shifted[1..].copy_from_slice(&src);
                let want = cast(&src, d, n, &policy, KernelChoice::Reference, false);
                for level in SimdLevel::available() {
                    let k = KernelChoice::Level(level);
                    let got = cast(&src, d, n, &policy, k, false);
                    assert!(got == want, "{d:?} {policy:?} n = {n} {level:?}");
                    let got = cast(&shifted[1..], d, n, &policy, k, false);
                    assert!(got == want, "{d:?} {policy:?} n = {n} {level:?} misaligned");
                }
            }
        }
    }
}

/// More elements than one flush of the kernels' vector status counters holds (all exact, so
/// that every counter lane fills up), and a long random run, serial and over threads.
#[test]
fn long_runs_cross_the_counter_flush_and_thread_chunks() {
    let n = (1 << 19) + 77;
    let ones = vec![0x3F80_0000u32; n];
    let rand: Vec<u32> = random_f32(n, 99)
        .into_iter()
        // no NaN or Inf (exponent 255 becomes 254): the finite-only path, overflow included
        .map(|c| {
            if (c >> 23) & 0xFF == 0xFF {
                c & !0x0080_0000
            } else {
                c
            }
        })
        .collect();
    for codes in [&ones, &rand] {
        let src = bytes(codes);
        for (dst, policy) in [
            (Format::F8E4M3FN, CastPolicy::saturating(RoundMode::Rint)),
            (Format::F8E5M2, CastPolicy::new(RoundMode::Ceil)),
            (Format::F4E2M1, CastPolicy::new(RoundMode::Rint)),
            (Format::I8, CastPolicy::new(RoundMode::Rint)),
            (Format::I4, CastPolicy::non_saturating(RoundMode::Floor)),
            (Format::U16, CastPolicy::non_saturating(RoundMode::Trunc)),
        ] {
            let d = Storage::native(dst);
            let want = cast(&src, d, n, &policy, KernelChoice::Reference, false);
            for level in SimdLevel::available() {
                for parallel in [false, true] {
                    let got = cast(&src, d, n, &policy, KernelChoice::Level(level), parallel);
                    assert!(
                        got == want,
                        "{dst} {policy:?} {level:?} parallel = {parallel}"
                    );
                }
            }
        }
    }
}
