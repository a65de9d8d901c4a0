//! Tags and guarded immediates through the real chain: golden G32 (first-match slots), tags
//! following narrow / widen, reset by the inter-slice reducer, and the refusals.

use npusim_furiosa::mapping::Axes;
use npusim_furiosa::{
    BitReq, BranchMode, Branched, ClipBinaryOp, Cmp, FxpBinaryOp, InterSliceReduceOpI32,
    LogicBinaryOp, Mapping, StreamTensor, TagGuard, VectorError, axes,
};

use BitReq::{Ignore, One};

fn mp(axes: &Axes, text: &str) -> Mapping {
    Mapping::parse(text, axes).unwrap_or_else(|e| panic!("{e}"))
}

fn stream(ax: &Axes, slice: &str, time: &str, values: &[i32]) -> StreamTensor {
    let dims = [
        mp(ax, "1"),
        mp(ax, "1"),
        mp(ax, slice),
        mp(ax, time),
        mp(ax, "P"),
    ];
    StreamTensor::collect_i32(dims, values).expect("input")
}

fn bit(i: usize) -> TagGuard {
    let mut reqs = [Ignore; 4];
    reqs[i] = One;
    TagGuard::matches(reqs)
}

/// G32 (`ve_branch_bit_order`): tag = [x == 0, x == 5, x < 10, x > 1000]; BitOr with
/// imm(b0 → 0x100), imm(b2 → 0x200), imm(b3 → 0x400); then Clip Min behind b1. The golden's
/// last step reads the stash (x itself); b1 admits only x = 5, so the immediate 5 is the same
/// operand here.
#[test]
fn g32_first_match_slots() {
    let ax = axes![T = 2, P = 8].expect("axes");
    let xs = [0, 5, 7, 9, 10, 1000, 1001, -1, -1024];
    let want = [256, 5, 519, 521, 10, 1000, 2025, -1, -512];
    let mut data = vec![10; 16];
    data[..9].copy_from_slice(&xs);
    let mode = BranchMode::Comparison([
        Cmp::Equal(0.into()),
        Cmp::Equal(5.into()),
        Cmp::Less(10.into()),
        Cmp::Greater(1000.into()),
    ]);
    let out = stream(&ax, "1", "T", &data)
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(mode))
        .and_then(|t| {
            t.vector_logic_branched(
                LogicBinaryOp::BitOr,
                &Branched::new()
                    .imm(bit(0), 0x100)
                    .imm(bit(2), 0x200)
                    .imm(bit(3), 0x400),
            )
        })
        .and_then(|t| t.vector_clip_branched(ClipBinaryOp::Min, &Branched::new().imm(bit(1), 5)))
        .and_then(|t| t.vector_final())
        .expect("chain");
    let got = out.ints();
    for (i, (&x, &w)) in xs.iter().zip(&want).enumerate() {
        assert_eq!(got[i], i64::from(w), "x = {x}");
    }
}

/// Tags are computed once from the input and follow the data; the inter-slice reducer resets
/// them to 0.
#[test]
fn tags_follow_the_data_and_reset_after_the_reducer() {
    let ax = axes![R = 4, P = 8].expect("axes");
    let data: Vec<i32> = (0..32).collect();
    let odd = BranchMode::Comparison([Cmp::Greater(15.into()), Cmp::False, Cmp::False, Cmp::False]);
    let v = stream(&ax, "R", "1", &data)
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(odd))
        .expect("branch");
    let want: Vec<u8> = (0..32).map(|x| u8::from(x > 15)).collect();
    assert_eq!(v.tags(), want.as_slice());
    let added = v
        .vector_fxp_branched(FxpBinaryOp::AddFxp, &Branched::new().imm(bit(0), 1000))
        .expect("fxp");
    let got: Vec<i64> = added.tensor().ints();
    for (x, g) in got.iter().enumerate() {
        assert_eq!(*g, if x > 15 { x as i64 + 1000 } else { x as i64 });
    }
    let reduced = added
        .vector_inter_slice_reduce(&mp(&ax, "1 # 4"), &mp(&ax, "1"), InterSliceReduceOpI32::Add)
        .expect("reduce");
    assert!(reduced.tags().iter().all(|&t| t == 0));
    // IntraFirst: the chain cannot be re-entered after the reducer.
    assert!(
        reduced
            .clone()
            .vector_intra_slice_branch(BranchMode::Unconditional)
            .is_err()
    );
    let out = reduced.vector_final().expect("final");
    // The sum over R of lane p: 4p + 48, plus 1000 for each of slices 2 and 3 (x > 15).
    for p in 0..8 {
        assert_eq!(out.ints()[p], 4 * p as i64 + 48 + 2000, "lane {p}");
    }
}

#[test]
fn bad_slots_and_comparisons_are_refused() {
    let ax = axes![P = 8].expect("axes");
    let v = stream(&ax, "1", "1", &[1; 8])
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .expect("branch");
    let e = v
        .clone()
        .vector_fxp_branched(
            FxpBinaryOp::AddFxp,
            &Branched::new().imm(TagGuard::all(), 1).imm(bit(0), 2),
        )
        .expect_err("slot after unconditional");
    assert!(matches!(e, VectorError::Operand { .. }), "{e}");
    assert!(e.to_string().contains("could never apply"), "{e}");
    let e = v
        .vector_clip_branched(ClipBinaryOp::Max, &Branched::new().imm(bit(0), 1.5f32))
        .expect_err("f32 immediate on i32");
    assert!(e.to_string().contains("f32 immediate"), "{e}");
    let e = stream(&ax, "1", "1", &[1; 8])
        .vector_init()
        .and_then(|t| {
            t.vector_intra_slice_branch(BranchMode::Comparison([
                Cmp::Less(0.5f32.into()),
                Cmp::True,
                Cmp::True,
                Cmp::True,
            ]))
        })
        .expect_err("f32 comparison on i32");
    assert!(matches!(e, VectorError::DType { .. }), "{e}");
}

/// InterFirst (spec path 4): the reducer, then a branch whose tags come from the reduced
/// values, then a guarded op.
#[test]
fn tags_after_an_inter_first_reduce() {
    let ax = axes![R = 4, P = 8].expect("axes");
    let data: Vec<i32> = (0..32).map(|x| if x % 2 == 0 { x } else { -x }).collect();
    let negative =
        BranchMode::Comparison([Cmp::Less(0.into()), Cmp::False, Cmp::False, Cmp::False]);
    let out = stream(&ax, "R", "1", &data)
        .vector_init()
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &mp(&ax, "1 # 4"),
                &mp(&ax, "1"),
                InterSliceReduceOpI32::Add,
            )
        })
        .and_then(|t| t.vector_intra_slice_branch(negative))
        .and_then(|t| t.vector_fxp_branched(FxpBinaryOp::MulInt, &Branched::new().imm(bit(0), -1)))
        .and_then(|t| t.vector_final())
        .expect("chain");
    for p in 0..8 {
        let sum: i64 = (0..4).map(|r| i64::from(data[r * 8 + p])).sum();
        assert_eq!(out.ints()[p], sum.abs(), "lane {p}");
    }
}
