//! The lean AVX-512 blocks of the f32 → f16 and f32 → bf16 kernels (32 lanes per step, every
//! lane taken as inexact until a block-wide check says otherwise, rare blocks rescanned) equal
//! the reference routine bit for bit, codes and status counts, on the codes at their edges:
//! every f32 exponent with mantissas at every dropped-bit boundary (0, 1, half an ulp and its
//! neighbours, all ones, for every count of dropped bits an f16 or a bf16 has), both signs,
//! every deterministic mode and every policy the kernels serve, alone in a block and
//! sprinkled among inexact codes, at lengths that end in whole 32-lane steps, in a 16-lane
//! step, in a group of 8 and in a padded tail; streamed and not (`kernel_support::cast` runs
//! both). And at the AVX-512 level the cast really runs the AVX-512 kernel.

mod kernel_support;
use kernel_support::{fast_choices, options, random_f32};

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    CastPolicy, Format, InfRule, KernelChoice, NanRule, Overflow, RoundMode, StatusCounts, Storage,
    kernel_name_at,
};

const DSTS: [Format; 2] = [Format::F16, Format::BF16];

/// Every deterministic mode (and `none`) under every combination of the float rules.
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

/// `codes` cast to `dst` by kernel choice `k` (plain and streamed, which must agree).
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

/// Every fast level equals the reference on `codes`; on a difference, names the first
/// element whose code differs, else the counts (and an element whose status alone differs).
fn assert_same(codes: &[u32], dst: Format, policy: &CastPolicy) {
    let want = cast(codes, dst, policy, KernelChoice::Reference);
    for k in fast_choices() {
        let got = cast(codes, dst, policy, k);
        if got == want {
            continue;
        }
        for (i, c) in codes.iter().enumerate() {
            let g = u16::from_le_bytes([got.0[2 * i], got.0[2 * i + 1]]);
            let w = u16::from_le_bytes([want.0[2 * i], want.0[2 * i + 1]]);
            assert_eq!(
                g,
                w,
                "f32 {c:#010x} -> {dst} {policy:?} {k:?}, element {i} of {}",
                codes.len()
            );
        }
        for c in codes {
            assert_eq!(
                cast(&[*c], dst, policy, k).1,
                cast(&[*c], dst, policy, KernelChoice::Reference).1,
                "status of f32 {c:#010x} -> {dst} {policy:?} {k:?}"
            );
        }
        assert_eq!(
            got.1,
            want.1,
            "counts -> {dst} {policy:?} {k:?}, n = {}",
            codes.len()
        );
    }
}

/// Positive f32 codes: every biased exponent 0..=255, each with mantissas at the boundaries
/// of every count of dropped bits the destinations have there (13 for f16 normals, 126 − e
/// for f16 subnormal results, 16 for bf16, and 23): the dropped bits 0, 1, half − 1, half,
/// half + 1 and all ones, under kept bits 0, 1 (odd), a pattern and all ones.
fn edge_codes() -> Vec<u32> {
    let mut v = Vec::new();
    for e in 0u32..=255 {
        let mut drops = vec![13u32, 16, 23];
        if (103..=112).contains(&e) {
            drops.push(126 - e);
        }
        for d in drops {
            let half = 1u32 << (d - 1);
            let all = (1u32 << d) - 1;
            for kept in [0u32, 1, 0x2A5, u32::MAX] {
                for low in [0, 1, half - 1, half, half + 1, all] {
                    let m = ((kept << d) | low) & 0x7F_FFFF;
                    v.push((e << 23) | m);
                }
            }
        }
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// Inexact codes of moderate magnitude for f16 and bf16 (normal f16 results, low 13 and low
/// 16 bits nonzero): the lanes the lean blocks' fast path takes as they are.
fn background(n: usize, seed: u64) -> Vec<u32> {
    random_f32(n, seed)
        .into_iter()
        .map(|x| (x & 0x807F_FFFF) | ((113 + (x >> 23) % 28) << 23) | 0x1001)
        .collect()
}

#[test]
fn at_the_avx512_level_f16_and_bf16_run_their_avx512_kernels() {
    if !SimdLevel::Avx512.is_available() {
        return;
    }
    let s = Storage::native(Format::F32);
    for (dst, name) in [
        (Format::F16, "f16c-avx512"),
        (Format::BF16, "f32-bf16-avx512"),
    ] {
        let d = Storage::native(dst);
        for p in policies() {
            assert_eq!(kernel_name_at(s, d, &p, SimdLevel::Avx512), name, "{p:?}");
        }
    }
}

#[test]
fn edge_codes_in_runs_equal_the_reference_in_every_mode_and_policy() {
    // Both signs, in runs: whole blocks of edge codes (exact lanes, zeros, subnormal results,
    // specials side by side).
    let mut codes = Vec::new();
    for c in edge_codes() {
        codes.extend([c, c | 0x8000_0000]);
    }
    for dst in DSTS {
        for p in policies() {
            assert_same(&codes, dst, &p);
        }
    }
}

#[test]
fn each_edge_code_among_inexact_codes_equals_the_reference() {
    // One or two edge codes per block of inexact codes, at varying places: the block-wide
    // checks must find them and the rescans correct the counts of the lanes around them.
    let edges = edge_codes();
    let mut codes = background(edges.len() * 48, 0x5DEE_CE66_D1CE_4E5B);
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    for (i, &c) in edges.iter().enumerate() {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let at = 48 * i + (x % 48) as usize;
        codes[at] = c | (((x >> 20) as u32 & 1) << 31);
    }
    for dst in DSTS {
        for p in policies() {
            assert_same(&codes, dst, &p);
        }
    }
}

#[test]
fn lengths_around_the_steps_and_blocks_equal_the_reference() {
    // Blocks of 512 elements; the lean steps take 32, a last block of a multiple of 16 takes
    // 16-lane steps, of 8 the AVX2 groups, and the last n % 8 (f16) or n % 16 (bf16) a padded
    // tail. An exact lane, a zero and a subnormal result near each end.
    let body = background(2200, 0x9E37_79B9_7F4A_7C15);
    let ends = [0x3F80_0000u32, 0x8000_0000, 0x3380_1000, 0x0000_0001];
    for n in [
        1usize, 8, 16, 31, 32, 33, 48, 64, 96, 200, 511, 512, 513, 528, 536, 544, 1040, 1056, 1536,
        2047, 2048, 2080, 2200,
    ] {
        let mut codes = body[..n].to_vec();
        for (i, &c) in ends.iter().enumerate() {
            if 2 * i + 1 < n {
                codes[2 * i] = c;
                codes[n - 1 - 2 * i] = c ^ 0x8000_0000;
            }
        }
        for dst in DSTS {
            for round in RoundMode::DETERMINISTIC {
                for p in [
                    CastPolicy::new(round),
                    CastPolicy::saturating(round),
                    CastPolicy::non_saturating(round),
                ] {
                    assert_same(&codes, dst, &p);
                    assert_same(&body[..n], dst, &p);
                }
            }
        }
    }
}
