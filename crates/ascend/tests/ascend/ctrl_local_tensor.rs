//! `SetCtrlSpr` on an `AiCore` changes its LocalTensor casts the way seed 001's constraints say
//! CTRL changes the 950's saturation; the Atlas training series does not read CTRL.

use npusim_ascend::{AiCore, Product, ty};
use npusim_numerics::RoundMode;

/// Casts eight copies of one float to `D` on `core` (first-n API) and returns element 0's code.
fn cast_one<D: npusim_ascend::Element>(core: &mut AiCore, x: f32, round: RoundMode) -> u64 {
    let src = core.ub.tensor::<ty::Float>(0, 64).unwrap();
    let dst = core.ub.tensor::<D>(512, 64).unwrap();
    core.ub
        .load_bytes(&src.view(), &x.to_le_bytes().repeat(64))
        .unwrap();
    core.cast_count(&dst, &src, round, 64).unwrap();
    core.ub.read(&dst.view(), 0)
}

#[test]
fn float_to_half_overflow_saturates_or_gives_inf_by_ctrl_48() {
    let mut core = AiCore::new(Product::Ascend950);
    assert_eq!(
        cast_one::<ty::Half>(&mut core, 1e6, RoundMode::Rint),
        0x7BFF
    );
    assert_eq!(
        cast_one::<ty::Half>(&mut core, f32::INFINITY, RoundMode::Rint),
        0x7BFF
    );
    assert_eq!(
        cast_one::<ty::Half>(&mut core, f32::NAN, RoundMode::Rint),
        0
    );
    core.set_ctrl_spr(48, 48, 1).unwrap();
    assert_eq!(
        cast_one::<ty::Half>(&mut core, 1e6, RoundMode::Rint),
        0x7C00
    );
    assert_eq!(
        cast_one::<ty::Half>(&mut core, -1e6, RoundMode::Rint),
        0xFC00
    );
    assert_eq!(
        cast_one::<ty::Half>(&mut core, f32::NAN, RoundMode::Rint) & 0x7E00,
        0x7E00,
        "NaN stays NaN"
    );
}

#[test]
fn float_to_int_overflow_saturates_or_truncates_by_ctrl_59() {
    let mut core = AiCore::new(Product::Ascend950);
    // 70000 -> int16: saturates to 32767 by default ...
    assert_eq!(
        cast_one::<ty::Int16>(&mut core, 70000.0, RoundMode::Rint),
        0x7FFF
    );
    // ... keeps the low 16 bits with CTRL[59] = 1 (70000 = 0x11170)
    core.set_ctrl_spr(59, 59, 1).unwrap();
    assert_eq!(
        cast_one::<ty::Int16>(&mut core, 70000.0, RoundMode::Rint),
        0x1170
    );
    // CTRL[48] does not touch integer outputs, CTRL[59] not float outputs
    assert_eq!(
        cast_one::<ty::Half>(&mut core, 1e6, RoundMode::Rint),
        0x7BFF
    );
}

#[test]
fn fp8_nan_is_kept_with_ctrl_50() {
    let mut core = AiCore::new(Product::Ascend950);
    assert_eq!(
        cast_one::<ty::Fp8E5M2>(&mut core, f32::NAN, RoundMode::Rint),
        0
    );
    core.set_ctrl_spr(50, 50, 1).unwrap();
    let code = cast_one::<ty::Fp8E5M2>(&mut core, f32::NAN, RoundMode::Rint);
    assert_eq!(code & 0x7C, 0x7C, "an e5m2 NaN code, got {code:#x}");
    assert_ne!(code & 0x3, 0);
}

#[test]
fn per_instruction_mode_uses_the_emulations_sat_trait() {
    // CTRL[60] = 0 hands the choice to the instruction; the 950 LocalTensor API builds its
    // traits with SatMode::SAT, so it keeps saturating even with CTRL[48] = 1.
    let mut core = AiCore::new(Product::Ascend950);
    core.set_ctrl_spr(60, 60, 0).unwrap();
    core.set_ctrl_spr(48, 48, 1).unwrap();
    assert_eq!(
        cast_one::<ty::Half>(&mut core, 1e6, RoundMode::Rint),
        0x7BFF
    );
}

#[test]
fn the_training_series_does_not_read_ctrl() {
    let mut core = AiCore::new(Product::AtlasTraining);
    core.set_ctrl_spr(48, 48, 1).unwrap();
    core.set_ctrl_spr(59, 59, 1).unwrap();
    assert_eq!(
        cast_one::<ty::Half>(&mut core, 1e6, RoundMode::None),
        0x7BFF
    );
}

#[test]
fn a_bad_bit_range_is_an_error() {
    let mut core = AiCore::new(Product::Ascend950);
    let e = core.set_ctrl_spr(48, 64, 1).unwrap_err();
    assert!(e.to_string().contains("SetCtrlSpr<48, 64>"), "{e}");
    assert!(core.set_ctrl_spr(50, 48, 1).is_err());
}
