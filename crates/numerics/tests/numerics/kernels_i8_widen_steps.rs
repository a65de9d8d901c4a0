//! The AVX-512 f32 → i8 loop and the f16 / bf16 → f32 widening at the step kinds their fast
//! loops tell apart, cast at the best level and by the reference routine: codes and status
//! counts must agree bit for bit.
//!
//! f32 → i8, in every deterministic mode under the three standard policies: data whose
//! values spread over 2^-20..2^11 (the bench's: nearly every step holds a finite value
//! beyond the range), those with NaN / ±Inf among them, 1 % NaN / ±Inf among normal values,
//! causal-mask rows (−Inf tails), all-special steps, ±0 and the exact bounds −128 and 127
//! next to values that saturate without overflowing (127.3 in a rounding-down mode), from
//! every offset into the 64-element steps.
//!
//! f16 / bf16 → f32: every code, from destinations at every byte offset from a 64-byte
//! boundary (the loop aligns its stores by a masked first step) and at lengths around that
//! first step, and 1 % NaN / ±Inf and causal-mask data.

use crate::kernel_support;
use kernel_support::xorshift;
use kernel_support::{assert_same_codes, bytes, f32s, level_here, options, policies};

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, RoundMode, Storage, cast_elements_with_status,
};

/// `n` f32 codes with a random sign and mantissa and exponents 2^-20..2^11.
fn spread(n: usize, seed: u64) -> Vec<u32> {
    let mut next = xorshift(seed);
    (0..n)
        .map(|_| {
            let x = next();
            let e = 107 + (x >> 40) % 32;
            (((x & 1) << 31) | (e << 23) | ((x >> 8) & 0x7F_FFFF)) as u32
        })
        .collect()
}

/// `n` values of magnitude below 16 (normal data for an i8 cast), some of them integers.
fn normal(n: usize, seed: u64) -> Vec<u32> {
    let mut next = xorshift(seed);
    (0..n)
        .map(|_| {
            let x = next();
            let v = ((x >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * 32.0;
            if x.is_multiple_of(7) { v.trunc() } else { v }.to_bits()
        })
        .collect()
}

const NAN: u32 = 0x7FC0_0000;
const SNAN: u32 = 0xFF80_0001;
const POS_INF: u32 = 0x7F80_0000;
const NEG_INF: u32 = 0xFF80_0000;

/// Every 100th code (from `phase`) NaN, +Inf, −Inf in turn (a signalling NaN now and then).
fn one_percent(codes: &mut [u32], phase: usize) {
    for (k, i) in (phase..codes.len()).step_by(100).enumerate() {
        codes[i] = [NAN, POS_INF, NEG_INF, SNAN][k % 4];
    }
}

/// Causal-mask rows of `row` codes: row r keeps r + 1 values, −Inf after them.
fn masked(codes: &mut [u32], row: usize) {
    for (i, c) in codes.iter_mut().enumerate() {
        if i % row > (i / row) % row {
            *c = NEG_INF;
        }
    }
}

/// The deterministic modes and `none`.
fn modes() -> Vec<RoundMode> {
    let mut m = RoundMode::DETERMINISTIC.to_vec();
    m.push(RoundMode::None);
    m.retain(|&m| m != RoundMode::Odd);
    m
}

/// The best level equals the reference on `codes` → i8 under every standard policy of
/// every mode, from the first code and from an offset that straddles the steps.
fn assert_i8_equals_reference(codes: &[u32], what: &str) {
    assert_i8_equals_reference_from(codes, &[0, 13], what);
}

/// The best level equals the reference on `codes[skip..]` → i8 for each of `skips`, under
/// every standard policy of every mode.
pub(crate) fn assert_i8_equals_reference_from(codes: &[u32], skips: &[usize], what: &str) {
    let d = Storage::native(Format::I8);
    for mode in modes() {
        for policy in policies(mode) {
            for &skip in skips {
                let c = &codes[skip..];
                let src = bytes(c);
                let run =
                    |k| kernel_support::cast(&src, f32s(), d, c.len(), &policy, &options(k, false));
                let want = run(KernelChoice::Reference);
                let got = run(KernelChoice::Level(SimdLevel::best()));
                assert_same_codes(&got, &want, c, d, &format!("{what} {policy:?} skip {skip}"));
            }
        }
    }
}

#[test]
fn i8_on_values_beyond_the_range_in_every_step_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let mut codes = spread(64 * 40 + 7, 3);
    assert_i8_equals_reference(&codes, "spread");
    one_percent(&mut codes, 5);
    assert_i8_equals_reference(&codes, "spread, 1 % NaN / Inf");
    masked(&mut codes, 64);
    assert_i8_equals_reference(&codes, "spread, masked");
}

#[test]
fn i8_on_normal_data_with_nan_inf_or_a_mask_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    for phase in [0, 37, 99] {
        let mut codes = normal(64 * 50 + 31, 11 + phase as u64);
        one_percent(&mut codes, phase);
        assert_i8_equals_reference(&codes, "normal, 1 % NaN / Inf");
    }
    for row in [64, 100, 1024] {
        let mut codes = normal(64 * 40 + 9, 5);
        masked(&mut codes, row);
        assert_i8_equals_reference(&codes, &format!("normal, masked rows of {row}"));
    }
}

/// Steps of one special kind each, then steps mixing them with ±0, the exact bounds and
/// values that saturate without overflowing, in every lane.
#[test]
fn i8_all_special_steps_and_exact_bounds_equal_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let mut codes = Vec::new();
    for s in [NAN, SNAN, POS_INF, NEG_INF] {
        codes.extend([s; 64]);
    }
    codes.extend((0..64).map(|i| [NAN, POS_INF, NEG_INF][i % 3]));
    codes.extend((0..64).map(|i| if i % 2 == 0 { NEG_INF } else { POS_INF }));
    let rare: Vec<u32> = [
        0.0f32, -0.0, -128.0, 127.0, -127.0, 126.0, 127.3, -128.3, 127.7, -128.7, 127.5, -128.5,
        128.0, -129.0, 1.0e10, -1.0e10, 0.4, -0.4, 0.5, -0.5,
    ]
    .iter()
    .map(|x| x.to_bits())
    .chain([NAN, POS_INF, NEG_INF])
    .collect();
    let base = normal(64, 9);
    for (k, &r) in rare.iter().enumerate() {
        for at in [0usize, 15, 16, 47, 63] {
            let mut step = base.clone();
            step[at] = r;
            step[(at + 21) % 64] = rare[(k + 3) % rare.len()];
            codes.extend(step);
        }
    }
    codes.extend((0..64 * 3).map(|i| rare[(7 * i) % rare.len()]));
    assert_i8_equals_reference(&codes, "special steps");
}

/// The little-endian bytes of 16-bit codes.
fn bytes16(codes: &[u16]) -> Vec<u8> {
    codes.iter().flat_map(|c| c.to_le_bytes()).collect()
}

/// `src` → f32 of the 16-bit `codes` into a destination `offset` bytes past a 64-byte
/// boundary, at the best level and by the reference: the same bytes and counts, and no byte
/// written around the output.
fn assert_widen_at(codes: &[u16], src: Format, offset: usize, policy: &CastPolicy) {
    let n = codes.len();
    let s = bytes16(codes);
    let run = |k| {
        let mut buf = vec![0x5Au8; 4 * n + 128];
        let at = (64 - buf.as_ptr() as usize % 64) % 64 + offset;
        let opts = BulkOptions {
            parallel: false,
            ..options(k, false)
        };
        let c = cast_elements_with_status(
            &s,
            Storage::native(src),
            &mut buf[at..at + 4 * n],
            f32s(),
            n,
            policy,
            &opts,
        )
        .expect("buffers are sized for n");
        assert!(
            buf[..at]
                .iter()
                .chain(&buf[at + 4 * n..])
                .all(|&b| b == 0x5A)
        );
        (buf[at..at + 4 * n].to_vec(), c)
    };
    let want = run(KernelChoice::Reference);
    let got = run(KernelChoice::Level(SimdLevel::best()));
    assert!(
        got == want,
        "{src:?} n={n} offset {offset} {policy:?}: {:?} vs {:?}",
        got.1,
        want.1
    );
}

#[test]
fn widening_from_every_destination_offset_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    let all: Vec<u16> = (0..=u16::MAX).collect();
    for src in [Format::F16, Format::BF16] {
        for policy in [CastPolicy::default(), CastPolicy::new(RoundMode::Floor)] {
            for offset in [0, 1, 2, 3, 4, 8, 16, 28, 32, 48, 60, 63] {
                assert_widen_at(&all, src, offset, &policy);
                // lengths around the masked first step and one full step after it
                for n in [
                    0, 1, 3, 11, 12, 13, 15, 16, 17, 31, 32, 33, 44, 45, 47, 48, 49, 80,
                ] {
                    let from = 0x7C00 - 7 + offset;
                    assert_widen_at(&all[from..from + n], src, offset, &policy);
                }
            }
        }
    }
}

#[test]
fn widening_special_data_equals_the_reference() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    for src in [Format::F16, Format::BF16] {
        let (nan, inf, neg_inf) = if src == Format::F16 {
            (0x7E00u16, 0x7C00u16, 0xFC00u16)
        } else {
            (0x7FC0, 0x7F80, 0xFF80)
        };
        let mut next = xorshift(17);
        let base: Vec<u16> = (0..64 * 70 + 19)
            .map(|_| (next() as u16) & 0xBBFF)
            .collect();
        let mut one = base.clone();
        for (k, i) in (3..one.len()).step_by(100).enumerate() {
            one[i] = [nan, inf, neg_inf, nan | 1][k % 4];
        }
        let mut mask = base.clone();
        for (i, c) in mask.iter_mut().enumerate() {
            if i % 1024 > (i / 1024) % 1024 {
                *c = neg_inf;
            }
        }
        for codes in [&one, &mask] {
            for offset in [0, 16] {
                assert_widen_at(codes, src, offset, &CastPolicy::default());
            }
        }
    }
}
