//! f32 → f16 at every level on data whose groups of 8 hold ±Inf beside in-range values (a
//! causal attention mask's −∞, and +∞): the AVX2 loop tells those lanes on the rounded 16-bit
//! codes (the Inf code with an exact round trip) and, where the policy keeps ±Inf, keeps the
//! group's codes and counts the lanes by sign; the codes and status counts equal the
//! reference's in every deterministic mode under the three standard policies (one keeps
//! ±Inf, one saturates it), also where the same group holds NaN, a finite overflow, ±65504
//! or an underflowing value (the groups the full rule casts).

use crate::kernel_support::assert_f32_storages_at_all_levels;

use npusim_numerics::{Format, Storage};

/// Rows of a causal mask over `width` columns: row `r` keeps its first `r % width + 1` values
/// (spread over the f16 range, subnormal results and ±0 included), the rest −Inf.
fn causal(rows: usize, width: usize) -> Vec<u32> {
    let finite = [
        0x3F80_0000u32,
        0xBF40_0001,
        0x3A80_0123,
        0x0000_0000,
        0x8000_0000,
        0x3380_0001,
        0xB300_0000,
        0x4700_1234,
        0x3EAA_AAAB,
    ];
    let mut v = Vec::with_capacity(rows * width);
    for r in 0..rows {
        for c in 0..width {
            v.push(if c <= r % width {
                finite[(r * 7 + c) % finite.len()]
            } else {
                0xFF80_0000
            });
        }
    }
    v
}

#[test]
fn inf_groups_beside_in_range_values_equal_the_reference() {
    let f16 = vec![Storage::native(Format::F16)];
    // more than one block of 64 groups, rows not a multiple of 8 wide
    let mask = causal(45, 37);
    assert_f32_storages_at_all_levels(&mask, f16.clone(), "causal mask");
    assert_f32_storages_at_all_levels(&mask[3..], f16.clone(), "causal mask, offset 3");
    // +Inf and −Inf in the same groups as in-range values
    let both: Vec<u32> = (0..1029u32)
        .map(|i| match i % 5 {
            0 => 0x7F80_0000,
            1 => 0xFF80_0000,
            2 => 0x3F80_0000 + i * 4099,
            3 => 0xC000_0000 + i * 8191,
            _ => 0x0000_0000,
        })
        .collect();
    assert_f32_storages_at_all_levels(&both, f16.clone(), "+Inf and -Inf");
    // ±Inf beside NaN, finite overflow, ±65504 and underflow in one group
    let rare = [
        0x7FC0_0001u32,
        0x477F_F000,
        0xC77F_E000,
        0x477F_E000,
        0x4780_0000,
        0x3300_0001,
        0x7F80_0001,
    ];
    let mixed: Vec<u32> = (0..2051usize)
        .map(|i| match i % 8 {
            0 | 3 => 0xFF80_0000,
            5 => 0x7F80_0000,
            7 if (i / 8) % 3 == 0 => rare[(i / 8) % rare.len()],
            _ => 0x3C00_0000 + (i as u32) * 977,
        })
        .collect();
    assert_f32_storages_at_all_levels(&mixed, f16, "Inf beside the rare lanes");
}
