//! The intra-slice reducer (spec §3.6.6) through the real chain: narrow, reduce, widen; golden
//! G39 lane by lane, padding skipped, the `1 # 4` lane reduction, the contract's refusals and
//! the inter-slice reducer refused after it (Way4).

use npusim_furiosa::engine::vector::stage::Stage;
use npusim_furiosa::mapping::Axes;
use npusim_furiosa::{
    BranchMode, InterSliceReduceOpI32, IntraSliceReduceOpF32, IntraSliceReduceOpI32, Mapping,
    StreamTensor, VectorError, VectorTensor, axes,
};

fn mp(axes: &Axes, text: &str) -> Mapping {
    Mapping::parse(text, axes).unwrap_or_else(|e| panic!("{e}"))
}

fn dims(ax: &Axes, time: &str, packet: &str) -> [Mapping; 5] {
    [
        mp(ax, "1"),
        mp(ax, "1"),
        mp(ax, "1"),
        mp(ax, time),
        mp(ax, packet),
    ]
}

/// `vector_init → branch → narrow_split` of a stream with `Time = m![time]`,
/// `Packet = m![G, L]` (G = 2, L = 4): Way4 with Time `(time, G)` and Packet `L`.
fn narrowed(ax: &Axes, time: &str, input: StreamTensor) -> VectorTensor {
    input
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_narrow_split(&mp(ax, &format!("{time}, G")), &mp(ax, "L")))
        .expect("narrow")
}

const I32_PAD: i32 = -5;

/// G39 i32: one test vector per lane (8 lanes = G × L), reduced over Time `R # 4` (R = 3 or
/// 4), the padding time step holding `I32_PAD`, which a correct fold never reads.
fn g39_i32(r: usize, op: IntraSliceReduceOpI32, vectors: &[&[i32]], want: &[i32]) -> Vec<i32> {
    let ax = axes![R = r, G = 2, L = 4].expect("axes");
    // physical position (t, g, l) = t * 8 + g * 4 + l; time steps t >= r are padding
    let data: Vec<i32> = (0..4 * 8)
        .map(|p| {
            let (t, lane) = (p / 8, p % 8);
            vectors
                .get(lane)
                .and_then(|v| v.get(t))
                .copied()
                .unwrap_or(if t >= r { I32_PAD } else { 0 })
        })
        .collect();
    let input = StreamTensor::collect_i32(dims(&ax, "R # 4", "G, L"), &data).expect("input");
    let v = narrowed(&ax, "R # 4", input)
        .vector_intra_slice_reduce("R", &mp(&ax, "G"), &mp(&ax, "L"), op)
        .expect("reduce");
    assert_eq!(v.stage(), Stage::IntraSliceReduce);
    let out = v
        .vector_widen_concat(&mp(&ax, "1"), &mp(&ax, "G, L"))
        .and_then(|t| t.vector_final())
        .expect("widen and final");
    let got: Vec<i32> = out.ints().iter().map(|&x| x as i32).collect();
    for (lane, w) in want.iter().enumerate() {
        assert_eq!(got[lane], *w, "{op:?} lane {lane}: {:?}", vectors.get(lane));
    }
    got
}

#[test]
fn g39_i32_addsat_in_source_order() {
    let (max, min) = (i32::MAX, i32::MIN);
    g39_i32(
        4,
        IntraSliceReduceOpI32::AddSat,
        &[
            &[max, 1, -1, 5],
            &[max, 1, -1, 0],
            &[max, -1, 1, 0],
            &[min, -1, 0, 0],
        ],
        &[max, max - 1, max, min],
    );
    // Three live time steps: the fourth is padding and is skipped.
    g39_i32(
        3,
        IntraSliceReduceOpI32::AddSat,
        &[&[max, 1, -1], &[max, -1, 1], &[1, 2, 3]],
        &[max - 1, max, 6],
    );
    g39_i32(4, IntraSliceReduceOpI32::Max, &[&[3, -7, 9, 0]], &[9]);
    g39_i32(4, IntraSliceReduceOpI32::Min, &[&[3, -7, 9, 0]], &[-7]);
    // Lanes whose inputs are all 0 reduce to 0 under AddSat; Max of [0; 3] with the pad -5
    // skipped stays 0 (reading the pad would not change Max, but it would change AddSat).
    let got = g39_i32(3, IntraSliceReduceOpI32::AddSat, &[], &[]);
    assert!(got[..8].iter().all(|&x| x == 0), "{got:?}");
}

#[test]
fn g39_f32_add_max_min() {
    let ax = axes![R = 4, G = 2, L = 4].expect("axes");
    let nan = f32::NAN;
    let lanes: [[f32; 4]; 4] = [
        [-0.0, -0.0, -0.0, -0.0],
        [nan, 1.0, nan, -2.0],
        [nan, nan, nan, nan],
        [1e8, 1.0, -1e8, 1.0],
    ];
    let data: Vec<f32> = (0..32)
        .map(|p| lanes.get(p % 8).map_or(0.0, |v| v[p / 8]))
        .collect();
    let run = |op: IntraSliceReduceOpF32| -> Vec<u32> {
        let input = StreamTensor::collect_f32(dims(&ax, "R", "G, L"), &data).expect("input");
        let out = narrowed(&ax, "R", input)
            .vector_intra_slice_reduce("R", &mp(&ax, "G"), &mp(&ax, "L"), op)
            .and_then(|t| t.vector_widen_concat(&mp(&ax, "1"), &mp(&ax, "G, L")))
            .and_then(|t| t.vector_final())
            .expect("chain");
        out.codes().iter().map(|c| c as u32).collect()
    };
    let add = run(IntraSliceReduceOpF32::Add);
    assert_eq!(add[0], 0.0f32.to_bits(), "-0 + -0 from +0 is +0");
    // (((0 + 1e8) + 1) - 1e8) + 1 = 1: the 1 added to 1e8 is lost in source order.
    assert_eq!(f32::from_bits(add[3]), 1.0);
    let max = run(IntraSliceReduceOpF32::Max);
    assert_eq!(f32::from_bits(max[1]), 1.0);
    assert_eq!(f32::from_bits(max[2]), f32::NEG_INFINITY);
    let min = run(IntraSliceReduceOpF32::Min);
    assert_eq!(f32::from_bits(min[1]), -2.0);
    assert_eq!(f32::from_bits(min[2]), f32::INFINITY);
}

/// `OutPacket = m![1 # 4]`: the four lanes (and R's time digits) fold into lane 0; the other
/// lanes hold the identity; `widen_pad` brings the packet back to one flit.
#[test]
fn lane_reduction_into_lane_zero() {
    // R = 16 split over Time (R / 4) and the packet lanes (R % 4); G = 2 kept.
    let ax = axes![T = 2, R = 16, G = 2].expect("axes");
    let value = |t: usize, r: usize, g: usize| (t * 1000 + r * 10 + g) as i32 - 300;
    let mut data = vec![0i32; 2 * 4 * 8];
    for t in 0..2 {
        for rt in 0..4 {
            for g in 0..2 {
                for rl in 0..4 {
                    data[(t * 4 + rt) * 8 + g * 4 + rl] = value(t, rt * 4 + rl, g);
                }
            }
        }
    }
    let input = StreamTensor::collect_i32(
        [
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, "T, R / 4"),
            mp(&ax, "G, R % 4"),
        ],
        &data,
    )
    .expect("input");
    let out = input
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_narrow_split(&mp(&ax, "T, R / 4, G"), &mp(&ax, "R % 4")))
        .and_then(|t| {
            t.vector_intra_slice_reduce(
                "R",
                &mp(&ax, "T, G"),
                &mp(&ax, "1 # 4"),
                IntraSliceReduceOpI32::Max,
            )
        })
        .and_then(|t| t.vector_widen_pad(&mp(&ax, "1 # 8")))
        .and_then(|t| t.vector_final())
        .expect("chain");
    assert_eq!(out.packet().size(), 8);
    let got = out.ints();
    for t in 0..2 {
        for g in 0..2 {
            let flit = &got[(t * 2 + g) * 8..(t * 2 + g + 1) * 8];
            let want = (0..16).map(|r| value(t, r, g)).max().expect("16 values");
            assert_eq!(flit[0], i64::from(want), "T {t} G {g}");
            assert!(
                flit[1..4].iter().all(|&x| x == i64::from(i32::MIN)),
                "{flit:?}"
            );
            assert!(flit[4..].iter().all(|&x| x == 0), "{flit:?}");
        }
    }
}

fn refusal(time: &str, out_time: &str, out_packet: &str) -> String {
    let ax = axes![R = 4, G = 2, L = 4, A = 2, T = 16].expect("axes");
    let n = mp(&ax, time).size() * 8;
    let input = StreamTensor::collect_i32(dims(&ax, time, "G, L"), &vec![1; n]).expect("input");
    let e = narrowed(&ax, time, input)
        .vector_intra_slice_reduce(
            "R",
            &mp(&ax, out_time),
            &mp(&ax, out_packet),
            IntraSliceReduceOpI32::AddSat,
        )
        .expect_err("refused");
    assert!(matches!(e, VectorError::IntraSlice(_)), "{e}");
    e.to_string()
}

#[test]
fn the_contract_is_checked() {
    // OutTime keeps R.
    let e = refusal("R", "R, G", "L");
    assert!(
        e.contains("OutTime must be Time without its `R` factors"),
        "{e}"
    );
    assert!(e.contains("m![G]"), "{e}");
    // A factor mixing R with another axis.
    let e = refusal("[R, A] / 2", "G", "L");
    assert!(e.contains("mixes `R` with other axes"), "{e}");
    // OutPacket neither Packet nor 1 # 4.
    let e = refusal("R", "G", "L = 2 # 4");
    assert!(e.contains("OutPacket must be Packet"), "{e}");
    // 1 # 4 would drop the lanes L, which are not R.
    let e = refusal("R", "G", "1 # 4");
    assert!(e.contains("drops the packet factor `L`"), "{e}");
    // The accumulator: 16 kept time steps inside the reduced factor.
    let e = refusal("R, T", "T, G", "L");
    assert!(e.contains("8 slots"), "{e}");
    assert!(e.contains("m![T, G]"), "{e}");
    // An axis that is not there.
    let ax = axes![R = 4, G = 2, L = 4, S = 2].expect("axes");
    let input = StreamTensor::collect_i32(
        [
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, "S"),
            mp(&ax, "R"),
            mp(&ax, "G, L"),
        ],
        &[0; 64],
    )
    .expect("input");
    let e = narrowed(&ax, "R", input.clone())
        .vector_intra_slice_reduce(
            "S",
            &mp(&ax, "R, G"),
            &mp(&ax, "L"),
            IntraSliceReduceOpI32::Max,
        )
        .expect_err("spatial axis");
    assert!(
        e.to_string()
            .contains("`S` is only in Slice = m![S]: nothing to reduce within a slice"),
        "{e}"
    );
}

/// The reducer is a Way4 stage: it needs a narrowed stream, and the inter-slice reducer and
/// `vector_final` are refused after it until the stream is widened.
#[test]
fn way4_rules_around_the_reducer() {
    let ax = axes![R = 4, G = 2, L = 4].expect("axes");
    let input = StreamTensor::collect_i32(dims(&ax, "R", "G, L"), &[1; 32]).expect("input");
    let e = input
        .clone()
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| {
            t.vector_intra_slice_reduce(
                "R",
                &mp(&ax, "1"),
                &mp(&ax, "G, L"),
                IntraSliceReduceOpI32::AddSat,
            )
        })
        .expect_err("Way8 input");
    assert!(e.to_string().contains("Way4"), "{e}");
    let reduced = narrowed(&ax, "R", input)
        .vector_intra_slice_reduce(
            "R",
            &mp(&ax, "G"),
            &mp(&ax, "L"),
            IntraSliceReduceOpI32::AddSat,
        )
        .expect("reduce");
    let e = reduced
        .clone()
        .vector_inter_slice_reduce(&mp(&ax, "1"), &mp(&ax, "G"), InterSliceReduceOpI32::Add)
        .expect_err("inter after intra-slice reduce");
    assert!(e.to_string().contains("not from IntraSliceReduce"), "{e}");
    assert!(reduced.clone().vector_final().is_err());
    let e = reduced
        .vector_widen_pad(&mp(&ax, "L # 4"))
        .expect_err("widen_pad to 4");
    assert!(e.to_string().contains("Packet2 = Packet # 8"), "{e}");
}

/// `input` (`Time = m![R]`, `Packet = m![G, 4]`) through the whole chain: narrowed to
/// Packet `4`, R reduced per lane with `AddSat`, widened back to `G, 4`; the output's codes.
fn reduce_r_of_broadcast_lanes(ax: &Axes, input: StreamTensor) -> Vec<i32> {
    let out = input
        .vector_init()
        .and_then(|t| t.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|t| t.vector_narrow_split(&mp(ax, "R, G"), &mp(ax, "4")))
        .and_then(|t| {
            t.vector_intra_slice_reduce(
                "R",
                &mp(ax, "G"),
                &mp(ax, "4"),
                IntraSliceReduceOpI32::AddSat,
            )
        })
        .and_then(|t| t.vector_widen_concat(&mp(ax, "1"), &mp(ax, "G, 4")))
        .and_then(|t| t.vector_final())
        .unwrap_or_else(|e| panic!("{e}"));
    out.codes().iter().map(|c| c as u32 as i32).collect()
}

#[test]
fn broadcast_lanes_are_reduced_per_lane_not_per_copy() {
    // `Packet = m![G, 4]`: the four lanes of each G hold the same logical element. Reducing R
    // (4 time steps of ones) gives 4 in every lane, not 4 × 4 copies = 16.
    let ax = axes![R = 4, G = 2].expect("axes");
    let input = StreamTensor::collect_i32(dims(&ax, "R", "G, 4"), &[1; 4 * 8]).expect("input");
    let codes = reduce_r_of_broadcast_lanes(&ax, input);
    assert_eq!(codes, vec![4; 8]);
    // A broadcast slice (`Slice = m![2]`): each slice reduces its own copy.
    let dims2 = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "2"),
        mp(&ax, "R"),
        mp(&ax, "G, 4"),
    ];
    let ramp: Vec<i32> = (0..2 * 4 * 8).collect();
    let input = StreamTensor::collect_i32(dims2, &ramp).expect("input");
    let codes = reduce_r_of_broadcast_lanes(&ax, input);
    // slice s, lane l (0..8): sum over t of s·32 + t·8 + l.
    let want: Vec<i32> = (0..2)
        .flat_map(|s| (0..8).map(move |l| (0..4).map(|t| s * 32 + t * 8 + l).sum::<i32>()))
        .collect();
    assert_eq!(codes, want);
}
