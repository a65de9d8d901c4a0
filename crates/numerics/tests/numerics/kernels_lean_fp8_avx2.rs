//! The AVX2 level's lean loop of f32 → small floats to nearest even, one code per byte with
//! overflow clamped (`x86_avx2::f32_small_float_lean`, kernel name `f32-float-avx2`), reads
//! the statuses off packed bytes: the code with an inexact bit, and the code xor the packed
//! rounding direction (a lane rounded down to the largest finite code saturates). A step with
//! a NaN or ±Inf lane or an exact overflow takes blends. Each kind of step is built here, alone
//! and next to the others, and cast at the AVX2 level and by the reference routine: codes and
//! status counts must agree bit for bit, under every policy of every mode (the other modes
//! and layouts take the scaled and integer loops), from the first element and from an
//! unaligned start, whole and with a tail, streamed and not, and over more steps than the
//! byte counters hold.

use crate::kernel_support;
use kernel_support::{
    all_policies, assert_same_codes, bytes, f32s, float_classes, layouts, level_here,
    nan_inf_codes, options, xorshift32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

/// Elements per step of the loop.
const STEP: usize = 32;

/// Destinations of one code per byte the loop serves.
const DSTS: [Format; 4] = [
    Format::F8E4M3FN,
    Format::F8E5M2,
    Format::F6E2M3FN,
    Format::F6E3M2FN,
];

/// The bench's kind of data: a random sign and mantissa over the binades 2^-20 to 2^11 (e4m3fn:
/// a tenth beyond its range, a third flushed to zero), here to 2^17 (beyond e5m2's too).
fn weights(n: usize, seed: u32) -> Vec<u32> {
    let mut r = xorshift32(seed);
    (0..n)
        .map(|_| {
            let x = r();
            let e = 107 + (x >> 27) % 38;
            (x & 0x8000_0000) | (e << 23) | (r() & 0x7F_FFFF)
        })
        .collect()
}

/// Finite values at `dst`'s bounds with their f32 neighbours: its boundary classes (largest
/// value, the ties around it, beyond it, smallest subnormal, halves of it, ±0, f32
/// subnormals), exact overflows (powers of two beyond its range and the largest f32), both
/// signs.
fn rare_finite(dst: Format) -> Vec<u32> {
    let mut v = Vec::new();
    for c in float_classes(dst) {
        if c & 0x7F80_0000 == 0x7F80_0000 {
            continue;
        }
        for k in [c.wrapping_sub(1), c, c.wrapping_add(1)] {
            if k & 0x7F80_0000 != 0x7F80_0000 {
                v.extend([k, k ^ 0x8000_0000]);
            }
        }
    }
    for e in [144u32, 150, 160, 200, 254] {
        v.extend([e << 23, 0x8000_0000 | (e << 23)]);
    }
    v.extend([f32::MAX.to_bits(), f32::MIN.to_bits()]);
    v
}

/// Steps of every kind for `dst`, one after another (32 codes each).
fn steps(dst: Format) -> Vec<u32> {
    let mut out = Vec::new();
    let mut seed = 11u32;
    let mut plain = || {
        seed = seed.wrapping_mul(747_796_405).wrapping_add(1);
        weights(STEP, seed)
    };
    for _ in 0..4 {
        out.extend(plain());
    }
    let rare = rare_finite(dst);
    // one special at the first, a middle and the last lane, alone and with rare finite lanes
    for (i, s) in nan_inf_codes().into_iter().enumerate() {
        for at in [0usize, 13, 31] {
            let mut step = plain();
            step[at] = s;
            out.extend(step.iter().copied());
            step[(at + 7) % STEP] = rare[(3 * i + at) % rare.len()];
            out.extend(step.iter().copied());
            step[(at + 9) % STEP] = rare[(5 * i + at + 1) % rare.len()];
            out.extend(step);
        }
    }
    // all −Inf (a causal mask's tail), all +Inf, all NaN, NaN with ±Inf, ±Inf with exact
    // overflows, −Inf with one NaN
    let (neg, pos, nan) = (0xFF80_0000u32, 0x7F80_0000u32, 0x7FC0_0000u32);
    out.extend([neg; STEP]);
    out.extend([pos; STEP]);
    out.extend([nan; STEP]);
    out.extend((0..STEP).map(|i| [neg, pos, nan][i % 3]));
    out.extend((0..STEP).map(|i| [neg, pos, 150 << 23, 0x8000_0000 | (160 << 23)][i % 4]));
    out.extend((0..STEP).map(|i| if i == 20 { nan } else { neg }));
    // a causal mask row crossing steps: finite values, then −Inf
    out.extend(plain().into_iter().take(19));
    out.extend([neg; 13 + STEP]);
    // one rare finite lane in a plain step, at every lane, alone and with a special
    for (i, r) in rare.iter().enumerate() {
        let at = i % STEP;
        let mut step = plain();
        step[at] = *r;
        out.extend(step.iter().copied());
        step[(at + 5) % STEP] = nan_inf_codes()[i % 7];
        out.extend(step);
    }
    // steps of rare finite lanes only
    for k in 0..rare.len().div_ceil(STEP) {
        out.extend((0..STEP).map(|i| rare[(k * STEP + 7 * i) % rare.len()]));
    }
    out.extend(weights(8 * STEP, 3));
    out
}

/// The AVX2 level equals the reference on `codes` into `d` under `policy`, serial or split
/// over threads (and streamed: [`kernel_support::cast`] runs both).
fn assert_avx2_equals_reference(codes: &[u32], d: Storage, policy: &CastPolicy, parallel: bool) {
    let src = bytes(codes);
    let n = codes.len();
    let run = |k| kernel_support::cast(&src, f32s(), d, n, policy, &options(k, parallel));
    let want = run(KernelChoice::Reference);
    let got = run(KernelChoice::Level(SimdLevel::Avx2));
    assert_same_codes(&got, &want, codes, d, &format!("{d:?} {policy:?} n={n}"));
}

#[test]
fn every_kind_of_small_float_step_at_avx2_equals_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    for dst in DSTS {
        let codes = steps(dst);
        assert_eq!(codes.len() % STEP, 0);
        for d in layouts(dst) {
            for policy in all_policies() {
                if policy.round == RoundMode::Rint {
                    let name = kernel_name_at(f32s(), d, &policy, SimdLevel::Avx2);
                    assert_eq!(name, "f32-float-avx2", "{d:?} {policy:?}");
                }
                assert_avx2_equals_reference(&codes, d, &policy, false);
                assert_avx2_equals_reference(&codes[5..], d, &policy, false);
                assert_avx2_equals_reference(&codes[..codes.len() - 13], d, &policy, false);
            }
        }
    }
}

/// More steps than the byte counters hold between two flushes (255), of the bench's kind of
/// data with specials and rare finite lanes scattered through it, serial and split over
/// threads; then runs where every lane counts in one counter (flushed, saturated, overflowing).
#[test]
fn long_small_float_runs_at_avx2_equal_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    for dst in [Format::F8E4M3FN, Format::F8E5M2] {
        let d = Storage::native(dst);
        let mut codes = weights(1000 * STEP + 7, 5);
        let mut r = xorshift32(9);
        let rare: Vec<u32> = rare_finite(dst)
            .into_iter()
            .chain(nan_inf_codes())
            .collect();
        for _ in 0..300 {
            let at = r() as usize % codes.len();
            codes[at] = rare[r() as usize % rare.len()];
        }
        // largest finite magnitude of `dst` and the f32 just above it (saturates or overflows)
        let max = float_classes(dst)
            .into_iter()
            .filter(|c| c & 0x7F80_0000 != 0x7F80_0000)
            .max_by(|a, b| {
                f32::from_bits(a & 0x7FFF_FFFF).total_cmp(&f32::from_bits(b & 0x7FFF_FFFF))
            })
            .map(|c| c & 0x7FFF_FFFF)
            .expect("finite classes");
        for v in [
            f32::MIN_POSITIVE.to_bits(),
            max + 1,
            0x8000_0000 | (max + 1),
            200 << 23,
        ] {
            codes.extend(std::iter::repeat_n(v, 600 * STEP));
        }
        for mode in [RoundMode::Rint, RoundMode::Odd] {
            for policy in [CastPolicy::new(mode), CastPolicy::saturating(mode)] {
                assert_avx2_equals_reference(&codes, d, &policy, false);
                assert_avx2_equals_reference(&codes, d, &policy, true);
            }
        }
    }
    let all = kernel_support::random_f32(1 << 16, 13);
    for policy in all_policies()
        .into_iter()
        .filter(|p| p.round == RoundMode::Rint)
    {
        assert_avx2_equals_reference(&all, Storage::native(Format::F8E4M3FN), &policy, false);
    }
}
