//! The four-step loops of the f32 → f16 and f32 → bf16 kernels at AVX-512 (issue 25, parts
//! 4 and 5: four 16-lane steps converted and sorted at once, the counters folded once per
//! block of 128 steps) equal the reference bit for bit, codes and status counts, at every
//! level this machine has, in every deterministic mode under the three standard policies.
//! The data puts a different kind of four steps in every 64 elements: all in the f16 normal
//! band; ±Inf alone (a causal mask's −∞, both signs); ±Inf alone but for one lane that is
//! finite, NaN or small; the band with one NaN or ±Inf lane, with or without a small lane in
//! another step; a finite overflow or a value reaching the largest finite code; NaN alone;
//! f16 subnormals with NaN. The special lane moves through every position of the four steps,
//! and the lengths cross block boundaries and end in one, two or three lone steps and a
//! tail of fewer than 16.

use crate::kernel_support::{assert_f32_storages_at_all_levels, random_f32};
use npusim_numerics::{Format, RoundMode, Storage};

/// Lengths: two blocks and more with three lone steps and a tail, one step short of a block,
/// two lone steps, one lone step and a one-element tail.
const LENGTHS: [usize; 4] = [
    2 * 2048 + 64 * 3 + 16 * 3 + 7,
    2048 - 16,
    64 * 5 + 32,
    64 * 9 + 17,
];

/// Kinds of four steps, one per 64 elements in turn.
const KINDS: usize = 12;

/// NaNs: quiet and signalling, both signs, payloads only in the bits f16 or bf16 drop.
const NANS: [u32; 5] = [
    0x7FC0_0000,
    0xFFC0_0001,
    0x7F80_0001,
    0xFF80_FFFF,
    0x7FFF_FFFF,
];

/// A magnitude in the f16 normal band (binades 2^−13 to 2^14), from the random word `x`,
/// with its sign; every fourth one exact in f16.
fn band(x: u32, i: usize) -> u32 {
    let e = 114 + (x >> 23) % 28;
    let c = (x & 0x807F_FFFF) | (e << 23);
    if i.is_multiple_of(4) {
        c & 0xFFFF_E000
    } else {
        c
    }
}

/// An f16 subnormal magnitude (binades 2^−20 to 2^−15) from `x`, with its sign.
fn small(x: u32) -> u32 {
    (x & 0x807F_FFFF) | ((107 + (x >> 23) % 6) << 23)
}

/// `n` f32 codes, the 64 elements from `64 q` of kind `q % KINDS`, the odd lane at `q % 64`.
fn quads(n: usize, seed: u64) -> Vec<u32> {
    let r = random_f32(n, seed);
    (0..n)
        .map(|i| {
            let (q, lane) = (i / 64, i % 64);
            let x = r[i];
            let odd = lane == (7 * q + 3) % 64;
            let other = lane == (13 * q + 40) % 64;
            let nan = NANS[q % NANS.len()];
            let inf = if q % 2 == 0 { 0xFF80_0000 } else { 0x7F80_0000 };
            match q % KINDS {
                0 => band(x, i),
                1 => 0xFF80_0000,
                2 => inf ^ (x & 0x8000_0000),
                3 if odd => band(x, i),
                4 if odd => nan,
                5 if odd => small(x),
                3..=5 => 0xFF80_0000,
                6 if odd => nan,
                7 if odd => inf,
                7 if other => small(x),
                8 if odd => 0x477F_F000 | (x & 0x8000_0000),
                8 if other => 0x477F_E000,
                9 => nan,
                10 if odd || other => nan,
                10 => small(x),
                11 if odd => 0x7F7F_FFFF,
                11 if other => 0x0000_0001,
                _ => band(x, i),
            }
        })
        .collect()
}

#[test]
fn f16_four_step_kinds_equal_the_reference_at_every_level() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        let codes = quads(n, 0x51DE_0000 + j as u64);
        assert_f32_storages_at_all_levels(&codes, vec![Storage::native(Format::F16)], "quads");
    }
}

#[test]
fn bf16_four_step_kinds_equal_the_reference_at_every_level() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        let codes = quads(n, 0xB0F1_0000 + j as u64);
        assert_f32_storages_at_all_levels(&codes, vec![Storage::native(Format::BF16)], "quads");
    }
}

#[test]
fn f16_and_bf16_equal_the_reference_at_every_destination_offset() {
    let codes = quads(2048 + 64 * 3 + 16 + 5, 0x0FF5_E700);
    for dst in [Format::F16, Format::BF16] {
        crate::kernel_support::assert_half_offsets_match_reference(
            &codes,
            dst,
            &[RoundMode::Rint, RoundMode::Floor],
            0..64,
        );
    }
}
