//! The f32 → f16 loop at AVX-512 runs its special loop (blocks after one with 1 to 127 NaN or
//! ±Inf lanes, under a policy whose codes for them are `vcvtps2ph`'s own) over runs of blocks
//! in one call: block after block while each holds a few NaN or ±Inf lanes, stopping at a
//! block with a negative NaN (not counted there: the main loop converts it again), after a
//! block with none or with many, and at the last whole block. It equals the reference bit for
//! bit, codes and status counts, at every level this machine has, in every deterministic mode
//! under the three standard policies. The data: blocks of 3840 elements (the loop's block is
//! 240 steps) of the band with every 97th lane a positive NaN (payloads of every kind) or ±Inf;
//! among them one block with negative NaNs, one with lanes no band rule takes (a finite
//! overflow, the largest finite f16, the largest f32), one with small lanes beside the
//! specials, a causal mask's rows (many −∞), a block with no special, and a tail that is not a
//! whole block.

use crate::kernel_support::{assert_f32_storages_at_all_levels, random_f32};
use crate::kernels_f16_special_loop::{ODD, band, small};
use npusim_numerics::{Format, Storage};

/// Elements per block of the loop (240 steps of 16).
const BLOCK: usize = 3840;

/// Positive NaNs (quiet, signalling, payloads only in the dropped bits) and ±Inf in turn.
const SPECIALS: [u32; 6] = [
    0x7FC0_0000,
    0x7F80_0000,
    0xFF80_0000,
    0x7F80_0001,
    0x7FFF_FFFF,
    0x7FA0_2000,
];

/// Negative NaNs (quiet, signalling, a payload only in the dropped bits) and ±Inf.
const NEGATIVE_NAN: [u32; 5] = [
    0xFFC0_0001,
    0x7F80_0000,
    0xFF80_FFFF,
    0xFF80_0000,
    0xFFA0_2000,
];

/// `n` f32 codes in blocks of [`BLOCK`] (see the module's comment), by block modulo 16: 4 with
/// negative NaNs among its specials, 6 with the odd lanes, 8 with small lanes, 10 a causal mask's rows, 12 with
/// no special; every other block the band with every 97th lane special.
fn special_runs(n: usize, seed: u64) -> Vec<u32> {
    let r = random_f32(n, seed);
    (0..n)
        .map(|i| {
            let (blk, at) = (i / BLOCK % 16, i % BLOCK);
            let x = r[i];
            let special = SPECIALS[(i / 97) % SPECIALS.len()];
            match blk {
                4 if i % 97 == 0 => NEGATIVE_NAN[(i / 97) % NEGATIVE_NAN.len()],
                6 if at % 331 == 7 => ODD[at / 331 % ODD.len()],
                8 if i % 5 == 0 => small(x, i),
                10 => {
                    if i % 1024 > 300 {
                        0xFF80_0000
                    } else {
                        band(x, i)
                    }
                }
                12 => band(x, i),
                _ if i % 97 == 0 => special,
                _ => band(x, i),
            }
        })
        .collect()
}

#[test]
fn f16_special_runs_equal_the_reference_at_every_level() {
    for (j, n) in [16 * BLOCK + 64 * 3 + 16 + 5, 3 * BLOCK, 2 * BLOCK + 64 + 9]
        .into_iter()
        .enumerate()
    {
        let codes = special_runs(n, 0x5EC2_0000 + j as u64);
        assert_f32_storages_at_all_levels(&codes, vec![Storage::native(Format::F16)], "runs");
    }
}

#[test]
fn the_special_runs_data_has_what_it_claims() {
    let codes = special_runs(16 * BLOCK, 1);
    let block = |b: usize| &codes[BLOCK * b..BLOCK * (b + 1)];
    let specials = |b: usize| {
        block(b)
            .iter()
            .filter(|&&c| c & 0x7F80_0000 == 0x7F80_0000)
            .count()
    };
    let negative_nan = |b: usize| block(b).iter().any(|&c| c > 0xFF80_0000);
    for b in (0..16).filter(|b| ![10, 12].contains(b)) {
        assert!(
            (1..128).contains(&specials(b)),
            "block {b}: {}",
            specials(b)
        );
        assert_eq!(negative_nan(b), b == 4, "block {b}");
    }
    assert!(specials(10) > 1000 && specials(12) == 0);
    for o in ODD {
        assert!(block(6).contains(&o), "{o:#x}");
    }
    // small values beside specials in a group of 64
    let mixed = block(8).chunks(64).any(|g| {
        g.iter().any(|&c| c & 0x7F80_0000 == 0x7F80_0000)
            && g.iter().any(|&c| c & 0x7F80_0000 < 0x3880_0000)
    });
    assert!(mixed);
}
