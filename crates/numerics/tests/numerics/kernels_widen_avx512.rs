//! f16 → f32 and bf16 → f32 at the AVX-512 level (`widen-avx512`) equal the reference routine
//! bit for bit, codes and status counts: every one of the 65,536 codes (±0, subnormals,
//! normals, max, ±Inf, quiet and signalling NaNs with every payload) under every policy the
//! widening kernel serves, from every offset into the 32-code steps and at every tail length;
//! boundary classes shuffled among random codes; outputs above the 2 MiB streaming threshold
//! at the default options, into destinations at several offsets from a 64-byte boundary (the
//! f64 → f32 and i32 → f32 AVX-512 kernels, which stream too, as well). Every fast cast is
//! also re-run streamed by `kernel_support::cast`.

use crate::kernel_support;
use kernel_support::xorshift;
use kernel_support::{
    all_policies, assert_absent_level_names_portable, cast, f32s, level_here, options,
};

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, KernelChoice, RoundMode, Storage, kernel_name_at,
};

/// The two widened sources.
const SOURCES: [Format; 2] = [Format::F16, Format::BF16];

/// The policies under which `src` → f32 runs the widening kernel at the AVX-512 level.
fn served(src: Format) -> Vec<CastPolicy> {
    all_policies()
        .into_iter()
        .filter(|p| {
            kernel_name_at(Storage::native(src), f32s(), p, SimdLevel::Avx512).starts_with("widen")
        })
        .collect()
}

/// The little-endian bytes of 16-bit codes.
fn bytes16(codes: &[u16]) -> Vec<u8> {
    codes.iter().flat_map(|c| c.to_le_bytes()).collect()
}

/// `src` (16-bit codes of `f`) cast at the AVX-512 level (the best level there is, where the
/// kernels may not use it) equals the reference, codes and counts, naming the first
/// differing code.
fn assert_avx512_equals_reference(src: &[u8], f: Format, policy: &CastPolicy) {
    let (s, n) = (Storage::native(f), src.len() / 2);
    let want = cast(
        src,
        s,
        f32s(),
        n,
        policy,
        &options(KernelChoice::Reference, false),
    );
    let level = KernelChoice::Level(SimdLevel::best());
    let got = cast(src, s, f32s(), n, policy, &options(level, false));
    if got.0 != want.0 {
        let i = (0..n)
            .find(|&i| got.0[4 * i..4 * i + 4] != want.0[4 * i..4 * i + 4])
            .unwrap_or(0);
        panic!(
            "{f} {:#06x} -> {:02x?}, want {:02x?} ({policy:?}, n = {n})",
            u16::from_le_bytes([src[2 * i], src[2 * i + 1]]),
            &got.0[4 * i..4 * i + 4],
            &want.0[4 * i..4 * i + 4]
        );
    }
    assert_eq!(got.1, want.1, "{f} counts, {policy:?}, n = {n}");
}

#[test]
fn the_avx512_level_runs_the_widening_kernel() {
    if !level_here(SimdLevel::Avx512) {
        for src in SOURCES {
            for p in all_policies() {
                let s = Storage::native(src);
                assert_absent_level_names_portable(s, f32s(), &p, SimdLevel::Avx512);
            }
        }
        return;
    }
    for src in SOURCES {
        let s = Storage::native(src);
        for p in [
            CastPolicy::default(),
            CastPolicy::non_saturating(RoundMode::Floor),
        ] {
            assert_eq!(
                kernel_name_at(s, f32s(), &p, SimdLevel::Avx512),
                "widen-avx512",
                "{src}"
            );
            assert_eq!(kernel_name_at(s, f32s(), &p, SimdLevel::Avx2), "widen");
        }
        // Wherever the AVX2 level widens, the AVX-512 level does too.
        for p in all_policies() {
            let below = kernel_name_at(s, f32s(), &p, SimdLevel::Avx2);
            let at = kernel_name_at(s, f32s(), &p, SimdLevel::Avx512);
            assert_eq!(below == "widen", at == "widen-avx512", "{src} {p:?}");
        }
    }
}

#[test]
fn every_code_under_every_served_policy_equals_the_reference() {
    level_here(SimdLevel::Avx512);
    let all: Vec<u16> = (0..=u16::MAX).collect();
    let buf = bytes16(&all);
    for src in SOURCES {
        let ps = served(src);
        assert!(ps.len() >= 20, "{src}: {}", ps.len());
        for p in &ps {
            assert_avx512_equals_reference(&buf, src, p);
        }
    }
}

#[test]
fn every_offset_and_tail_length_equals_the_reference() {
    level_here(SimdLevel::Avx512);
    // Windows over the special codes of both formats and the subnormal/normal boundary,
    // starting at every offset into a 32-code step, of every length up to 3 steps.
    let all: Vec<u16> = (0..=u16::MAX).collect();
    for src in SOURCES {
        let p = CastPolicy::default();
        for base in [0x0000usize, 0x03E0, 0x7B80, 0x7C00, 0x7F70, 0xFBF0, 0xFF70] {
            for skip in 0..32 {
                for n in [1usize, 15, 16, 17, 31, 32, 33, 63, 64, 65, 96] {
                    let at = (base + skip).min(65536 - n);
                    assert_avx512_equals_reference(&bytes16(&all[at..at + n]), src, &p);
                }
            }
        }
    }
}

/// ±0, the subnormal ends, the normal ends, max, ±Inf and NaNs (quiet and signalling, with
/// the smallest, largest and mixed payloads) of `f`, each with both signs.
fn boundary_classes(f: Format) -> Vec<u16> {
    let codes: &[u16] = match f {
        Format::F16 => &[
            0x0000, 0x0001, 0x0002, 0x01FF, 0x0200, 0x03FF, 0x0400, 0x0401, 0x3C00, 0x3BFF, 0x3C01,
            0x7BFF, 0x7BFE, 0x7C00, 0x7C01, 0x7C02, 0x7D55, 0x7DFF, 0x7E00, 0x7E01, 0x7FFF,
        ],
        _ => &[
            0x0000, 0x0001, 0x0040, 0x007F, 0x0080, 0x0081, 0x3F80, 0x3F7F, 0x3F81, 0x7F7F, 0x7F7E,
            0x7F80, 0x7F81, 0x7F82, 0x7FA5, 0x7FBF, 0x7FC0, 0x7FC1, 0x7FFF,
        ],
    };
    codes.iter().flat_map(|&c| [c, c | 0x8000]).collect()
}

#[test]
fn boundary_classes_among_random_codes_equal_the_reference() {
    level_here(SimdLevel::Avx512);
    for src in SOURCES {
        let classes = boundary_classes(src);
        let mut next = xorshift(0x5EED ^ src.bits() as u64);
        for round in 0..8 {
            // the classes scattered through random codes, so that specials fall in some
            // steps, and tails, and not in others
            let mut v: Vec<u16> = (0..classes.len() * 3 + round * 7)
                .map(|_| (next() >> 40) as u16)
                .collect();
            for &c in &classes {
                let at = (next() % (v.len() as u64 + 1)) as usize;
                v.insert(at, c);
            }
            for p in served(src) {
                assert_avx512_equals_reference(&bytes16(&v), src, &p);
            }
        }
        // Only specials, several steps of them.
        let specials: Vec<u16> = classes.iter().cycle().take(200).copied().collect();
        for p in served(src) {
            assert_avx512_equals_reference(&bytes16(&specials), src, &p);
        }
    }
}

#[test]
fn outputs_above_the_streaming_threshold_at_the_default_options_equal_the_reference() {
    level_here(SimdLevel::Avx512);
    // 4 MiB and more of f32 output per cast: streamed by default (serial, and split over
    // threads), from a destination at several offsets from a 64-byte boundary.
    let n = (1 << 20) + 13;
    let mut next = xorshift(0xB16);
    let reference = options(KernelChoice::Reference, false);
    let defaults = [
        BulkOptions::default(),
        BulkOptions {
            parallel: false,
            ..BulkOptions::default()
        },
        options(KernelChoice::Level(SimdLevel::best()), false),
    ];
    let wide = |f: Format, next: &mut dyn FnMut() -> u64| -> Vec<u8> {
        match f {
            Format::F64 => (0..n)
                .flat_map(|_| {
                    let x = next();
                    // exponents around the f32 range, some NaN/Inf
                    let e = (1023 - 160 + (x >> 53) % 330).min(0x7FF);
                    ((x & 0x800F_FFFF_FFFF_FFFF) | (e << 52)).to_le_bytes()
                })
                .collect(),
            Format::I32 => (0..n).flat_map(|_| (next() as u32).to_le_bytes()).collect(),
            _ => {
                let classes = boundary_classes(f);
                (0..n)
                    .flat_map(|i| {
                        let x = next();
                        let c = if i % 97 == 0 {
                            classes[(x % classes.len() as u64) as usize]
                        } else {
                            (x >> 40) as u16
                        };
                        c.to_le_bytes()
                    })
                    .collect()
            }
        }
    };
    for src in [Format::F16, Format::BF16, Format::F64, Format::I32] {
        let s = Storage::native(src);
        let data = wide(src, &mut next);
        for policy in [
            CastPolicy::default(),
            CastPolicy::saturating(RoundMode::Round),
        ] {
            let want = kernel_support::cast_to_f32_at(&data, s, n, 0, &policy, &reference);
            for opts in &defaults {
                for offset in [0usize, 4, 12, 60] {
                    let got = kernel_support::cast_to_f32_at(&data, s, n, offset, &policy, opts);
                    assert!(got.0 == want.0, "{src} {policy:?} offset {offset} {opts:?}");
                    assert_eq!(got.1, want.1, "{src} {policy:?} offset {offset}");
                }
            }
        }
    }
}
