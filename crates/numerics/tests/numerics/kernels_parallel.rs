//! Parallel casts equal serial ones bit for bit (codes and status counts), for the f32-source
//! fast kernels at every instruction-set level, at lengths around every boundary: 0, 1, odd,
//! not a multiple of the vector width or status block, packed 4-bit with an odd count, and
//! lengths that cross the parallel threshold and split into uneven chunks.

use crate::kernel_support;

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, RoundMode, StatusCounts, Storage,
    bulk::PARALLEL_THRESHOLD, cast_elements_with_status,
};

fn f32_source(n: usize) -> Vec<u8> {
    let mut x = 0x0123_4567_89AB_CDEFu64;
    (0..n)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x >> 20) as u32).to_le_bytes()
        })
        .collect()
}

fn cast(
    src: &[u8],
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    o: &BulkOptions,
) -> (Vec<u8>, StatusCounts) {
    kernel_support::cast(src, Storage::native(Format::F32), d, n, policy, o)
}

#[test]
fn parallel_equals_serial_at_every_boundary_length() {
    let big = 3 * PARALLEL_THRESHOLD + 4097;
    let src = f32_source(big);
    let lengths = [
        0,
        1,
        2,
        3,
        7,
        8,
        9,
        15,
        17,
        511,
        512,
        513,
        1025,
        8191,
        8193,
        3 * 4096 + 1,
        PARALLEL_THRESHOLD - 1,
        PARALLEL_THRESHOLD + 1,
        big,
    ];
    let cases = [
        (Format::F16, CastPolicy::new(RoundMode::Rint)),
        (Format::BF16, CastPolicy::saturating(RoundMode::Floor)),
        (Format::F8E4M3FN, CastPolicy::saturating(RoundMode::Odd)),
        (Format::F4E2M1, CastPolicy::new(RoundMode::Ceil)),
        (Format::I4, CastPolicy::new(RoundMode::Rint)),
        (Format::I8, CastPolicy::non_saturating(RoundMode::Round)),
        (Format::F8E8M0, CastPolicy::new(RoundMode::Trunc)),
    ];
    for (dst, policy) in cases {
        let d = Storage::native(dst);
        for &n in &lengths {
            let bytes = &src[..4 * n];
            let reference = cast(
                bytes,
                d,
                n,
                &policy,
                &BulkOptions {
                    kernels: KernelChoice::Reference,
                    parallel: false,
                    ..BulkOptions::default()
                },
            );
            for level in SimdLevel::available() {
                // Serial, split from the default threshold, and split at every length that
                // can split (into uneven chunks of a few thousand elements).
                for (parallel, threshold) in [
                    (false, PARALLEL_THRESHOLD),
                    (true, PARALLEL_THRESHOLD),
                    (true, 0),
                ] {
                    let o = BulkOptions {
                        kernels: KernelChoice::Level(level),
                        parallel,
                        parallel_threshold: threshold,
                        ..BulkOptions::default()
                    };
                    let got = cast(bytes, d, n, &policy, &o);
                    assert_eq!(
                        got, reference,
                        "{dst} n = {n} {level:?} parallel = {parallel} from {threshold}"
                    );
                }
            }
        }
    }
}

#[test]
fn unaligned_buffers_give_the_same_results() {
    let n = 3001;
    let src = f32_source(n + 1);
    for (src_fmt, dst_fmt) in [
        (Format::F32, Format::F16),
        (Format::F32, Format::BF16),
        (Format::F32, Format::F8E5M2),
        (Format::F32, Format::I16),
        (Format::F16, Format::F32),
        (Format::BF16, Format::F32),
    ] {
        let s = Storage::native(src_fmt);
        let d = Storage::native(dst_fmt);
        let policy = CastPolicy::default();
        let run = |offset: usize, kernels: KernelChoice| {
            let bytes = &src[offset..offset + s.bytes_for(n)];
            let mut out = vec![0u8; d.bytes_for(n) + 1];
            let o = BulkOptions {
                kernels,
                parallel: false,
                ..BulkOptions::default()
            };
            let dst = &mut out[offset..offset + d.bytes_for(n)];
            let counts =
                cast_elements_with_status(bytes, s, dst, d, n, &policy, &o).expect("sized");
            (dst.to_vec(), counts)
        };
        for offset in [0, 1] {
            let want = run(offset, KernelChoice::Reference);
            for level in SimdLevel::available() {
                let got = run(offset, KernelChoice::Level(level));
                assert!(
                    got == want,
                    "{src_fmt} -> {dst_fmt} {level:?} offset {offset}"
                );
            }
        }
    }
}
