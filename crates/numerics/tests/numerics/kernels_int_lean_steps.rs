//! The AVX-512 lean loop of saturating f32 → i8 / u8 / i4 / u4 (`f32-int-avx512`) takes one
//! of three rules per 64-element step: inside (every rounded value strictly between the
//! bounds: only exact and flushed are counted), NaN / ±Inf (the lanes outside that band all
//! NaN or ±Inf: their codes set by mask, counted by class), and the whole rule (any finite
//! lane at or beyond a bound, with or without NaN / ±Inf; its values beyond ±2^31 among them).
//! Each kind of step is built on purpose here, alone and next to the others, and cast at the
//! best level and by the reference routine: codes and status counts must agree bit for bit,
//! in every deterministic mode the kernel serves, under the three standard policies (the
//! wrapping one takes the full rule), unpacked and packed, from the first element and from
//! an unaligned start, whole and with a tail.

use crate::kernel_support;
use kernel_support::{
    assert_same_codes, bytes, f32s, layouts, level_here, nan_inf_codes, options, policies,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

/// The lean loop's destinations.
const LEAN_INTS: [Format; 4] = [Format::I8, Format::U8, Format::I4, Format::U4];

/// Every deterministic mode the integer kernel serves (not `odd`), `none` included.
fn modes() -> Vec<RoundMode> {
    let mut v: Vec<RoundMode> = RoundMode::DETERMINISTIC
        .into_iter()
        .filter(|&m| m != RoundMode::Odd)
        .collect();
    v.push(RoundMode::None);
    v
}

/// The bounds of `d` as f32.
fn bounds(d: Format) -> (f32, f32) {
    match d {
        Format::I8 => (-128.0, 127.0),
        Format::U8 => (0.0, 255.0),
        Format::I4 => (-8.0, 7.0),
        _ => (0.0, 15.0),
    }
}

/// 64 values strictly inside the band of `d` in every mode (rounded values within
/// `[lo + 1, hi − 1]`): zeros of both signs, f32 subnormals, small fractions and halves,
/// integers, and the band's edges (`lo + 1`, `hi − 1` and a quarter inside them).
fn inside_step(d: Format, seed: u32) -> Vec<u32> {
    let (lo, hi) = bounds(d);
    let mut v = vec![
        0.0f32,
        -0.0,
        f32::from_bits(1),
        0.25,
        0.5,
        0.75,
        1.0,
        1.5,
        2.5,
        lo + 1.0,
        hi - 1.0,
        lo + 1.25,
        hi - 1.25,
        (lo + hi) / 2.0,
    ];
    if lo < 0.0 {
        v.extend([-f32::from_bits(1), -0.25, -0.5, -0.75, -1.0, -1.5, -2.5]);
    }
    let mut x = seed | 1;
    while v.len() < 64 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        // within [lo + 1.25, hi − 1.25]
        let t = (x >> 8) as f32 / (1u32 << 24) as f32;
        v.push(lo + 1.25 + t * (hi - lo - 2.5));
    }
    v.into_iter().map(f32::to_bits).collect()
}

/// Finite values at or beyond a bound of `d` (or on the edge of its band), each with its
/// neighbours one code away: the bounds, halves around them (±127.5, ±128.5 and their
/// likes for each destination), values beyond them, where the 16-bit packs saturate, and
/// beyond ±2^31 where the conversion gives 0x80000000; negative fractions (unsigned).
fn rare_finite(d: Format) -> Vec<u32> {
    let (lo, hi) = bounds(d);
    let mut v = Vec::new();
    for x in [
        lo,
        hi,
        lo - 0.5,
        hi + 0.5,
        lo + 0.5,
        hi - 0.5,
        lo - 1.0,
        hi + 1.0,
        127.5,
        128.5,
        -127.5,
        -128.5,
        126.5,
        255.5,
        254.5,
        -0.3,
        -0.5,
        -0.7,
        -1.0,
        300.0,
        -300.0,
        32767.5,
        -32768.5,
        65536.0,
        2147483648.0,
        -2147483648.0,
        3.0e9,
        -3.0e9,
        1.0e20,
        -1.0e20,
        f32::MAX,
        f32::MIN,
    ] {
        let c = x.to_bits();
        v.extend([c.wrapping_sub(1), c, c.wrapping_add(1)]);
    }
    v
}

/// Steps of every kind for `d`, one after another (64 codes each).
fn steps(d: Format) -> Vec<u32> {
    let mut out = Vec::new();
    let mut seed = 7u32;
    let mut inside = || {
        seed = seed.wrapping_mul(747_796_405).wrapping_add(1);
        inside_step(d, seed)
    };
    // inside steps
    for _ in 0..4 {
        out.extend(inside());
    }
    // NaN / ±Inf steps: one special at the first, a middle and the last lane, and several
    for s in nan_inf_codes() {
        for at in [0usize, 17, 63] {
            let mut step = inside();
            step[at] = s;
            out.extend(step);
        }
    }
    let mut step = inside();
    for (k, s) in nan_inf_codes().into_iter().enumerate() {
        step[9 * k] = s;
    }
    out.extend(step);
    // all −Inf (a causal mask's tail), all +Inf, all NaN, NaN with ±Inf, −Inf with NaN
    let (neg, pos, nan) = (0xFF80_0000u32, 0x7F80_0000u32, 0x7FC0_0000u32);
    out.extend([neg; 64]);
    out.extend([pos; 64]);
    out.extend([nan; 64]);
    out.extend((0..64).map(|i| [neg, pos, nan][i % 3]));
    out.extend((0..64).map(|i| if i == 40 { nan } else { neg }));
    // a causal mask row crossing steps: finite values, then −Inf
    out.extend(inside().into_iter().take(37));
    out.extend([neg; 27 + 64]);
    // the whole rule: one finite rare lane in an inside step, alone and with a special
    for r in rare_finite(d) {
        let mut step = inside();
        step[33] = r;
        out.extend(step.iter().copied());
        step[5] = nan_inf_codes()[r as usize % 7];
        out.extend(step);
    }
    // a step of rare finite lanes only
    let rare = rare_finite(d);
    out.extend((0..64).map(|i| rare[(5 * i) % rare.len()]));
    out
}

/// The best level equals the reference on `codes` into `dst` under `policy`.
fn assert_equals_reference(codes: &[u32], d: Storage, policy: &CastPolicy) {
    let src = bytes(codes);
    let n = codes.len();
    let run = |k| kernel_support::cast(&src, f32s(), d, n, policy, &options(k, false));
    let want = run(KernelChoice::Reference);
    let got = run(KernelChoice::Level(SimdLevel::best()));
    assert_same_codes(&got, &want, codes, d, &format!("{policy:?} n={n}"));
}

#[test]
fn the_lean_destinations_run_the_avx512_integer_kernel() {
    let avx512 = level_here(SimdLevel::Avx512);
    for dst in LEAN_INTS {
        for d in layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx512);
                    let want = if avx512 { "f32-int-avx512" } else { name };
                    assert_eq!(name, want, "{d:?} {policy:?}");
                }
            }
        }
    }
}

#[test]
fn every_kind_of_step_equals_the_reference() {
    for dst in LEAN_INTS {
        let codes = steps(dst);
        assert_eq!(codes.len() % 64, 0);
        for d in layouts(dst) {
            for mode in modes() {
                for policy in policies(mode) {
                    // from the first element (steps as built), from an unaligned start
                    // (steps straddled), and with a tail cast per element
                    assert_equals_reference(&codes, d, &policy);
                    assert_equals_reference(&codes[5..], d, &policy);
                    assert_equals_reference(&codes[..codes.len() - 23], d, &policy);
                }
            }
        }
    }
}

/// The ±127.5 / ±128.5 boundaries of i8 (and ±0.5, 254.5, 255.5 of u8) with their
/// neighbours, in every lane position of an otherwise inside step, in every mode: where
/// the rounded value lands on a bound, beyond it, or just inside.
#[test]
fn the_boundaries_in_every_lane_and_mode_equal_the_reference() {
    for dst in [Format::I8, Format::U8] {
        let mut codes = Vec::new();
        for x in [
            127.5f32, 128.5, -127.5, -128.5, 126.5, -126.5, 254.5, 255.5, -0.5, 0.5,
        ] {
            let c = x.to_bits();
            for r in [c - 1, c, c + 1] {
                for at in 0..64 {
                    let mut step = inside_step(dst, r ^ at as u32);
                    step[at] = r;
                    codes.extend(step);
                }
            }
        }
        let d = Storage::native(dst);
        for mode in modes() {
            assert_equals_reference(&codes, d, &CastPolicy::new(mode));
        }
    }
}
