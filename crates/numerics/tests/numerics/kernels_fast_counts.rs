//! The fast steps of the f32 → f16, bf16 and small-integer kernels that count fewer statuses
//! (issue 25, part 5) equal the reference bit for bit, codes and status counts, at every level
//! this machine has: f16 steps whose magnitudes all lie in [2^−14, 65472) count exactness from
//! the 13 dropped bits, so values just outside that band (an f32 just below 2^−14 whose dropped
//! bits are zero but which rounds to the smallest normal, values that round to 0x7BFE or the
//! largest finite) must leave it; bf16 pairs of steps without a rare lane (by `vcvtne2ps2bf16`
//! where the CPU has AVX-512 BF16), steps whose only rare lanes are ±Inf (counted by sign when
//! the policy keeps their codes); integer steps whose values all lie within the range (exact and
//! flushed counted only) and steps with NaN, ±Inf or huge values (converted from tamed values,
//! corrected at the end). Each over lengths with odd step counts and tails, sparse and dense.

use crate::kernel_support::{assert_f32_storages_at_all_levels, layouts, random_f32};
use npusim_numerics::{Format, Layout, Storage};

/// Every fast level equals the reference on `codes` into each storage of `dst` in every
/// deterministic mode under the three standard policies.
fn assert_all_levels(codes: &[u32], dst: Format, what: &str) {
    let mut storages = layouts(dst);
    if let Ok(s) = Storage::new(dst, Layout::Packed)
        && !storages.contains(&s)
    {
        storages.push(s);
    }
    assert_f32_storages_at_all_levels(codes, storages, what);
}

/// `n` f32 codes with exponent fields in [field, field + span), both signs, random
/// significands, every fourth one with its 16 low bits cleared (exact in f16 and bf16).
fn band(n: usize, seed: u64, field: u32, span: u32) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, x)| {
            let e = field + (x >> 23) % span;
            let c = (x & 0x807F_FFFF) | (e << 23);
            if i % 4 == 0 { c & 0xFFFF_0000 } else { c }
        })
        .collect()
}

/// `values` with `sprinkle`'s codes put in turn at every `every`-th element from `first`.
fn sprinkled(values: &[u32], sprinkle: &[u32], first: usize, every: usize) -> Vec<u32> {
    let mut v = values.to_vec();
    for (k, i) in (first..v.len()).step_by(every).enumerate() {
        v[i] = sprinkle[k % sprinkle.len()];
    }
    v
}

/// Lengths with odd numbers of 16-element steps, tails, and blocks of several steps.
const LENGTHS: [usize; 4] = [16 * 33, 16 * 33 + 5, 16 * 64 + 13, 4096 + 64 * 3 + 7];

/// The f16 band's edges: just below 2^−14 with the dropped bits zero (rounds up to the
/// smallest normal in some modes, inexact), 2^−14 itself, the largest f32 below it, the edges
/// around 65472 (0x7BFE) and the largest finite f16, zeros, an f32 subnormal, and specials.
const F16_EDGES: [u32; 16] = [
    0x387F_E000,
    0xB87F_E000,
    0x3880_0000,
    0x387F_FFFF,
    0x477F_C000,
    0x477F_BFFF,
    0xC77F_C000,
    0x477F_E000,
    0x477F_F000,
    0x477F_FFFF,
    0x0000_0000,
    0x8000_0000,
    0x0000_1234,
    0x7F80_0000,
    0xFF80_0000,
    0x7FC0_1000,
];

#[test]
fn f16_band_steps_and_their_edges_equal_the_reference_at_every_level() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        // magnitudes 2^-14 .. 2^15: every step in the band
        let values = band(n, 0x9E37_79B9 + j as u64, 113, 29);
        assert_all_levels(&values, Format::F16, "in band");
        for every in [7, 61, 509] {
            let codes = sprinkled(&values, &F16_EDGES, j, every);
            assert_all_levels(&codes, Format::F16, &format!("band edges every {every}"));
        }
    }
}

/// Rare lanes of the bf16 rule and their neighbours: f32 subnormals and the smallest normal,
/// the magnitudes around 0x7F7E0000 (from which a mode may round to the largest finite), the
/// largest finite f32, ±Inf, NaNs, zeros.
const BF16_EDGES: [u32; 12] = [
    0x0000_0001,
    0x807F_FFFF,
    0x0080_0000,
    0x7F7E_0000,
    0x7F7E_0001,
    0xFF7F_8000,
    0x7F7F_FFFF,
    0x7F80_0000,
    0xFF80_0000,
    0x7F80_0001,
    0x0000_0000,
    0x8000_0000,
];

#[test]
fn bf16_pairs_inf_only_steps_and_rare_lanes_equal_the_reference_at_every_level() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        let values = band(n, 0x2545_F491 + j as u64, 100, 60);
        assert_all_levels(&values, Format::BF16, "plain");
        for every in [5, 37, 301] {
            let codes = sprinkled(&values, &BF16_EDGES, j, every);
            assert_all_levels(&codes, Format::BF16, &format!("edges every {every}"));
            // ±Inf alone (a causal mask's −∞ and +∞), then with a NaN among them
            let inf = sprinkled(&values, &[0xFF80_0000, 0x7F80_0000], j, every);
            assert_all_levels(&inf, Format::BF16, &format!("±Inf every {every}"));
            let nan = sprinkled(&inf, &[0xFFC0_0001], j + 3, 5 * every);
            assert_all_levels(&nan, Format::BF16, &format!("±Inf and NaN every {every}"));
        }
        // whole steps and pairs of −∞, of NaN
        let mut dense = values.clone();
        for (i, c) in dense.iter_mut().enumerate() {
            match (i / 40) % 4 {
                1 => *c = 0xFF80_0000,
                3 if i % 3 == 0 => *c = 0x7FA0_0000,
                _ => {}
            }
        }
        assert_all_levels(&dense, Format::BF16, "dense −∞ and NaN runs");
    }
}

/// Integer edges: the i8 / u8 / i4 / u4 bounds and half-way points around them, values that
/// flush, ±0, the conversion's limits (2^15, 2^16, 2^31), ±Inf and NaNs.
const INT_EDGES: [u32; 20] = [
    0x42FE_0000, // 127
    0x42FF_0000, // 127.5
    0x4300_0000, // 128
    0xC300_0000, // -128
    0xC301_0000, // -129
    0xC300_8000, // -128.5
    0x40E0_0000, // 7
    0xC100_0000, // -8
    0x4170_0000, // 15
    0x3F00_0000, // 0.5
    0xBE99_999A, // -0.3
    0x8000_0000, // -0
    0x4700_0000, // 32768
    0x4780_0000, // 65536
    0x4780_0080, // 65537
    0x4F00_0000, // 2^31
    0xCF80_0000, // -2^32
    0x7F80_0000,
    0xFF80_0000,
    0xFFC0_0001,
];

/// `n` f32 codes of small integers and fractions within [−8, 7] (every integer range here),
/// a quarter of them whole numbers.
fn within(n: usize, seed: u64) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, x)| {
            let v = ((x % 1500) as f32) / 100.0 - 7.5;
            let v = if i % 4 == 0 { v.round() } else { v };
            v.to_bits()
        })
        .collect()
}

#[test]
fn int_steps_within_the_range_and_with_special_lanes_equal_the_reference_at_every_level() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        let values = within(n, 0x5DEE_CE66 + j as u64);
        for dst in [Format::I8, Format::U8, Format::I4, Format::U4] {
            assert_all_levels(&values, dst, "within");
            for every in [9, 64, 263] {
                let codes = sprinkled(&values, &INT_EDGES, j, every);
                assert_all_levels(&codes, dst, &format!("edges every {every}"));
            }
            let mut dense = values.clone();
            for (i, c) in dense.iter_mut().enumerate() {
                match (i / 64) % 5 {
                    1 => *c = 0xFF80_0000,
                    2 => *c = 0x7FC0_0000,
                    3 => *c = INT_EDGES[i % INT_EDGES.len()],
                    _ => {}
                }
            }
            assert_all_levels(&dense, dst, "dense special steps");
        }
    }
}
