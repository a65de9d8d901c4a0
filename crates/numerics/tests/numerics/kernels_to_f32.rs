//! f64 → f32 and i32 → f32 (the `f64-f32` / `i32-f32` kernels, `-avx512` at that level) equal
//! the reference routine bit for bit, codes and status counts: on f32 normals and their f64
//! neighbours, the f32 subnormal range and below it, the exact tie between every sampled pair
//! of f32 neighbours (subnormal ones included) and the f64 codes just off it, the top of the
//! f32 range (max, max + half a unit, and just below and above it, 2^128 and beyond), ±Inf,
//! quiet and signalling NaNs with payloads, ±0, f64 subnormals and 2^16 random f64 codes;
//! i32 ends, ties between f32 values above 2^24 and 2^14 random codes (by default, a quick
//! check; 2^`NPUSIM_SWEEP_LOG2` random codes of each when set); every deterministic mode
//! (and `none`), every combination of the overflow, Inf and NaN rules, every instruction-set
//! level, serial and over threads, at awkward lengths and misaligned.

use crate::kernel_support;
use kernel_support::xorshift;
use kernel_support::{fast_choices, level_here, options};

use npusim_numerics::bulk::SimdLevel;

use crate::sweep::sweep_len;

/// The log2 count of the random f64 codes by default.
const QUICK_F64_LOG2: u32 = 16;

/// The log2 count of the random i32 codes by default.
const QUICK_I32_LOG2: u32 = 14;
use npusim_numerics::{
    CastPolicy, Format, InfRule, KernelChoice, NanRule, Overflow, RoundMode, StatusCounts, Storage,
    kernel_name_at,
};

fn f32s() -> Storage {
    Storage::native(Format::F32)
}

/// The deterministic modes and `none`.
fn modes() -> Vec<RoundMode> {
    let mut v = RoundMode::DETERMINISTIC.to_vec();
    v.push(RoundMode::None);
    v
}

/// Every combination of the overflow, Inf and NaN rules, in `mode`.
fn policies(mode: RoundMode) -> Vec<CastPolicy> {
    let mut v = Vec::new();
    for overflow in [Overflow::Ieee, Overflow::Saturate] {
        for inf in [InfRule::Keep, InfRule::Saturate] {
            for nan in [NanRule::Keep, NanRule::Zero] {
                v.push(CastPolicy {
                    overflow,
                    inf,
                    nan,
                    ..CastPolicy::new(mode)
                });
            }
        }
    }
    v
}

/// Both signs of the f64 code `c` and its neighbours within `ulps`.
fn around(c: u64, ulps: u64, out: &mut Vec<u64>) {
    for d in 0..=ulps {
        for x in [c.wrapping_sub(d), c.wrapping_add(d)] {
            out.extend([x & !(1 << 63), x | (1 << 63)]);
        }
    }
}

/// The exact f64 value of the f32 code `c`.
fn wide(c: u32) -> f64 {
    f64::from(f32::from_bits(c))
}

/// f64 codes of every boundary class, then `random` full random bit patterns.
fn f64_codes(random: usize, seed: u64) -> Vec<u64> {
    let mut v = Vec::new();
    let mut next = xorshift(seed);
    // f32 codes at every exponent (subnormals included), low/high/random mantissas: each
    // value, the tie with its upper neighbour, and the f64 codes just off both
    for e in 0u32..255 {
        for m in [
            0u32,
            1,
            2,
            3,
            0x40_0000,
            0x7F_FFFE,
            0x7F_FFFF,
            (next() as u32) & 0x7F_FFFF,
        ] {
            let c = (e << 23) | m;
            let (lo, hi) = (wide(c), wide(c + 1));
            around(lo.to_bits(), 2, &mut v);
            let tie = (lo + hi) / 2.0;
            around(tie.to_bits(), 2, &mut v);
            // halfway plus or minus far less than an f64 unit of the tie's own binade
            around((tie * (1.0 + 2f64.powi(-40))).to_bits(), 0, &mut v);
            around((tie * (1.0 - 2f64.powi(-40))).to_bits(), 0, &mut v);
        }
    }
    let max = f64::from(f32::MAX);
    let half_unit = 2f64.powi(103);
    for x in [
        max,
        max + half_unit,
        max + half_unit / 2.0,
        max + half_unit * 1.5,
        2f64.powi(128),
        2f64.powi(129),
        1e39,
        1e300,
        f64::MAX,
        2f64.powi(-126),
        2f64.powi(-127),
        2f64.powi(-149),
        2f64.powi(-150),
        2f64.powi(-151),
        2f64.powi(-151) * 3.0,
        2f64.powi(-160),
        1e-300,
        f64::MIN_POSITIVE,
        f64::from_bits(1),
        f64::from_bits(0x000F_FFFF_FFFF_FFFF),
        0.0,
        1.0,
    ] {
        around(x.to_bits(), 3, &mut v);
    }
    // ±Inf and NaNs: quiet and signalling, payloads low, high and random
    for c in [
        0x7FF0_0000_0000_0000u64,
        0x7FF8_0000_0000_0000,
        0x7FF0_0000_0000_0001,
        0x7FF0_0000_2000_0000,
        0x7FF0_0000_1FFF_FFFF,
        0x7FF4_0000_0000_0000,
        0x7FFF_FFFF_FFFF_FFFF,
        0x7FF8_0000_0000_0001,
        0x7FFA_BCDE_F012_3456,
        0x7FF5_5555_5555_5555,
    ] {
        v.extend([c, c | (1 << 63)]);
    }
    // random values in and around the f32 range
    for _ in 0..random / 4 {
        let x = next();
        let e = (1023 - 160 + (x >> 53) % 300).min(0x7FF);
        v.push((x & 0x800F_FFFF_FFFF_FFFF) | (e << 52));
    }
    // full random bit patterns
    for _ in 0..random {
        v.push(next());
    }
    v
}

/// i32 codes: the ends, each power of two and its neighbours, the ties between f32 values
/// above 2^24 and the integers next to them, and random codes of every magnitude.
fn i32_codes(random: usize, seed: u64) -> Vec<i32> {
    let mut v = vec![0, 1, -1, i32::MAX, i32::MIN, i32::MIN + 1, i32::MAX - 1];
    let mut next = xorshift(seed);
    for e in 0..31u32 {
        let p = 1i64 << e;
        // f32 unit at 2^e, for the ties between neighbours
        let unit = 1i64 << e.saturating_sub(23);
        for base in [
            p,
            p + unit * 3,
            2 * p - unit,
            p + ((next() as i64) & (p - 1)),
        ] {
            // a multiple of the unit, so that base + unit / 2 is a tie
            let base = base & !(unit - 1);
            for k in [-2, -1, 0, 1, 2] {
                for t in [base + k, base + unit / 2 + k] {
                    for s in [1, -1] {
                        if let Ok(y) = i32::try_from(s * t) {
                            v.push(y);
                        }
                    }
                }
            }
        }
    }
    for _ in 0..random {
        let x = next();
        v.push(((x >> 32) as i32) >> (x % 32));
        v.push((x >> 32) as i32);
    }
    v
}

fn cast(
    src: &[u8],
    s: Storage,
    n: usize,
    policy: &CastPolicy,
    kernels: KernelChoice,
    parallel: bool,
) -> (Vec<u8>, StatusCounts) {
    kernel_support::cast(src, s, f32s(), n, policy, &options(kernels, parallel))
}

/// Casts `src` (`n` codes of storage `s`) at every level under every mode and policy and
/// compares with the reference, naming the first differing element by `show(i)`.
fn assert_all_equal_reference(s: Storage, src: &[u8], n: usize, show: impl Fn(usize) -> String) {
    for mode in modes() {
        for policy in policies(mode) {
            let want = cast(src, s, n, &policy, KernelChoice::Reference, false);
            for k in fast_choices() {
                let got = cast(src, s, n, &policy, k, false);
                if got == want {
                    continue;
                }
                for i in 0..n {
                    let (g, w) = (f32s().read(&got.0, i), f32s().read(&want.0, i));
                    assert_eq!(g, w, "{} {policy:?} {k:?}: {g:#x} vs {w:#x}", show(i));
                }
                assert_eq!(got.1, want.1, "counts {policy:?} {k:?}");
            }
        }
    }
}

#[test]
fn f64_boundary_classes_and_random_codes_equal_the_reference() {
    let random = sweep_len(QUICK_F64_LOG2);
    let codes = f64_codes(random, 7);
    assert!(codes.len() > random);
    let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    assert_all_equal_reference(Storage::native(Format::F64), &src, codes.len(), |i| {
        format!("f64 {:#018x}", codes[i])
    });
}

#[test]
fn i32_ends_ties_and_random_codes_equal_the_reference() {
    let codes = i32_codes(sweep_len(QUICK_I32_LOG2), 11);
    let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    assert_all_equal_reference(Storage::native(Format::I32), &src, codes.len(), |i| {
        format!("i32 {}", codes[i])
    });
}

#[test]
fn awkward_lengths_misalignment_and_threads_equal_the_reference() {
    let f64_src: Vec<u8> = f64_codes(1 << 17, 3)
        .iter()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    let i32_src: Vec<u8> = i32_codes(1 << 17, 5)
        .iter()
        .flat_map(|c| c.to_le_bytes())
        .collect();
    for (fmt, bytes) in [(Format::F64, &f64_src), (Format::I32, &i32_src)] {
        let s = Storage::native(fmt);
        let w = s.bytes_for(1);
        let all = (bytes.len() - 1) / w;
        for policy in [
            CastPolicy::new(RoundMode::Rint),
            CastPolicy::saturating(RoundMode::Round),
            CastPolicy::new(RoundMode::Odd),
            CastPolicy::saturating(RoundMode::Floor),
        ] {
            for n in [0usize, 1, 7, 15, 16, 17, 31, 33, 511, 512, 513, 1023, all] {
                for offset in [0, 1] {
                    let src = &bytes[offset..offset + w * n];
                    let want = cast(src, s, n, &policy, KernelChoice::Reference, false);
                    for k in fast_choices() {
                        for parallel in [false, true] {
                            let got = cast(src, s, n, &policy, k, parallel);
                            assert!(
                                got == want,
                                "{fmt} n = {n} offset {offset} {policy:?} {k:?} parallel = {parallel}"
                            );
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn kernel_names_per_level() {
    level_here(SimdLevel::Avx512);
    for (fmt, name) in [(Format::F64, "f64-f32"), (Format::I32, "i32-f32")] {
        let s = Storage::native(fmt);
        for mode in modes() {
            for policy in policies(mode) {
                let at = |l| kernel_name_at(s, f32s(), &policy, l);
                assert_eq!(at(SimdLevel::Portable), name, "{policy:?}");
                assert_eq!(at(SimdLevel::Avx2), name, "{policy:?}");
                let top = if SimdLevel::Avx512.is_available() {
                    format!("{name}-avx512")
                } else {
                    name.to_string()
                };
                assert_eq!(at(SimdLevel::Avx512), top, "{policy:?}");
            }
        }
        let hybrid = CastPolicy::new(RoundMode::Hybrid);
        assert_eq!(
            kernel_name_at(s, f32s(), &hybrid, SimdLevel::best()),
            "reference"
        );
    }
}
