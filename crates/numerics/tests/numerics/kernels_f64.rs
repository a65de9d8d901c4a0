//! f64 → binary floats of at most 16 bits (the `f64-float` kernel: round-to-odd f32 codes,
//! then the f32 kernel) equals the reference routine bit for bit, codes and status counts: on
//! every value of each destination, every tie between neighbours and the f64 codes just
//! around them (which f32 cannot tell apart from the tie), values beyond the f32 range, f64
//! and f32 subnormals, ±0, ±Inf and NaN payloads, mixed with random codes; every
//! deterministic mode, the three standard policies, every instruction-set level, serial and
//! over threads, at awkward lengths.

use crate::kernel_support;
use kernel_support::{assert_kernel_equals_reference_for_small_floats, options};

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, StatusCounts, Storage};

fn f64s() -> Storage {
    Storage::native(Format::F64)
}

fn cast(
    src: &[u8],
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    kernels: KernelChoice,
    parallel: bool,
) -> (Vec<u8>, StatusCounts) {
    kernel_support::cast(src, f64s(), d, n, policy, &options(kernels, parallel))
}

/// Both signs of `x`'s f64 code and its neighbours within `ulps`.
fn around(x: f64, ulps: u64, out: &mut Vec<u64>) {
    let b = x.to_bits();
    for d in 0..=ulps {
        for c in [b.wrapping_sub(d), b.wrapping_add(d)] {
            out.extend([c & !(1 << 63), c | (1 << 63)]);
        }
    }
}

fn codes_for(dst: Format, random: usize, seed: u64) -> Vec<u64> {
    let vals = kernel_support::finite_magnitudes(dst);
    let max = vals[vals.len() - 1];
    let mids: Vec<f64> = vals.windows(2).map(|w| (w[0] + w[1]) / 2.0).collect();
    let mut v = Vec::new();
    for &x in vals.iter().chain(&mids) {
        around(x, 2, &mut v);
        // just off the value in f32 terms too
        around(x * (1.0 + 2f64.powi(-30)), 0, &mut v);
        around(x * (1.0 - 2f64.powi(-30)), 0, &mut v);
    }
    for x in [
        max * 1.5,
        max * 2.0,
        f64::from(f32::MAX),
        f64::from(f32::MAX) * 1.0000001,
        1e300,
        f64::MAX,
        2f64.powi(-149),
        2f64.powi(-150),
        2f64.powi(-151) * 3.0,
        1e-300,
        f64::from_bits(1),
        f64::from_bits(0x000F_FFFF_FFFF_FFFF),
        0.0,
    ] {
        around(x, 1, &mut v);
    }
    v.extend([
        0x7FF0_0000_0000_0000,
        0xFFF0_0000_0000_0000,
        0x7FF8_0000_0000_0000,
        0x7FF0_0000_0000_0001,
        0xFFFA_BCDE_F012_3456,
        0x7FFF_FFFF_FFFF_FFFF,
    ]);
    let mut x = seed | 1;
    for _ in 0..random {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        // exponents over and around the f32 range, some NaN/Inf
        let e = (1023 - 180 + (x >> 53) % 400).min(0x7FF);
        v.push((x & 0x800F_FFFF_FFFF_FFFF) | (e << 52));
    }
    v
}

#[test]
fn f64_to_small_floats_equal_the_reference() {
    let served = assert_kernel_equals_reference_for_small_floats(
        f64s(),
        "f64-float",
        |dst, k| {
            let codes = codes_for(dst, 1 << 12, 31 + k);
            codes.iter().flat_map(|c| c.to_le_bytes()).collect()
        },
        |src, i| {
            format!(
                "f64 {:#018x}",
                u64::from_le_bytes(src[8 * i..8 * i + 8].try_into().expect("8 bytes"))
            )
        },
    );
    // f16, bf16 and the fp8/fp6/fp4 formats with a sign, in 6 modes and 3 policies
    assert!(served >= 150, "{served}");
}

#[test]
fn f64_awkward_lengths_and_threads_equal_the_reference() {
    let codes = codes_for(Format::BF16, 1 << 17, 5);
    let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    for (dst, policy) in [
        (Format::BF16, CastPolicy::new(RoundMode::Rint)),
        (Format::F16, CastPolicy::new(RoundMode::Rint)),
        (Format::F8E4M3FN, CastPolicy::saturating(RoundMode::Odd)),
        (Format::F4E2M1, CastPolicy::new(RoundMode::Floor)),
    ] {
        let d = Storage::native(dst);
        for n in [0, 1, 7, 511, 512, 513, 1023, codes.len()] {
            let want = cast(&src[..8 * n], d, n, &policy, KernelChoice::Reference, false);
            for level in SimdLevel::available() {
                for parallel in [false, true] {
                    let k = KernelChoice::Level(level);
                    let got = cast(&src[..8 * n], d, n, &policy, k, parallel);
                    assert!(got == want, "{dst} n = {n} {level:?} parallel = {parallel}");
                }
            }
        }
    }
}
