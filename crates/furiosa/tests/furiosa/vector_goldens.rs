//! Spec §7.5 G34, the full intra-slice pipeline (`ve_elementwise_full_pipeline`): AddFxp 100,
//! fxp_to_fp(31), MulF 2.5 (Way4, between narrow and widen), fp_to_fxp(31), Max 0, Min 1000.

use npusim_furiosa::mapping::Axes;
use npusim_furiosa::{
    BranchMode, ClipBinaryOp, FpBinaryOp, FxpBinaryOp, Mapping, StreamTensor, axes,
};

fn mp(axes: &Axes, text: &str) -> Mapping {
    Mapping::parse(text, axes).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn g34_full_pipeline() {
    let ax = axes![T = 2, P = 8].expect("axes");
    let xs: [i32; 7] = [0, 1, 300, 301, -101, -100, 2];
    let want: [i32; 7] = [250, 253, 1000, 1000, 0, 0, 255];
    let mut data = vec![0i32; 16];
    data[..7].copy_from_slice(&xs);
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "T"),
        mp(&ax, "P"),
    ];
    let out = StreamTensor::collect_i32(dims, &data)
        .expect("input")
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::AddFxp, 100))
        .and_then(|t| t.vector_fxp_to_fp(31))
        .and_then(|t| t.vector_narrow_split(&mp(&ax, "T, P / 4"), &mp(&ax, "P % 4")))
        .and_then(|t| t.vector_fp_binary(FpBinaryOp::MulF, 2.5))
        .and_then(|t| t.vector_widen_concat(&mp(&ax, "T"), &mp(&ax, "P")))
        .and_then(|t| t.vector_fp_to_fxp(31))
        .and_then(|t| t.vector_clip(ClipBinaryOp::Max, 0))
        .and_then(|t| t.vector_clip(ClipBinaryOp::Min, 1000))
        .and_then(|t| t.vector_final())
        .expect("chain");
    let got: Vec<i64> = out.ints();
    for (i, (&x, &w)) in xs.iter().zip(&want).enumerate() {
        assert_eq!(got[i], i64::from(w), "x = {x}");
    }
    // The other cells hold 0 and go through the same rule: 0 -> 250.
    assert!(got[7..].iter().all(|&v| v == 250), "{got:?}");
}
