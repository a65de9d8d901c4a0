//! i8 / u8 / i16 / u16 → f32 at the AVX2 level (`int-f32-avx2`: 8 lanes widened by
//! `vpmovsx`/`vpmovzx` and converted by `vcvtdq2ps`, 32 elements per step, streamed stores
//! for large outputs) equal the reference routine bit for bit, codes and status counts: every
//! source code (all 256 of the 8-bit sources, all 65,536 of the 16-bit ones) under every
//! deterministic mode and the three standard policies with the Inf and NaN rules varied; from
//! every offset into the 32-element step and at every tail length, from unaligned source and
//! destination bytes; outputs above the streaming threshold at the default options (serial and
//! split over threads) into destinations at several offsets from a 64-byte boundary. Every
//! fast cast is also re-run streamed by `kernel_support::cast`. The kernel names are checked,
//! so that a silent fallback to the portable loop fails a test.

use crate::kernel_support;
use kernel_support::{
    all_policies, assert_absent_level_names_portable, cast, f32s, level_here, options,
};

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage, kernel_name_at};

/// The integer sources of the kernel.
const SOURCES: [Format; 4] = [Format::I8, Format::U8, Format::I16, Format::U16];

/// Every code of `f` (one or two little-endian bytes each), in order.
fn every_code(f: Format) -> Vec<u8> {
    if f.bits() == 8 {
        (0..=255u8).collect()
    } else {
        (0..=u16::MAX).flat_map(|c| c.to_le_bytes()).collect()
    }
}

/// `src` (codes of `f`) cast at the AVX2 level equals the reference, codes and counts,
/// naming the first differing element.
fn assert_avx2_equals_reference(src: &[u8], f: Format, policy: &CastPolicy) {
    let s = Storage::native(f);
    let b = s.bytes_for(1);
    let n = src.len() / b;
    let want = cast(
        src,
        s,
        f32s(),
        n,
        policy,
        &options(KernelChoice::Reference, false),
    );
    let got = cast(
        src,
        s,
        f32s(),
        n,
        policy,
        &options(KernelChoice::Level(SimdLevel::Avx2), false),
    );
    if let Some(i) = (0..n).find(|&i| got.0[4 * i..4 * i + 4] != want.0[4 * i..4 * i + 4]) {
        panic!(
            "{f} {:02x?} -> {:02x?}, want {:02x?} ({policy:?}, n = {n})",
            &src[b * i..b * i + b],
            &got.0[4 * i..4 * i + 4],
            &want.0[4 * i..4 * i + 4]
        );
    }
    assert_eq!(got.1, want.1, "{f} counts, {policy:?}, n = {n}");
}

#[test]
fn the_avx2_level_runs_the_integer_kernel() {
    if !level_here(SimdLevel::Avx2) {
        for src in SOURCES {
            for p in all_policies() {
                let s = Storage::native(src);
                assert_absent_level_names_portable(s, f32s(), &p, SimdLevel::Avx2);
            }
        }
        return;
    }
    let avx512 = SimdLevel::Avx512.is_available();
    for src in SOURCES {
        let s = Storage::native(src);
        for p in all_policies() {
            assert_eq!(
                kernel_name_at(s, f32s(), &p, SimdLevel::Portable),
                "int-f32",
                "{src} {p:?}"
            );
            assert_eq!(
                kernel_name_at(s, f32s(), &p, SimdLevel::Avx2),
                "int-f32-avx2",
                "{src} {p:?}"
            );
            let top = if avx512 { "int-f32-avx512" } else { "int-f32" };
            assert_eq!(
                kernel_name_at(s, f32s(), &p, SimdLevel::Avx512),
                top,
                "{src} {p:?}"
            );
        }
    }
}

#[test]
fn every_code_under_every_policy_equals_the_reference() {
    level_here(SimdLevel::Avx2);
    let policies = all_policies();
    assert_eq!(policies.len(), 7 * 3 * 4);
    for src in SOURCES {
        let codes = every_code(src);
        for p in &policies {
            assert_avx2_equals_reference(&codes, src, p);
        }
        // and in reverse order, so that every code also sits in another lane of the step
        let b = Storage::native(src).bytes_for(1);
        let reversed: Vec<u8> = codes.chunks_exact(b).rev().flatten().copied().collect();
        assert_avx2_equals_reference(&reversed, src, &CastPolicy::default());
    }
}

#[test]
fn every_offset_and_tail_length_equals_the_reference() {
    level_here(SimdLevel::Avx2);
    // Windows over the ends of each range (0, the sign change, the largest values), starting
    // at every offset into a 32-element step, of every length up to three steps.
    let lengths = [
        1usize, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 95, 96, 97,
    ];
    for src in SOURCES {
        let codes = every_code(src);
        let b = Storage::native(src).bytes_for(1);
        let count = codes.len() / b;
        let policy = CastPolicy::non_saturating(RoundMode::Floor);
        for base in [0usize, 0x70, 0xE0, count / 2 - 40, count - 130] {
            for skip in 0..32 {
                for n in lengths {
                    let at = (base + skip).min(count - n);
                    let window = &codes[b * at..b * (at + n)];
                    assert_avx2_equals_reference(window, src, &policy);
                    // the same window from an odd source address
                    let mut shifted = vec![0u8; window.len() + 1];
                    shifted[1..].copy_from_slice(window);
                    assert_avx2_equals_reference(&shifted[1..], src, &policy);
                }
            }
        }
    }
}

#[test]
fn outputs_above_the_streaming_threshold_at_the_default_options_equal_the_reference() {
    level_here(SimdLevel::Avx2);
    // 8 MiB and more of f32 output per cast: streamed by default at the AVX2 level (serial,
    // and split over threads), from destinations at several offsets from a 64-byte boundary.
    let n = (1 << 21) + 13;
    let reference = options(KernelChoice::Reference, false);
    let avx2 = [
        options(KernelChoice::Level(SimdLevel::Avx2), false),
        options(KernelChoice::Level(SimdLevel::Avx2), true),
    ];
    let mut next = kernel_support::xorshift(0x1F32);
    for src in SOURCES {
        let s = Storage::native(src);
        let data: Vec<u8> = (0..s.bytes_for(n)).map(|_| (next() >> 40) as u8).collect();
        let policy = CastPolicy::default();
        let want = kernel_support::cast_to_f32_at(&data, s, n, 0, &policy, &reference);
        for opts in &avx2 {
            for offset in [0usize, 4, 12, 32, 60] {
                let got = kernel_support::cast_to_f32_at(&data, s, n, offset, &policy, opts);
                assert!(got.0 == want.0, "{src} offset {offset} {opts:?}");
                assert_eq!(got.1, want.1, "{src} offset {offset} {opts:?}");
            }
        }
    }
}
