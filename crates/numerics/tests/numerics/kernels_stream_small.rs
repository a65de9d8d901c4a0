//! The streamed path of the f32 → small-float (`f32-float-avx512`) and f32 → integer
//! (`f32-int-avx512`) AVX-512 kernels equals the reference bit for bit, codes and status
//! counts: their boundary classes (every value and tie of the destination, its largest value
//! and beyond, the integer bounds and halves around them, ±Inf, NaN payloads, ±0, f32
//! subnormals) mixed with random codes, streamed from every kind of head before the first
//! 64-byte boundary of the destination; and outputs larger than the default stream threshold
//! cast at the default options, so that the real split (a plain head, a streamed rest, the
//! fence) runs. That these kernels are the ones that run at the AVX-512 level is checked too,
//! so that a silent fallback fails a test. On a machine without AVX-512 the comparisons run
//! the best level it has.

use crate::kernel_support;
use kernel_support::{
    assert_absent_level_names_portable, assert_same_codes, boundary_classes, bytes, f32s,
    level_here, mixed, options, random_f32,
};

use npusim_numerics::bulk::{STREAM_BYTES, SimdLevel, kernel_name_at};
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, Layout, RoundMode, StatusCounts, Storage,
    cast_elements_with_status,
};

/// The destinations checked, each with a policy, and the kernel that serves it at the
/// AVX-512 level.
fn cases() -> Vec<(Storage, CastPolicy, &'static str)> {
    let unpacked = |f| Storage::new(f, Layout::Unpacked).expect("4-bit formats unpack");
    let n = Storage::native;
    let (float, int) = ("f32-float-avx512", "f32-int-avx512");
    vec![
        (
            n(Format::F8E4M3FN),
            CastPolicy::saturating(RoundMode::Rint),
            float,
        ),
        (n(Format::F8E4M3FN), CastPolicy::new(RoundMode::Odd), float),
        (n(Format::F8E5M2), CastPolicy::new(RoundMode::Rint), float),
        (
            n(Format::F8E5M2),
            CastPolicy::non_saturating(RoundMode::Floor),
            float,
        ),
        (n(Format::F4E2M1), CastPolicy::new(RoundMode::Rint), float),
        (
            unpacked(Format::F4E2M1),
            CastPolicy::new(RoundMode::Ceil),
            float,
        ),
        (
            n(Format::F6E3M2FN),
            CastPolicy::new(RoundMode::Round),
            float,
        ),
        (n(Format::I8), CastPolicy::new(RoundMode::Rint), int),
        (
            n(Format::U8),
            CastPolicy::non_saturating(RoundMode::Trunc),
            int,
        ),
        (n(Format::I16), CastPolicy::new(RoundMode::Floor), int),
        (
            n(Format::U16),
            CastPolicy::non_saturating(RoundMode::Round),
            int,
        ),
        (n(Format::I4), CastPolicy::new(RoundMode::Rint), int),
        (
            unpacked(Format::I4),
            CastPolicy::saturating(RoundMode::Ceil),
            int,
        ),
    ]
}

/// The best level this machine has (the AVX-512 one where it exists).
fn level() -> SimdLevel {
    SimdLevel::best()
}

/// The reference cast of `n` f32 codes into `d`, with its counts.
fn reference(src: &[u8], d: Storage, n: usize, policy: &CastPolicy) -> (Vec<u8>, StatusCounts) {
    kernel_support::cast(
        src,
        f32s(),
        d,
        n,
        policy,
        &options(KernelChoice::Reference, false),
    )
}

/// The cast at the best level with `o` into a destination `offset` bytes past a 64-byte
/// boundary, its output (the destination's bytes alone) and counts.
fn at_offset(
    src: &[u8],
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    o: &BulkOptions,
    offset: usize,
) -> (Vec<u8>, StatusCounts) {
    let len = d.bytes_for(n);
    let mut buf = vec![0x5Au8; len + 128];
    let at = (64 - buf.as_ptr() as usize % 64) % 64 + offset;
    let counts = cast_elements_with_status(src, f32s(), &mut buf[at..at + len], d, n, policy, o)
        .expect("buffers are sized for n");
    (buf[at..at + len].to_vec(), counts)
}

#[test]
fn the_avx512_kernels_run_at_their_level() {
    if !level_here(SimdLevel::Avx512) {
        for (d, policy, _) in cases() {
            assert_absent_level_names_portable(f32s(), d, &policy, SimdLevel::Avx512);
        }
        return;
    }
    for (d, policy, name) in cases() {
        assert_eq!(
            kernel_name_at(f32s(), d, &policy, SimdLevel::Avx512),
            name,
            "{d:?} {policy:?}"
        );
    }
}

/// Every class, streamed (threshold 0) into destinations at every offset from a 64-byte
/// boundary that the step sizes tell apart (a head of none, one, part of a step, a whole
/// step and more), at lengths that do and do not end on a step.
#[test]
fn streamed_boundary_classes_equal_the_reference_from_every_head() {
    let streamed = BulkOptions {
        stream_threshold: 0,
        ..options(KernelChoice::Level(level()), false)
    };
    for (k, (d, policy, _)) in cases().into_iter().enumerate() {
        let mut codes = mixed(&boundary_classes(d.format()), 17 + k as u64);
        codes.truncate(codes.len().max(1000) - codes.len() % 64);
        for extra in [0, 37] {
            codes.extend(random_f32(extra, 5));
            let src = bytes(&codes);
            let n = codes.len();
            let want = reference(&src, d, n, &policy);
            for offset in [0, 1, 2, 15, 16, 31, 32, 33, 48, 63] {
                let got = at_offset(&src, d, n, &policy, &streamed, offset);
                let what = format!("{policy:?} n = {n} offset {offset} streamed");
                assert_same_codes(&got, &want, &codes, d, &what);
            }
        }
    }
}

/// More than [`STREAM_BYTES`] of output in one call at the default options: the cast splits
/// into a plain head and a streamed rest by itself. Random finite values spread over the
/// binades around each destination's range, one code in 256 replaced by a full random
/// pattern (NaN and Inf included).
#[test]
fn outputs_beyond_the_default_stream_threshold_equal_the_reference() {
    let o = options(KernelChoice::Level(level()), false);
    assert_eq!(o.stream_threshold, STREAM_BYTES);
    let cases = cases();
    // e4m3fn saturating, e5m2, e2m1 packed, i8, i16, i4 packed
    for k in [0, 2, 4, 7, 9, 11] {
        let (d, policy, _) = cases[k];
        // just over the threshold, and not a whole number of steps
        let n = (STREAM_BYTES + 4096) * d.per_byte() / d.bytes_for(1).max(1) + 29;
        let wild = random_f32(n, 1000 + k as u64);
        let codes: Vec<u32> = random_f32(n, 7 + k as u64)
            .into_iter()
            .zip(&wild)
            .enumerate()
            .map(|(i, (c, &w))| {
                if i % 256 == 255 {
                    w
                } else {
                    (c & 0x807F_FFFF) | ((110 + (c >> 23) % 30) << 23)
                }
            })
            .collect();
        let src = bytes(&codes);
        assert!(d.bytes_for(n) > STREAM_BYTES);
        let want = reference(&src, d, n, &policy);
        for offset in [0, 5] {
            let got = at_offset(&src, d, n, &policy, &o, offset);
            let what = format!("{policy:?} n = {n} offset {offset} default options");
            assert_same_codes(&got, &want, &codes, d, &what);
        }
    }
}
