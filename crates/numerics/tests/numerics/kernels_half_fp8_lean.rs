//! f16 / bf16 → one-byte binary floats to nearest even at the AVX2 level (`half-float-fp8-avx2`)
//! under every policy of the mode with its Inf and NaN rules varied: the lean loop (overflow
//! clamped by sign, ±Inf given the overflow codes, statuses the same for both signs) and the
//! general loop (the other policies) each give the reference routine's codes and status counts
//! for every one of the 65,536 source codes, one step of 32 at a time (consecutive codes:
//! ties, carries into the next binade, the subnormal binades; scattered codes: NaN with every
//! payload, ±Inf, overflow, saturation and underflow in one step), and on whole runs longer
//! than the counter flush, in one piece and split over threads.

use crate::kernel_support::{all_policies, cast, level_here, options};
use crate::kernels_half_fp8_avx2::destinations;

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{CastPolicy, Format, KernelChoice, RoundMode, Storage};

/// Every policy of the nearest-even mode, its Inf and NaN rules varied.
fn rint_policies() -> Vec<CastPolicy> {
    all_policies()
        .into_iter()
        .filter(|p| p.round == RoundMode::Rint)
        .collect()
}

/// Every 16-bit code once: in order, or scattered by the odd multiplier 0x9E37.
fn codes(scattered: bool) -> Vec<u8> {
    (0..=u16::MAX)
        .map(|i| if scattered { i.wrapping_mul(0x9E37) } else { i })
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn every_code_one_step_at_a_time_under_every_policy_equals_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    let policies = rint_policies();
    assert_eq!(policies.len(), 12);
    for sf in [Format::F16, Format::BF16] {
        let s = Storage::native(sf);
        for d in destinations() {
            for policy in &policies {
                assert_eq!(
                    kernel_name_at(s, d, policy, SimdLevel::Avx2),
                    "half-float-fp8-avx2",
                    "{sf} -> {d:?} {policy:?}"
                );
                for scattered in [false, true] {
                    let all = codes(scattered);
                    for (k, step) in all.chunks_exact(64).enumerate() {
                        let want = cast(
                            step,
                            s,
                            d,
                            32,
                            policy,
                            &options(KernelChoice::Reference, false),
                        );
                        let got = cast(
                            step,
                            s,
                            d,
                            32,
                            policy,
                            &options(KernelChoice::Level(SimdLevel::Avx2), false),
                        );
                        let first = u16::from_le_bytes([step[0], step[1]]);
                        assert_eq!(
                            got, want,
                            "{sf} -> {d:?} {policy:?}: step {k} from {first:#06x} \
                             (scattered {scattered})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn every_code_in_one_run_under_every_policy_equals_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    // 2048 steps: eight flushes of the byte counters, every class in every flush
    for sf in [Format::F16, Format::BF16] {
        let s = Storage::native(sf);
        for d in destinations() {
            for policy in rint_policies() {
                for scattered in [false, true] {
                    let src = codes(scattered);
                    let n = src.len() / 2;
                    let want = cast(
                        &src,
                        s,
                        d,
                        n,
                        &policy,
                        &options(KernelChoice::Reference, false),
                    );
                    for parallel in [false, true] {
                        let got = cast(
                            &src,
                            s,
                            d,
                            n,
                            &policy,
                            &options(KernelChoice::Level(SimdLevel::Avx2), parallel),
                        );
                        assert!(
                            got == want,
                            "{sf} -> {d:?} {policy:?} scattered {scattered} parallel {parallel}"
                        );
                    }
                }
            }
        }
    }
}
