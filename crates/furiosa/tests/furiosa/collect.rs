//! The Collect Engine (`docs/furiosa-engines.md` §6.3): C1–C8 and the three negatives.

use npusim_furiosa::engine::collect::{CollectError, collect_cycles};
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::{DType, Position, StreamTensor};

/// A fetched stream of `dtype` with Time `time`, Packet `packet` and codes `i mod 2^bits`.
fn fetched(axes: &str, dtype: DType, time: &str, packet: &str) -> (Axes, StreamTensor) {
    let ax = Axes::parse(axes).expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).unwrap_or_else(|e| panic!("{s}: {e}"));
    let dims = [p("1"), p("1"), p("1"), p(time), p(packet)];
    let n = p(time).size() * p(packet).size();
    let mask = (1u64 << dtype.bits().min(32)) - 1;
    let data = (0..n as u64).map(|i| i & mask).collect();
    let s = StreamTensor::from_dims(dtype, Position::Fetch, dims, data).expect("stream");
    (ax, s)
}

fn collect(axes: &str, dtype: DType, io: [&str; 4]) -> Result<StreamTensor, CollectError> {
    let (ax, s) = fetched(axes, dtype, io[0], io[1]);
    let p = |s: &str| Mapping::parse(s, &ax).unwrap_or_else(|e| panic!("{s}: {e}"));
    s.collect(&p(io[2]), &p(io[3]))
}

#[test]
fn c1_to_c8_are_accepted_with_their_flit_counts() {
    let cases: [(&str, DType, [&str; 4], usize); 8] = [
        ("A=8, B=32", DType::I8, ["A", "B", "A", "B # 32"], 8),
        ("A=8, B=16", DType::I8, ["A", "B", "A", "B # 32"], 8),
        (
            "A=8, B=32",
            DType::BF16,
            ["A", "B", "A, B / 16", "B % 16"],
            16,
        ),
        (
            "A=8, B=56",
            DType::I8,
            ["A", "B", "A, B # 64 / 32", "B # 64 % 32"],
            16,
        ),
        (
            "B=64, C=32",
            DType::F32,
            ["B", "C", "B, C / 8", "C % 8"],
            256,
        ),
        (
            "A=3, B=5, C=2",
            DType::F8E4M3,
            ["A, B", "C # 8", "A, B", "C # 32"],
            15,
        ),
        (
            "A=16, B=8",
            DType::I32,
            ["A / 8 % 2", "A % 8, B", "A / 8 % 2, A % 8", "B"],
            16,
        ),
        (
            "N=4, C=3, H=4, W=16",
            DType::I4,
            ["N", "C, H, W", "N, C", "H, W"],
            12,
        ),
    ];
    for (axes, dtype, io, cycles) in cases {
        let out = collect(axes, dtype, io).unwrap_or_else(|e| panic!("{io:?}: {e}"));
        assert_eq!(out.position(), Position::Collect);
        assert_eq!(out.packet().size() * dtype.bits(), 256, "{io:?}");
        assert_eq!(collect_cycles(&out), cycles, "{io:?}");
    }
}

/// §6.2 "the 51/56 discrepancy": B = 51 is valid too; by the 8-byte rule that Collect checks
/// first (§6.2, "alignment") its fetched packet is `B # 56`, and the nested paddings collapse.
#[test]
fn c4_with_b_51_is_accepted_too() {
    let io = ["A", "B # 56", "A, B # 64 / 32", "B # 64 % 32"];
    collect("A=8, B=51", DType::I8, io).expect("51");
    let io = ["A", "B", "A, B # 64 / 32", "B # 64 % 32"];
    let e = collect("A=8, B=51", DType::I8, io).unwrap_err();
    assert!(matches!(e, CollectError::Fetch(_)), "{e}");
}

#[test]
fn c4_data_second_flit_holds_32_to_55_then_zeros() {
    let ax = Axes::parse("A=8, B=56").expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).expect("m");
    let dims = [p("1"), p("1"), p("1"), p("A"), p("B")];
    let data = (0..8 * 56).map(|i| (i % 56) as u64).collect();
    let s = StreamTensor::from_dims(DType::I8, Position::Fetch, dims, data).expect("stream");
    let out = s
        .collect(&p("A, B # 64 / 32"), &p("B # 64 % 32"))
        .expect("collect");
    let codes = out.codes().to_u64();
    for a in 0..8 {
        let second = &codes[(2 * a + 1) * 32..(2 * a + 2) * 32];
        let want: Vec<u64> = (32..56).chain([0; 8]).collect();
        assert_eq!(second, want.as_slice(), "a = {a}");
        let first: Vec<u64> = (0..32).collect();
        assert_eq!(&codes[2 * a * 32..(2 * a + 1) * 32], first.as_slice());
    }
}

#[test]
fn the_three_negatives() {
    let e = collect("A=8, B=32", DType::BF16, ["A", "B", "A", "B % 16"]).unwrap_err();
    match e {
        CollectError::TimeMismatch { expected, got, .. } => {
            assert_eq!((expected.as_str(), got.as_str()), ("A, B / 16", "A"))
        }
        other => panic!("{other}"),
    }
    let e = collect("A=8, B=16", DType::I8, ["A", "B", "A", "B"]).unwrap_err();
    assert!(
        matches!(e, CollectError::OutputNotOneFlit { bytes: 16, .. }),
        "{e}"
    );
    let e = collect("A=8, B=32", DType::I8, ["A", "B", "A", "B % 16 # 32"]).unwrap_err();
    assert!(matches!(e, CollectError::PacketMismatch { .. }), "{e}");
}

#[test]
fn collect_after_collect_is_a_transition_error() {
    let out = collect("A=8, B=32", DType::I8, ["A", "B", "A", "B"]).expect("c1");
    let ax = Axes::parse("A=8, B=32").expect("axes");
    let p = |s: &str| Mapping::parse(s, &ax).expect("m");
    let e = out.collect(&p("A"), &p("B")).unwrap_err();
    assert!(matches!(e, CollectError::Transition(_)), "{e}");
}
