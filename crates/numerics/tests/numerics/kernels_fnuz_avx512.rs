//! The AVX-512 kernel for f32 → the fnuz fp8 formats (`f32-fnuz-avx512`: e4m3fnuz, e5m2fnuz,
//! e4m3b11fnuz; no Inf, no negative zero, NaN = 0x80, largest finite code 0x7F) equals the
//! reference routine bit for bit, codes and status counts: on every boundary class of each
//! destination (every value and tie, the largest value and beyond, overflow, ±Inf, NaN
//! payloads, ±0 and negative values that round to zero, f32 and destination subnormals)
//! mixed with random codes; on every f32 exponent with the mantissas that matter; on random
//! patterns (2^16 by default, 2^`NPUSIM_SWEEP_LOG2` when set); on steps that are all special
//! and special lanes at step boundaries; at lengths and offsets around its 64-element step;
//! over threads; in every deterministic mode under every policy the key table serves, with
//! the output streamed too. The kernel name at the AVX-512 level is checked, so that a
//! silent fallback fails. Where the kernels may not use the AVX-512 level each test says
//! `SKIPPED: ... needs avx512` and checks the same cases at the best level there is.

use crate::kernel_support;
use kernel_support::{
    around, assert_absent_level_names_portable, assert_best_equals_reference, bytes, f32s,
    float_classes, key_policies, level_here, mixed, options, random_f32,
};

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

use crate::sweep::sweep_log2;

/// The log2 count of the random sweep by default: a quick check.
const QUICK_LOG2: u32 = 16;

/// The destinations.
const DSTS: [Format; 3] = [
    Format::F8E4M3FNUZ,
    Format::F8E5M2FNUZ,
    Format::F8E4M3B11FNUZ,
];

const NAME: &str = "f32-fnuz-avx512";

/// The boundary classes of `dst` (see the module doc), both signs.
fn classes(dst: Format) -> Vec<u32> {
    let mut v = float_classes(dst);
    // every f32 exponent with the mantissas around each destination rounding point
    for e in 0..=255u32 {
        for m in [0u32, 1, 0x7F_FFFF] {
            around((e << 23) | m, 0, &mut v);
        }
        for j in 1..16u32 {
            around((e << 23) | (j << 19), 1, &mut v);
        }
    }
    v
}

/// What the reference gives for fnuz, as the format's documents say: no negative zero (−0 and
/// negative values rounding to zero give 0x00), NaN is 0x80 for either sign, the largest
/// finite code is 0x7F, and IEEE overflow gives NaN (there is no Inf).
#[test]
fn the_reference_gives_the_documented_fnuz_codes() {
    let c = |x: f32, dst: Format, p: CastPolicy| {
        npusim_numerics::convert_with_status(u64::from(x.to_bits()), Format::F32, dst, &p, 0).code
    };
    for dst in DSTS {
        let p = CastPolicy::new(RoundMode::Rint);
        assert_eq!(c(-0.0, dst, p), 0x00, "{dst}");
        assert_eq!(c(-1e-30, dst, p), 0x00, "{dst}");
        assert_eq!(c(f32::NAN, dst, p), 0x80, "{dst}");
        assert_eq!(c(-f32::NAN, dst, p), 0x80, "{dst}");
        assert_eq!(c(dst.max_finite() as f32, dst, p), 0x7F, "{dst}");
        assert_eq!(c(-(dst.max_finite() as f32), dst, p), 0xFF, "{dst}");
        assert_eq!(c(f32::INFINITY, dst, p), 0x80, "{dst}");
        let sat = CastPolicy::saturating(RoundMode::Rint);
        assert_eq!(c(f32::NEG_INFINITY, dst, sat), 0xFF, "{dst}");
        assert_eq!(c(1e30, dst, sat), 0x7F, "{dst}");
    }
}

#[test]
fn the_avx512_level_runs_the_kernel_for_every_mode_and_policy() {
    let here = level_here(SimdLevel::Avx512);
    for dst in DSTS {
        for mode in RoundMode::DETERMINISTIC {
            for p in key_policies(mode) {
                let d = Storage::native(dst);
                if here {
                    assert_eq!(
                        kernel_name_at(f32s(), d, &p, SimdLevel::Avx512),
                        NAME,
                        "{dst:?} {p:?}"
                    );
                } else {
                    assert_absent_level_names_portable(f32s(), d, &p, SimdLevel::Avx512);
                }
                // (the key table, or its gathered lookup `f32-key-avx2`)
                assert_eq!(
                    kernel_name_at(f32s(), d, &p, SimdLevel::Avx2).trim_end_matches("-avx2"),
                    "f32-key"
                );
            }
        }
    }
}

#[test]
fn boundary_classes_equal_the_reference_in_every_mode_and_policy() {
    level_here(SimdLevel::Avx512);
    for (k, dst) in DSTS.into_iter().enumerate() {
        let all = classes(dst);
        let codes = mixed(&all, 31 + k as u64);
        // the finite classes alone: whole steps without NaN or Inf
        let finite: Vec<u32> = all
            .iter()
            .copied()
            .filter(|c| c & 0x7F80_0000 != 0x7F80_0000)
            .collect();
        for mode in RoundMode::DETERMINISTIC {
            for p in key_policies(mode) {
                assert_best_equals_reference(&codes, dst, &p);
                assert_best_equals_reference(&finite, dst, &p);
            }
        }
    }
}

#[test]
fn random_patterns_equal_the_reference_in_every_mode_and_policy() {
    level_here(SimdLevel::Avx512);
    let log2 = sweep_log2(QUICK_LOG2);
    for (k, dst) in DSTS.into_iter().enumerate() {
        for (j, mode) in RoundMode::DETERMINISTIC.into_iter().enumerate() {
            let all = key_policies(mode);
            // the full count under the standard policies, 1/64 of it under every other one
            for (i, p) in all.iter().enumerate() {
                let n = if i <= 1 || *p == CastPolicy::saturating(mode) {
                    1usize << log2
                } else {
                    1 << log2.saturating_sub(6)
                };
                let seed = 7000 + 1000 * k as u64 + 100 * j as u64 + i as u64;
                // odd lengths: the tail after the last 64-element step too
                assert_best_equals_reference(&random_f32(n + 37, seed), dst, p);
            }
        }
    }
}

/// Normal data with special lanes: 1 % NaN / ±Inf, a causal mask (rows of 64 with −Inf after
/// the diagonal), steps that are all NaN, all −Inf or all exact overflow, and special lanes
/// on the first and last lane of a step and across step boundaries; each mixed with values
/// that round to zero from below (negative zero results).
#[test]
fn special_data_and_step_boundaries_equal_the_reference() {
    level_here(SimdLevel::Avx512);
    let plain: Vec<u32> = random_f32(64 * 40, 3)
        .into_iter()
        .map(|c| (c & 0x807F_FFFF) | (((c >> 23) & 7) + 122) << 23)
        .collect();
    let mut nan1 = plain.clone();
    for (i, c) in nan1.iter_mut().enumerate().step_by(100) {
        *c = [0x7FC0_0000, 0x7F80_0000, 0xFF80_0000][(i / 100) % 3];
    }
    let mut masked = plain.clone();
    for (i, c) in masked.iter_mut().enumerate() {
        if i % 64 > (i / 64) % 64 {
            *c = 0xFF80_0000;
        }
    }
    let mut blocks = plain.clone();
    let fill = [
        0x7FC0_0001,
        0xFF80_0000,
        0x7F00_0000,
        0xC700_0000,
        0x8000_0001,
    ];
    for (b, &f) in fill.iter().enumerate() {
        blocks[64 * (2 * b + 1)..64 * (2 * b + 2)].fill(f);
    }
    for at in [63usize, 64, 127, 128, 191, 192, 1023, 1024] {
        blocks[at] = 0xFF80_0000;
        blocks[at + 640] = 0xFFC0_0000;
        blocks[at + 1280] = 0x8000_0000;
    }
    let mut tiny = plain.clone();
    for c in tiny.iter_mut().step_by(3) {
        *c = 0x8000_0000 | (*c & 0x00FF_FFFF);
    }
    for dst in DSTS {
        for mode in RoundMode::DETERMINISTIC {
            for p in key_policies(mode) {
                for codes in [&plain, &nan1, &masked, &blocks, &tiny] {
                    assert_best_equals_reference(codes, dst, &p);
                }
            }
        }
    }
}

#[test]
fn lengths_offsets_and_threads_equal_the_reference() {
    level_here(SimdLevel::Avx512);
    let pool = mixed(&classes(Format::F8E4M3FNUZ), 9);
    for dst in DSTS {
        for p in [
            CastPolicy::new(RoundMode::Rint),
            CastPolicy::saturating(RoundMode::Rint),
            CastPolicy::new(RoundMode::Odd),
        ] {
            for n in [0, 1, 63, 64, 65, 127, 128, 129, 1023] {
                for offset in [0, 1, 3] {
                    assert_best_equals_reference(&pool[offset..offset + n], dst, &p);
                }
            }
        }
    }
    let codes = random_f32(300_000, 5);
    let src = bytes(&codes);
    for dst in DSTS {
        let d = Storage::native(dst);
        let p = CastPolicy::default();
        let reference = options(KernelChoice::Reference, false);
        let want = kernel_support::cast(&src, f32s(), d, codes.len(), &p, &reference);
        for at in [1usize, 63, 64, 129] {
            let n = codes.len() - at;
            let o = options(KernelChoice::Level(SimdLevel::best()), true);
            let got = kernel_support::cast(&src[4 * at..], f32s(), d, n, &p, &o);
            let r = kernel_support::cast(&src[4 * at..], f32s(), d, n, &p, &reference);
            assert_eq!(got, r, "{dst:?} from {at}");
            assert_eq!(&got.0[..], &want.0[at..], "{dst:?} from {at}");
        }
    }
}
