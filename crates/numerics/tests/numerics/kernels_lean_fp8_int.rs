//! The lean AVX-512 fast paths equal the reference routine bit for bit, codes and status
//! counts: f32 → small floats (`f32-float-avx512`: the scale from integer exponent ops, the
//! statuses read off the 64 code bytes of a step, exact overflow / NaN / Inf steps out of
//! line) and f32 → i8 / u8 / i4 / u4 saturating (`f32-int-avx512`: embedded-rounding
//! conversion, saturating packs, a byte clamp and nibble pairing for 4-bit codes, the range and
//! exactness compares). The sweeps aim at their edges: every
//! f32 exponent with the mantissa at, just below and just above a tie at every bit position
//! (so every rounding position of every destination binade and of its subnormals), both
//! signs, every deterministic mode and the three standard policies; values at and around
//! each destination's largest value, exact overflows (which send a step out of line), NaN
//! and ±Inf mixed in at varying positions; for the integers the bounds, ties, exact
//! integers beyond the range, negative fractions (unsigned), the values from which the
//! 16-bit packs saturate (−2^15) and from which the conversion gives up (2^31); at lengths
//! 0..200 and some odd large ones. The kernel names are checked, so that a silent fallback
//! fails a test. On a machine without AVX-512 the comparisons run the best level it has.

use crate::kernel_support;
use kernel_support::{
    assert_same_codes, bytes, f32s, float_classes, int_classes, layouts, level_here, mixed,
    options, policies, random_f32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, Layout, RoundMode, StatusCounts, Storage};

/// The small-float destinations of the lean fast path (each with its layouts).
const SMALL_FLOATS: [Format; 6] = [
    Format::F8E4M3FN,
    Format::F8E5M2,
    Format::F6E2M3FN,
    Format::F6E3M2FN,
    Format::F4E2M1,
    Format::F4E1M2,
];

/// The integer destinations of the lean fast path.
const BYTE_INTS: [Format; 2] = [Format::I8, Format::U8];

/// Every deterministic mode, `none` (an alias of `rint`) included.
fn modes() -> Vec<RoundMode> {
    let mut v = RoundMode::DETERMINISTIC.to_vec();
    v.push(RoundMode::None);
    v
}

fn cast(
    src: &[u8],
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    k: KernelChoice,
) -> (Vec<u8>, StatusCounts) {
    kernel_support::cast(src, f32s(), d, n, policy, &options(k, false))
}

/// The best level equals the reference on `codes` into `d` under `policy`.
fn assert_equals_reference(codes: &[u32], d: Storage, policy: &CastPolicy) {
    let src = bytes(codes);
    let n = codes.len();
    let want = cast(&src, d, n, policy, KernelChoice::Reference);
    let got = cast(&src, d, n, policy, KernelChoice::Level(SimdLevel::best()));
    assert_same_codes(&got, &want, codes, d, &format!("{policy:?}"));
}

/// Every f32 exponent, both signs, the mantissa at a tie at every bit position, one below
/// and one above it, with the bit above the tie (the last kept one) clear and set, plus
/// zero and all ones.
fn tie_codes() -> Vec<u32> {
    let mut v = Vec::new();
    for sign in [0, 0x8000_0000u32] {
        for exp in 0..256u32 {
            let base = sign | (exp << 23);
            v.extend([base, base | 0x7F_FFFF]);
            for p in 0..23 {
                let half = 1u32 << p;
                for kept in [0, 2 * half] {
                    for m in [half - 1, half, half + 1] {
                        v.push(base | ((kept | m) & 0x7F_FFFF));
                    }
                }
            }
        }
    }
    v
}

/// Exact values beyond each destination's largest (powers of two and multiples of its ulp
/// there), which make a step take the out-of-line path, among finite random codes.
fn exact_overflows(dst: Format) -> Vec<u32> {
    let max = float_classes(dst)
        .into_iter()
        .map(f32::from_bits)
        .filter(|x| x.is_finite())
        .fold(0f32, |a, x| a.max(x.abs()));
    let mut v = Vec::new();
    for k in [1.0f32, 1.125, 1.25, 1.5, 2.0, 4.0, 1024.0] {
        let x = (max * k).min(f32::MAX);
        v.extend([x.to_bits(), (-x).to_bits()]);
    }
    v
}

#[test]
fn the_lean_paths_are_the_kernels_that_run_at_the_avx512_level() {
    let avx512 = level_here(SimdLevel::Avx512);
    let mut checked = 0;
    for dst in SMALL_FLOATS {
        for d in layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx512);
                    let want = if avx512 { "f32-float-avx512" } else { name };
                    assert_eq!(name, want, "{d:?} {policy:?}");
                    checked += 1;
                }
            }
        }
    }
    for dst in BYTE_INTS {
        for mode in modes().into_iter().filter(|&m| m != RoundMode::Odd) {
            for policy in policies(mode) {
                let d = Storage::native(dst);
                let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx512);
                let want = if avx512 { "f32-int-avx512" } else { name };
                assert_eq!(name, want, "{d:?} {policy:?}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 6 * 7 * 3 + 2 * 6 * 3, "{checked}");
}

#[test]
fn small_floats_at_every_tie_of_every_exponent_equal_the_reference() {
    let codes = tie_codes();
    for dst in SMALL_FLOATS {
        for d in layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    assert_equals_reference(&codes, d, &policy);
                }
            }
        }
    }
}

#[test]
fn small_float_exact_overflow_nan_and_inf_steps_equal_the_reference() {
    for (k, dst) in SMALL_FLOATS.into_iter().enumerate() {
        let mut classes = exact_overflows(dst);
        // a few of the other classes, NaN and Inf among them
        classes.extend(float_classes(dst).into_iter().step_by(7));
        // finite random codes, so that most steps take the fast path
        let finite: Vec<u32> = random_f32(4000, 5 + k as u64)
            .into_iter()
            .map(|c| c & 0xC7FF_FFFF)
            .collect();
        let mut codes = finite.clone();
        for (i, &c) in classes.iter().enumerate() {
            let at = (i * 397) % codes.len();
            codes.insert(at, c);
        }
        for d in layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    assert_equals_reference(&codes, d, &policy);
                    assert_equals_reference(&finite, d, &policy);
                }
            }
        }
    }
}

/// The f32 edge classes of the byte integers: their [`int_classes`], exact integers beyond
/// the range, negative fractions, −2^15 and around it (where the 16-bit packs saturate), and
/// ±2^31 (where the conversion gives up).
fn byte_int_classes(dst: Format) -> Vec<u32> {
    let mut v = int_classes(dst);
    for x in [
        128.0f32,
        129.0,
        200.0,
        255.0,
        256.0,
        257.0,
        300.0,
        -129.0,
        -200.0,
        -256.0,
        -0.3,
        -0.5,
        -0.7,
        -1.0,
        -1.5,
        0.3,
        0.5,
        0.7,
        126.5,
        127.5,
        254.5,
        255.5,
        -127.5,
        -128.5,
        -32767.0,
        -32768.0,
        -32769.0,
        -32768.5,
        32767.0,
        32768.0,
        65535.0,
        65536.0,
        -2147483648.0,
        2147483648.0,
        1e20,
        -1e20,
    ] {
        let c = x.to_bits();
        v.extend([c, c - 1, c + 1]);
    }
    v
}

#[test]
fn byte_ints_on_every_class_and_tie_equal_the_reference() {
    let ties = tie_codes();
    for (k, dst) in BYTE_INTS.into_iter().enumerate() {
        let classes = byte_int_classes(dst);
        let codes = mixed(&classes, 31 + k as u64);
        // finite and below 2^15 in magnitude: the fast path throughout
        let fast: Vec<u32> = classes
            .iter()
            .copied()
            .filter(|&c| f32::from_bits(c).abs() < 32768.0)
            .collect();
        let d = Storage::native(dst);
        for mode in modes().into_iter().filter(|&m| m != RoundMode::Odd) {
            for policy in policies(mode) {
                assert_equals_reference(&codes, d, &policy);
                assert_equals_reference(&fast, d, &policy);
                assert_equals_reference(&ties, d, &policy);
            }
        }
    }
}

/// 4-bit integers, one per byte or packed two per byte, take the lean path too, with a byte
/// clamp to their own bounds after the packs (a value such as 100 must saturate to 7 for i4
/// and 15 for u4, not pass as a byte): their bounds, ties and the byte integers' classes,
/// saturating, at every deterministic mode, at lengths that end mid-step and mid-byte.
#[test]
fn four_bit_ints_saturate_to_their_own_bounds_unpacked_and_packed() {
    let ties = tie_codes();
    for (k, dst) in [Format::I4, Format::U4].into_iter().enumerate() {
        let mut classes = int_classes(dst);
        classes.extend(byte_int_classes(Format::I8));
        // finite and below 2^15 in magnitude: the lean steps throughout
        let fast: Vec<u32> = classes
            .iter()
            .copied()
            .filter(|&c| f32::from_bits(c).abs() < 32768.0)
            .collect();
        let codes = mixed(&classes, 57 + k as u64);
        for layout in [Layout::Unpacked, Layout::Packed] {
            let d = Storage::new(dst, layout).expect("4-bit ints take both layouts");
            for mode in modes().into_iter().filter(|&m| m != RoundMode::Odd) {
                for policy in policies(mode) {
                    assert_equals_reference(&codes, d, &policy);
                    assert_equals_reference(&fast, d, &policy);
                    assert_equals_reference(&fast[..fast.len() - 1], d, &policy);
                    assert_equals_reference(&ties, d, &policy);
                }
            }
        }
    }
}

#[test]
fn every_length_up_to_200_and_some_odd_large_ones_equal_the_reference() {
    let mut cases: Vec<(Storage, CastPolicy)> = Vec::new();
    for dst in [
        Format::F8E4M3FN,
        Format::F8E5M2,
        Format::F4E2M1,
        Format::F4E1M2,
    ] {
        for d in layouts(dst) {
            for mode in [
                RoundMode::Rint,
                RoundMode::Floor,
                RoundMode::Odd,
                RoundMode::Round,
            ] {
                cases.push((d, CastPolicy::new(mode)));
            }
            cases.push((d, CastPolicy::saturating(RoundMode::Rint)));
        }
    }
    for dst in BYTE_INTS {
        for mode in [RoundMode::Rint, RoundMode::Ceil, RoundMode::Round] {
            cases.push((Storage::native(dst), CastPolicy::new(mode)));
        }
    }
    let pool = mixed(&float_classes(Format::F8E4M3FN), 3);
    let big = random_f32(40_001, 17);
    for (d, policy) in cases {
        for n in 0..=200 {
            assert_equals_reference(&pool[..n], d, &policy);
        }
        for n in [257, 4097, 40_001] {
            assert_equals_reference(&big[..n], d, &policy);
        }
    }
}
