//! The f32 → f16 and f32 → bf16 fast kernels (F16C and AVX2 at the AVX2 level, the integer
//! loop at the portable level) equal the reference routine bit for bit, codes and status
//! counts: in every deterministic mode, under every combination of the overflow, Inf and NaN
//! rules, at every instruction-set level this machine has, on every boundary class (zeros,
//! subnormals, the smallest normal, ties, max, max + half an ulp, overflow, ±Inf, NaN payloads)
//! and random codes, in slices of every awkward length and element by element. And at the AVX2
//! level the cast really runs the SIMD kernel (a silent fallback fails the name test).

use crate::kernel_support;
use kernel_support::{fast_choices, level_here, options, random_f32};

use npusim_numerics::bulk::SimdLevel;

use crate::sweep::sweep_log2;
use npusim_numerics::{
    BulkOptions, CastPolicy, Format, InfRule, KernelChoice, NanRule, Overflow, RoundMode,
    StatusCounts, Storage, cast_elements_with_status, kernel_name, kernel_name_at,
};

const DSTS: [Format; 2] = [Format::F16, Format::BF16];

/// The log2 count of the random codes by default (2^`NPUSIM_SWEEP_LOG2` when set).
const QUICK_LOG2: u32 = 14;

/// The SIMD kernel's name for `dst`.
fn simd_name(dst: Format) -> &'static str {
    if dst == Format::F16 {
        "f16c"
    } else {
        "f32-bf16"
    }
}

/// Every deterministic mode (and `none`, which rounds like `rint`) under every combination of
/// the float rules.
fn policies() -> Vec<CastPolicy> {
    let mut v = Vec::new();
    for round in RoundMode::DETERMINISTIC
        .into_iter()
        .chain([RoundMode::None])
    {
        for overflow in [Overflow::Ieee, Overflow::Saturate] {
            for inf in [InfRule::Keep, InfRule::Saturate] {
                for nan in [NanRule::Keep, NanRule::Zero] {
                    v.push(CastPolicy {
                        round,
                        overflow,
                        inf,
                        nan,
                        ..CastPolicy::default()
                    });
                }
            }
        }
    }
    v
}

fn cast(
    codes: &[u32],
    dst: Format,
    policy: &CastPolicy,
    k: KernelChoice,
) -> (Vec<u8>, StatusCounts) {
    let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    let (s, d) = (Storage::native(Format::F32), Storage::native(dst));
    kernel_support::cast(&src, s, d, codes.len(), policy, &options(k, false))
}

/// The f32 magnitudes at the class boundaries of `dst`: around zero, the smallest subnormal
/// and half of it, the smallest normal, 1.0 and a tie above it, the largest finite value, it
/// plus half an ulp, the next power of two, the f32 maximum, Inf; f32 subnormals; ties and
/// their neighbours at every exponent of the destination (`every_exponent`, else a few).
fn boundaries(dst: Format, every_exponent: bool) -> Vec<u32> {
    let (cut, e0, max) = if dst == Format::F16 {
        (13u32, 112u32, 0x477F_E000u32)
    } else {
        (16, 0, 0x7F7F_0000)
    };
    let ulp = 1u32 << cut;
    let half = ulp / 2;
    let min_sub = if dst == Format::F16 {
        0x3380_0000
    } else {
        1 << 16
    };
    let min_normal = (e0 + 1) << 23;
    let mut anchors = vec![
        0,
        1,
        0x007F_FFFF,
        0x0080_0000,
        min_sub,
        if dst == Format::F16 {
            0x3300_0000
        } else {
            1 << 15
        },
        min_normal,
        min_normal - ulp,
        0x3F80_0000,
        0x3F80_0000 + half,
        0x3F80_0000 + ulp + half,
        max,
        max + half,
        max + ulp,
        max - half,
        0x7F7F_FFFF,
        0x7F80_0000,
    ];
    // ties and neighbours at every exponent the destination has
    let exponents =
        e0.saturating_sub(11)..=(e0 + if dst == Format::F16 { 31 } else { 254 }).min(254);
    let step = if every_exponent { 1 } else { 9 };
    for e in exponents.step_by(step) {
        for m_hi in [0u32, 1, 2, (1 << (23 - cut)) - 1] {
            anchors.push((e << 23) | (m_hi << cut) | half);
        }
    }
    let mut v = Vec::new();
    for a in anchors {
        for d in 0..=3u32 {
            for c in [a.wrapping_sub(d), a.wrapping_add(d)] {
                if c & 0x8000_0000 == 0 {
                    v.extend([c, c | 0x8000_0000]);
                }
            }
        }
    }
    // NaNs: quiet and signalling, payloads in the kept top bits and only in the dropped low bits
    for nan in [
        0x7F80_0001,
        0x7F80_1000,
        0x7F80_FFFF,
        0x7F81_0000,
        0x7FA1_2345,
        0x7FBF_FFFF,
        0x7FC0_0000,
        0x7FC0_0001,
        0x7FC1_2345,
        0x7FFF_E000,
        0x7FFF_FFFF,
    ] {
        v.extend([nan, nan | 0x8000_0000]);
    }
    v
}

/// On a difference, names the first f32 code whose result differs, then compares the counts.
fn assert_same(codes: &[u32], dst: Format, policy: &CastPolicy, k: KernelChoice) {
    let fast = cast(codes, dst, policy, k);
    let slow = cast(codes, dst, policy, KernelChoice::Reference);
    if fast == slow {
        return;
    }
    for (i, c) in codes.iter().enumerate() {
        let got = u16::from_le_bytes([fast.0[2 * i], fast.0[2 * i + 1]]);
        let want = u16::from_le_bytes([slow.0[2 * i], slow.0[2 * i + 1]]);
        assert_eq!(
            got,
            want,
            "f32 {c:#010x} -> {dst} {policy:?} {k:?}, element {i} of {}",
            codes.len()
        );
        let one = cast(&[*c], dst, policy, k);
        let want_one = cast(&[*c], dst, policy, KernelChoice::Reference);
        assert_eq!(
            one.1, want_one.1,
            "status of f32 {c:#010x} -> {dst} {policy:?} {k:?}"
        );
    }
    assert_eq!(
        fast.1,
        slow.1,
        "status counts, {dst} {policy:?} {k:?}, n = {}",
        codes.len()
    );
}

#[test]
fn at_the_avx2_and_avx512_levels_f16_and_bf16_run_their_simd_kernels_in_every_mode_and_policy() {
    level_here(SimdLevel::Avx2);
    level_here(SimdLevel::Avx512);
    let s = Storage::native(Format::F32);
    for dst in DSTS {
        let d = Storage::native(dst);
        for p in policies() {
            assert_eq!(kernel_name_at(s, d, &p, SimdLevel::Portable), "f32-float");
            let avx2 = kernel_name_at(s, d, &p, SimdLevel::Avx2);
            if SimdLevel::Avx2.is_available() {
                assert_eq!(avx2, simd_name(dst), "{dst} {p:?}");
            } else {
                assert_eq!(avx2, "f32-float", "{dst} {p:?}");
            }
            let avx512 = kernel_name_at(s, d, &p, SimdLevel::Avx512);
            if SimdLevel::Avx512.is_available() {
                assert_eq!(avx512, format!("{}-avx512", simd_name(dst)), "{dst} {p:?}");
                assert_eq!(kernel_name(s, d, &p), avx512, "{dst} {p:?}");
            } else if SimdLevel::Avx2.is_available() {
                assert_eq!(kernel_name(s, d, &p), simd_name(dst), "{dst} {p:?}");
            }
        }
    }
}

#[test]
fn f16_and_bf16_kernels_equal_the_reference_on_boundaries_and_random_codes() {
    let log2 = sweep_log2(QUICK_LOG2);
    for dst in DSTS {
        let mut codes = boundaries(dst, true);
        // boundary codes among random ones too, so that special lanes share groups with others
        let r = random_f32(1 << log2, 0x2545_F491_4F6C_DD1D);
        for (i, b) in boundaries(dst, true).into_iter().enumerate() {
            codes.push(r[i % r.len()]);
            codes.push(b);
        }
        codes.extend(&r);
        for p in policies() {
            for k in fast_choices() {
                assert_same(&codes, dst, &p, k);
            }
        }
    }
}

#[test]
fn every_boundary_code_alone_equals_the_reference() {
    // One element: the padded tail group of the SIMD kernels, status by status.
    for dst in DSTS {
        let codes = boundaries(dst, false);
        for p in policies() {
            for k in fast_choices() {
                for &c in &codes {
                    let fast = cast(&[c], dst, &p, k);
                    let slow = cast(&[c], dst, &p, KernelChoice::Reference);
                    assert_eq!(fast, slow, "f32 {c:#010x} -> {dst} {p:?} {k:?}");
                }
            }
        }
    }
}

#[test]
fn awkward_lengths_with_specials_at_the_ends_equal_the_reference() {
    let specials = [
        0x7F80_0000u32,
        0xFFC0_1234,
        0x477F_F000,
        0xC780_0000,
        0x7F7F_FFFF,
    ];
    for dst in DSTS {
        let body = random_f32(1100, 0x9E37_79B9_7F4A_7C15);
        for n in [0usize, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 1023, 1025] {
            let mut codes = body[..n].to_vec();
            // specials first and last, where the main loop and the tail meet
            for (i, s) in specials.iter().enumerate() {
                if i < n {
                    codes[i] = *s;
                    codes[n - 1 - i] = s ^ 0x8000_0000;
                }
            }
            for round in RoundMode::DETERMINISTIC {
                for p in [
                    CastPolicy::new(round),
                    CastPolicy::saturating(round),
                    CastPolicy::non_saturating(round),
                ] {
                    for k in fast_choices() {
                        assert_same(&codes, dst, &p, k);
                    }
                }
            }
        }
    }
}

#[test]
fn unaligned_buffers_and_parallel_chunks_equal_the_reference() {
    let n = 3 * npusim_numerics::bulk::PARALLEL_THRESHOLD + 4099;
    let codes = random_f32(n + 1, 0xDEAD_BEEF_1234_5678);
    let bytes: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    let s = Storage::native(Format::F32);
    for dst in DSTS {
        let d = Storage::native(dst);
        for round in [RoundMode::Rint, RoundMode::Round, RoundMode::Odd] {
            let p = CastPolicy::saturating(round);
            let run = |offset: usize, k: KernelChoice, parallel: bool| {
                let mut out = vec![0u8; d.bytes_for(n) + 1];
                let o = BulkOptions {
                    kernels: k,
                    parallel,
                    ..BulkOptions::default()
                };
                let dst_bytes = &mut out[offset..offset + d.bytes_for(n)];
                let counts = cast_elements_with_status(
                    &bytes[offset..offset + 4 * n],
                    s,
                    dst_bytes,
                    d,
                    n,
                    &p,
                    &o,
                )
                .expect("sized");
                (dst_bytes.to_vec(), counts)
            };
            for offset in [0, 1] {
                let want = run(offset, KernelChoice::Reference, false);
                for k in fast_choices() {
                    for parallel in [false, true] {
                        assert!(
                            run(offset, k, parallel) == want,
                            "{dst} {round} {k:?} offset {offset} parallel {parallel}"
                        );
                    }
                }
            }
        }
    }
}

/// `n` f32 codes of moderate magnitude (2^-30 .. 2^14, both signs, random mantissa, some of
/// them exact in bf16 or f16): no NaN,
/// Inf, overflow or f32 subnormal, so the SIMD kernels' fast path serves whole blocks.
fn moderate(n: usize, seed: u64) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .map(|x| {
            let c = (x & 0x807F_FFFF) | ((97 + (x >> 23) % 45) << 23);
            // a quarter exact in bf16, a quarter exact in f16 (where normal), half inexact
            match x >> 30 {
                0 => c & !0xFFFF,
                1 => c & !0x1FFF,
                _ => c,
            }
        })
        .collect()
}

#[test]
fn blocks_with_and_without_rare_lanes_equal_the_reference() {
    // Moderate values (the fast path) with a rare lane in a few places only: a NaN, an
    // overflow, a saturating value, an f32 subnormal, two specials side by side, one last.
    let n = 6007;
    let mut codes = moderate(n, 0x0123_4567_89AB_CDEF);
    for (i, c) in [
        (700, 0x7FC1_2345u32),
        (2100, 0x477F_F000),
        (2101, 0xFF80_0000),
        (3333, 0x7F7F_7FFF),
        (4444, 0x0000_1234),
        (n - 1, 0xC780_0000),
    ] {
        codes[i] = c;
    }
    for dst in DSTS {
        for round in RoundMode::DETERMINISTIC {
            for p in [
                CastPolicy::new(round),
                CastPolicy::saturating(round),
                CastPolicy::non_saturating(round),
            ] {
                for k in fast_choices() {
                    assert_same(&codes, dst, &p, k);
                    assert_same(&codes[..4096], dst, &p, k);
                    assert_same(&codes[..512], dst, &p, k);
                }
            }
        }
    }
}
