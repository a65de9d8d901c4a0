//! The vector element step at the edges of its scaling (hand-made blocks, every MX
//! floating-point scheme and NVFP4, every scale rule, every deterministic rounding mode,
//! every level here, against `block::quantize_reference`): a large block scale under which
//! elements' exact scaled values leave f32's normal range (f32 subnormals, 2^-126, values
//! that scale to about 2^-100, half the element's smallest subnormal and one ulp either side),
//! small scales near the end of the range the integer rules handle (the e8m0 clamps beyond
//! it go to the reference routine), signed zeros, and elements at and around the max normal.

use npusim_numerics::block::{Options, Scheme, Source, quantize_reference, quantize_with};
use npusim_numerics::{CastPolicy, KernelChoice, RoundMode};

use crate::block_sweep::levels;

/// One block of 32 for the amax `2^k × 1.75`: the edge elements under its scale.
fn block(k: i32, half_sub: f32) -> Vec<f32> {
    let p = |e: i32| 2f64.powi(e) as f32;
    let top = 1.75 * p(k);
    let scale = p(k);
    let mut v = vec![
        top,
        -0.0,
        0.0,
        f32::from_bits(1),
        -f32::from_bits(1),
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        f32::from_bits(0x007F_FFFF),
        p(-100) * scale,
        -p(-101) * scale,
        p(-126) * scale,
        half_sub * scale,
        -half_sub * scale,
        f32::from_bits((half_sub * scale).to_bits() + 1),
        f32::from_bits((half_sub * scale).to_bits() - 1),
        3.0 * half_sub * scale,
        -top,
        f32::from_bits(top.to_bits() - 1),
        top / 3.0,
        -top / 7.0,
    ];
    while v.len() < 32 {
        let i = v.len() as i32;
        v.push(p(k - 2 * i) * if i % 2 == 0 { 1.0 } else { -1.25 });
    }
    v
}

#[test]
fn element_step_edges_match_the_reference_at_every_level() {
    let levels = levels();
    for scheme in [
        Scheme::Mxfp8E4m3,
        Scheme::Mxfp8E5m2,
        Scheme::Mxfp6E3m2,
        Scheme::Mxfp6E2m3,
        Scheme::Mxfp4,
        Scheme::Nvfp4,
    ] {
        // half the element's smallest subnormal
        let half_sub = match scheme {
            Scheme::Mxfp8E4m3 => 2f32.powi(-10),
            Scheme::Mxfp8E5m2 => 2f32.powi(-17),
            Scheme::Mxfp6E3m2 => 2f32.powi(-5),
            Scheme::Mxfp6E2m3 => 2f32.powi(-4),
            _ => 0.25,
        };
        let mut v = Vec::new();
        for k in [-90, -87, -86, -60, -1, 0, 1, 40, 90, 100, 102, 103, 104] {
            v.extend(block(k, half_sub));
        }
        let shape = [v.len() / 32, 32];
        for rule in crate::block_sweep::rules_of(scheme) {
            for mode in RoundMode::DETERMINISTIC {
                let opts = Options {
                    scale_rule: rule,
                    policy: CastPolicy::new(mode),
                    ..Options::default()
                };
                let src = Source::F32(&v);
                let want = quantize_reference(src, &shape, -1, scheme, &opts).expect("reference");
                for &level in &levels {
                    let got =
                        quantize_with(src, &shape, -1, scheme, &opts, KernelChoice::Level(level))
                            .expect("fast");
                    let what = format!("{scheme} {rule:?} {mode:?} at {}", level.name());
                    assert_eq!(got.codes(), want.codes(), "codes of {what}");
                    assert_eq!(got.scales(), want.scales(), "scales of {what}");
                    assert_eq!(got.stats(), want.stats(), "counts of {what}");
                }
            }
        }
    }
}
