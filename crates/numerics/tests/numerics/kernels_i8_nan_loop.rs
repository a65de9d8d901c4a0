//! The AVX-512 f32 → i8 loop's NaN loop (issue 23 / 25 part 5): entered from the plain loop at
//! a step with NaN or +Inf, it casts NaN and ±Inf lanes with no branch, counts in byte
//! counters summed every 15 steps, hands back to the plain loop after a block of 15 steps
//! without NaN or ±Inf, and leaves for the special loop at a step with a finite value at or
//! beyond a bound. Cast at the best level and by the reference routine, codes and status
//! counts must agree bit for bit, in every deterministic mode under the standard policies:
//!
//! - on long runs with a NaN (quiet, signalling, negative, with payloads) or ±Inf in about
//!   1 % of the lanes, with a value at or beyond a bound (or 2^16 and its neighbours, the
//!   stand-in of +Inf) at every step of a 15-step block;
//! - on runs that fill every byte counter to its limit: steps of exact lanes, of flushed
//!   lanes, of inexact lanes and of ±Inf lanes, each with one NaN per step.

use crate::kernel_support::{level_here, xorshift};
use crate::kernels_i8_widen_steps::assert_i8_equals_reference_from;

use npusim_numerics::bulk::SimdLevel;

const STEP: usize = 64;

const SPECIALS: [u32; 7] = [
    0x7FC0_0000, // quiet NaN
    0xFF80_0001, // signalling NaN, negative
    0x7F80_0000, // +Inf
    0xFF80_0000, // −Inf
    0xFFC1_2345, // quiet NaN, negative, payload
    0x7F80_4321, // signalling NaN with a payload
    0x7F80_0000, // +Inf again (its code is the only one fixed up to 127)
];

/// `n` values below 12 in magnitude, some integers, ±0, tiny ones (flushed) and halves
/// (ties), with a NaN or ±Inf in about 1 % of the lanes.
fn normal_1pct(n: usize, seed: u64) -> Vec<u32> {
    let mut next = xorshift(seed);
    (0..n)
        .map(|_| {
            let x = next();
            let v = ((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 24.0;
            if x.is_multiple_of(100) {
                return SPECIALS[(x >> 8) as usize % SPECIALS.len()];
            }
            match x % 11 {
                0 => v.trunc(),
                1 => v * 1.0e-30,
                2 => 0.0f32.copysign(v),
                3 => v.trunc() + 0.5,
                4 => (v * 1.0e-3).max(-0.999),
                _ => v,
            }
            .to_bits()
        })
        .collect()
}

#[test]
fn i8_nan_loop_leaves_at_every_step_of_a_block_and_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let beyond = [
        127.5f32,
        -128.5,
        -128.0,
        127.0,
        65536.0,
        65535.0,
        65537.0,
        1.0e10,
        f32::MAX,
        -2_147_483_648.0,
    ];
    let mut codes = Vec::new();
    for at in 0..17 {
        // a NaN first, so that the plain loop leaves at once
        let mut run = normal_1pct(STEP * 20, 300 + at as u64);
        run[5] = SPECIALS[0];
        run[STEP * at + 7 + at] = beyond[at % beyond.len()].to_bits();
        codes.extend(run);
        // a stretch without NaN or ±Inf (back to the plain loop), then NaN again
        codes.extend(
            normal_1pct(STEP * 33, 500 + at as u64)
                .into_iter()
                .map(|c| if f32::from_bits(c).is_finite() { c } else { 0 }),
        );
    }
    assert_i8_equals_reference_from(&codes, &[0, 64, 21], "NaN loop, a bound at each step");
}

#[test]
fn i8_nan_loop_byte_counters_at_their_limit_equal_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let lanes: [fn(usize) -> f32; 5] = [
        |i| (i % 200) as f32 - 100.0,                  // exact
        |i| (i % 7) as f32 * -1.0e-20,                 // flushed (or ±0 exact)
        |i| (i % 50) as f32 + 0.25,                    // inexact
        |i| [f32::INFINITY, f32::NEG_INFINITY][i % 2], // ±Inf
        |i| (i % 90) as f32 * 0.7 - 31.0,              // a mix
    ];
    let mut codes = Vec::new();
    for f in lanes {
        for i in 0..STEP * 47 {
            // one NaN per step keeps the loop in its NaN part
            codes.push(if i % STEP == 9 {
                SPECIALS[0]
            } else {
                f(i).to_bits()
            });
        }
    }
    assert_i8_equals_reference_from(&codes, &[0, 64, 3], "NaN loop, full counters");
}
