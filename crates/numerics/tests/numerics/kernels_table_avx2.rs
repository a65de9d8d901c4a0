//! The AVX2 table kernel (`table-avx2`: the results of every code of a source of at most 8
//! bits, one per byte or packed two per byte, as byte planes looked up by 16-byte `vpshufb`
//! shuffles, into codes of 1, 2 or 4 bytes) equals the reference routine bit for bit, codes
//! and status counts: every code (and every stray high-bit pattern of one-per-byte sub-byte
//! sources, every nibble pair of packed ones) of every source of at most 8 bits, in each of
//! its storages, into every destination storage, under every deterministic mode and the three
//! standard policies; at odd lengths (the scalar tail), from unaligned source and destination
//! offsets, at short lengths around the 32-element step, split over threads, and streamed.
//! The kernel name at the AVX2 level is checked too, so that a silent fallback to the gather
//! or scalar loop fails a test.

use crate::kernel_support::{level_here, options, policies};
use crate::table_support::{
    all_destinations, assert_level_equals_reference, cast_at, repeated_source, small_sources,
    source_bytes,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

/// Whether the AVX2 shuffle lookup serves `s` into `d`: one code per byte or packed two per
/// byte, into codes of 1, 2 or 4 bytes one per element.
pub(crate) fn shuffled(s: Storage, d: Storage) -> bool {
    let source = if s.is_packed() {
        s.per_byte() == 2
    } else {
        s.format().unpacked_bytes() == 1
    };
    source && !d.is_packed() && matches!(d.format().unpacked_bytes(), 1 | 2 | 4)
}

#[test]
fn the_avx2_table_kernel_is_the_one_that_runs() {
    let avx2 = level_here(SimdLevel::Avx2);
    let mut checked = 0;
    for s in small_sources() {
        for d in all_destinations() {
            // (8-bit integers → f32 take the exact conversion)
            let exact_widening =
                matches!(s.format(), Format::I8 | Format::U8) && d.format() == Format::F32;
            if s == d || exact_widening {
                continue;
            }
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    let name = kernel_name_at(s, d, &policy, SimdLevel::Avx2);
                    let want = if avx2 && shuffled(s, d) {
                        "table-avx2"
                    } else {
                        "table"
                    };
                    assert_eq!(name, want, "{s:?} -> {d:?} {policy:?}");
                    if shuffled(s, d) {
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 5_000, "{checked}");
    // The sources into f32 all take it.
    let p = CastPolicy::default();
    for src in [
        Format::F8E4M3FN,
        Format::F8E5M2,
        Format::HiF8,
        Format::F8E8M0,
        Format::F8E4M3FNUZ,
        Format::F8E5M2FNUZ,
        Format::I4,
        Format::F4E2M1,
    ] {
        let name = kernel_name_at(
            Storage::native(src),
            Storage::native(Format::F32),
            &p,
            SimdLevel::Avx2,
        );
        assert_eq!(
            name,
            if avx2 { "table-avx2" } else { "table" },
            "{src} -> f32"
        );
    }
}

#[test]
fn every_small_source_code_into_every_destination_equals_the_reference() {
    level_here(SimdLevel::Avx2);
    let mut checked = 0;
    for (k, s) in small_sources().into_iter().enumerate() {
        let src = source_bytes(k as u64 + 7);
        let all = src.len() * s.per_byte();
        for d in all_destinations() {
            if s == d {
                continue;
            }
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    // Every element, an odd count (a masked tail; a packed source's last low
                    // nibble alone), into an unaligned destination.
                    assert_level_equals_reference(SimdLevel::Avx2, &src, s, d, all - 1, 3, &policy);
                    // From an unaligned source byte, aligned destination, odd count.
                    let rest = &src[1..];
                    let n = rest.len() * s.per_byte() - 5;
                    assert_level_equals_reference(SimdLevel::Avx2, rest, s, d, n, 0, &policy);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn short_lengths_around_the_step_equal_the_reference() {
    level_here(SimdLevel::Avx2);
    let lengths = [
        1usize, 2, 3, 5, 31, 32, 33, 63, 64, 65, 95, 127, 128, 129, 255,
    ];
    for (k, s) in small_sources().into_iter().enumerate() {
        let src = source_bytes(k as u64 + 101);
        for d in all_destinations() {
            if s == d {
                continue;
            }
            for policy in [
                CastPolicy::new(RoundMode::Rint),
                CastPolicy::saturating(RoundMode::Floor),
            ] {
                for (j, &n) in lengths.iter().enumerate() {
                    let from = j % 5;
                    let x = &src[from..];
                    assert_level_equals_reference(SimdLevel::Avx2, x, s, d, n, j % 3, &policy);
                }
            }
        }
    }
}

#[test]
fn parallel_chunks_at_the_avx2_level_equal_the_reference() {
    level_here(SimdLevel::Avx2);
    let policy = CastPolicy::saturating(RoundMode::Round);
    let cases = [
        (Format::F8E4M3FN, Format::F32),
        (Format::I4, Format::F32),
        (Format::HiF8, Format::BF16),
        (Format::F8E5M2, Format::F32),
        (Format::F8E8M0, Format::F32),
        (Format::F4E2M1, Format::I8),
    ];
    for (k, (src, dst)) in cases.into_iter().enumerate() {
        let s = Storage::native(src);
        let d = Storage::native(dst);
        let n = 3 * npusim_numerics::bulk::PARALLEL_THRESHOLD + 12;
        let bytes = repeated_source(s, n, k as u64 + 55);
        // The last element of an odd count alone in its byte, when the source is packed.
        let n = n - 1;
        let reference = options(KernelChoice::Reference, false);
        let avx2 = options(KernelChoice::Level(SimdLevel::Avx2), true);
        let want = cast_at(&bytes, s, d, n, 0, &policy, &reference);
        let got = cast_at(&bytes, s, d, n, 0, &policy, &avx2);
        assert!(got == want, "{src} -> {dst}");
    }
}

#[test]
fn large_outputs_stored_non_temporally_equal_the_reference() {
    level_here(SimdLevel::Avx2);
    // Outputs of a few MiB and more (8 MiB here) are streamed from their first 64-byte
    // boundary: destination offsets that do and do not put an element boundary there, odd
    // counts.
    let policy = CastPolicy::new(RoundMode::Rint);
    for (k, (src, dst)) in [(Format::F8E5M2, Format::F32), (Format::I4, Format::F16)]
        .into_iter()
        .enumerate()
    {
        let s = Storage::native(src);
        let d = Storage::native(dst);
        let n = (8 << 20) / d.bytes_for(1) + 4099;
        let bytes = repeated_source(s, n, k as u64 + 9);
        let reference = options(KernelChoice::Reference, false);
        let avx2 = options(KernelChoice::Level(SimdLevel::Avx2), false);
        for offset in [0, 3, 4, 8, 40] {
            let want = cast_at(&bytes, s, d, n, offset, &policy, &reference);
            let got = cast_at(&bytes, s, d, n, offset, &policy, &avx2);
            assert!(got == want, "{src} -> {dst}, offset {offset}");
        }
    }
}

#[test]
fn computed_f32_codes_equal_the_reference_across_blocks_and_streamed() {
    // fp8 and e8m0 → f32 follow an arithmetic rule with at most two exception codes (NaN;
    // e8m0's 2^-127 too), which the AVX2 loop computes instead of looking up, counting the
    // statuses after each block of 255 steps: lengths across two block boundaries with a
    // tail, sources of every code and of NaN codes only, unaligned destinations, and an
    // output streamed past the cache (8 MiB and more).
    level_here(SimdLevel::Avx2);
    let reference = options(KernelChoice::Reference, false);
    let avx2 = options(KernelChoice::Level(SimdLevel::Avx2), false);
    let d = Storage::native(Format::F32);
    let policy = CastPolicy::new(RoundMode::Rint);
    for (k, src) in [
        Format::F8E4M3FN,
        Format::F8E8M0,
        Format::F8E4M3FNUZ,
        Format::F8E5M2FNUZ,
        Format::F8E5M2,
        Format::HiF8,
    ]
    .into_iter()
    .enumerate()
    {
        let s = Storage::native(src);
        let block = 2 * 255 * 32 + 37;
        let streamed = (8 << 20) / 4 + 4099;
        let every = repeated_source(s, streamed, k as u64 + 301);
        let nans: Vec<u8> = [0x7Fu8, 0xFF, 0x80, 0x00, 0x01]
            .iter()
            .copied()
            .cycle()
            .take(block)
            .collect();
        for (bytes, n) in [(&every, block), (&nans, block), (&every, streamed)] {
            for offset in [0, 3, 4, 40] {
                let want = cast_at(bytes, s, d, n, offset, &policy, &reference);
                let got = cast_at(bytes, s, d, n, offset, &policy, &avx2);
                assert!(got == want, "{src} -> f32, n {n}, offset {offset}");
            }
        }
    }
}
