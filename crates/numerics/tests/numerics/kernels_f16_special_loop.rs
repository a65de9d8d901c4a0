//! The f32 → f16 loop at AVX-512 (issue 25, parts 4 and 5) runs the blocks after one with 1 to
//! 127 NaN or ±Inf lanes, under a policy whose codes for them are `vcvtps2ph`'s own, by a
//! special loop: groups whose lanes outside the band are exactly NaN and ±Inf by the band's
//! rule, groups with small lanes (f16 subnormals, zeros) beside NaN and ±Inf by the round
//! trip, any other group by the rare rule. It equals the reference bit for bit, codes and
//! status counts, at every level this machine has, in every deterministic mode under the
//! three standard policies. The data: blocks of 2048 elements with a few specials (the special
//! loop next), whose groups mix the band, small lanes, zeros, a finite overflow, the largest
//! finite value, the largest f32, exact values and NaN of every payload kind with ±Inf; then
//! a block of a causal mask's −∞ (the main loop next) and a block with no special at all.

use crate::kernel_support::{assert_f32_storages_at_all_levels, nan_inf_in_block, random_f32};
use npusim_numerics::{Format, Storage};

/// NaNs (quiet, signalling, payloads only in the dropped bits, both signs) and ±Inf in turn.
const SPECIALS: [u32; 8] = [
    0x7FC0_0000,
    0xFFC0_0001,
    0x7F80_0001,
    0xFF80_FFFF,
    0x7FFF_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0xFFA0_2000,
];

/// Lanes no band rule takes: a finite overflow, the largest finite f16, the largest f32, a
/// value just below the largest finite one, the smallest f32 subnormal.
pub(crate) const ODD: [u32; 5] = [
    0x477F_F000,
    0xC77F_E000,
    0x7F7F_FFFF,
    0x477F_DFFF,
    0x0000_0001,
];

/// A magnitude in the f16 normal band from the random word `x`, with its sign; every fourth
/// exact in f16.
pub(crate) fn band(x: u32, i: usize) -> u32 {
    let c = (x & 0x807F_FFFF) | ((114 + (x >> 23) % 28) << 23);
    if i.is_multiple_of(4) {
        c & 0xFFFF_E000
    } else {
        c
    }
}

/// A value below the f16 normal range (binades 2^−20 to 2^−15, an exact one or a zero now and
/// then), with the sign of `x`.
pub(crate) fn small(x: u32, i: usize) -> u32 {
    match i % 11 {
        0 => x & 0x8000_0000,
        1 => (x & 0x8000_0000) | 0x3380_0000,
        _ => (x & 0x807F_FFFF) | ((107 + (x >> 23) % 6) << 23),
    }
}

/// `n` f32 codes in blocks of 2048 (see the module's comment): by block, modulo 6, 0 the band
/// with every 97th element special, 1 to 3 groups of 64 of each kind in turn with a special
/// lane or two (in 2 also a group of NaN alone, in 3 one of −∞ alone), 4 a causal mask's
/// rows (more than 127 −∞), 5 the band and small values with no special.
fn special_blocks(n: usize, seed: u64) -> Vec<u32> {
    let r = random_f32(n, seed);
    (0..n)
        .map(|i| {
            let (blk, q, lane) = (i / 2048, i / 64, i % 64);
            let x = r[i];
            let special = SPECIALS[(i / 7) % SPECIALS.len()];
            match blk % 6 {
                0 => {
                    if i % 97 == 0 {
                        special
                    } else {
                        band(x, i)
                    }
                }
                4 => {
                    if i % 1024 > 200 + i / 1024 % 2 * 9 {
                        0xFF80_0000
                    } else {
                        band(x, i)
                    }
                }
                5 => {
                    if i % 5 == 0 {
                        small(x, i)
                    } else {
                        band(x, i)
                    }
                }
                b => {
                    let kind = (q + b) % 5;
                    if b == 3 && q % 32 == 9 {
                        return 0xFF80_0000;
                    }
                    if b == 2 && q % 32 == 20 {
                        return SPECIALS[lane % 5];
                    }
                    if lane == (5 * q + 1) % 64 || (kind != 0 && lane == (11 * q + 40) % 64) {
                        return special;
                    }
                    match kind {
                        // the band with specials
                        0 | 1 => band(x, i),
                        // small lanes beside specials
                        2 if lane % 3 == 0 => small(x, i),
                        // every lane small
                        3 => small(x, i),
                        // one lane no band rule takes
                        4 if lane == (3 * q) % 64 => ODD[q / 5 % ODD.len()],
                        _ => band(x, i),
                    }
                }
            }
        })
        .collect()
}

#[test]
fn f16_special_loop_blocks_equal_the_reference_at_every_level() {
    for (j, n) in [12 * 2048 + 64 * 3 + 16 * 2 + 5, 4 * 2048 + 64 + 16]
        .into_iter()
        .enumerate()
    {
        let codes = special_blocks(n, 0x5EC1_0000 + j as u64);
        assert_f32_storages_at_all_levels(&codes, vec![Storage::native(Format::F16)], "special");
    }
}

#[test]
fn the_special_blocks_data_has_what_it_claims() {
    let codes = special_blocks(12 * 2048, 1);
    let specials = |b: usize| nan_inf_in_block(&codes, b);
    // a few specials before each of blocks 1 to 4 (the special loop there), many in block 4,
    // none in block 5
    for b in 0..4 {
        assert!(
            (1..128).contains(&specials(b)),
            "block {b}: {}",
            specials(b)
        );
    }
    assert!(specials(4) > 1000 && specials(5) == 0);
    // small values beside specials in a group, and the odd lanes
    let mixed = codes[2048..4096].chunks(64).any(|g| {
        g.iter().any(|&c| c & 0x7F80_0000 == 0x7F80_0000)
            && g.iter().any(|&c| c & 0x7F80_0000 < 0x3880_0000)
    });
    assert!(mixed);
    for o in ODD {
        assert!(codes.contains(&o), "{o:#x}");
    }
    assert!(codes.contains(&0xFF80_FFFF) && codes.contains(&0xFFA0_2000));
}
