//! The AVX-512 f32 → i8 NaN loop's hand-back (issue 23 / 25 part 5): at the end of each block
//! of 15 steps its byte counters tell whether the block held a NaN or ±Inf (a byte whose
//! exact, inexact and flushed counts do not add up to the block's steps); a block with one
//! such lane, at any step and in any byte, keeps the loop, a block without hands back to the
//! plain loop. Cast at the best level and by the reference routine, codes and status counts
//! must agree bit for bit, in every deterministic mode under the standard policies.

use crate::kernel_support::{level_here, xorshift};
use crate::kernels_i8_widen_steps::assert_i8_equals_reference_from;

use npusim_numerics::bulk::SimdLevel;

const STEP: usize = 64;

/// `n` finite values below 12 in magnitude: integers, ±0, tiny ones (flushed), halves (ties)
/// and others.
fn finite(n: usize, seed: u64) -> Vec<u32> {
    let mut next = xorshift(seed);
    (0..n)
        .map(|_| {
            let x = next();
            let v = ((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 24.0;
            match x % 7 {
                0 => v.trunc(),
                1 => v * 1.0e-30,
                2 => 0.0f32.copysign(v),
                3 => v.trunc() + 0.5,
                _ => v,
            }
            .to_bits()
        })
        .collect()
}

#[test]
fn i8_nan_loop_block_with_one_special_lane_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let specials = [0x7FC0_0001u32, 0x7F80_0000, 0xFF80_0000, 0xFF80_0001];
    let mut codes = Vec::new();
    let mut seed = 40;
    for step in [0, 6, 14] {
        for lane in [0, 13, 31, 32, 50, 63] {
            for special in specials {
                // a NaN enters the NaN loop; the next block holds one special lane (or, every
                // fourth time, none: back to the plain loop), the one after none
                let mut run = finite(STEP * 45, seed);
                seed += 1;
                run[5] = specials[0];
                if seed % 4 != 0 {
                    run[STEP * (15 + step) + lane] = special;
                }
                codes.extend(run);
            }
        }
    }
    assert_i8_equals_reference_from(&codes, &[0, 64, 17], "NaN loop, one special per block");
}
