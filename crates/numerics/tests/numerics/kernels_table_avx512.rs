//! The AVX-512 table kernel (`table-avx512`: the results of every code of a source of at most
//! 8 bits as byte planes, looked up by VBMI permutes) equals the reference routine bit for
//! bit, codes and status counts: every code (and every stray high-bit pattern of one-per-byte
//! sub-byte sources, every nibble and crumb pair of packed ones) of every source of at most
//! 8 bits, in each of its storages, into every destination storage, under every deterministic
//! mode and the three standard policies; at odd lengths (masked tails), from unaligned source
//! and destination offsets, at short lengths around the 64-element step, and split over
//! threads. The kernel name at the AVX-512 level is checked too, so that a silent fallback to
//! the gather or scalar loop fails a test.

use crate::kernel_support::{level_here, options, policies};
use crate::table_support::{
    all_destinations, assert_level_equals_reference, cast_at, repeated_source, small_sources,
    source_bytes,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

#[test]
fn the_avx512_table_kernel_is_the_one_that_runs() {
    let avx512 = level_here(SimdLevel::Avx512);
    let avx2 = level_here(SimdLevel::Avx2);
    let mut checked = 0;
    for s in small_sources() {
        for d in all_destinations() {
            // (8-bit integers → f32 take the exact conversion, checked below)
            let exact_widening =
                matches!(s.format(), Format::I8 | Format::U8) && d.format() == Format::F32;
            if s == d || exact_widening {
                continue;
            }
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    let name = kernel_name_at(s, d, &policy, SimdLevel::Avx512);
                    let want = if avx512 { "table-avx512" } else { "table" };
                    assert_eq!(name, want, "{s:?} -> {d:?} {policy:?}");
                    let below = kernel_name_at(s, d, &policy, SimdLevel::Avx2);
                    let want = if avx2 && crate::kernels_table_avx2::shuffled(s, d) {
                        "table-avx2"
                    } else {
                        "table"
                    };
                    assert_eq!(below, want, "{s:?} -> {d:?} {policy:?} at avx2");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
    // 16-bit sources keep the gather and widening kernels (f16 / bf16 into floats go through
    // exact f32 codes); integers → f32 are converted.
    let p = CastPolicy::default();
    let half = if avx512 {
        "half-float-fp8-avx2"
    } else {
        "half-float"
    };
    let int_f32 = if avx512 { "int-f32-avx512" } else { "int-f32" };
    let widen = if avx512 { "widen-avx512" } else { "widen" };
    for (src, dst, want) in [
        (Format::F16, Format::F8E4M3FN, half),
        (Format::BF16, Format::I8, "table"),
        (Format::F16, Format::F32, widen),
        (Format::I8, Format::F32, int_f32),
        (Format::U16, Format::F32, int_f32),
    ] {
        let name = kernel_name_at(
            Storage::native(src),
            Storage::native(dst),
            &p,
            SimdLevel::Avx512,
        );
        assert_eq!(name, want, "{src} -> {dst}");
    }
}

#[test]
fn every_small_source_code_into_every_destination_equals_the_reference() {
    level_here(SimdLevel::Avx512);
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
                    assert_level_equals_reference(
                        SimdLevel::best(),
                        &src,
                        s,
                        d,
                        all - 1,
                        3,
                        &policy,
                    );
                    // From an unaligned source byte, aligned destination, odd count.
                    let rest = &src[1..];
                    let n = rest.len() * s.per_byte() - 5;
                    assert_level_equals_reference(SimdLevel::best(), rest, s, d, n, 0, &policy);
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn short_lengths_around_the_step_equal_the_reference() {
    level_here(SimdLevel::Avx512);
    let lengths = [1usize, 2, 3, 5, 31, 63, 64, 65, 127, 128, 129, 191, 255];
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
                    assert_level_equals_reference(SimdLevel::best(), x, s, d, n, j % 3, &policy);
                }
            }
        }
    }
}

#[test]
fn parallel_chunks_at_the_avx512_level_equal_the_reference() {
    level_here(SimdLevel::Avx512);
    let policy = CastPolicy::saturating(RoundMode::Round);
    let cases = [
        (Format::F8E4M3FN, Format::F32),
        (Format::I4, Format::F32),
        (Format::HiF8, Format::BF16),
        (Format::U2, Format::F4E2M1),
        (Format::F8E5M2, Format::I4),
        (Format::F6E3M2FN, Format::F64),
    ];
    for (k, (src, dst)) in cases.into_iter().enumerate() {
        let s = Storage::native(src);
        let d = Storage::native(dst);
        let n = 3 * npusim_numerics::bulk::PARALLEL_THRESHOLD + 12;
        let bytes = repeated_source(s, n, k as u64 + 55);
        // The last element of an odd count alone in its byte, when the source is packed.
        let n = n - 1;
        let reference = options(KernelChoice::Reference, false);
        let avx512 = options(KernelChoice::Level(SimdLevel::best()), true);
        let want = cast_at(&bytes, s, d, n, 0, &policy, &reference);
        let got = cast_at(&bytes, s, d, n, 0, &policy, &avx512);
        assert!(got == want, "{src} -> {dst}");
    }
}

#[test]
fn large_outputs_stored_non_temporally_equal_the_reference() {
    level_here(SimdLevel::Avx512);
    // Outputs of a few MiB and more (8 MiB here) are streamed from their first 64-byte
    // boundary: destination offsets that do and do not put an element boundary there, odd
    // counts.
    let policy = CastPolicy::new(RoundMode::Rint);
    for (k, (src, dst)) in [(Format::F8E4M3FN, Format::F32), (Format::I4, Format::F64)]
        .into_iter()
        .enumerate()
    {
        let s = Storage::native(src);
        let d = Storage::native(dst);
        let n = (8 << 20) / d.bytes_for(1) + 4099;
        let bytes = repeated_source(s, n, k as u64 + 9);
        let reference = options(KernelChoice::Reference, false);
        let avx512 = options(KernelChoice::Level(SimdLevel::best()), false);
        for offset in [0, 3, 4, 8, 40] {
            let want = cast_at(&bytes, s, d, n, offset, &policy, &reference);
            let got = cast_at(&bytes, s, d, n, offset, &policy, &avx512);
            assert!(got == want, "{src} -> {dst}, offset {offset}");
        }
    }
}
