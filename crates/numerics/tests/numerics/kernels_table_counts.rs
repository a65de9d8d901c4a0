//! The status counts of the table lookups of one-code-per-byte sources, which count their
//! few status classes by byte compares of the source codes in a pass of their own (a byte
//! counter per compare, summed every 255 steps), equal the reference's on data made of
//! nothing but special codes (every byte counter full at each sum), on data with a special
//! code in every step, and across the steps' and blocks' edges, at every level the machine
//! has: fp8 NaN and Inf codes, HiF8's NaN and ±Inf, e8m0's NaN, and the inexact and
//! saturated codes of narrowing lookups.

use crate::kernel_support::{level_here, options};
use crate::table_support::cast_at;

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

/// The casts whose statuses fall in few classes of few codes each.
fn cases() -> Vec<(Format, Format, CastPolicy)> {
    vec![
        (Format::F8E4M3FN, Format::F32, CastPolicy::default()),
        (Format::F8E5M2, Format::F32, CastPolicy::default()),
        (Format::HiF8, Format::F32, CastPolicy::default()),
        (Format::F8E8M0, Format::F32, CastPolicy::default()),
        (Format::F8E5M2, Format::F16, CastPolicy::default()),
        (
            Format::F8E5M2,
            Format::F8E4M3FN,
            CastPolicy::saturating(RoundMode::Rint),
        ),
        (
            Format::I8,
            Format::I4,
            CastPolicy::saturating(RoundMode::Rint),
        ),
    ]
}

/// Every level the machine has, the portable one included.
fn levels() -> Vec<SimdLevel> {
    [SimdLevel::Portable, SimdLevel::Avx2, SimdLevel::Avx512]
        .into_iter()
        .filter(|&l| level_here(l))
        .collect()
}

/// The source codes of `src` whose results carry a status (under `policy` into `dst`).
fn special_codes(src: Format, dst: Format, policy: &CastPolicy) -> Vec<u8> {
    let s = Storage::native(src);
    let d = Storage::native(dst);
    let reference = options(KernelChoice::Reference, false);
    (0..=255u8)
        .filter(|&c| {
            let (_, counts) = cast_at(&[c], s, d, 1, 0, policy, &reference);
            counts.exact == 0 || counts.flags.iter().any(|&f| f > 0)
        })
        .collect()
}

/// Asserts that `src` cast at every level equals the reference, codes and counts.
fn assert_all_levels(bytes: &[u8], src: Format, dst: Format, policy: &CastPolicy, what: &str) {
    let (s, d) = (Storage::native(src), Storage::native(dst));
    let n = bytes.len();
    let want = cast_at(
        bytes,
        s,
        d,
        n,
        0,
        policy,
        &options(KernelChoice::Reference, false),
    );
    for level in levels() {
        for offset in [0, 5] {
            let got = cast_at(
                bytes,
                s,
                d,
                n,
                offset,
                policy,
                &options(KernelChoice::Level(level), false),
            );
            assert!(
                got.1 == want.1,
                "{src} -> {dst} {what} at {level:?}: counts {:?} against {:?}",
                got.1,
                want.1
            );
            assert!(got.0 == want.0, "{src} -> {dst} {what} at {level:?}: codes");
        }
    }
}

#[test]
fn data_of_nothing_but_special_codes_is_counted_in_full() {
    for (src, dst, policy) in cases() {
        let special = special_codes(src, dst, &policy);
        assert!(!special.is_empty(), "{src} -> {dst}");
        // 40 000 elements: two full blocks of 255 steps of 64 codes (and more of 32), then a
        // ragged end; every byte counter reaches 255 before it is summed.
        let bytes: Vec<u8> = (0..40_003).map(|i| special[i % special.len()]).collect();
        assert_all_levels(&bytes, src, dst, &policy, "all special");
        // One code alone, repeated: one cube's counter full, the others empty.
        let one = vec![special[special.len() - 1]; 16_321];
        assert_all_levels(&one, src, dst, &policy, "one special code");
    }
}

#[test]
fn a_special_code_in_every_step_and_at_the_block_edges_is_counted_once() {
    for (src, dst, policy) in cases() {
        let special = special_codes(src, dst, &policy);
        // ordinary codes with a special one every 29 elements and at the elements around
        // each block's end (255 steps of 32 and of 64 codes)
        let ordinary: Vec<u8> = (0..=255u8).filter(|c| !special.contains(c)).collect();
        let mut bytes: Vec<u8> = (0..33_001u32)
            .map(|i| ordinary[(i.wrapping_mul(2_654_435_761) >> 11) as usize % ordinary.len()])
            .collect();
        for i in (0..bytes.len()).step_by(29) {
            bytes[i] = special[i % special.len()];
        }
        for edge in [255 * 32, 2 * 255 * 32, 255 * 64, 2 * 255 * 64] {
            for at in edge - 1..=edge {
                bytes[at] = special[at % special.len()];
            }
        }
        for n in [bytes.len(), 255 * 64, 255 * 64 + 1, 255 * 32 - 1, 100] {
            assert_all_levels(&bytes[..n], src, dst, &policy, &format!("n {n}"));
        }
    }
}
