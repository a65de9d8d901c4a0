//! The AVX-512 kernel for f32 → small binary floats (e4m3fn, e4m3, e5m2, e3m4, fp6, fp4;
//! e2m1 and e1m2 packed or one per byte) equals the reference routine bit for bit, codes and
//! status counts: on every boundary class of each destination (every value, every tie, the
//! largest value, half an ulp beyond it and more, overflow, ±Inf, NaN payloads, ±0, f32 and
//! destination subnormals) mixed with random codes, in every deterministic mode under the three
//! standard policies; on every f32 exponent with many mantissa patterns; at lengths and
//! offsets around its 64-element step; across its status-counter flush; and over threads.
//! That the kernel is the one that runs at the AVX-512 level is checked too, so that a silent
//! fallback fails a test. On a machine without AVX-512 the comparisons run the other levels.

use crate::kernel_support;
use kernel_support::{
    assert_same_codes, bytes, f32s, float_classes, layouts, level_here, mixed, options, policies,
    random_f32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{
    CastPolicy, Format, KernelChoice, RoundMode, StatusCounts, Storage, kernel_name,
};

const NAME: &str = "f32-float-avx512";

/// The best level this machine has (the AVX-512 one where it exists).
fn level() -> SimdLevel {
    SimdLevel::best()
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
    for must in [
        Format::F8E4M3FN,
        Format::F8E5M2,
        Format::F6E2M3FN,
        Format::F6E3M2FN,
        Format::F4E2M1,
    ] {
        assert!(v.contains(&must), "{v:?}");
    }
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

/// The kernel at the best level equals the reference for `codes` into `d` under `policy`;
/// on a difference, names the first differing code.
fn assert_equals_reference(codes: &[u32], d: Storage, policy: &CastPolicy) {
    let src = bytes(codes);
    let n = codes.len();
    let want = cast(&src, d, n, policy, KernelChoice::Reference, false);
    let got = cast(&src, d, n, policy, KernelChoice::Level(level()), false);
    assert_same_codes(&got, &want, codes, d, &format!("{policy:?}"));
}

/// The classes alone, whole steps of finite values (NaN and Inf left out), so that they run
/// through the finite-only path too.
fn finite_only(classes: &[u32]) -> Vec<u32> {
    classes
        .iter()
        .copied()
        .filter(|c| c & 0x7F80_0000 != 0x7F80_0000)
        .collect()
}

#[test]
fn the_avx512_kernel_is_the_one_that_runs_at_its_level() {
    let avx512 = level_here(SimdLevel::Avx512);
    let avx2 = level_here(SimdLevel::Avx2);
    let mut checked = 0;
    for dst in small_floats() {
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    let at = |l| kernel_name_at(f32s(), d, &policy, l);
                    let want = if avx512 { NAME } else { "f32-float" };
                    assert_eq!(at(SimdLevel::Avx512), want, "{d:?} {policy:?}");
                    let want = if avx2 { "f32-float-avx2" } else { "f32-float" };
                    assert_eq!(at(SimdLevel::Avx2), want, "{d:?} {policy:?}");
                    assert_eq!(at(SimdLevel::Portable), "f32-float", "{d:?} {policy:?}");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked >= 8 * 6 * 3, "{checked}");
    // f16 and bf16 keep their own kernels
    for dst in [Format::F16, Format::BF16] {
        let name = kernel_name_at(
            f32s(),
            Storage::native(dst),
            &CastPolicy::default(),
            level(),
        );
        let name = name.trim_end_matches("-avx512");
        if avx2 {
            assert!(name == "f16c" || name == "f32-bf16", "{dst}: {name}");
        } else {
            assert_eq!(name, "f32-float", "{dst}");
        }
    }
}

#[test]
fn every_class_of_every_destination_equals_the_reference() {
    for (k, dst) in small_floats().into_iter().enumerate() {
        let classes = float_classes(dst);
        let codes = mixed(&classes, 101 + k as u64);
        let finite = finite_only(&classes);
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC
                .into_iter()
                .chain([RoundMode::None])
            {
                for policy in policies(mode) {
                    assert_equals_reference(&codes, d, &policy);
                    assert_equals_reference(&finite, d, &policy);
                }
            }
        }
    }
}

/// Every f32 exponent and sign with the top 7 mantissa bits in every pattern and the low bits
/// zero, one, a half-way pattern or all ones: every rounding position of every destination.
#[test]
fn every_exponent_and_rounding_position_equals_the_reference() {
    let mut codes = Vec::new();
    for sign in [0, 0x8000_0000u32] {
        for exp in 0..256u32 {
            for top in 0..128u32 {
                for low in [0, 1, 0x1_0000, 0xFFFF, 0x8000] {
                    codes.push(sign | (exp << 23) | (top << 16) | low);
                }
            }
        }
    }
    for dst in small_floats() {
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    assert_equals_reference(&codes, d, &policy);
                }
            }
        }
    }
}

/// Lengths around the 64-element step and offsets of the source, also misaligned in memory,
/// including packed 4-bit outputs with odd counts.
#[test]
fn lengths_and_offsets_around_the_step_equal_the_reference() {
    let pool = mixed(&float_classes(Format::F8E4M3FN), 7);
    let mut cases = Vec::new();
    for dst in [
        Format::F8E4M3FN,
        Format::F8E5M2,
        Format::F4E2M1,
        Format::F6E3M2FN,
    ] {
        for d in layouts(dst) {
            for mode in RoundMode::DETERMINISTIC {
                cases.push((d, CastPolicy::new(mode)));
            }
            cases.push((d, CastPolicy::saturating(RoundMode::Rint)));
        }
    }
    for (d, policy) in cases {
        for n in [0, 1, 15, 63, 64, 65, 127, 128, 129, 191, 255, 1023] {
            for offset in [0, 1, 3] {
                let codes = &pool[offset..offset + n];
                let src = bytes(codes);
                let mut shifted = vec![0u8; src.len() + 1];
                shifted[1..].copy_from_slice(&src);
                let want = cast(&src, d, n, &policy, KernelChoice::Reference, false);
                let k = KernelChoice::Level(level());
                let got = cast(&src, d, n, &policy, k, false);
                assert!(got == want, "{d:?} {policy:?} n = {n}");
                let got = cast(&shifted[1..], d, n, &policy, k, false);
                assert!(got == want, "{d:?} {policy:?} n = {n} misaligned");
            }
        }
    }
}

/// More elements than one flush of the vector status counters holds, all exact, all
/// overflowing, and random (finite only, and with NaN and Inf), serial and over threads.
#[test]
fn long_runs_cross_the_counter_flush_and_thread_chunks() {
    let n = (1 << 19) + 77;
    let ones = vec![0x3F80_0000u32; n];
    let big = vec![0xC700_0000u32; n];
    let all = random_f32(n, 99);
    let finite: Vec<u32> = all
        .iter()
        .map(|&c| {
            if (c >> 23) & 0xFF == 0xFF {
                c & !0x0080_0000
            } else {
                c
            }
        })
        .collect();
    for codes in [&ones, &big, &all, &finite] {
        let src = bytes(codes);
        for (dst, policy) in [
            (Format::F8E4M3FN, CastPolicy::saturating(RoundMode::Rint)),
            (Format::F8E4M3FN, CastPolicy::new(RoundMode::Odd)),
            (Format::F8E5M2, CastPolicy::new(RoundMode::Floor)),
            (Format::F8E5M2, CastPolicy::new(RoundMode::Rint)),
            (Format::F4E2M1, CastPolicy::new(RoundMode::Rint)),
            (
                Format::F6E2M3FN,
                CastPolicy::non_saturating(RoundMode::Round),
            ),
        ] {
            let d = Storage::native(dst);
            let want = cast(&src, d, n, &policy, KernelChoice::Reference, false);
            for parallel in [false, true] {
                let got = cast(&src, d, n, &policy, KernelChoice::Level(level()), parallel);
                assert!(got == want, "{dst} {policy:?} parallel = {parallel}");
            }
        }
    }
}
