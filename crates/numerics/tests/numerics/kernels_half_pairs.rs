//! The pair loops of the f32 → f16 and f32 → bf16 kernels at AVX-512 (issue 25, parts 4 and
//! 5) equal the reference bit for bit, codes and status counts, at every level this machine
//! has. f16 pairs are sorted by their codes: all in [0x401, the largest finite code) count
//! exactness from the 13 dropped bits; otherwise below the largest finite code (f16
//! subnormals, zeros, as in the bench's sample data of binades 2^−20..2^11) by the round trip
//! with underflow and flush; otherwise, when the only lanes at or beyond it are NaN or ±Inf,
//! those counted and given the policy's codes within the pair; anything else by the full rule.
//! bf16 pairs are two vectors' high halves picked by one permute (after the rounding add, before
//! the directed modes' increment), with the rare lanes found by a class test of the inputs
//! (NaN, ±Inf, f32 subnormal) and a compare of the codes (at or beyond the largest finite):
//! a NaN whose payload lies in the low 16 bits truncates to the Inf code, and 0xFFFF_FFFF
//! (floor) or 0x7FFF_FFFF (ceil) wraps the 16-bit code to zero, so the two tests must disagree
//! there and send the pair to the full rule. Each over lengths with odd numbers of steps and
//! tails, with the special codes at every position of a pair.

use crate::kernel_support::{assert_f32_storages_at_all_levels, random_f32};
use npusim_numerics::{Format, Storage};

/// Every fast level equals the reference on `codes` into `dst` in every deterministic mode
/// under the three standard policies.
fn assert_all_levels(codes: &[u32], dst: Format, what: &str) {
    assert_f32_storages_at_all_levels(codes, vec![Storage::native(dst)], what);
}

/// Lengths with odd numbers of 16-element steps, tails, and several 512-element blocks.
const LENGTHS: [usize; 4] = [16 * 31, 16 * 32 + 9, 16 * 65 + 3, 2048 + 16 * 3 + 15];

/// `n` f32 codes like the bench's sample data: random sign and significand over the binades
/// 2^−20 to 2^11 (about one lane in five an f16 subnormal), every fifth significand cut to the
/// bits f16 keeps (exact when normal).
fn sample_like(n: usize, seed: u64) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, x)| {
            let e = 107 + (x >> 23) % 32;
            let c = (x & 0x807F_FFFF) | (e << 23);
            if i % 5 == 0 { c & 0xFFFF_E000 } else { c }
        })
        .collect()
}

/// `n` f32 codes in the f16 normal band (binades 2^−13 to 2^14), every fourth one exact.
fn normal_band(n: usize, seed: u64) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .enumerate()
        .map(|(i, x)| {
            let e = 114 + (x >> 23) % 28;
            let c = (x & 0x807F_FFFF) | (e << 23);
            if i % 4 == 0 { c & 0xFFFF_E000 } else { c }
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

/// `values` with runs of −∞ as a causal mask of rows of `row` puts them (after the diagonal).
fn causal(values: &[u32], row: usize) -> Vec<u32> {
    let mut v = values.to_vec();
    for (i, c) in v.iter_mut().enumerate() {
        if i % row > (i / row) % row {
            *c = 0xFF80_0000;
        }
    }
    v
}

/// NaNs of every kind: quiet and signalling, both signs, payloads only in the bits f16 or bf16
/// drop (truncated they would read as ±Inf), all payload bits set.
const NANS: [u32; 8] = [
    0x7FC0_0000,
    0xFFC0_0001,
    0x7F80_0001,
    0xFF80_FFFF,
    0x7F80_1FFF,
    0x7FA0_0000,
    0x7FFF_FFFF,
    0xFFFF_FFFF,
];

/// Finite edges of f16: just below 2^−14 with the dropped bits zero, 2^−14 and its neighbours
/// (codes 0x400 and 0x401, where the band starts), an f32 subnormal, zeros, the values around
/// the largest finite f16 and around where rounding reaches it.
const F16_FINITE_EDGES: [u32; 14] = [
    0x387F_E000,
    0x3880_0000,
    0x3880_2000,
    0xB880_2001,
    0x3880_1FFF,
    0x0000_0001,
    0x0000_0000,
    0x8000_0000,
    0x477F_C000,
    0x477F_BFFF,
    0x477F_E000,
    0xC77F_F000,
    0x477F_FFFF,
    0x4780_0000,
];

/// Finite edges of bf16: f32 subnormals, the smallest normal, the magnitudes around those
/// from which a mode rounds to the largest finite bf16, the largest finite f32, zeros.
const BF16_FINITE_EDGES: [u32; 10] = [
    0x0000_0001,
    0x807F_FFFF,
    0x0080_0000,
    0x7F7E_0000,
    0x7F7E_8000,
    0xFF7F_0000,
    0x7F7F_0001,
    0xFF7F_FFFF,
    0x0000_0000,
    0x8000_0000,
];

#[test]
fn f16_pairs_of_sample_like_data_with_subnormals_and_specials_equal_the_reference() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        let values = sample_like(n, 0x1234_5678 + j as u64);
        assert_all_levels(&values, Format::F16, "sample-like");
        let band = normal_band(n, 0x8765_4321 + j as u64);
        assert_all_levels(&band, Format::F16, "normal band");
        for every in [3, 29, 97] {
            for (base, name) in [(&values, "sample-like"), (&band, "band")] {
                let nan = sprinkled(base, &NANS, j, every);
                assert_all_levels(&nan, Format::F16, &format!("{name}, NaNs every {every}"));
                let inf = sprinkled(base, &[0x7F80_0000, 0xFF80_0000], j + 1, every);
                assert_all_levels(&inf, Format::F16, &format!("{name}, ±Inf every {every}"));
                let edges = sprinkled(&inf, &F16_FINITE_EDGES, j + 2, 3 * every);
                assert_all_levels(&edges, Format::F16, &format!("{name}, edges every {every}"));
            }
        }
        for row in [64, 1024] {
            let masked = causal(&values, row);
            assert_all_levels(&masked, Format::F16, &format!("causal rows of {row}"));
            let masked = sprinkled(&causal(&band, row), &NANS, j, 41);
            assert_all_levels(&masked, Format::F16, &format!("band, causal rows of {row}"));
        }
    }
}

#[test]
fn bf16_pairs_of_every_mode_with_rare_and_special_lanes_equal_the_reference() {
    for (j, &n) in LENGTHS.iter().enumerate() {
        let values = sample_like(n, 0x0BAD_CAFE + j as u64);
        assert_all_levels(&values, Format::BF16, "plain");
        for every in [3, 29, 97] {
            let nan = sprinkled(&values, &NANS, j, every);
            assert_all_levels(&nan, Format::BF16, &format!("NaNs every {every}"));
            let inf = sprinkled(&values, &[0x7F80_0000, 0xFF80_0000], j + 1, every);
            assert_all_levels(&inf, Format::BF16, &format!("±Inf every {every}"));
            let edges = sprinkled(&nan, &BF16_FINITE_EDGES, j + 2, 2 * every + 1);
            assert_all_levels(&edges, Format::BF16, &format!("edges every {every}"));
            let finite = sprinkled(&values, &BF16_FINITE_EDGES, j, every);
            assert_all_levels(
                &finite,
                Format::BF16,
                &format!("finite edges every {every}"),
            );
        }
        for row in [64, 1024] {
            let masked = sprinkled(&causal(&values, row), &NANS, j, 53);
            assert_all_levels(&masked, Format::BF16, &format!("causal rows of {row}"));
        }
    }
}
