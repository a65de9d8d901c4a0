//! f16 / bf16 → one-byte binary floats (e4m3fn, e5m2, fp6, fp4 unpacked) to nearest even at
//! the AVX2 level: the one-pass loop (`half-float-fp8-avx2`: widened in registers, NaN, ±Inf
//! and the lanes beyond the largest finite value decided on the 16-bit codes, every status
//! in byte counters) equals the reference routine bit for bit, codes and status counts, on
//! runs of one class longer than the loop's counter flush (NaN with every payload kept,
//! ±Inf, overflow and saturation, underflow, ±0), on scrambled codes at unaligned heads and
//! odd tails, split over threads. (Every source code in every mode and policy at every level
//! is checked by `kernels_half_src`.) The choice is made per level: the kernel that measured
//! fastest at each (see docs/speed.md), named by `kernel_name_at`.

use crate::kernel_support::{cast, level_here, options, policies};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{Format, KernelChoice, Layout, RoundMode, Storage};

/// The one-byte destinations of the loop.
pub(crate) fn destinations() -> Vec<Storage> {
    let mut v: Vec<Storage> = [
        Format::F8E4M3FN,
        Format::F8E5M2,
        Format::F6E2M3FN,
        Format::F6E3M2FN,
    ]
    .into_iter()
    .map(Storage::native)
    .collect();
    v.extend(Storage::new(Format::F4E2M1, Layout::Unpacked));
    v
}

/// The codes `codes` of a 16-bit source, little-endian.
fn le(codes: &[u16]) -> Vec<u8> {
    codes.iter().flat_map(|c| c.to_le_bytes()).collect()
}

/// Asserts that casting `src` (`n` codes of `sf`) into `d` under every policy of the nearest
/// even mode at the AVX2 level, in one piece and split over threads, gives the reference's
/// codes and counts.
fn assert_avx2_equals_reference(sf: Format, d: Storage, src: &[u8], n: usize, what: &str) {
    let s = Storage::native(sf);
    for policy in policies(RoundMode::Rint) {
        let want = cast(
            src,
            s,
            d,
            n,
            &policy,
            &options(KernelChoice::Reference, false),
        );
        for parallel in [false, true] {
            let got = cast(
                src,
                s,
                d,
                n,
                &policy,
                &options(KernelChoice::Level(SimdLevel::Avx2), parallel),
            );
            if got.0 != want.0 {
                let i = (0..n).find(|&i| got.0[i] != want.0[i]).unwrap_or(0);
                panic!(
                    "{sf} -> {d:?} {policy:?} {what} n = {n} parallel {parallel}: element {i} \
                     {:#04x} vs {:#04x}",
                    got.0[i], want.0[i]
                );
            }
            assert_eq!(
                got.1, want.1,
                "{sf} -> {d:?} {policy:?} {what} n = {n} parallel {parallel}"
            );
        }
    }
}

#[test]
fn the_half_to_fp8_kernel_is_chosen_per_level() {
    let avx2 = level_here(SimdLevel::Avx2);
    let avx512 = SimdLevel::Avx512.is_available();
    for sf in [Format::F16, Format::BF16] {
        let s = Storage::native(sf);
        for d in destinations() {
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    let at = |level| kernel_name_at(s, d, &policy, level);
                    assert_eq!(at(SimdLevel::Portable), "half-float");
                    // the one-pass loop measured faster than the widening route at both
                    // levels (at AVX-512 as well: that route's f32 loop leaves its loop for
                    // the NaN, ±Inf and overflow steps)
                    for (level, here) in [(SimdLevel::Avx2, avx2), (SimdLevel::Avx512, avx512)] {
                        let want = match (here, mode == RoundMode::Rint) {
                            (false, _) => "half-float",
                            (true, true) => "half-float-fp8-avx2",
                            (true, false) => "half-float-avx2",
                        };
                        assert_eq!(at(level), want, "{sf} -> {d:?} {policy:?} at {level:?}");
                    }
                }
            }
        }
    }
    // two-byte destinations keep the widening route at every level
    let p = policies(RoundMode::Rint)[0];
    let name = kernel_name_at(
        Storage::native(Format::F16),
        Storage::native(Format::BF16),
        &p,
        SimdLevel::Avx2,
    );
    let want = if avx2 {
        "half-float-avx2"
    } else {
        "half-float"
    };
    assert_eq!(name, want);
}

#[test]
fn runs_of_one_class_longer_than_the_counter_flush_equal_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    // 255 steps of 32 between two flushes of the byte counters: three flushes and a tail
    let n = 3 * 255 * 32 + 37;
    let classes: [(Format, &str, Vec<u16>); 16] = [
        (
            Format::F16,
            "NaN payloads",
            vec![0x7C01, 0x7E00, 0xFF3F, 0x7DA5, 0xFE01],
        ),
        (Format::F16, "+Inf", vec![0x7C00]),
        (Format::F16, "-Inf", vec![0xFC00]),
        (
            Format::F16,
            "overflow",
            vec![0x7BFF, 0xFBFF, 0x7A00, 0xF8A0],
        ),
        (
            Format::F16,
            "at the largest finite values",
            vec![0x5F00, 0xDF01, 0x5F80, 0x7B00, 0x7B7F, 0xFB80],
        ),
        (
            Format::F16,
            "underflow",
            vec![0x0001, 0x8123, 0x1800, 0x9C01],
        ),
        (Format::F16, "zeros", vec![0x0000, 0x8000]),
        (
            Format::F16,
            "-Inf and plain (a causal mask)",
            vec![0xFC00, 0x3C00, 0xFC00, 0xB555],
        ),
        (
            Format::BF16,
            "NaN payloads",
            vec![0x7F81, 0x7FC0, 0xFFFF, 0x7FA5, 0xFF81],
        ),
        (Format::BF16, "+Inf", vec![0x7F80]),
        (Format::BF16, "-Inf", vec![0xFF80]),
        (
            Format::BF16,
            "overflow",
            vec![0x7F7F, 0xFF7F, 0x4780, 0xC7F0],
        ),
        (
            Format::BF16,
            "at the largest finite values",
            vec![0x43E0, 0xC3E1, 0x43F0, 0x4760, 0x476F, 0xC770],
        ),
        (
            Format::BF16,
            "underflow",
            vec![0x0001, 0x8123, 0x3A00, 0xBB01],
        ),
        (Format::BF16, "zeros", vec![0x0000, 0x8000]),
        (
            Format::BF16,
            "-Inf and plain (a causal mask)",
            vec![0xFF80, 0x3F80, 0xFF80, 0xBE55],
        ),
    ];
    for (sf, what, codes) in classes {
        let run: Vec<u16> = (0..n).map(|i| codes[(i / 97) % codes.len()]).collect();
        let src = le(&run);
        for d in destinations() {
            assert_avx2_equals_reference(sf, d, &src, n, what);
        }
    }
}

#[test]
fn scrambled_codes_at_unaligned_heads_and_odd_tails_equal_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    let mut x = 0x9E37_79B9u32;
    let codes: Vec<u16> = (0..40_100)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            (x & 0xFFFF) as u16
        })
        .collect();
    let all = le(&codes);
    for sf in [Format::F16, Format::BF16] {
        for d in destinations() {
            for offset in [0usize, 1, 3] {
                for n in [0, 1, 31, 32, 33, 63, 64, 65, 8160, 8197, 40_000] {
                    let src = &all[2 * offset..2 * (offset + n)];
                    assert_avx2_equals_reference(sf, d, src, n, &format!("offset {offset}"));
                }
            }
        }
    }
}
