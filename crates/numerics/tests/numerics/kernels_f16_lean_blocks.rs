//! The f32 → f16 loop at AVX-512 (issue 25, parts 4 and 5) takes a lean, branch-free rule for
//! the blocks after one with a few NaN or ±Inf lanes (1 to 127), counts quads of ±Inf alone
//! inline in the other blocks, and sends any other quad out of line: it equals the reference
//! bit for bit, codes and status counts, at every level this machine has, in every
//! deterministic mode under the three standard policies. The data is the band with scattered
//! NaN (every payload kind, both signs) and ±Inf, quads of ±Inf alone now and then (so that
//! some blocks have more than 127 of them and the next block switches back), blocks of a
//! causal mask's rows (runs of −∞ that start inside a quad), and in the lean blocks quads
//! with one small lane, a zero, a finite overflow, the largest finite value, the largest f32
//! or the smallest subnormal.

use crate::kernel_support::{assert_f32_storages_at_all_levels, nan_inf_in_block, random_f32};
use npusim_numerics::{Format, Storage};

/// Scattered specials in turn: NaNs (quiet, signalling, payloads only in the dropped bits,
/// both signs) and ±Inf.
const SCATTERED: [u32; 7] = [
    0x7FC0_0000,
    0xFFC0_0001,
    0x7F80_0001,
    0xFF80_FFFF,
    0x7FFF_FFFF,
    0x7F80_0000,
    0xFF80_0000,
];

/// A magnitude in the f16 normal band (binades 2^−13 to 2^14) from the random word `x`, with
/// its sign; every fourth one exact in f16.
fn band(x: u32, i: usize) -> u32 {
    let c = (x & 0x807F_FFFF) | ((114 + (x >> 23) % 28) << 23);
    if i.is_multiple_of(4) {
        c & 0xFFFF_E000
    } else {
        c
    }
}

/// `n` f32 codes: blocks of 2048 elements, every fourth from the fourth a causal mask's two
/// rows of 1024 (finite up to an offset inside a quad, then −∞); the others the band with
/// every 97th element special, every 29th quad ±Inf alone, and one odd lane per quad of the
/// kinds that no fast rule takes.
fn lean_blocks(n: usize, seed: u64) -> Vec<u32> {
    let r = random_f32(n, seed);
    (0..n)
        .map(|i| {
            let (blk, q, lane) = (i / 2048, i / 64, i % 64);
            let x = r[i];
            let sign = x & 0x8000_0000;
            if blk % 4 == 3 {
                let col = i % 1024;
                return if col > 300 + 7 * (i / 1024 % 2) {
                    0xFF80_0000
                } else if i % 97 == 0 {
                    SCATTERED[i / 97 % SCATTERED.len()]
                } else {
                    band(x, i)
                };
            }
            if q % 29 == 17 {
                return if q % 2 == 0 { 0xFF80_0000 } else { 0x7F80_0000 };
            }
            if i % 97 == 0 {
                return SCATTERED[i / 97 % SCATTERED.len()];
            }
            let odd = lane == (7 * q + 3) % 64;
            match q % 9 {
                2 if odd => (x & 0x807F_FFFF) | ((107 + (x >> 23) % 6) << 23),
                3 if odd => sign,
                4 if odd => 0x477F_F000 | sign,
                5 if odd => 0x477F_E000 | sign,
                6 if odd => 0x7F7F_FFFF,
                7 if odd => 0x0000_0001,
                _ => band(x, i),
            }
        })
        .collect()
}

#[test]
fn f16_lean_and_inf_blocks_equal_the_reference_at_every_level() {
    for (j, n) in [8 * 2048 + 64 * 3 + 16 * 3 + 7, 5 * 2048 + 64 + 16]
        .into_iter()
        .enumerate()
    {
        let codes = lean_blocks(n, 0x1EA4_0000 + j as u64);
        assert_f32_storages_at_all_levels(&codes, vec![Storage::native(Format::F16)], "lean");
    }
}

#[test]
fn the_lean_blocks_data_has_what_it_claims() {
    let codes = lean_blocks(8 * 2048, 1);
    let specials = |b: usize| nan_inf_in_block(&codes, b);
    // a few specials (the lean rule next), more than 127 (the inf rule next), and mask rows
    assert!((1..128).contains(&specials(0)), "{}", specials(0));
    assert!((0..8).any(|b| b % 4 != 3 && specials(b) >= 128));
    assert!(specials(3) > 1000);
    // NaN with payloads in the dropped bits, and an odd small lane
    assert!(codes.contains(&0xFF80_FFFF) && codes.contains(&0x0000_0001));
}
