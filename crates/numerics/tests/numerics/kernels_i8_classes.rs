//! The AVX-512 f32 → i8 loop's lane classes (issue 25, part 5): its special loop tells a
//! lane's class (exact, inexact, NaN, ±Inf) from the difference between the conversion and
//! the value, narrowed to a byte, and counts from byte masks. Lanes drawn at random from
//! every input class — ±0, subnormals, ties, exact integers, values next to the band's
//! edges, NaN with payloads of both signs (quiet and signalling), ±Inf, and in some runs
//! finite values at or beyond a bound (±127.5, ±2^16, ±2^31, ±MAX) — mixed into normal
//! steps at several densities, cast at the best level and by the reference routine in every
//! deterministic mode under the three standard policies: codes and status counts must agree
//! bit for bit.

use crate::kernel_support;
use crate::kernels_i8_widen_steps::assert_i8_equals_reference_from;
use kernel_support::{level_here, xorshift};

use npusim_numerics::bulk::SimdLevel;

/// Special and edge values whose codes stay within the band `[-127, 126]` or are ±Inf /
/// NaN: the loop's common path, which counts from the class bytes alone.
fn in_band_pool() -> Vec<u32> {
    let mut pool: Vec<u32> = [
        0.0f32,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.49999997,
        -0.49999997,
        1.0,
        -1.0,
        126.0,
        -127.0,
        125.5,
        -126.5,
        126.4,
        -126.6,
        1.0e-30,
        -1.0e-30,
        3.0,
        -7.0,
        99.75,
        -0.75,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect();
    pool.extend([
        0x0000_0001, // the smallest subnormal
        0x8000_0001,
        0x007F_FFFF, // the largest subnormal
        0x807F_FFFF,
        0x0080_0000, // the smallest normal
        0x7F80_0000, // +Inf
        0xFF80_0000, // −Inf
        0x7FC0_0000, // quiet NaN
        0xFFC0_0000,
        0x7FC1_2345, // NaN payloads
        0xFFFF_FFFF,
        0x7F80_0001, // signalling NaN
        0xFF80_0001,
        0x7FBF_FFFF,
    ]);
    pool
}

/// Finite values at or beyond a bound of i8 (the loop's other path).
fn beyond_pool() -> Vec<u32> {
    [
        127.0f32,
        -128.0,
        127.5,
        -128.5,
        126.5,
        -127.5,
        127.3,
        -128.3,
        65536.0,
        -65536.0,
        65536.5,
        2_147_483_648.0,
        -2_147_483_648.0,
        2_147_483_520.0,
        1.0e10,
        f32::MAX,
        f32::MIN,
        300.0,
        -1000.25,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect()
}

/// `n` codes: normal values (magnitude below 16) with, in each lane, a draw from `pool` at
/// odds `1 / every`.
fn mixed(n: usize, pool: &[u32], every: u64, seed: u64) -> Vec<u32> {
    let mut next = xorshift(seed);
    (0..n)
        .map(|_| {
            let x = next();
            if (x >> 7).is_multiple_of(every) {
                pool[(x >> 32) as usize % pool.len()]
            } else {
                (((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 32.0).to_bits()
            }
        })
        .collect()
}

#[test]
fn i8_on_lanes_of_every_class_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let inside = in_band_pool();
    let mut all = inside.clone();
    all.extend(beyond_pool());
    for (pool, what) in [(&inside, "in band"), (&all, "with values beyond")] {
        // one in a hundred (normal steps, the special loop now and then), one in eight and
        // every lane
        for (every, seed) in [(100, 1), (8, 2), (1, 3)] {
            let codes = mixed(64 * 60 + 21, pool, every, seed);
            assert_i8_equals_reference_from(&codes, &[0, 5], &format!("{what}, 1 in {every}"));
        }
    }
    // a run of steps whose lanes are all special (NaN, ±Inf) or all in-band edge values,
    // after a plain run and before one finite value beyond a bound
    let mut codes = mixed(64 * 20, &inside, 1, 4);
    codes.extend(mixed(64 * 8, &inside, 1_000_000, 5));
    codes.push(1.0e10f32.to_bits());
    codes.extend(mixed(64 * 8 + 3, &inside, 3, 6));
    assert_i8_equals_reference_from(&codes, &[0, 1, 63], "runs");
}
