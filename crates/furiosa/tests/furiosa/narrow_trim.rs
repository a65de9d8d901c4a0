//! `vector_narrow_trim` (`docs/furiosa-engines.md` §9.2–§9.4): N1 (its four checks in the
//! verifier's order and the stage order) and N2 (the intra-slice page's reductions after a
//! trim, and the accumulator limit). Expected values are worked by hand in each comment.

use npusim_furiosa::mapping::Axes;
use npusim_furiosa::{
    BranchMode, FpBinaryOp, IntraSliceReduceOpF32, IntraSliceReduceOpI32, Mapping, StreamTensor,
    VectorError, VectorTensor,
};

fn mp(axes: &Axes, text: &str) -> Mapping {
    Mapping::parse(text, axes).unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// `vector_init → vector_intra_slice_branch` of an i32 Collect stream of one slice.
fn entered(ax: &Axes, time: &str, packet: &str, values: &[i32]) -> VectorTensor {
    let dims = [
        mp(ax, "1"),
        mp(ax, "1"),
        mp(ax, "1"),
        mp(ax, time),
        mp(ax, packet),
    ];
    StreamTensor::collect_i32(dims, values)
        .expect("input")
        .vector_init()
        .and_then(|v| v.vector_intra_slice_branch(BranchMode::Unconditional))
        .expect("entry")
}

#[test]
fn n1_trim_keeps_the_front_half_when_the_back_is_padding() {
    let ax = Axes::parse("R=8, A=8").expect("axes");
    let values: Vec<i32> = (0..16).collect();
    let v = entered(&ax, "R / 4", "R % 4 # 8", &values)
        .vector_narrow_trim(&mp(&ax, "R % 4"))
        .expect("trim");
    assert_eq!(v.tensor().packet().m_notation(), "R % 4");
    assert_eq!(v.tensor().time().m_notation(), "R / 4", "Time unchanged");
    // Lanes 0..3 of each packet are kept: positions 0..3 and 8..11 of the input.
    assert_eq!(v.tensor().ints(), [0, 1, 2, 3, 8, 9, 10, 11]);
}

#[test]
fn n1_refusals_in_the_verifiers_order() {
    let ax = Axes::parse("R=8, A=8").expect("axes");
    let values = [0; 16];
    let e = entered(&ax, "R / 4", "A % 8", &values)
        .vector_narrow_trim(&mp(&ax, "A % 4"))
        .unwrap_err();
    assert!(matches!(e, VectorError::TrimBackNotDummy { .. }), "{e}");
    assert!(e.to_string().contains("holds live lanes"), "{e}");
    assert!(e.to_string().contains("vector_narrow_split"), "{e}");
    let e = entered(&ax, "R / 4", "R % 4 # 8", &values)
        .vector_narrow_trim(&mp(&ax, "R % 4 # 8"))
        .unwrap_err();
    assert!(
        matches!(e, VectorError::TrimOutputSize { size: 8, .. }),
        "{e}"
    );
    let e = entered(&ax, "R / 4", "R % 4 # 8", &values)
        .vector_narrow_trim(&mp(&ax, "R / 2 % 4"))
        .unwrap_err();
    match &e {
        VectorError::TrimPacketMismatch { expected, got } => {
            assert_eq!((expected.as_str(), got.as_str()), ("R % 4", "R / 2 % 4"));
        }
        other => panic!("{other}"),
    }
    // A 4-element packet (already narrowed) needs no trim.
    let e = entered(&ax, "R / 4", "A % 8", &values)
        .vector_narrow_split(&mp(&ax, "R / 4, A % 8 / 4"), &mp(&ax, "A % 4"))
        .expect("split")
        .vector_narrow_trim(&mp(&ax, "A % 4"))
        .unwrap_err();
    assert!(
        matches!(e, VectorError::TrimInputSize { size: 4, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("needs no trim"), "{e}");
}

/// After `vector_fp_binary` (stage 6) the stream cannot go back to Narrow (stage 5).
#[test]
fn n1_trim_after_fp_is_refused_by_the_stage_order() {
    let ax = Axes::parse("R=8, A=8").expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "R / 4"),
        mp(&ax, "A % 8"),
    ];
    let e = StreamTensor::collect_f32(dims, &[0.0; 16])
        .expect("input")
        .vector_init()
        .and_then(|v| v.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|v| v.vector_narrow_split(&mp(&ax, "R / 4, A % 8 / 4"), &mp(&ax, "A % 4")))
        .and_then(|v| v.vector_fp_binary(FpBinaryOp::AddF, 1.0))
        .expect("chain")
        .vector_narrow_trim(&mp(&ax, "A % 4"))
        .unwrap_err();
    assert!(matches!(e, VectorError::Transition(_)), "{e}");
}

/// N2 `reduce_time`: Time `R` (16), Packet `A # 8` (A = 2) trimmed to `A # 4`, AddSat per
/// lane: x[r, a] = r + 10a sums to 120 + 160a (lane 0: 120, lane 1: 280).
#[test]
fn n2_reduce_time_after_trim() {
    let ax = Axes::parse("R=16, A=2").expect("axes");
    let values: Vec<i32> = (0..16 * 8)
        .map(|p| {
            let (r, lane) = (p / 8, p % 8);
            if lane < 2 { r + 10 * lane } else { -1000 }
        })
        .collect();
    let v = entered(&ax, "R", "A % 2 # 8", &values)
        .vector_narrow_trim(&mp(&ax, "A % 2 # 4"))
        .and_then(|v| {
            v.vector_intra_slice_reduce(
                "R",
                &mp(&ax, "1"),
                &mp(&ax, "A % 2 # 4"),
                IntraSliceReduceOpI32::AddSat,
            )
        })
        .expect("reduce");
    assert_eq!(v.tensor().ints()[..2], [120, 280]);
}

/// N2 `reduce_packet` (`R # 8` → `R`, f32 Add into `1 # 4`) and `reduce_time_packet`
/// (`R / 4` in Time, `R % 4 # 8` → `R % 4`, f32 Max into `1 # 4`).
#[test]
fn n2_reduce_packet_and_time_packet_after_trim() {
    let ax = Axes::parse("R=4").expect("axes");
    let dims = |time: &str, packet: &str| {
        [
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, "1"),
            mp(&ax, time),
            mp(&ax, packet),
        ]
    };
    // 1.5 + 2.5 + 3.5 + 4.5 = 12; the padding lanes (100) are not read.
    let v = StreamTensor::collect_f32(
        dims("1", "R # 8"),
        &[1.5, 2.5, 3.5, 4.5, 100.0, 100.0, 100.0, 100.0],
    )
    .expect("input")
    .vector_init()
    .and_then(|v| v.vector_intra_slice_branch(BranchMode::Unconditional))
    .and_then(|v| v.vector_narrow_trim(&mp(&ax, "R")))
    .and_then(|v| {
        v.vector_intra_slice_reduce(
            "R",
            &mp(&ax, "1"),
            &mp(&ax, "1 # 4"),
            IntraSliceReduceOpF32::Add,
        )
    })
    .expect("reduce_packet");
    assert_eq!(v.tensor().values()[0], 12.0);

    let ax = Axes::parse("R=16").expect("axes");
    let dims = [
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "1"),
        mp(&ax, "R / 4"),
        mp(&ax, "R % 4 # 8"),
    ];
    // x[r] = (r − 9)², largest at r = 0: 81.
    let values: Vec<f32> = (0..4 * 8)
        .map(|p| {
            let (t, lane) = (p / 8, p % 8);
            if lane < 4 {
                let r = (4 * t + lane) as f32;
                (r - 9.0) * (r - 9.0)
            } else {
                1e9
            }
        })
        .collect();
    let v = StreamTensor::collect_f32(dims, &values)
        .expect("input")
        .vector_init()
        .and_then(|v| v.vector_intra_slice_branch(BranchMode::Unconditional))
        .and_then(|v| v.vector_narrow_trim(&mp(&ax, "R % 4")))
        .and_then(|v| {
            v.vector_intra_slice_reduce(
                "R",
                &mp(&ax, "1"),
                &mp(&ax, "1 # 4"),
                IntraSliceReduceOpF32::Max,
            )
        })
        .expect("reduce_time_packet");
    assert_eq!(v.tensor().values()[0], 81.0);
}

/// N2's 12-slot example: Time `R, A % 3, B % 4` keeps 12 time positions inside the reduced
/// `R`, more than the accumulator's 8 slots.
#[test]
fn n2_twelve_slots_are_refused() {
    let ax = Axes::parse("R=2, A=3, B=4, C=4").expect("axes");
    let e = entered(&ax, "R, A % 3, B % 4", "C # 8", &[0; 2 * 12 * 8])
        .vector_narrow_trim(&mp(&ax, "C"))
        .expect("trim")
        .vector_intra_slice_reduce(
            "R",
            &mp(&ax, "A % 3, B % 4"),
            &mp(&ax, "C"),
            IntraSliceReduceOpI32::AddSat,
        )
        .unwrap_err();
    let text = e.to_string();
    assert!(text.contains("have 12 positions"), "{text}");
    assert!(text.contains("8 slots"), "{text}");
}
