//! The AVX2 kernels of the f32 key table equal the reference routine bit for bit, codes and
//! status counts: f32 → e8m0 by its formula (`f32-e8m0-avx2`) and the gathered lookup of the
//! table for the other one-byte key destinations (`f32-key-avx2`: HiF8 but to nearest even,
//! which runs `f32-hif8-avx2`, fnuz fp8, fp4 one per byte), at the AVX2 level, in every deterministic mode under every combination of the
//! policy rules that matter for them: on every f32 exponent with the mantissa at each
//! rounding boundary of the widths these destinations keep (0 to 3 bits: 0, 1, tie − 1, tie,
//! tie + 1, all ones), both signs, with a low bit set or not; on ±0, ±Inf, NaN payloads, f32
//! subnormals (the steps the e8m0 formula hands to the table), mixed with ordinary values;
//! on random 32-bit patterns; at every length 0..100 and from odd offsets, split over threads
//! and streamed (`kernel_support::cast` repeats each cast streamed). The kernel names at the
//! AVX2 level are checked so that a silent fallback fails; where the AVX2 level is missing or
//! capped away the test says `SKIPPED` and the casts run the portable code.

use crate::kernel_support::{self, bytes, f32s, key_policies, level_here, options, random_f32};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, Layout, RoundMode, Storage};

/// The destinations, with their kernel names at the AVX2 level.
fn destinations() -> Vec<(Storage, &'static str)> {
    let mut v = vec![
        (Storage::native(Format::F8E8M0), "f32-e8m0-avx2"),
        (Storage::native(Format::HiF8), "f32-key-avx2"),
        (Storage::native(Format::F8E4M3FNUZ), "f32-key-avx2"),
        (Storage::native(Format::F8E5M2FNUZ), "f32-key-avx2"),
    ];
    v.extend(Storage::new(Format::F4E2M1, Layout::Unpacked).map(|s| (s, "")));
    v
}

/// The policies each destination is checked under in `mode`.
fn policies_for(d: Storage, mode: RoundMode) -> Vec<CastPolicy> {
    if matches!(d.format(), Format::F8E8M0 | Format::HiF8) {
        key_policies(mode)
    } else {
        kernel_support::policies(mode).to_vec()
    }
}

/// Every exponent field, mantissas at each rounding boundary of 0 to 3 kept bits, both signs,
/// the low 16 bits zero or not.
fn rounding_boundaries() -> Vec<u32> {
    let mut v = Vec::new();
    for e in 0..=255u32 {
        for w in 0..=3u32 {
            let s = 23 - w;
            let (unit, half) = (1u32 << s, 1u32 << (s - 1));
            for kept in 0..1u32 << w {
                for cut in [0, 1, half - 1, half, half + 1, unit - 1, half | 0x8000] {
                    let m = (kept << s) | cut;
                    for sign in [0, 0x8000_0000] {
                        v.push(sign | (e << 23) | (m & 0x7F_FFFF));
                    }
                }
            }
        }
    }
    v
}

/// ±0, ±Inf, NaN payloads, f32 subnormals and the largest values, each at a different place
/// among ordinary values (so that most steps mix a rare lane with formula lanes).
fn specials_mixed() -> Vec<u32> {
    let specials = [
        0u32,
        0x8000_0000,
        0x7F80_0000,
        0xFF80_0000,
        0x7FC0_0000,
        0xFFC0_0001,
        0x7F80_0001,
        0x0000_0001,
        0x807F_FFFF,
        0x0040_0000,
        0x7F7F_FFFF,
        0xFF00_0000,
        0x7F00_0001,
    ];
    let ordinary = random_f32(4096, 77)
        .into_iter()
        .map(|x| (x & 0x807F_FFFF) | (100 + x % 50) << 23);
    let mut v: Vec<u32> = ordinary.collect();
    for (i, &s) in specials.iter().cycle().take(200).enumerate() {
        let at = (i * 37) % v.len();
        v[at] = s;
    }
    v
}

fn check_at(codes: &[u32], d: Storage, policy: &CastPolicy, level: SimdLevel, parallel: bool) {
    let src = bytes(codes);
    let n = codes.len();
    let want = kernel_support::cast(
        &src,
        f32s(),
        d,
        n,
        policy,
        &options(KernelChoice::Reference, false),
    );
    let got = kernel_support::cast(
        &src,
        f32s(),
        d,
        n,
        policy,
        &options(KernelChoice::Level(level), parallel),
    );
    if got.0 != want.0 {
        let i = (0..n).find(|&i| got.0[i] != want.0[i]).unwrap_or(0);
        panic!(
            "f32 {:#010x} -> {d:?} {policy:?} at {level:?}: {:#04x} vs {:#04x} (reference)",
            codes[i], got.0[i], want.0[i]
        );
    }
    assert_eq!(got.1, want.1, "{d:?} {policy:?} at {level:?}, {n} codes");
}

#[test]
fn the_avx2_level_runs_the_key_kernels_for_every_mode_and_policy() {
    let here = level_here(SimdLevel::Avx2);
    let mut checked = 0;
    for (d, name) in destinations() {
        for mode in RoundMode::DETERMINISTIC {
            for p in policies_for(d, mode) {
                let got = kernel_name_at(f32s(), d, &p, SimdLevel::Avx2);
                if got != "f32-key"
                    && got != "f32-key-avx2"
                    && got != "f32-e8m0-avx2"
                    && got != "f32-hif8-avx2"
                {
                    // (a destination the float kernel serves under this policy)
                    continue;
                }
                let want = match (here, name) {
                    (false, _) => "f32-key",
                    (true, "") => "f32-key-avx2",
                    // HiF8 to nearest even: its formula (`kernels_hif8_avx2.rs`)
                    (true, _) if d.format() == Format::HiF8 && mode == RoundMode::Rint => {
                        "f32-hif8-avx2"
                    }
                    (true, name) => name,
                };
                assert_eq!(got, want, "{d:?} {p:?}");
                checked += 1;
            }
        }
    }
    assert!(checked >= 150, "{checked}");
}

#[test]
fn rounding_boundaries_specials_and_random_codes_equal_the_reference() {
    level_here(SimdLevel::Avx2);
    let mut codes = rounding_boundaries();
    codes.extend(specials_mixed());
    codes.extend(random_f32(1 << 14, 5));
    for (d, _) in destinations() {
        for mode in RoundMode::DETERMINISTIC {
            for p in policies_for(d, mode) {
                check_at(&codes, d, &p, SimdLevel::Avx2, false);
            }
        }
    }
}

#[test]
fn every_length_offset_and_thread_split_equals_the_reference() {
    level_here(SimdLevel::Avx2);
    let codes = specials_mixed();
    for (d, _) in destinations() {
        for p in [
            CastPolicy::new(RoundMode::Rint),
            CastPolicy::saturating(RoundMode::Odd),
            CastPolicy::non_saturating(RoundMode::Ceil),
        ] {
            for n in 0..100 {
                for offset in [0, 1, 3] {
                    check_at(&codes[offset..offset + n], d, &p, SimdLevel::Avx2, false);
                }
            }
            check_at(&codes, d, &p, SimdLevel::Avx2, true);
        }
    }
}
