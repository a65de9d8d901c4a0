//! The AVX2 loop of f32 → i8 to nearest even, saturating (`x86_avx2::f32_i8`, kernel name
//! `f32-int-avx2`), takes one of two rules per 32-element step: the byte rule (codes and
//! statuses read off the packed codes, the inexact lanes and the lanes the clamp moved; ±Inf
//! and NaN counted apart, NaN codes set by mask) and, for a step with an inexact lane at a
//! bound that the clamp did not move, the general rule. Each kind of step is built here, alone and next to the
//! others, and cast at the AVX2 level and by the reference routine: codes and status counts
//! must agree bit for bit, under every policy of the modes the loop serves (and the wrapping
//! one, which the general loop takes), from the first element and from an unaligned start,
//! whole and with a tail, streamed and not, and over more steps than the byte counters hold.

use crate::kernel_support;
use kernel_support::{
    all_policies, assert_same_codes, bytes, f32s, level_here, nan_inf_codes, options, xorshift32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

/// Elements per step of the loop.
const STEP: usize = 32;

/// The policies of the modes the loop serves (`rint`, `none`), Inf and NaN rules varied.
fn served_policies() -> Vec<CastPolicy> {
    all_policies()
        .into_iter()
        .filter(|p| matches!(p.round, RoundMode::Rint | RoundMode::None))
        .collect()
}

/// 32 values whose rounded values lie strictly inside `[−128, 127]` and away from its
/// bounds: zeros of both signs, f32 subnormals, halves (ties), fractions, integers, and
/// random values in `(−127.5, 126.5)`.
fn inside_step(seed: u32) -> Vec<u32> {
    let mut v: Vec<u32> = [
        0.0f32, -0.0, 0.25, 0.5, -0.5, 1.5, -2.5, 2.5, 126.0, -127.0, 126.49, -127.49, 0.75,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    v.extend([1, 0x8000_0001, 0x007F_FFFF]);
    let mut r = xorshift32(seed);
    while v.len() < STEP {
        let t = (r() >> 8) as f32 / (1u32 << 24) as f32;
        v.push((-127.4 + t * 253.8f32).to_bits());
    }
    v
}

/// The bench's kind of data: a random sign and mantissa over the binades 2^-20 to 2^11
/// (a sixth of it beyond the range, most of it flushed to zero).
fn weights(n: usize, seed: u32) -> Vec<u32> {
    let mut r = xorshift32(seed);
    (0..n)
        .map(|_| {
            let x = r();
            let e = 107 + (x >> 27) % 32;
            (x & 0x8000_0000) | (e << 23) | (r() & 0x7F_FFFF)
        })
        .collect()
}

/// Finite values at, near or beyond a bound, each with its neighbours one code away: the
/// bounds, the halves around them, the clamp's own bounds (−128.5 and the largest f32
/// below 127.5), values beyond ±2^31 and the largest f32.
fn rare_finite() -> Vec<u32> {
    let mut v = Vec::new();
    for x in [
        127.0f32,
        -128.0,
        127.5,
        -128.5,
        126.5,
        -127.5,
        128.0,
        -129.0,
        128.5,
        -129.5,
        f32::from_bits(0x42FE_FFFF),
        127.25,
        -128.25,
        300.0,
        -300.0,
        2147483648.0,
        -2147483648.0,
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

/// Steps of every kind, one after another (32 codes each).
fn steps() -> Vec<u32> {
    let mut out = Vec::new();
    let mut seed = 11u32;
    let mut inside = || {
        seed = seed.wrapping_mul(747_796_405).wrapping_add(1);
        inside_step(seed)
    };
    for _ in 0..4 {
        out.extend(inside());
    }
    // one special at the first, a middle and the last lane, alone and with a value beyond
    // the range and with one at a bound
    for s in nan_inf_codes() {
        for at in [0usize, 13, 31] {
            let mut step = inside();
            step[at] = s;
            out.extend(step.iter().copied());
            step[(at + 7) % STEP] = 1000.0f32.to_bits();
            out.extend(step.iter().copied());
            step[(at + 9) % STEP] = 127.25f32.to_bits();
            out.extend(step);
        }
    }
    // all −Inf (a causal mask's tail), all +Inf, all NaN, NaN with ±Inf, ±Inf with values
    // beyond the range, −Inf with one NaN
    let (neg, pos, nan) = (0xFF80_0000u32, 0x7F80_0000u32, 0x7FC0_0000u32);
    out.extend([neg; STEP]);
    out.extend([pos; STEP]);
    out.extend([nan; STEP]);
    out.extend((0..STEP).map(|i| [neg, pos, nan][i % 3]));
    out.extend((0..STEP).map(|i| [neg, pos, 0x4480_0000, 0xC480_0000][i % 4]));
    out.extend((0..STEP).map(|i| if i == 20 { nan } else { neg }));
    // a causal mask row crossing steps: finite values, then −Inf
    out.extend(inside().into_iter().take(19));
    out.extend([neg; 13 + STEP]);
    // finite lanes whose sum is not finite (no special lane): the largest f32, both signs
    out.extend([f32::MAX.to_bits(); STEP]);
    out.extend((0..STEP).map(|i| if i % 2 == 0 { f32::MAX } else { f32::MIN }.to_bits()));
    // one rare finite lane in an inside step, alone and with a special
    for r in rare_finite() {
        for at in [0usize, 21] {
            let mut step = inside();
            step[at] = r;
            out.extend(step.iter().copied());
            step[5] = nan_inf_codes()[r as usize % 7];
            out.extend(step);
        }
    }
    // a step of rare finite lanes only, and the bench's kind of data
    let rare = rare_finite();
    out.extend((0..STEP).map(|i| rare[(5 * i) % rare.len()]));
    out.extend(weights(8 * STEP, 3));
    out
}

/// The AVX2 level equals the reference on `codes` into i8 under `policy`, serial (and
/// streamed: [`kernel_support::cast`] runs both).
fn assert_avx2_equals_reference(codes: &[u32], policy: &CastPolicy, parallel: bool) {
    let d = Storage::native(Format::I8);
    let src = bytes(codes);
    let n = codes.len();
    let run = |k| kernel_support::cast(&src, f32s(), d, n, policy, &options(k, parallel));
    let want = run(KernelChoice::Reference);
    let got = run(KernelChoice::Level(SimdLevel::Avx2));
    assert_same_codes(&got, &want, codes, d, &format!("{policy:?} n={n}"));
}

#[test]
fn i8_to_nearest_even_runs_the_avx2_integer_kernel() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    let d = Storage::native(Format::I8);
    for policy in served_policies() {
        let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx2);
        assert_eq!(name, "f32-int-avx2", "{policy:?}");
    }
}

#[test]
fn every_kind_of_i8_step_at_avx2_equals_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    let codes = steps();
    assert_eq!(codes.len() % STEP, 0);
    for policy in served_policies() {
        assert_avx2_equals_reference(&codes, &policy, false);
        assert_avx2_equals_reference(&codes[5..], &policy, false);
        assert_avx2_equals_reference(&codes[..codes.len() - 13], &policy, false);
    }
    for mode in [RoundMode::Rint, RoundMode::None] {
        // the wrapping policy (the general loop)
        assert_avx2_equals_reference(&codes, &CastPolicy::non_saturating(mode), false);
    }
}

/// More steps than the byte counters hold between two flushes (255), of the bench's kind of
/// data with specials and bound lanes scattered through it, serial and split over threads.
#[test]
fn long_i8_runs_at_avx2_equal_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    let mut codes = weights(1000 * STEP + 7, 5);
    let mut r = xorshift32(9);
    let rare: Vec<u32> = rare_finite().into_iter().chain(nan_inf_codes()).collect();
    for _ in 0..300 {
        let at = r() as usize % codes.len();
        codes[at] = rare[r() as usize % rare.len()];
    }
    // every lane inexact and flushed for 600 steps: the counters' largest sums
    codes.extend(std::iter::repeat_n(0.25f32.to_bits(), 600 * STEP));
    for policy in [
        CastPolicy::new(RoundMode::Rint),
        CastPolicy::saturating(RoundMode::None),
    ] {
        assert_avx2_equals_reference(&codes, &policy, false);
        assert_avx2_equals_reference(&codes, &policy, true);
    }
    let all = kernel_support::random_f32(1 << 16, 13);
    assert_avx2_equals_reference(&all, &CastPolicy::new(RoundMode::Rint), false);
}
