//! Seed 003 (Inter-Slice Block): all six examples with concrete data, checked against an
//! oracle written directly over the logical indices; the state rules and every refusal.

use npusim_furiosa::engine::vector::stage::{Stage, transition_refusal};
use npusim_furiosa::mapping::Axes;
use npusim_furiosa::{
    BranchMode, FpBinaryOp, FxpBinaryOp, InterSliceReduceOpF32, InterSliceReduceOpI32, Mapping,
    StreamTensor, VectorError, VectorTensor, axes, m,
};

fn mp(axes: &Axes, text: &str) -> Mapping {
    Mapping::parse(text, axes).unwrap_or_else(|e| panic!("{e}"))
}

/// Deterministic pseudo-random i32 in [-1000, 1000] · 10^6 (large enough to saturate sums).
fn big(i: usize) -> i32 {
    let h = (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40;
    ((h % 2001) as i32 - 1000) * 1_000_000
}

/// Order-sensitive f32 values: large and small magnitudes mixed.
fn float(i: usize) -> f32 {
    let h = (i as u64).wrapping_mul(0xD1B5_4A32_D192_ED03) >> 40;
    let scale = [1e8f32, 1.0, -1e8, 0.5][(h % 4) as usize];
    scale * ((h % 97) as f32 + 1.0)
}

/// `Cluster = m![1 # 2]`, `Slice = m![A / 8, R]`, `Time = m![1]`, `Packet = m![A % 8]`, i32.
fn dummy_input(values: &dyn Fn(usize) -> i32) -> (Axes, StreamTensor) {
    let ax = axes![R = 4, A = 512].expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1 # 2"),
        mp(&ax, "A / 8, R"),
        mp(&ax, "1"),
        mp(&ax, "A % 8"),
    ];
    let data: Vec<i32> = (0..2 * 256 * 8).map(values).collect();
    (
        ax.clone(),
        StreamTensor::collect_i32(dims, &data).expect("input"),
    )
}

/// Input position of (cluster, a, r) in the dummy layout.
fn dummy_pos(cl: usize, a: usize, r: usize) -> usize {
    (cl * 256 + (a / 8) * 4 + r) * 8 + a % 8
}

fn sat_sum(xs: impl Iterator<Item = i32>) -> i32 {
    xs.fold(0i32, |acc, x| acc.saturating_add(x))
}

fn check_dummy(out: &StreamTensor, live: impl Fn(usize) -> i64, dead: i64) {
    let got = out.ints();
    assert_eq!(got.len(), 2 * 256 * 8);
    for cl in 0..2 {
        for a in 0..512 {
            for j in 0..4 {
                let pos = (cl * 256 + (a / 8) * 4 + j) * 8 + a % 8;
                let want = if cl == 0 && j == 0 { live(a) } else { dead };
                assert_eq!(got[pos], want, "cluster {cl} A {a} slot {j}");
            }
        }
    }
}

/// The seed's reduction over `R` into the dummy layout:
/// `vector_inter_slice_reduce(m![A / 8, 1 # 4], m![1], AddSat)`.
fn add_sat_over_r(ax: &Axes, t: VectorTensor) -> Result<VectorTensor, VectorError> {
    t.vector_inter_slice_reduce(
        &m!(ax; A / 8, 1 # 4).expect("m"),
        &m!(ax; 1).expect("m"),
        InterSliceReduceOpI32::AddSat,
    )
}

/// Seed 003 "Dummy Replacement" (i32 interface, AddSat): `m![A / 8, R] -> m![A / 8, 1 # 4]`.
#[test]
fn seed_dummy_replacement() {
    let (ax, input) = dummy_input(&big);
    let out = input
        .vector_init()
        .and_then(|t| add_sat_over_r(&ax, t))
        .and_then(|t| t.vector_final())
        .expect("reduce");
    let sums = |a| i64::from(sat_sum((0..4).map(|r| big(dummy_pos(0, a, r)))));
    // Some sums saturate with this data, so the test sees AddSat, not Add.
    assert!((0..512).any(|a| sums(a) == i64::from(i32::MAX) || sums(a) == i64::from(i32::MIN)));
    check_dummy(&out, sums, 0);
    assert_eq!(
        out.mapping(npusim_furiosa::tensor::Dim::Slice).to_string(),
        "(A / 8, 1 # 4)"
    );
}

/// Seed 003 "Inter-Slice Reduce with AddSat, Then Intra-Slice" (InterFirst).
#[test]
fn seed_reduce_then_add() {
    let (ax, input) = dummy_input(&big);
    let out = input
        .vector_init()
        .and_then(|t| add_sat_over_r(&ax, t))
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::AddFxp, 100))
        .and_then(|t| t.vector_final())
        .expect("pipeline");
    let live = |a| i64::from(sat_sum((0..4).map(|r| big(dummy_pos(0, a, r)))).wrapping_add(100));
    // Elementwise stages run on padding cells too: the dummy slots hold identity 0 + 100.
    check_dummy(&out, live, 100);
}

/// Seed 003 "Intra-Slice Then Inter-Slice Reduce with AddSat" (IntraFirst).
#[test]
fn seed_add_then_reduce() {
    let (ax, input) = dummy_input(&big);
    let t = input
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::AddFxp, 100))
        .and_then(|t| add_sat_over_r(&ax, t))
        .expect("pipeline");
    // The intra-slice chain cannot be re-entered after an IntraFirst reduction.
    let e = t
        .clone()
        .vector_intra_slice_branch(BranchMode::Unconditional)
        .expect_err("re-entry");
    assert!(e.to_string().contains("IntraFirst"), "{e}");
    let out = t.vector_final().expect("final");
    let live = |a| {
        i64::from(sat_sum(
            (0..4).map(|r| big(dummy_pos(0, a, r)).wrapping_add(100)),
        ))
    };
    check_dummy(&out, live, 0);
}

/// Seed 003 "Broadcast Into a New Slice Axis" (f32 interface, Add): `m![W, R] -> m![W, X]`.
#[test]
fn seed_broadcast_into_x() {
    let ax = axes![W = 64, R = 4, X = 4, P = 8].expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1 # 2"),
        mp(&ax, "W, R"),
        mp(&ax, "1"),
        mp(&ax, "P"),
    ];
    let data: Vec<f32> = (0..2 * 256 * 8).map(float).collect();
    let input = StreamTensor::collect_f32(dims, &data).expect("input");
    let out = input
        .vector_init()
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &m!(ax; W, X).expect("m"),
                &m!(ax; 1).expect("m"),
                InterSliceReduceOpF32::Add,
            )
        })
        .and_then(|t| t.vector_final())
        .expect("reduce");
    let codes = out.codes().to_u64();
    for w in 0..64 {
        for p in 0..8 {
            // (((0 + x0) + x1) + x2) + x3, r ascending.
            let want = (0..4).fold(0.0f32, |acc, r| acc + data[(w * 4 + r) * 8 + p]);
            for x in 0..4 {
                assert_eq!(
                    codes[(w * 4 + x) * 8 + p],
                    u64::from(want.to_bits()),
                    "W {w} X {x} P {p}"
                );
                // Cluster 1 is padding: identity +0.0.
                assert_eq!(codes[(256 + w * 4 + x) * 8 + p], 0);
            }
        }
    }
}

/// Seed 003 "Promotion from Time into SliceOut": T2 moves from the middle of Time.
#[test]
fn seed_axis_promotion() {
    let ax = axes![W = 32, R = 4, T0 = 2, T2 = 4, T1 = 2, P = 8].expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1 # 2"),
        mp(&ax, "W, R"),
        mp(&ax, "T0, T2, T1"),
        mp(&ax, "P"),
    ];
    let n = 2 * 128 * 16 * 8;
    let data: Vec<f32> = (0..n).map(float).collect();
    let input = StreamTensor::collect_f32(dims, &data).expect("input");
    let out = input
        .vector_init()
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &m!(ax; W, T2).expect("m"),
                &m!(ax; T0, T1).expect("m"),
                InterSliceReduceOpF32::Add,
            )
        })
        .and_then(|t| t.vector_final())
        .expect("reduce");
    let codes = out.codes().to_u64();
    assert_eq!(codes.len(), 2 * 128 * 4 * 8);
    let inp = |w: usize, r: usize, t0: usize, t2: usize, t1: usize, p: usize| {
        data[((w * 4 + r) * 16 + t0 * 8 + t2 * 2 + t1) * 8 + p]
    };
    for w in 0..32 {
        for t2 in 0..4 {
            for t0 in 0..2 {
                for t1 in 0..2 {
                    for p in 0..8 {
                        let want = (0..4).fold(0.0f32, |acc, r| acc + inp(w, r, t0, t2, t1, p));
                        let pos = ((w * 4 + t2) * 4 + t0 * 2 + t1) * 8 + p;
                        assert_eq!(codes[pos], u64::from(want.to_bits()));
                    }
                }
            }
        }
    }
}

/// i32 Max/Min and f32 Max/Min/Mul through the reducer (the two interfaces' other ops).
#[test]
fn other_ops_fold_in_slice_order() {
    let (ax, input) = dummy_input(&|i| big(i) / 1000);
    for (op, f) in [
        (InterSliceReduceOpI32::Max, i32::max as fn(i32, i32) -> i32),
        (InterSliceReduceOpI32::Min, i32::min),
        (InterSliceReduceOpI32::Add, i32::wrapping_add),
    ] {
        let out = input
            .clone()
            .vector_init()
            .and_then(|t| t.vector_inter_slice_reduce(&mp(&ax, "A / 8, 1 # 4"), &mp(&ax, "1"), op))
            .and_then(|t| t.vector_final())
            .expect("reduce");
        let init = match op {
            InterSliceReduceOpI32::Max => i32::MIN,
            InterSliceReduceOpI32::Min => i32::MAX,
            _ => 0,
        };
        let live =
            |a| i64::from((0..4).fold(init, |acc, r| f(acc, big(dummy_pos(0, a, r)) / 1000)));
        check_dummy(&out, live, i64::from(init));
    }
    // f32 Max ignores NaN; Mul starts from 1.0.
    let ax = axes![S = 4, P = 8].expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "S"),
        mp(&ax, "1"),
        mp(&ax, "P"),
    ];
    let mut data: Vec<f32> = (0..32).map(|i| i as f32 - 10.0).collect();
    data[3] = f32::NAN;
    let input = StreamTensor::collect_f32(dims, &data).expect("input");
    let run = |op| {
        input
            .clone()
            .vector_init()
            .and_then(|t| t.vector_inter_slice_reduce(&mp(&ax, "1 # 4"), &mp(&ax, "1"), op))
            .and_then(|t| t.vector_final())
            .expect("reduce")
            .codes()
            .to_u64()
    };
    let max = run(InterSliceReduceOpF32::Max);
    // Packet lane 3 holds [NaN, 1, 9, 17] over the four slices.
    assert_eq!(max[3], u64::from(17.0f32.to_bits()));
    assert_eq!(
        max[8],
        u64::from(f32::NEG_INFINITY.to_bits()),
        "dummy slot holds -inf"
    );
    let mul = run(InterSliceReduceOpF32::Mul);
    assert_eq!(mul[0], u64::from((-10.0f32 * -2.0 * 6.0 * 14.0).to_bits()));
    let min = run(InterSliceReduceOpF32::Min);
    assert_eq!(min[3], u64::from(1.0f32.to_bits()));
}

/// `vector_inter_slice_reduce` is accepted exactly from Init and the Way8 chain stages.
#[test]
fn reduce_allowed_states() {
    let allowed = [
        Stage::Init,
        Stage::Branch,
        Stage::Logic,
        Stage::Fxp,
        Stage::FxpToFp,
        Stage::Widen,
        Stage::FpToFxp,
        Stage::Clip,
    ];
    for s in Stage::ALL {
        let refusal = transition_refusal(s, Stage::InterSliceReduce);
        assert_eq!(refusal.is_none(), allowed.contains(&s), "{s}: {refusal:?}");
    }
    for s in [
        Stage::Narrow,
        Stage::Fp,
        Stage::IntraSliceReduce,
        Stage::FpDiv,
    ] {
        let msg = transition_refusal(s, Stage::InterSliceReduce).expect("refused");
        assert!(msg.contains("Way4"), "{msg}");
    }
}

/// Refusals through the real methods: Way4 stages, a second reduce, wrong dtype.
#[test]
fn reduce_refused_from_way4_stages() {
    let ax = axes![S = 4, P = 8, T = 2].expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "S"),
        mp(&ax, "T"),
        mp(&ax, "P"),
    ];
    let data: Vec<f32> = (0..64).map(|i| i as f32).collect();
    let input = StreamTensor::collect_f32(dims, &data).expect("input");
    let narrow = input
        .clone()
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_narrow_split(&mp(&ax, "T, P / 4"), &mp(&ax, "P % 4")))
        .expect("narrow");
    let try_reduce = |t: npusim_furiosa::VectorTensor| {
        t.vector_inter_slice_reduce(
            &mp(&ax, "1 # 4"),
            &mp(&ax, "T, P / 4"),
            InterSliceReduceOpF32::Add,
        )
    };
    let e = try_reduce(narrow.clone()).expect_err("narrow");
    assert!(e.to_string().contains("not from Narrow"), "{e}");
    let fp = narrow
        .clone()
        .vector_fp_binary(FpBinaryOp::MulF, 2.0)
        .expect("fp");
    assert!(
        try_reduce(fp.clone())
            .expect_err("fp")
            .to_string()
            .contains("not from Fp")
    );
    let div = fp.vector_fp_div(4.0).expect("div");
    assert!(
        try_reduce(div.clone())
            .expect_err("div")
            .to_string()
            .contains("not from FpDiv")
    );
    // Widen brings it back to Way8, and the reduce is accepted (values: x * 2 / 4).
    let widened = div
        .vector_widen_concat(&mp(&ax, "T"), &mp(&ax, "P"))
        .expect("widen");
    let out = widened
        .vector_inter_slice_reduce(&mp(&ax, "1 # 4"), &mp(&ax, "T"), InterSliceReduceOpF32::Add)
        .and_then(|t| t.vector_final())
        .expect("reduce after widen");
    for t in 0..2 {
        for p in 0..8 {
            let want = (0..4).fold(0.0f32, |acc, s| acc + data[(s * 2 + t) * 8 + p] * 2.0 / 4.0);
            assert_eq!(
                out.codes().get(t * 8 + p).unwrap_or(u64::MAX),
                u64::from(want.to_bits())
            );
        }
    }
    // Way4 cannot end the chain, and a wrong-typed op is refused.
    assert!(narrow.vector_final().is_err());
    let e = input
        .vector_init()
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &mp(&ax, "1 # 4"),
                &mp(&ax, "T"),
                InterSliceReduceOpI32::Add,
            )
        })
        .expect_err("i32 op on f32");
    assert!(matches!(e, VectorError::DType { .. }), "{e}");
    assert!(
        e.to_string().contains("needs i32 data") && e.to_string().contains("m![S], m![T], m![P]"),
        "{e}"
    );
}

#[test]
fn second_reduce_and_alu_reuse_are_refused() {
    let (ax, input) = dummy_input(&big);
    let once = input
        .clone()
        .vector_init()
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &mp(&ax, "A / 8, 1 # 4"),
                &mp(&ax, "1"),
                InterSliceReduceOpI32::Add,
            )
        })
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::AddFxp, 1))
        .expect("path 4");
    let e = once
        .clone()
        .vector_inter_slice_reduce(
            &mp(&ax, "A / 8, 1 # 4"),
            &mp(&ax, "1"),
            InterSliceReduceOpI32::Add,
        )
        .expect_err("twice");
    assert!(e.to_string().contains("at most once"), "{e}");
    // G37: AddFxp, MulInt, SubFxp -> FxpAdd twice.
    let e = input
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::AddFxp, 10))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::MulInt, 2))
        .and_then(|t| t.vector_fxp(FxpBinaryOp::SubFxp, 5))
        .expect_err("alu");
    assert_eq!(
        e.to_string(),
        "FxpAdd is already in use (rule: each Vector Engine ALU is used at most once per invocation)"
    );
}

#[test]
fn output_mappings_outside_the_rules_are_refused() {
    let ax = axes![R = 4, A = 512, X = 4, Y = 2].expect("axes");
    let (_, input) = dummy_input(&big);
    let reduce = |slice: &str, time: &str| {
        input.clone().vector_init().and_then(|t| {
            t.vector_inter_slice_reduce(&mp(&ax, slice), &mp(&ax, time), InterSliceReduceOpI32::Add)
        })
    };
    let cases = [
        ("A / 8, R", "1", "no slice axis is reduced"),
        ("A / 8, 1 # 2", "1", "r = 4"),
        (
            "A / 16, 1 # 8",
            "1",
            "must begin with the surviving slice factors",
        ),
        ("A / 8, A % 4", "1", "fits none of the output rules"),
        ("A / 8, 1 # 4", "Y", "new in OutTime"),
    ];
    for (slice, time, needle) in cases {
        let e = reduce(slice, time).expect_err(slice);
        let text = e.to_string();
        assert!(text.contains(needle), "{slice}: {text}");
        assert!(text.contains("Slice = m![A / 8, R]"), "{text}");
    }
    // Mixtures are fine: a dummy and a fresh broadcast axis together.
    let out = reduce("A / 8, 1 # 2, Y", "1").expect("dummy + broadcast");
    assert_eq!(out.tensor().codes().len(), 2 * 256 * 8);
    // The reduced factor must be innermost.
    let ax2 = axes![R = 4, A = 512].expect("axes");
    let dims = [
        mp(&ax2, "1"),
        mp(&ax2, "1"),
        mp(&ax2, "R, A / 8"),
        mp(&ax2, "1"),
        mp(&ax2, "A % 8"),
    ];
    let t = StreamTensor::collect_i32(dims, &[0; 2048]).expect("input");
    let e = t
        .vector_init()
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &mp(&ax2, "1 # 4, A / 8"),
                &mp(&ax2, "1"),
                InterSliceReduceOpI32::Add,
            )
        })
        .expect_err("outer R");
    assert!(e.to_string().contains("innermost"), "{e}");
}

/// `vector_init` takes only i32/f32 Collect or Contract streams; the refusal shows the stream's
/// mappings.
#[test]
fn vector_init_refuses_other_streams() {
    let ax = axes![A = 8].expect("axes");
    let dims = || {
        [
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, "A"),
        ]
    };
    let cast = StreamTensor::collect_i32(dims(), &[1; 8])
        .expect("input")
        .cast::<i8>(&mp(&ax, "A # 32"))
        .expect("cast");
    // A packet of 4 x i32 (16 bytes) is not one flit.
    let ax4 = axes![C = 4].expect("axes");
    let short = StreamTensor::collect_i32(
        [
            mp(&ax4, "1"),
            mp(&ax4, "1"),
            mp(&ax4, "1"),
            mp(&ax4, "1"),
            mp(&ax4, "C"),
        ],
        &[1; 4],
    )
    .expect("input");
    let e = short.vector_init().expect_err("16 bytes");
    assert!(
        matches!(e, VectorError::NotOneFlit { elements: 4, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("m![C] has 4 elements"), "{e}");
    let e = cast.vector_init().expect_err("CastTensor");
    assert!(matches!(e, VectorError::Input { .. }), "{e}");
    assert!(
        e.to_string().contains(
            "not a CastTensor of i8: CastTensor<i8, m![1], m![1], m![1], m![1], m![A # 32]>"
        ),
        "{e}"
    );
}

/// `Slice = m![R]` (R = 2), `Time = m![time]`, `Packet = m![8]`: no axis in Packet, so every
/// lane holds the same logical element (a broadcast); reduced with `Add` into `1 # 2`.
fn broadcast_lanes(time: &str, values: &[i32]) -> StreamTensor {
    let ax = axes![R = 2].expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "R"),
        mp(&ax, time),
        mp(&ax, "8"),
    ];
    StreamTensor::collect_i32(dims, values)
        .expect("input")
        .vector_init()
        .and_then(|t| {
            t.vector_inter_slice_reduce(
                &mp(&ax, "1 # 2"),
                &mp(&ax, time),
                InterSliceReduceOpI32::Add,
            )
        })
        .and_then(|t| t.vector_final())
        .unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn broadcast_lanes_are_reduced_per_lane_not_per_copy() {
    // The hardware reduces each lane across the R = 2 slices: all ones give 2 per lane, in
    // every broadcast lane and every broadcast time step (never 2 × 8 = 16 or 2 × 2 × 8).
    for (time, steps) in [("1", 1), ("2", 2)] {
        let out = broadcast_lanes(time, &vec![1; 2 * steps * 8]);
        let codes: Vec<i32> = out.codes().iter().map(|c| c as u32 as i32).collect();
        let lanes = steps * 8;
        assert_eq!(
            &codes[..lanes],
            &vec![2; lanes][..],
            "time = {time}: the live slice"
        );
        assert_eq!(
            &codes[lanes..],
            &vec![0; lanes][..],
            "time = {time}: the dummy slice"
        );
    }
    // Different values in the copies (a ramp): lane p sums lane p of both slices.
    let ramp: Vec<i32> = (0..16).collect();
    let out = broadcast_lanes("1", &ramp);
    let codes: Vec<i32> = out.codes().iter().map(|c| c as u32 as i32).collect();
    let want: Vec<i32> = (0..8).map(|p| p + (8 + p)).collect();
    assert_eq!(&codes[..8], &want[..]);
}

#[test]
fn signed_zeros_in_max_and_min_do_not_depend_on_the_order() {
    // The seed is silent; npusim orders −0 < +0 (IEEE 754-2019 maximumNumber /
    // minimumNumber): Max of {−0, +0} is +0 and Min is −0, whichever slice holds which.
    let ax = axes![R = 2, P = 8].expect("axes");
    let dims = || {
        [
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, "R"),
            mp(&ax, "1"),
            mp(&ax, "P"),
        ]
    };
    for (first, second) in [(-0.0f32, 0.0f32), (0.0, -0.0)] {
        let data: Vec<f32> = [vec![first; 8], vec![second; 8]].concat();
        for (op, want) in [
            (InterSliceReduceOpF32::Max, 0.0f32),
            (InterSliceReduceOpF32::Min, -0.0),
        ] {
            let out = StreamTensor::collect_f32(dims(), &data)
                .expect("input")
                .vector_init()
                .and_then(|t| t.vector_inter_slice_reduce(&mp(&ax, "1 # 2"), &mp(&ax, "1"), op))
                .and_then(|t| t.vector_final())
                .unwrap_or_else(|e| panic!("{e}"));
            for c in out.codes().iter().take(8) {
                assert_eq!(
                    c as u32,
                    want.to_bits(),
                    "{op:?} of [{first:?}, {second:?}]"
                );
            }
        }
    }
}
