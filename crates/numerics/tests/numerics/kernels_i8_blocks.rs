//! The AVX-512 f32 → i8 loop's two loops (issue 25, parts 4 and 5): the plain one, left at
//! the first step with a byte off the band, and the special one (NaN, ±Inf and values at or
//! beyond a bound), left after a few plain or −Inf-alone steps in a row; the loop starts at
//! the destination's first 64-byte boundary (the elements before it by the element rule).
//! Cast at the best level and by the reference routine, codes and status counts must agree
//! bit for bit:
//!
//! - on runs of blocks of 1024 elements of every kind one after the other (plain; one NaN, +Inf or −Inf in
//!   one lane; NaN only; all −Inf; a causal tail; the exact bounds, ±127.5, ±128.5, 127.3,
//!   −128.3, 2^31 and 1e10 alone or next to NaN / ±Inf, in the first step off the band of a
//!   plain block and inside a special block), in every deterministic mode under the three
//!   standard policies, from offsets that move the block edges;
//! - into destinations at every byte offset from a 64-byte boundary, at lengths shorter
//!   than, equal to and beyond the elements before the boundary.

use crate::kernel_support;
use crate::kernels_i8_widen_steps::assert_i8_equals_reference_from;
use kernel_support::xorshift;
use kernel_support::{assert_same_codes, bytes, f32s, level_here};

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, RoundMode, Storage, cast_elements_with_status,
};

/// Elements per block of the test data (16 steps of 64).
const BLOCK: usize = 1024;

const NAN: u32 = 0x7FC0_0000;
const SNAN: u32 = 0xFF80_0001;
const POS_INF: u32 = 0x7F80_0000;
const NEG_INF: u32 = 0xFF80_0000;

/// `n` values of magnitude below 16 (normal data for an i8 cast), some of them integers,
/// some ±0 and some tiny (flushed to zero).
fn normal(n: usize, seed: u64) -> Vec<u32> {
    let mut next = xorshift(seed);
    (0..n)
        .map(|_| {
            let x = next();
            let v = ((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 32.0;
            match x % 13 {
                0 => v.trunc(),
                1 => v * 1.0e-30,
                2 => 0.0f32.copysign(v),
                _ => v,
            }
            .to_bits()
        })
        .collect()
}

/// Values at and next to the bounds of i8 in every rounding mode, and beyond them.
fn bound_values() -> Vec<u32> {
    [
        -128.0f32,
        127.0,
        127.5,
        -127.5,
        128.5,
        -128.5,
        127.3,
        -128.3,
        127.7,
        -128.7,
        126.5,
        -127.4,
        128.0,
        -129.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        1.0e10,
        -1.0e10,
    ]
    .iter()
    .map(|x| x.to_bits())
    .collect()
}

/// Blocks of every kind one after the other, each [`BLOCK`] long.
fn block_run() -> Vec<u32> {
    let bounds = bound_values();
    let mut codes = Vec::new();
    for kind in 0..15 {
        let mut block = normal(BLOCK, 100 + kind as u64);
        let lane = (kind * 37) % BLOCK;
        match kind {
            // plain (0, 7, 14)
            1 => block[lane] = NAN,
            2 => block[lane] = POS_INF,
            3 => block[lane] = NEG_INF,
            // NaN only, in many steps (the special loop without lanes off the band)
            4 => (0..BLOCK)
                .step_by(7)
                .for_each(|i| block[i] = [NAN, SNAN][i % 2]),
            5 => block.fill(NEG_INF),
            // a causal row's tail
            6 => block[300..].fill(NEG_INF),
            // a bound value in a plain block's first step off the band, then more
            8 => {
                for (k, &b) in bounds.iter().enumerate() {
                    block[200 + 45 * k] = b;
                }
            }
            // bound values next to NaN / ±Inf, inside a special block
            9 => {
                block[3] = POS_INF;
                for (k, &b) in bounds.iter().enumerate() {
                    let at = 64 + 53 * k;
                    block[at] = b;
                    block[at + 1] = [NAN, POS_INF, NEG_INF][k % 3];
                }
            }
            // 1 % NaN / ±Inf
            10 | 11 => (lane % 100..BLOCK)
                .step_by(100)
                .enumerate()
                .for_each(|(k, i)| block[i] = [NAN, POS_INF, NEG_INF, SNAN][k % 4]),
            // every bound value in every lane of one step
            12 => {
                for (i, c) in block.iter_mut().enumerate().skip(128).take(64) {
                    *c = bounds[i % bounds.len()];
                }
            }
            // a NaN in the last step of the block only
            13 => block[BLOCK - 1] = NAN,
            _ => {}
        }
        codes.extend(block);
    }
    codes
}

#[test]
fn i8_over_blocks_of_every_kind_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    assert_i8_equals_reference_from(&block_run(), &[0, 64, 13, 1000], "blocks");
}

/// The i8 codes and counts of `codes` cast into a destination `offset` bytes past a 64-byte
/// boundary, by `kernels`.
fn cast_at(
    codes: &[u32],
    offset: usize,
    policy: &CastPolicy,
    kernels: KernelChoice,
) -> (Vec<u8>, npusim_numerics::StatusCounts) {
    let d = Storage::native(Format::I8);
    let n = codes.len();
    let mut buf = vec![0x5Au8; n + 128];
    let at = (64 - buf.as_ptr() as usize % 64) % 64 + offset;
    let o = BulkOptions {
        kernels,
        parallel: false,
        ..BulkOptions::default()
    };
    let counts = cast_elements_with_status(
        &bytes(codes),
        f32s(),
        &mut buf[at..at + n],
        d,
        n,
        policy,
        &o,
    )
    .expect("buffers are sized for n");
    assert!(
        buf[..at].iter().chain(&buf[at + n..]).all(|&b| b == 0x5A),
        "bytes written outside the destination (offset {offset}, n = {n})"
    );
    (buf[at..at + n].to_vec(), counts)
}

#[test]
fn i8_into_destinations_at_every_offset_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let mut codes = normal(64 * 6 + 29, 7);
    for (k, i) in (5..codes.len()).step_by(41).enumerate() {
        codes[i] = [
            NAN,
            POS_INF,
            NEG_INF,
            127.5f32.to_bits(),
            (-128.5f32).to_bits(),
        ][k % 5];
    }
    let d = Storage::native(Format::I8);
    for mode in [RoundMode::Rint, RoundMode::Floor, RoundMode::Round] {
        let policy = CastPolicy::new(mode);
        for offset in 0..64 {
            for n in [0, 1, 17, 63, 64, 65, 127, 128, 200, codes.len()] {
                let c = &codes[..n];
                let want = cast_at(c, offset, &policy, KernelChoice::Reference);
                let got = cast_at(c, offset, &policy, KernelChoice::Level(SimdLevel::best()));
                assert_same_codes(
                    &got,
                    &want,
                    c,
                    d,
                    &format!("{mode:?} offset {offset} n = {n}"),
                );
            }
        }
    }
}

/// The plain loop casts steps whose lanes off the band are all −Inf (a causal mask's rows) and
/// leaves at a step where a lane off the band is anything else: −Inf lanes next to NaN, +Inf,
/// the finite values whose code is a bound (−128, −128.5, 127.5, −2^31, whose conversion back
/// is exact, −f32::MAX, 2^31) and a negative subnormal, in the step where a row's values end
/// and in whole −Inf steps, then plain steps again.
#[test]
fn i8_masked_rows_next_to_every_kind_of_lane_off_the_band_equal_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let others = [
        NAN,
        SNAN,
        POS_INF,
        (-128.0f32).to_bits(),
        (-128.5f32).to_bits(),
        127.5f32.to_bits(),
        (-2_147_483_648.0f32).to_bits(),
        f32::MIN.to_bits(),
        2_147_483_648.0f32.to_bits(),
        0x807F_FFFF,
        0x8000_0000,
    ];
    let mut codes = Vec::new();
    for (k, &other) in others.iter().enumerate() {
        // causal rows of 256 (four steps), each keeping 1 + 37 r values
        for r in 0..6usize {
            let mut row = normal(256, 40 + k as u64 * 8 + r as u64);
            let keep = (1 + 37 * r).min(256);
            row[keep..].fill(NEG_INF);
            codes.extend(row);
        }
        // the other lane in the step where a row's values end, then in a whole −Inf step
        let mut row = normal(256, 900 + k as u64);
        row[100..].fill(NEG_INF);
        row[100 + k] = other;
        row[200 + 3 * k] = other;
        codes.extend(row);
        codes.extend(normal(128, 950 + k as u64));
    }
    assert_i8_equals_reference_from(&codes, &[0, 64, 5], "masked rows");
}
