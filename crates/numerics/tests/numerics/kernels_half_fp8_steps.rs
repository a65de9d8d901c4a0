//! f16 / bf16 → one-byte binary floats to nearest even at the AVX2 level (`half-float-fp8-avx2`,
//! the 16-bit rule): every one of the 65,536 source codes, cast one step of 32 at a time, gives
//! the reference routine's codes and status counts for that step, so a status counted in the
//! wrong class cannot hide in the totals of a whole run. The steps hold 32 consecutive codes
//! (one binade's neighbours: ties, carries into the next binade, the subnormal binades) and,
//! in a second pass, 32 codes scattered over the whole range (an odd multiplier is a
//! permutation of the 16-bit codes), under the three standard policies.

use crate::kernel_support::{cast, level_here, options, policies};
use crate::kernels_half_fp8_avx2::destinations;

use npusim_numerics::bulk::{SimdLevel, kernel_name_at};
use npusim_numerics::{Format, KernelChoice, RoundMode, Storage};

/// Every 16-bit code once: in order, or scattered by the odd multiplier 0x9E37.
fn codes(scattered: bool) -> Vec<u8> {
    (0..=u16::MAX)
        .map(|i| if scattered { i.wrapping_mul(0x9E37) } else { i })
        .flat_map(u16::to_le_bytes)
        .collect()
}

#[test]
fn every_half_code_one_step_at_a_time_equals_the_reference() {
    if !level_here(SimdLevel::Avx2) {
        return;
    }
    for sf in [Format::F16, Format::BF16] {
        let s = Storage::native(sf);
        for d in destinations() {
            for policy in policies(RoundMode::Rint) {
                assert_eq!(
                    kernel_name_at(s, d, &policy, SimdLevel::Avx2),
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
                            &policy,
                            &options(KernelChoice::Reference, false),
                        );
                        let got = cast(
                            step,
                            s,
                            d,
                            32,
                            &policy,
                            &options(KernelChoice::Level(SimdLevel::Avx2), false),
                        );
                        let first = u16::from_le_bytes([step[0], step[1]]);
                        assert_eq!(
                            got.0, want.0,
                            "{sf} -> {d:?} {policy:?}: step {k} from {first:#06x} \
                             (scattered {scattered})"
                        );
                        assert_eq!(
                            got.1, want.1,
                            "{sf} -> {d:?} {policy:?}: counts of step {k} from {first:#06x} \
                             (scattered {scattered})"
                        );
                    }
                }
            }
        }
    }
}
