//! f32 → 4/8/16-bit integers at the AVX-512 level (kernel `f32-int-avx512`) and i32 →
//! integers (kernel `i32-int`) equal the reference routine bit for bit, codes and status
//! counts. f32: every boundary class of each destination (the bounds, one beyond, halves and
//! ties around them, values where wrapping keeps only low bits, ±Inf, NaN payloads, ±0, f32
//! subnormals) mixed with random codes, every deterministic mode and the three standard
//! policies, lengths around the 64-element step, misaligned buffers, long runs over threads.
//! i32: every integer destination and layout, every deterministic mode and policy, every
//! level, on the i32 ends, each destination's bounds ±1, 0, ±1 and random codes, at odd
//! lengths (packed odd counts) and split over threads. The kernel names are checked, so that
//! a silent fallback to another kernel fails a test.

use crate::kernel_support;
use kernel_support::{
    assert_same_codes, bytes, f32s, int_classes, layouts, level_here, mixed, options, policies,
    random_f32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{
    CastPolicy, Format, IntOverflow, KernelChoice, Layout, RoundMode, Status, StatusCounts, Storage,
};

/// The f32 kernel's destinations.
const SMALL_INTS: [Format; 6] = [
    Format::I4,
    Format::U4,
    Format::I8,
    Format::U8,
    Format::I16,
    Format::U16,
];

/// Every deterministic mode, `none` (an alias of `rint`) included.
fn modes() -> Vec<RoundMode> {
    let mut v = RoundMode::DETERMINISTIC.to_vec();
    v.push(RoundMode::None);
    v
}

fn i32s() -> Storage {
    Storage::native(Format::I32)
}

/// The storages of `f` including packed and one-per-byte for every sub-byte format.
fn all_layouts(f: Format) -> Vec<Storage> {
    let mut v = layouts(f);
    for l in [Layout::Packed, Layout::Unpacked] {
        if let Ok(s) = Storage::new(f, l)
            && !v.contains(&s)
        {
            v.push(s);
        }
    }
    v
}

/// One cast of `n` 32-bit codes from `s` to `d`.
fn cast(
    src: &[u8],
    s: Storage,
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    kernels: KernelChoice,
    parallel: bool,
) -> (Vec<u8>, StatusCounts) {
    kernel_support::cast(src, s, d, n, policy, &options(kernels, parallel))
}

/// `codes` cast from `s` to `d` at each of `levels` (serial) equal the reference; on a
/// difference, names the first differing code.
fn assert_equals_reference(
    codes: &[u32],
    s: Storage,
    d: Storage,
    policy: &CastPolicy,
    levels: &[SimdLevel],
) {
    let src = bytes(codes);
    let n = codes.len();
    let want = cast(&src, s, d, n, policy, KernelChoice::Reference, false);
    for &level in levels {
        let got = cast(&src, s, d, n, policy, KernelChoice::Level(level), false);
        assert_same_codes(
            &got,
            &want,
            codes,
            d,
            &format!("from {s:?}, {policy:?} {level:?}"),
        );
    }
}

/// The kernel each level runs for f32 → 4/8/16-bit integers, every layout (packed 4-bit
/// too): `f32-int-avx512` at the AVX-512 level, `f32-int-avx2` at the AVX2 level, `f32-int`
/// at the portable one; at a level the kernels may not use here (the CPU lacks it, or
/// `NPUSIM_KERNEL` caps it away) a cast runs the portable code, so the name is `f32-int`,
/// even where a lower level than the one asked for is available.
#[test]
fn f32_to_small_ints_runs_the_avx512_kernel_at_that_level() {
    let levels = [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512];
    for level in levels {
        level_here(level);
    }
    let mut checked = 0;
    for d in SMALL_INTS.into_iter().flat_map(layouts) {
        for mode in modes() {
            for policy in policies(mode) {
                if mode == RoundMode::Odd {
                    let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx512);
                    assert!(
                        matches!(name, "reference" | "f32-key" | "f32-key-avx2"),
                        "{d:?} {policy:?}"
                    );
                    continue;
                }
                for level in levels {
                    let want = match level {
                        _ if !level.is_available() => "f32-int",
                        SimdLevel::Portable => "f32-int",
                        SimdLevel::Avx2 => "f32-int-avx2",
                        SimdLevel::Avx512 => "f32-int-avx512",
                    };
                    let name = kernel_name_at(f32s(), d, &policy, level);
                    assert_eq!(name, want, "{d:?} {policy:?} at {level:?}");
                }
                checked += 1;
            }
        }
    }
    assert_eq!(checked, 8 * 6 * 3);
}

#[test]
fn f32_to_small_ints_at_avx512_equal_the_reference_on_every_class() {
    let levels = SimdLevel::available();
    for (k, dst) in SMALL_INTS.into_iter().enumerate() {
        let codes = mixed(&int_classes(dst), 31 + k as u64);
        for d in layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    assert_equals_reference(&codes, f32s(), d, &policy, &levels);
                }
            }
        }
    }
}

/// Random codes whose exponents sit near the integer range (|x| from 2^-3 to 2^20), where
/// most rounding decisions and range checks happen.
#[test]
fn f32_to_small_ints_equal_the_reference_on_random_values_near_the_range() {
    let levels = SimdLevel::available();
    let codes: Vec<u32> = random_f32(20_000, 5)
        .into_iter()
        .map(|c| (c & 0x807F_FFFF) | ((124 + (c >> 23) % 24) << 23))
        .collect();
    for dst in SMALL_INTS {
        for d in layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    assert_equals_reference(&codes, f32s(), d, &policy, &levels);
                }
            }
        }
    }
}

/// Lengths around the 64-element step (packed odd counts included) and misaligned buffers.
#[test]
fn f32_to_small_ints_at_awkward_lengths_and_offsets_equal_the_reference() {
    let pool = mixed(&int_classes(Format::I8), 3);
    for d in SMALL_INTS.into_iter().flat_map(layouts) {
        for policy in [
            CastPolicy::new(RoundMode::Rint),
            CastPolicy::non_saturating(RoundMode::Round),
            CastPolicy::saturating(RoundMode::Floor),
        ] {
            for n in [0, 1, 15, 17, 63, 64, 65, 127, 129, 191, 255, 1001] {
                for offset in [0, 1, 5] {
                    let src = bytes(&pool[offset..offset + n]);
                    let mut shifted = vec![0u8; src.len() + 1];
                    shifted[1..].copy_from_slice(&src);
                    let want = cast(&src, f32s(), d, n, &policy, KernelChoice::Reference, false);
                    for level in SimdLevel::available() {
                        let k = KernelChoice::Level(level);
                        let got = cast(&src, f32s(), d, n, &policy, k, false);
                        assert!(got == want, "{d:?} {policy:?} n = {n} {level:?}");
                        let got = cast(&shifted[1..], f32s(), d, n, &policy, k, false);
                        assert!(got == want, "{d:?} {policy:?} n = {n} {level:?} misaligned");
                    }
                }
            }
        }
    }
}

/// Long runs (beyond the parallel threshold), serial and split over threads.
#[test]
fn f32_to_small_ints_long_runs_serial_and_parallel_equal_the_reference() {
    let n = (1 << 19) + 93;
    let codes = random_f32(n, 77);
    let src = bytes(&codes);
    for (dst, policy) in [
        (Format::I8, CastPolicy::new(RoundMode::Rint)),
        (Format::U8, CastPolicy::non_saturating(RoundMode::Ceil)),
        (Format::I16, CastPolicy::saturating(RoundMode::Round)),
        (Format::I4, CastPolicy::new(RoundMode::Trunc)),
    ] {
        let d = Storage::native(dst);
        let want = cast(&src, f32s(), d, n, &policy, KernelChoice::Reference, false);
        for level in SimdLevel::available() {
            for parallel in [false, true] {
                let got = cast(
                    &src,
                    f32s(),
                    d,
                    n,
                    &policy,
                    KernelChoice::Level(level),
                    parallel,
                );
                assert!(
                    got == want,
                    "{dst} {policy:?} {level:?} parallel = {parallel}"
                );
            }
        }
    }
}

/// Every integer format but i32 itself (a copy).
fn int_destinations() -> Vec<Format> {
    let v: Vec<Format> = Format::ALL
        .into_iter()
        .filter(|f| f.is_int() && *f != Format::I32)
        .collect();
    assert!(v.len() >= 11, "{v:?}");
    v
}

/// The i32 codes that test i32 → `dst`: the i32 ends, the destination's bounds ±1, 0 and ±1,
/// each mixed among random i32 codes and small random values.
fn i32_classes(dst: Format) -> Vec<u32> {
    let mut anchors = vec![i64::from(i32::MIN), i64::from(i32::MAX), 0, 1, -1];
    for b in [dst.min_finite(), dst.max_finite()] {
        let b = b as i64;
        anchors.extend([b - 1, b, b + 1]);
    }
    let mut v: Vec<u32> = anchors
        .into_iter()
        .filter(|&a| i32::try_from(a).is_ok())
        .flat_map(|a| {
            [
                a as u32,
                (a as u32).wrapping_add(2),
                (a as u32).wrapping_sub(2),
            ]
        })
        .collect();
    let r = random_f32(300, 11 + u64::from(dst.bits()));
    v.extend(r.iter().take(150));
    // small values: within a few hundred of 0, across every small destination's range
    v.extend(r.iter().skip(150).map(|&c| ((c % 600) as i32 - 300) as u32));
    mixed(&v, 19)
}

#[test]
fn i32_to_ints_run_the_i32_kernel_at_every_level() {
    for dst in int_destinations() {
        for d in all_layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    for level in [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512] {
                        let name = kernel_name_at(i32s(), d, &policy, level);
                        assert_eq!(name, "i32-int", "{d:?} {policy:?} {level:?}");
                    }
                }
            }
        }
    }
    let p = CastPolicy::default();
    assert_eq!(
        kernel_name_at(i32s(), i32s(), &p, SimdLevel::Portable),
        "copy"
    );
    let stochastic = CastPolicy::new(RoundMode::Hybrid);
    let d = Storage::native(Format::I8);
    assert_eq!(
        kernel_name_at(i32s(), d, &stochastic, SimdLevel::Portable),
        "reference"
    );
}

#[test]
fn i32_to_ints_equal_the_reference_in_every_mode_policy_layout_and_level() {
    let levels = SimdLevel::available();
    let mut checked = 0;
    for dst in int_destinations() {
        let codes = i32_classes(dst);
        for d in all_layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    assert_equals_reference(&codes, i32s(), d, &policy, &levels);
                    checked += 1;
                }
            }
        }
    }
    // 11 formats, 4 of them with two layouts, 7 modes, 3 policies
    assert_eq!(checked, 15 * 7 * 3);
}

/// The statuses of a few i32 casts, spelled out: in range exact, beyond it overflow, inexact
/// and saturated or wrapped.
#[test]
fn i32_to_ints_statuses_follow_the_range_rule() {
    let codes = [0i32, 127, 128, -128, -129, i32::MIN, i32::MAX, 300];
    let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    let d = Storage::native(Format::I8);
    for wrap in [false, true] {
        let policy = CastPolicy {
            int_overflow: if wrap {
                IntOverflow::Wrap
            } else {
                IntOverflow::Saturate
            },
            ..CastPolicy::default()
        };
        let k = KernelChoice::Level(SimdLevel::best());
        let (out, counts) = cast(&src, i32s(), d, codes.len(), &policy, k, false);
        let want: Vec<u8> = if wrap {
            codes.iter().map(|&c| c as u8).collect()
        } else {
            codes.iter().map(|&c| c.clamp(-128, 127) as u8).collect()
        };
        assert_eq!(out, want, "wrap = {wrap}");
        // 0, 127 and -128 fit; 128, -129, the i32 ends and 300 do not
        assert_eq!((counts.total, counts.exact), (8, 3), "wrap = {wrap}");
        let kept = if wrap {
            Status::WRAPPED
        } else {
            Status::SATURATED
        };
        for flag in [Status::OVERFLOW, Status::INEXACT, kept] {
            assert_eq!(counts.get(flag), 5, "{flag:?} wrap = {wrap}");
        }
    }
}

/// Odd lengths (packed odd counts) and misaligned buffers.
#[test]
fn i32_to_ints_at_awkward_lengths_and_offsets_equal_the_reference() {
    let mut pool = i32_classes(Format::I4);
    pool.extend(i32_classes(Format::U16));
    for dst in int_destinations() {
        for d in all_layouts(dst) {
            for policy in [
                CastPolicy::new(RoundMode::Rint),
                CastPolicy::non_saturating(RoundMode::Floor),
            ] {
                for n in [0, 1, 2, 3, 5, 7, 31, 33, 63, 65, 513, 1027] {
                    for offset in [0, 3] {
                        let src = bytes(&pool[offset..offset + n]);
                        let mut shifted = vec![0u8; src.len() + 1];
                        shifted[1..].copy_from_slice(&src);
                        let want =
                            cast(&src, i32s(), d, n, &policy, KernelChoice::Reference, false);
                        for level in SimdLevel::available() {
                            let k = KernelChoice::Level(level);
                            let got = cast(&src, i32s(), d, n, &policy, k, false);
                            assert!(got == want, "{d:?} {policy:?} n = {n} {level:?}");
                            let got = cast(&shifted[1..], i32s(), d, n, &policy, k, false);
                            assert!(got == want, "{d:?} {policy:?} n = {n} {level:?} shifted");
                        }
                    }
                }
            }
        }
    }
}

/// Long runs split over threads equal the serial reference.
#[test]
fn i32_to_ints_parallel_equals_serial_reference() {
    let n = (1 << 19) + 7;
    let codes: Vec<u32> = random_f32(n, 23)
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            if i % 3 == 0 {
                c
            } else {
                ((c % 70_000) as i32 - 35_000) as u32
            }
        })
        .collect();
    let src = bytes(&codes);
    for (dst, layout) in [
        (Format::I8, Layout::Unpacked),
        (Format::U16, Layout::Unpacked),
        (Format::U32, Layout::Unpacked),
        (Format::U64, Layout::Unpacked),
        (Format::I4, Layout::Packed),
        (Format::U2, Layout::Packed),
    ] {
        let Ok(d) = Storage::new(dst, layout) else {
            panic!("{dst} {layout}");
        };
        for policy in [
            CastPolicy::new(RoundMode::Rint),
            CastPolicy::non_saturating(RoundMode::Rint),
        ] {
            let want = cast(&src, i32s(), d, n, &policy, KernelChoice::Reference, false);
            for level in SimdLevel::available() {
                for parallel in [false, true] {
                    let k = KernelChoice::Level(level);
                    let got = cast(&src, i32s(), d, n, &policy, k, parallel);
                    assert!(
                        got == want,
                        "{d:?} {policy:?} {level:?} parallel = {parallel}"
                    );
                }
            }
        }
    }
}
