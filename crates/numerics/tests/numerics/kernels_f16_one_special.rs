//! The f32 → f16 loop at AVX-512 (issue 23 / 25 parts 4 and 5) on one special value per
//! vector and on long runs of one: the special loop's band rule (NaN and ±Inf counted on their
//! 16-bit codes), its round-trip rule, the block it hands back to the main loop when it meets
//! a negative NaN, and the main loop's quads of one ±Inf (stored as one code, counted by sign;
//! a quad that only nearly is one goes by the rare rule). Codes and status counts equal the
//! reference at every level this machine has, in every deterministic mode under the three
//! standard policies.

use crate::kernel_support::{assert_f32_storages_at_all_levels, nan_inf_in_block, random_f32};
use npusim_numerics::{Format, Storage};

/// Positive NaN (quiet, signalling, payloads in the kept and in the dropped bits) and ±Inf.
const NO_NEGATIVE_NAN: [u32; 6] = [
    0x7FC0_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7F80_0001,
    0x7FFF_FFFF,
    0x7FA0_2000,
];

/// Negative NaN: quiet, signalling, payload bits only below the kept ones.
const NEGATIVE_NAN: [u32; 3] = [0xFFC0_0000, 0xFF80_0001, 0xFFC0_1FFF];

/// A magnitude in the f16 normal band from the random word `x`, with its sign; every fifth
/// exact in f16.
fn band(x: u32, i: usize) -> u32 {
    let c = (x & 0x807F_FFFF) | ((114 + (x >> 23) % 28) << 23);
    if i.is_multiple_of(5) {
        c & 0xFFFF_E000
    } else {
        c
    }
}

/// A value below the f16 normal range (binades 2^−20 to 2^−15, a zero now and then), with
/// the sign of `x`.
fn small(x: u32, i: usize) -> u32 {
    if i.is_multiple_of(13) {
        x & 0x8000_0000
    } else {
        (x & 0x807F_FFFF) | ((107 + (x >> 23) % 6) << 23)
    }
}

/// `n` f32 codes in blocks of 2048, by block modulo 8: 0 the band with every 97th element a
/// special (the special loop next); 1 small lanes beside one special per vector now and then,
/// and a negative NaN in the last group (handed back to the main loop); 2 one special per
/// 16-lane vector but every eighth, none a negative NaN, small lanes beside them in every
/// fourth group (the band and round-trip rules); 3 runs of one special, 1 or 2 groups of 64
/// long (−∞, +∞, one NaN), between groups of one special per vector; 4 a causal mask's rows
/// (−∞ after 100 + 9 r values) with groups of +∞ and groups that only nearly are one ±Inf;
/// 5 small lanes with runs of −∞; 6 the band alone; 7 +∞ in every lane.
fn one_special_blocks(n: usize, seed: u64) -> Vec<u32> {
    let r = random_f32(n, seed);
    (0..n)
        .map(|i| {
            let (blk, q, lane) = (i / 2048, i / 64 % 32, i % 64);
            let x = r[i];
            let special = NO_NEGATIVE_NAN[(i / 16 + blk) % NO_NEGATIVE_NAN.len()];
            // one lane of each 16-lane vector, moving from vector to vector
            let one_per_vector = lane % 16 == (3 * (i / 16) + blk) % 16;
            match blk % 8 {
                0 => {
                    if i % 97 == 0 {
                        special
                    } else {
                        band(x, i)
                    }
                }
                1 => {
                    if q == 31 && lane == 37 {
                        NEGATIVE_NAN[blk / 8 % NEGATIVE_NAN.len()]
                    } else if one_per_vector && (i / 16) % 8 == 1 {
                        special
                    } else if lane % 4 == 0 {
                        small(x, i)
                    } else {
                        band(x, i)
                    }
                }
                2 => {
                    if one_per_vector && (i / 16) % 8 != 3 {
                        special
                    } else if q % 4 == 1 && lane % 4 == 0 {
                        small(x, i)
                    } else {
                        band(x, i)
                    }
                }
                3 => match q % 8 {
                    1 | 2 => 0xFF80_0000,
                    4 => 0x7F80_0000,
                    6 => 0x7FC0_0000,
                    _ if one_per_vector && (i / 16) % 4 == 0 => special,
                    _ => band(x, i),
                },
                4 => {
                    let row = i / 1024 % 2;
                    match q {
                        // one ±Inf all but one lane: a finite overflow, +∞ among −∞, a NaN
                        20 if lane == 63 => 0x477F_F000,
                        22 if lane == 17 => 0x7F80_0000,
                        24 if lane == 40 => 0xFFC0_0000,
                        // +∞ alone
                        26 | 27 => 0x7F80_0000,
                        // the first lane −∞, the others not
                        29 if lane > 0 => band(x, i),
                        _ if i % 1024 > 100 + 9 * row => 0xFF80_0000,
                        _ => band(x, i),
                    }
                }
                5 => {
                    if q % 4 == 2 {
                        0xFF80_0000
                    } else if lane % 3 == 0 {
                        small(x, i)
                    } else {
                        band(x, i)
                    }
                }
                6 => band(x, i),
                _ => 0x7F80_0000,
            }
        })
        .collect()
}

#[test]
fn one_special_per_vector_and_runs_of_one_equal_the_reference_at_every_level() {
    for (j, n) in [16 * 2048 + 64 * 2 + 16 * 3 + 7, 8 * 2048 + 64 * 31 + 16]
        .into_iter()
        .enumerate()
    {
        let codes = one_special_blocks(n, 0x0AE5_0000 + j as u64);
        assert_f32_storages_at_all_levels(
            &codes,
            vec![Storage::native(Format::F16)],
            "one special",
        );
    }
}

#[test]
fn the_one_special_data_has_what_it_claims() {
    let codes = one_special_blocks(16 * 2048, 1);
    let specials = |b: usize| nan_inf_in_block(&codes, b);
    // a few specials before blocks 1 to 3 (the special loop there), many in blocks 3, 4, 7
    for b in [0, 1, 2, 8, 9, 10] {
        assert!(
            (1..128).contains(&specials(b)),
            "block {b}: {}",
            specials(b)
        );
    }
    for b in [3, 4, 7] {
        assert!(specials(b) > 256, "block {b}: {}", specials(b));
    }
    assert!(specials(6) == 0 && specials(7) == 2048);
    let group = |b: usize, q: usize| &codes[2048 * b + 64 * q..2048 * b + 64 * (q + 1)];
    // a negative NaN in block 1's last group, runs of one special in block 3
    assert!(NEGATIVE_NAN.contains(&group(1, 31)[37]));
    assert!(group(3, 1).iter().all(|&c| c == 0xFF80_0000));
    assert!(group(3, 6).iter().all(|&c| c == 0x7FC0_0000));
    // one special in each vector of block 2 but every eighth, small lanes beside some
    let per_vector = codes[4096..6144]
        .chunks(16)
        .filter(|v| {
            v.iter()
                .filter(|&&c| c & 0x7F80_0000 == 0x7F80_0000)
                .count()
                == 1
        })
        .count();
    assert_eq!(per_vector, 128 - 16);
    assert!(group(2, 1).iter().any(|&c| c & 0x7F80_0000 < 0x3880_0000));
    // groups that nearly are one ±Inf
    assert!(group(4, 20).iter().filter(|&&c| c == 0xFF80_0000).count() == 63);
    assert!(group(4, 29)[0] == 0xFF80_0000 && group(4, 29)[1] != 0xFF80_0000);
}
