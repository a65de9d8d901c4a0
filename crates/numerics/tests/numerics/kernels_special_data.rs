//! The f32 kernels on data with special values where the issue measures them (issue 25, part
//! 4): a causal attention mask (rows whose tail is −∞) and one element in a hundred NaN or
//! ±Inf, over moderate values that the fast rule serves. A step (a vector of 8 or 16 lanes,
//! or 64 elements) whose only rare lanes are NaN or ±Inf takes a shorter path than one with
//! an overflow, a saturating value or an f32 subnormal; both are here, at every level this
//! machine has (and capped), against the reference: codes, status counts and the streamed
//! output.

use crate::kernel_support::{assert_f32_storages_at_all_levels, random_f32};
use npusim_numerics::{Format, Layout, Storage};

/// The destinations the issue names, and the other small floats the same kernels serve.
const DSTS: [Format; 7] = [
    Format::F16,
    Format::BF16,
    Format::F8E4M3FN,
    Format::F8E5M2,
    Format::I8,
    Format::F6E2M3FN,
    Format::F4E2M1,
];

/// `n` f32 codes of moderate magnitude (2^-4 .. 2^3, both signs, random mantissa): no lane
/// of them overflows, saturates or underflows in any destination here.
fn moderate(n: usize, seed: u64) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .map(|x| (x & 0x807F_FFFF) | ((123 + (x >> 23) % 7) << 23))
        .collect()
}

/// Causal mask rows of `row` elements over `values`: row `r` keeps `r % row + 1` values and
/// −∞ after them.
fn masked(values: &[u32], row: usize) -> Vec<u32> {
    values
        .iter()
        .enumerate()
        .map(|(i, &v)| {
            if i % row > (i / row) % row {
                0xFF80_0000
            } else {
                v
            }
        })
        .collect()
}

/// `values` with every element whose hash falls in one of a hundred replaced by a NaN (quiet
/// or signalling, with a payload, either sign) or ±Inf in turn; with `near`, a neighbour of
/// each replaced by a rare finite value (an overflow, a value at the largest finite, an f32
/// subnormal), so that some steps mix both kinds.
fn scattered(values: &[u32], near: bool) -> Vec<u32> {
    let specials = [
        0x7FC0_0000u32,
        0xFF80_0000,
        0x7F80_0000,
        0xFFA1_2345,
        0x7F80_0001,
        0xFFFF_E000,
    ];
    let rare = [
        0x4780_0000u32,
        0x477F_E000,
        0x0000_1234,
        0xC3E0_0000,
        0x7F7F_FFFF,
    ];
    let mut v = values.to_vec();
    let mut k = 0;
    for i in 0..v.len() {
        let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
        if h.is_multiple_of(100) {
            v[i] = specials[k % specials.len()];
            if near && i + 1 < v.len() {
                v[i + 1] = rare[k % rare.len()];
            }
            k += 1;
        }
    }
    v
}

/// Every fast level equals the reference on `codes` into `dst` (native storage, and one code
/// per byte for the packed 4-bit formats) in every deterministic mode under the three
/// standard policies.
fn assert_all_levels(codes: &[u32], dst: Format, what: &str) {
    let mut storages = vec![Storage::native(dst)];
    if let Ok(u) = Storage::new(dst, Layout::Unpacked)
        && u != storages[0]
    {
        storages.push(u);
    }
    assert_f32_storages_at_all_levels(codes, storages, what);
}

#[test]
fn causal_masks_over_moderate_values_equal_the_reference_at_every_level() {
    let values = moderate(4096 + 37, 0x5DEE_CE66_D1CE_4E5B);
    // rows of 64 (steps wholly −∞, wholly finite, and mixed) and of 1024 (the bench's)
    for row in [64, 1024] {
        let codes = masked(&values, row);
        for dst in DSTS {
            assert_all_levels(&codes, dst, &format!("causal mask, rows of {row}"));
        }
    }
}

#[test]
fn one_percent_nan_and_inf_over_moderate_values_equal_the_reference_at_every_level() {
    let values = moderate(8192 + 21, 0x2545_F491_4F6C_DD1D);
    for near in [false, true] {
        let codes = scattered(&values, near);
        for dst in DSTS {
            assert_all_levels(
                &codes,
                dst,
                &format!("1 % NaN / Inf, rare neighbours {near}"),
            );
        }
    }
}
