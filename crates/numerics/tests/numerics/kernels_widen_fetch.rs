//! Casts large enough that the AVX-512 f16 / bf16 → f32 widening prefetches both buffers
//! into the L1 (at least 1 MiB moved, below the 8 MiB streaming threshold) equal the
//! reference routine bit for bit, codes and status counts: every 16-bit code (±0,
//! subnormals, normals, ±Inf, quiet and signalling NaNs with every payload), three times
//! over, widened under every policy the widening kernel serves. Every fast cast is also
//! re-run streamed by `kernel_support::cast`.

use crate::kernel_support;
use kernel_support::{cast, f32s, level_here, options, policies};

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    CastPolicy, Format, InfRule, KernelChoice, NanRule, RoundMode, Storage, kernel_name_at,
};

#[test]
fn widening_every_code_past_the_prefetch_size_equals_the_reference_under_every_policy() {
    if !level_here(SimdLevel::Avx512) {
        return;
    }
    // every code three times (an odd multiplier permutes the 65,536 codes), then 13 more:
    // 1.2 MiB moved
    let n = 3 * 65536 + 13;
    let codes: Vec<u16> = (0..n)
        .map(|i| (i as u32).wrapping_mul(40503) as u16)
        .collect();
    let src: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
    let mut modes = RoundMode::DETERMINISTIC.to_vec();
    modes.push(RoundMode::None);
    let mut served = 0;
    for f in [Format::F16, Format::BF16] {
        let s = Storage::native(f);
        for mode in &modes {
            for p in policies(*mode) {
                for inf in [InfRule::Keep, InfRule::Saturate] {
                    for nan in [NanRule::Keep, NanRule::Zero] {
                        let policy = CastPolicy { inf, nan, ..p };
                        if !kernel_name_at(s, f32s(), &policy, SimdLevel::Avx512)
                            .starts_with("widen")
                        {
                            continue;
                        }
                        served += 1;
                        let run = |k| cast(&src, s, f32s(), n, &policy, &options(k, false));
                        let want = run(KernelChoice::Reference);
                        let got = run(KernelChoice::Level(SimdLevel::Avx512));
                        assert!(got.0 == want.0, "{f} {policy:?}");
                        assert_eq!(got.1, want.1, "{f} {policy:?}");
                    }
                }
            }
        }
    }
    assert!(
        served >= 2,
        "the widening kernel serves some policy of each source"
    );
}
