//! i32 → binary floats of at most 16 bits (the `i32-float` kernel: each i32's exact f64 value
//! rounded to odd f32 codes, then the f32 kernel) equals the reference routine bit for bit,
//! codes and status counts: on the integers around every destination value up to the f32
//! mantissa limit and beyond, ties between f32 neighbours above 2^24, both ends of the i32
//! range and random codes; every deterministic mode, the three standard policies, every
//! instruction-set level, serial and over threads, at awkward lengths.

use crate::kernel_support;
use kernel_support::{assert_kernel_equals_reference_for_small_floats, layouts, options};

use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, StatusCounts, Storage};

fn i32s() -> Storage {
    Storage::native(Format::I32)
}

fn cast(
    src: &[u8],
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    kernels: KernelChoice,
    parallel: bool,
) -> (Vec<u8>, StatusCounts) {
    kernel_support::cast(src, i32s(), d, n, policy, &options(kernels, parallel))
}

/// i32 codes that probe every rounding decision of `dst`: the integers next to each of its
/// integral values (both signs), ties and their neighbours between f32 values above 2^24,
/// the ends of the i32 range, and pseudo-random codes of every magnitude.
fn codes_for(dst: Format, random: usize, seed: u64) -> Vec<i32> {
    let mut v: Vec<i32> = vec![
        0,
        1,
        -1,
        2,
        3,
        i32::MAX,
        i32::MIN,
        i32::MIN + 1,
        i32::MAX - 1,
    ];
    for code in 0..=dst.code_mask().min(0xFFFF) {
        let x = dst.decode(code).to_f64();
        if x.is_finite() && x.abs() >= 1.0 && x.abs() < 2.2e9 {
            let i = x as i64;
            for k in -2..=2 {
                if let Ok(y) = i32::try_from(i + k) {
                    v.push(y);
                }
            }
        }
    }
    for e in 0..31 {
        let p = 1i64 << e;
        for k in [-3, -1, 0, 1, 3, p / 2 - 1, p / 2, p / 2 + 1] {
            for s in [1, -1] {
                if let Ok(y) = i32::try_from(s * (p + k)) {
                    v.push(y);
                }
            }
        }
    }
    let mut x = seed | 1;
    for _ in 0..random {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // every magnitude: a random shift of a random word
        v.push(((x >> 32) as i32) >> (x % 32));
    }
    v
}

#[test]
fn i32_to_small_floats_equal_the_reference() {
    let served = assert_kernel_equals_reference_for_small_floats(
        i32s(),
        "i32-float",
        |dst, k| {
            let codes = codes_for(dst, 1 << 12, 17 + k);
            codes.iter().flat_map(|c| c.to_le_bytes()).collect()
        },
        |src, i| {
            format!(
                "i32 {}",
                i32::from_le_bytes(src[4 * i..4 * i + 4].try_into().expect("4 bytes"))
            )
        },
    );
    // f16, bf16 and the fp8/fp6/fp4 formats with a sign, in 6 modes and 3 policies
    assert!(served >= 150, "{served}");
}

#[test]
fn i32_awkward_lengths_and_threads_equal_the_reference() {
    let codes = codes_for(Format::BF16, 1 << 17, 5);
    let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    for (dst, policy) in [
        (Format::BF16, CastPolicy::new(RoundMode::Rint)),
        (Format::F16, CastPolicy::saturating(RoundMode::Round)),
        (Format::F8E4M3FN, CastPolicy::saturating(RoundMode::Odd)),
        (Format::F4E2M1, CastPolicy::new(RoundMode::Floor)),
    ] {
        for d in layouts(dst) {
            for n in [0usize, 1, 7, 511, 512, 513, 1023, codes.len()] {
                let src = &src[..4 * n];
                let want = cast(src, d, n, &policy, KernelChoice::Reference, false);
                for parallel in [false, true] {
                    let got = cast(src, d, n, &policy, KernelChoice::Fastest, parallel);
                    assert_eq!(got, want, "{d:?} {policy:?} n={n} parallel={parallel}");
                }
            }
        }
    }
}
