//! f16 and bf16 → the binary floats of at most 16 bits one per byte or per two bytes (the
//! `half-float` kernel: exact f32 codes, then the f32 kernel; at the AVX2 level and above the
//! widening by `vcvtph2ps` or a shift, `half-float-avx2`) equal the reference routine bit for
//! bit, codes and status counts: on all 65,536 source codes (every NaN payload, ±Inf,
//! subnormals, every tie of every destination), in every deterministic mode under the three
//! standard policies, at every instruction-set level this machine has; at awkward lengths and
//! unaligned offsets, split over threads and streamed. The kernel name at each level is
//! checked too, so that a silent fallback to the table fails a test.

use crate::kernel_support::{cast, fast_choices, level_here, options, policies};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, Layout, RoundMode, Storage};

/// The destinations the kernel serves from f16 / bf16, one code per byte or per two bytes.
fn destinations(src: Format) -> Vec<Storage> {
    let mut v: Vec<Storage> = [
        Format::F8E4M3FN,
        Format::F8E5M2,
        Format::F6E2M3FN,
        Format::F6E3M2FN,
        Format::F16,
        Format::BF16,
    ]
    .into_iter()
    .filter(|&f| f != src)
    .map(Storage::native)
    .collect();
    v.extend(Storage::new(Format::F4E2M1, Layout::Unpacked));
    v
}

/// Every 16-bit code, little-endian.
fn all_codes() -> Vec<u8> {
    (0..=u16::MAX).flat_map(u16::to_le_bytes).collect()
}

#[test]
fn every_half_code_equals_the_reference_at_every_level() {
    let src = all_codes();
    let n = src.len() / 2;
    let mut checked = 0;
    for sf in [Format::F16, Format::BF16] {
        let s = Storage::native(sf);
        for d in destinations(sf) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    let want = cast(
                        &src,
                        s,
                        d,
                        n,
                        &policy,
                        &options(KernelChoice::Reference, false),
                    );
                    for choice in fast_choices() {
                        let got = cast(&src, s, d, n, &policy, &options(choice, false));
                        if got.0 != want.0 {
                            let w = d.bytes_for(1);
                            let i = (0..n)
                                .find(|&i| got.0[w * i..w * i + w] != want.0[w * i..w * i + w])
                                .unwrap_or(0);
                            panic!(
                                "{sf} {:#06x} -> {d:?} {policy:?} {choice:?}: {:02x?} vs {:02x?}",
                                i,
                                &got.0[w * i..w * i + w],
                                &want.0[w * i..w * i + w]
                            );
                        }
                        assert_eq!(got.1, want.1, "{sf} -> {d:?} {policy:?} {choice:?}");
                    }
                    checked += 1;
                }
            }
        }
    }
    // 2 sources x 6 destinations x 6 modes x 3 policies
    assert!(checked >= 200, "{checked}");
}

#[test]
fn half_sources_at_awkward_lengths_offsets_and_threads_equal_the_reference() {
    let all = all_codes();
    // the codes in a scrambled order, so that each block mixes every class
    let mut src = Vec::with_capacity(2 * 200_003);
    let mut x = 0x2545_F491u32;
    for _ in 0..200_003 {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        let c = (x & 0xFFFF) as usize;
        src.extend_from_slice(&all[2 * c..2 * c + 2]);
    }
    for (sf, df, policy) in [
        (
            Format::F16,
            Format::F8E4M3FN,
            CastPolicy::saturating(RoundMode::Rint),
        ),
        (
            Format::BF16,
            Format::F8E5M2,
            CastPolicy::new(RoundMode::Odd),
        ),
        (
            Format::F16,
            Format::BF16,
            CastPolicy::non_saturating(RoundMode::Floor),
        ),
        (Format::BF16, Format::F16, CastPolicy::new(RoundMode::Round)),
    ] {
        let (s, d) = (Storage::native(sf), Storage::native(df));
        for offset in [0usize, 1, 7] {
            for n in [0, 1, 7, 8, 9, 31, 1023, 1024, 1025, 2049, 199_000] {
                let src = &src[2 * offset..2 * (offset + n)];
                let want = cast(
                    src,
                    s,
                    d,
                    n,
                    &policy,
                    &options(KernelChoice::Reference, false),
                );
                for choice in fast_choices() {
                    for parallel in [false, true] {
                        let got = cast(src, s, d, n, &policy, &options(choice, parallel));
                        assert!(
                            got == want,
                            "{sf} -> {df} {policy:?} n = {n} offset {offset} {choice:?} parallel {parallel}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_half_source_kernel_is_the_one_that_runs() {
    let avx2 = level_here(SimdLevel::Avx2);
    for sf in [Format::F16, Format::BF16] {
        let s = Storage::native(sf);
        for d in destinations(sf) {
            for mode in RoundMode::DETERMINISTIC {
                for policy in policies(mode) {
                    let portable = kernel_name_at(s, d, &policy, SimdLevel::Portable);
                    assert_eq!(portable, "half-float", "{sf} -> {d:?} {policy:?}");
                    for level in [SimdLevel::Avx2, SimdLevel::Avx512] {
                        // one-byte destinations to nearest even take the one-pass AVX2
                        // loop (checked in `kernels_half_fp8_avx2`)
                        let one_pass = mode == RoundMode::Rint && d.format().bits() <= 8;
                        let want = if !level.is_available() {
                            "half-float"
                        } else if one_pass {
                            "half-float-fp8-avx2"
                        } else {
                            "half-float-avx2"
                        };
                        let got = kernel_name_at(s, d, &policy, level);
                        assert_eq!(got, want, "{sf} -> {d:?} {policy:?} at {level:?}");
                    }
                }
            }
        }
    }
    // f32 keeps the widening kernel, packed fp4 the table
    let p = CastPolicy::default();
    let f32_name = kernel_name_at(
        Storage::native(Format::F16),
        Storage::native(Format::F32),
        &p,
        SimdLevel::Avx2,
    );
    assert!(f32_name.starts_with("widen"), "{f32_name}");
    let packed = kernel_name_at(
        Storage::native(Format::BF16),
        Storage::native(Format::F4E2M1),
        &p,
        SimdLevel::Avx2,
    );
    assert!(packed.starts_with("table"), "{packed}");
    let _ = avx2;
}
