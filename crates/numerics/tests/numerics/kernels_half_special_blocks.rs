//! The special rule of the f32 → bf16 four-step loop at AVX-512 (issue 25, part 4: a block
//! that follows one with NaN or ±Inf counts them on every four steps without a branch on
//! where they are), and the f32 → f16 loop on the same data, equal the reference bit for bit,
//! codes and status counts, at every level this machine has, in every deterministic mode
//! under the three standard policies. Blocks (128 steps of 16) switch between the rules:
//! 1 % NaN / ±Inf data, then in
//! the special rule's block every kind of four steps (the band with NaN and ±Inf lanes, ±Inf
//! alone, NaN alone, all special, special lanes beside f16 subnormals, f32 subnormals, zeros,
//! the f16 and bf16 overflow edges, the largest finite values), a block of plain data that
//! takes the rule and finds nothing, a plain block back on the band rule, a causal mask's
//! rows, and subnormal data with 1 % NaN / ±Inf; lengths end in lone steps and tails, and the
//! destination starts at several offsets from a 64-byte boundary.

use crate::kernel_support::{
    assert_f32_storages_at_all_levels, assert_half_offsets_match_reference, random_f32,
};
use npusim_numerics::{Format, RoundMode, Storage};

/// Elements of a block of the four-step loops.
const BLOCK: usize = 2048;

/// NaNs: quiet and signalling, both signs, payloads only in the bits f16 or bf16 drop, all
/// bits set.
const NANS: [u32; 6] = [
    0x7FC0_0000,
    0xFFC0_0001,
    0x7F80_0001,
    0xFF80_FFFF,
    0x7FFF_FFFF,
    0xFFBF_E000,
];

/// Finite edges: the f16 overflow threshold in every mode (65504, 65520 and the codes
/// around them), the largest finite f32 and bf16 and the bf16 rounding edge, the smallest
/// f16 normal and the f32 just below it, an f32 subnormal, a zero.
const EDGES: [u32; 12] = [
    0x477F_E000,
    0x477F_EFFF,
    0x477F_F000,
    0x477F_F001,
    0x4780_0000,
    0x7F7F_FFFF,
    0x7F7F_0000,
    0x7F7F_8000,
    0x3880_0000,
    0x387F_E000,
    0x0000_0001,
    0x0000_0000,
];

/// A magnitude in the f16 normal band (binades 2^−13 to 2^14) from `x`, with its sign.
fn band(x: u32) -> u32 {
    (x & 0x807F_FFFF) | ((114 + (x >> 23) % 28) << 23)
}

/// An f16 subnormal magnitude (binades 2^−20 to 2^−15) from `x`, with its sign.
fn small(x: u32) -> u32 {
    (x & 0x807F_FFFF) | ((107 + (x >> 23) % 6) << 23)
}

/// The special value number `k`: NaN, +Inf, −Inf in turn (the NaN of every kind).
fn special(k: usize) -> u32 {
    match k % 3 {
        0 => NANS[(k / 3) % NANS.len()],
        1 => 0x7F80_0000,
        _ => 0xFF80_0000,
    }
}

/// The element `i` of block kind `b` from the random word `x`.
fn element(b: usize, i: usize, x: u32) -> u32 {
    let (q, lane) = (i / 64, i % 64);
    let odd = lane == (7 * q + 3) % 64;
    let other = lane == (13 * q + 40) % 64;
    match b {
        // 1 % NaN / ±Inf in the band
        0 if i.is_multiple_of(100) => special(i / 100),
        0 => band(x),
        // a kind of four steps per 64 elements
        1 => match q % 12 {
            0 if odd || other => special(q + lane),
            1 => 0xFF80_0000,
            2 => special(q + lane),
            3 => NANS[(q + lane) % NANS.len()],
            4 if odd => special(q),
            4 if other => small(x),
            5 if odd => special(q),
            5 if other => EDGES[(q / 12) % EDGES.len()] ^ (x & 0x8000_0000),
            6 if odd => EDGES[(q / 12 + 5) % EDGES.len()] ^ (x & 0x8000_0000),
            7 => small(x),
            8 if lane % 5 == 0 => special(lane),
            8 => small(x),
            9 if lane < 32 => 0xFF80_0000,
            10 if odd => 0x0000_0000,
            10 if other => special(q),
            _ => band(x),
        },
        // plain data: the special rule's block finds nothing, the next is back on the band
        2 | 3 => band(x),
        // a causal mask's rows of 256: −∞ after the diagonal
        4 if i % 256 > (i / 256) * 37 % 256 => 0xFF80_0000,
        4 => band(x),
        // f16 subnormals with 1 % NaN / ±Inf
        _ if i % 100 == 7 => special(i / 100),
        _ => small(x),
    }
}

/// `n` f32 codes, block `k` of kind `k % 6`.
fn blocks(n: usize, seed: u64) -> Vec<u32> {
    let r = random_f32(n, seed);
    (0..n)
        .map(|i| element((i / BLOCK) % 6, i % BLOCK, r[i]))
        .collect()
}

/// Lengths: six blocks and a seventh with three lone steps and a tail; two blocks and two lone
/// steps; a block and one lone step and a one-element tail.
const LENGTHS: [usize; 3] = [
    7 * BLOCK + 64 * 3 + 16 * 3 + 7,
    2 * BLOCK + 64 + 32,
    BLOCK + 16 + 1,
];

#[test]
fn f16_special_rule_blocks_equal_the_reference_at_every_level() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        let codes = blocks(n, 0x5EC1_0000 + j as u64);
        assert_f32_storages_at_all_levels(&codes, vec![Storage::native(Format::F16)], "blocks");
    }
}

#[test]
fn bf16_special_rule_blocks_equal_the_reference_at_every_level() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        let codes = blocks(n, 0x5EC2_0000 + j as u64);
        assert_f32_storages_at_all_levels(&codes, vec![Storage::native(Format::BF16)], "blocks");
    }
}

/// Every block kind first (each one after a block of 1 % NaN / ±Inf, so it takes the
/// special rule) under every mode and standard policy.
#[test]
fn every_block_kind_after_specials_equals_the_reference() {
    for b in 1..6 {
        let r = random_f32(3 * BLOCK, 0x5EC3_0000 + b as u64);
        let codes: Vec<u32> = (0..3 * BLOCK)
            .map(|i| element(if i < BLOCK { 0 } else { b }, i % BLOCK, r[i]))
            .collect();
        for f in [Format::F16, Format::BF16] {
            assert_f32_storages_at_all_levels(&codes, vec![Storage::native(f)], "kinds");
        }
    }
}

/// The destination written at offsets of 0 to 62 bytes from a 64-byte boundary (the loop
/// starts at the first boundary, the elements before it taking the AVX2 kernel), so that the
/// blocks and their rules shift against the data.
#[test]
fn special_rule_blocks_equal_the_reference_at_destination_offsets() {
    let codes = blocks(4 * BLOCK + 64 * 2 + 16 + 3, 0x5EC4_0000);
    for f in [Format::F16, Format::BF16] {
        assert_half_offsets_match_reference(
            &codes,
            f,
            &[RoundMode::Rint, RoundMode::Floor, RoundMode::Odd],
            (0..64).step_by(6),
        );
    }
}
