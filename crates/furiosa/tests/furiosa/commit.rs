//! The Commit Adapter's trim and the Commit Engine (`docs/furiosa-engines.md` §8.4): T1, T2,
//! T4, K5 and K3e. Expected values are the document's hand derivations.

use npusim_furiosa::dm::Dm;
use npusim_furiosa::engine::commit::CommitError;
use npusim_furiosa::mapping::{Axes, Mapping};
use npusim_furiosa::{DType, Position, StreamTensor};

struct S {
    ax: Axes,
}

impl S {
    fn new(axes: &str) -> S {
        S {
            ax: Axes::parse(axes).expect("axes"),
        }
    }

    fn m(&self, s: &str) -> Mapping {
        Mapping::parse(s, &self.ax).unwrap_or_else(|e| panic!("{s}: {e}"))
    }

    /// A `CollectTensor` (one chip, cluster, slice) with codes `i mod 2^bits`.
    fn collected(&self, dtype: DType, time: &str, packet: &str) -> StreamTensor {
        let dims = [
            self.m("1"),
            self.m("1"),
            self.m("1"),
            self.m(time),
            self.m(packet),
        ];
        let n = self.m(time).size() * self.m(packet).size();
        let mask = (1u64 << dtype.bits().min(32)) - 1;
        let data = (0..n as u64).map(|i| i & mask).collect();
        StreamTensor::from_dims(dtype, Position::Collect, dims, data).expect("stream")
    }
}

#[test]
fn t1_trims_are_accepted() {
    for (axes, dtype, packet, out) in [
        ("W=8", DType::I8, "W # 32", "W"),
        ("N=8", DType::I8, "N # 32", "N # 16"),
        ("W=8", DType::F32, "W", "W = 4"),
        ("N=16", DType::BF16, "N", "N = 8"),
        ("N=8", DType::BF16, "N # 16", "N = 4"),
        ("J=64", DType::I4, "J", "J"),
    ] {
        let s = S::new(axes);
        let t = s
            .collected(dtype, "1", packet)
            .commit_trim(&s.m(out))
            .unwrap_or_else(|e| panic!("{packet} -> {out}: {e}"));
        assert_eq!(t.position(), Position::CommitTrim);
        assert_eq!(t.packet().size(), s.m(out).size());
    }
}

#[test]
fn t1_trim_keeps_the_leading_elements() {
    let s = S::new("T=2, W=8");
    let t = s
        .collected(DType::I8, "T", "W # 32")
        .commit_trim(&s.m("W"))
        .expect("trim");
    let want: Vec<u64> = (0..8).chain(32..40).collect();
    assert_eq!(t.codes().to_u64(), want);
}

#[test]
fn t2_bad_trims_are_refused() {
    let s = S::new("W=8");
    let e = s
        .collected(DType::F32, "1", "W")
        .commit_trim(&s.m("W = 3"))
        .unwrap_err();
    assert!(
        matches!(e, CommitError::InvalidWidth { bytes: 12, .. }),
        "{e}"
    );
    let e = s
        .collected(DType::F32, "1", "W")
        .commit_trim(&s.m("W / 2"))
        .unwrap_err();
    assert!(matches!(e, CommitError::PacketMismatch { .. }), "{e}");
    let e = s
        .collected(DType::F32, "1", "W")
        .commit_plan(&s.m("W"), 0)
        .unwrap_err();
    assert!(matches!(e, CommitError::Transition(_)), "{e}");
}

/// (write entries, write bytes, cycles) of trim `out` then a commit into `element` at 0.
fn commit(s: &S, dtype: DType, tp: [&str; 3], element: &str) -> (String, usize, usize) {
    let p = s
        .collected(dtype, tp[0], tp[1])
        .commit_trim(&s.m(tp[2]))
        .expect("trim")
        .commit_plan(&s.m(element), 0)
        .unwrap_or_else(|e| panic!("{element}: {e}"));
    (p.sequencer.to_string(), p.write_bytes, p.cycles)
}

#[test]
fn k5_the_books_three_commit_configs() {
    let s = S::new("M=4, K=2, W=8, N=16, L=32");
    assert_eq!(
        commit(&s, DType::I8, ["M, K", "L", "L"], "M, K, L"),
        ("[4:64, 2:32, 32:1] : 32".into(), 32, 8)
    );
    assert_eq!(
        commit(&s, DType::F32, ["M, K", "W", "W"], "K, M, W"),
        ("[4:8, 2:32, 8:1] : 8".into(), 32, 8)
    );
    assert_eq!(
        commit(&s, DType::I8, ["M, K", "N # 32", "N"], "K, M, N"),
        ("[4:16, 2:64, 16:1] : 16".into(), 16, 8)
    );
}

#[test]
fn k5b_places_m_k_w_at_the_derived_bytes() {
    // (m, k, w) lands at byte 4·(8m + 32k + w).
    let s = S::new("M=4, K=2, W=8");
    let mut dm = Dm::new(1);
    dm.fill_undefined(0xA5);
    let (t, _) = s
        .collected(DType::F32, "M, K", "W")
        .commit_trim(&s.m("W"))
        .expect("trim")
        .commit_at(&mut dm, &s.m("K, M, W"), 0)
        .expect("commit");
    let place = t.locate(&[("M", 3), ("K", 1), ("W", 5)]).expect("locate");
    assert_eq!(place[0].1, 4 * (8 * 3 + 32 + 5));
    // The stream code of (m, k, w) is its position (m·2 + k)·8 + w.
    let code = t.read_code(&dm, &place[0].0).expect("read");
    assert_eq!(code, ((3 * 2 + 1) * 8 + 5) as u64);
}

#[test]
fn t4_write_rules() {
    // Broadcast: T is absent from Element.
    let s = S::new("T=2, A=8, B=8, P=8");
    let e = s
        .collected(DType::I8, "T, A", "B # 32")
        .commit_trim(&s.m("B"))
        .expect("trim")
        .commit_plan(&s.m("A, B"), 0)
        .unwrap_err();
    assert!(e.to_string().contains("factor `T` broadcasts"), "{e}");
    // Unwritten: only A < 4 is streamed.
    let e = s
        .collected(DType::I8, "A = 4", "B # 32")
        .commit_trim(&s.m("B"))
        .expect("trim")
        .commit_plan(&s.m("A, B"), 0)
        .unwrap_err();
    match e {
        CommitError::Unwritten { first, .. } => assert_eq!(first, "{A: 4}"),
        other => panic!("{other}"),
    }
    // Stride: a 12-byte row.
    let s4 = S::new("T=4, P=8");
    let e = s4
        .collected(DType::I8, "T", "P # 32")
        .commit_trim(&s4.m("P"))
        .expect("trim")
        .commit_plan(&s4.m("T, P # 12"), 0)
        .unwrap_err();
    match e {
        CommitError::StrideAlignment { entry, bytes } => {
            assert_eq!((entry.as_str(), bytes), ("4:12", 12))
        }
        other => panic!("{other}"),
    }
    // Address: 1028 is not a multiple of 8.
    let e = s4
        .collected(DType::I8, "T", "P # 32")
        .commit_trim(&s4.m("P"))
        .expect("trim")
        .commit_plan(&s4.m("T, P"), 1028)
        .unwrap_err();
    assert!(
        matches!(e, CommitError::AddressAlignment { address: 1028 }),
        "{e}"
    );
    // Overrun: lane 4 of the 8-byte trim would write {A: 0, B: 4}.
    let e = s
        .collected(DType::I8, "A", "B = 4 # 32")
        .commit_trim(&s.m("B = 4 # 8"))
        .expect("trim")
        .commit_plan(&s.m("A, B"), 0)
        .unwrap_err();
    match e {
        CommitError::Overrun {
            time, lane, byte, ..
        } => assert_eq!((time, lane, byte), (0, 4, 4)),
        other => panic!("{other}"),
    }
}

#[test]
fn k3e_a_32_byte_commit_into_a_88_element_row_overruns() {
    let s = S::new("A=65, B=2");
    let e = s
        .collected(DType::F8E4M3, "B, A # 96 / 32", "A # 96 % 32")
        .commit_trim(&s.m("A # 96 % 32"))
        .expect("trim")
        .commit_plan(&s.m("B, A # 88"), 1024)
        .unwrap_err();
    match &e {
        CommitError::Overrun {
            time,
            lane,
            byte,
            clobbers,
            ..
        } => {
            assert_eq!((*time, *lane, *byte), (2, 24, 1112));
            assert!(clobbers.contains("B: 1"), "{clobbers}");
        }
        other => panic!("{other}"),
    }
}

/// A `CommitTrimTensor` of f32 values with Packet `W` (W = 8) trimmed to `out`.
fn trimmed_f32(s: &S, values: &[f32], out: &str) -> StreamTensor {
    let dims = [s.m("1"), s.m("1"), s.m("1"), s.m("1"), s.m("W")];
    StreamTensor::collect_f32(dims, values)
        .expect("stream")
        .commit_trim(&s.m(out))
        .expect("trim")
}

#[test]
fn t3_commit_cast_widths_and_relu() {
    let s = S::new("W=8");
    let x = [
        -5.0,
        -0.1,
        0.0,
        3.7,
        -0.0,
        f32::from_bits(0xffc0_0000),
        1.0,
        2.0,
    ];
    for (out, ok) in [("W", true), ("W = 4", true)] {
        let t = trimmed_f32(&s, &x, out).commit_cast();
        assert_eq!(t.is_ok(), ok, "{out}");
    }
    for (out, bytes) in [("W = 2", 8), ("W = 6", 24)] {
        let t = trimmed_f32(&s, &x, out);
        match t.commit_cast() {
            Err(CommitError::CastWidth {
                commit_in_size,
                unit,
                legal,
            }) => assert_eq!((commit_in_size, unit, legal), (bytes, 16, [16, 32])),
            other => panic!("{out}: {other:?}"),
        }
    }
    let relu = trimmed_f32(&s, &x, "W").commit_cast_relu().expect("relu");
    assert_eq!(relu.position(), Position::CommitCast);
    assert_eq!(relu.dtype(), DType::BF16);
    assert_eq!(
        &relu.codes().to_u64()[..6],
        &[0x0000, 0x0000, 0x0000, 0x406d, 0x0000, 0x7fc0]
    );
    let plain = trimmed_f32(&s, &x, "W").commit_cast().expect("cast");
    assert_eq!(plain.codes().get(0), Some(0xc0a0));
    // commit_cast is not a CollectTensor's method.
    let dims = [s.m("1"), s.m("1"), s.m("1"), s.m("1"), s.m("W")];
    let c = StreamTensor::collect_f32(dims, &x).expect("stream");
    assert!(matches!(c.commit_cast(), Err(CommitError::Transition(_))));
}

/// K5d, the book's `cast_commit` (§8.4): 256 slices, f32 Time `M`, Packet `N` -> cast to bf16
/// `N # 16` -> trim `N` (16 bytes) -> Element `M, N # 16`: `[16:16, 8:1] : 8`, 16-byte writes,
/// 16 cycles; bytes `32m + 16 .. 31` of each slice keep the fill byte.
#[test]
fn k5d_cast_then_commit_leaves_the_row_padding() {
    use npusim_furiosa::dm::SliceId;
    let s = S::new("S=256, M=16, N=8");
    let dims = [s.m("1"), s.m("1"), s.m("S"), s.m("M"), s.m("N")];
    let values: Vec<f32> = (0..256 * 128).map(|i| (i % 128) as f32).collect();
    let stream = StreamTensor::collect_f32(dims, &values)
        .expect("stream")
        .cast::<npusim_furiosa::dtype::Bf16>(&s.m("N # 16"))
        .expect("cast")
        .commit_trim(&s.m("N"))
        .expect("trim");
    let mut dm = Dm::new(1);
    dm.fill_undefined(0xA5);
    let (_, plan) = stream
        .commit_at(&mut dm, &s.m("M, N # 16"), 0)
        .expect("commit");
    assert_eq!(
        (plan.sequencer.to_string(), plan.write_bytes, plan.cycles),
        ("[16:16, 8:1] : 8".into(), 16, 16)
    );
    for slice in [0, 255] {
        let id = SliceId {
            chip: 0,
            cluster: 0,
            slice,
        };
        let bytes = dm.read_bytes(id, 0, 512).expect("read");
        for m in 0..16 {
            for n in 0..8 {
                // (8m + n) as bf16: the high half of its f32 bits (exact below 256).
                let code = ((8 * m + n) as f32).to_bits() >> 16;
                let got = u16::from_le_bytes([bytes[32 * m + 2 * n], bytes[32 * m + 2 * n + 1]]);
                assert_eq!(u32::from(got), code, "slice {slice} m {m} n {n}");
            }
            assert_eq!(
                &bytes[32 * m + 16..32 * m + 32],
                &[0xA5; 16],
                "slice {slice} m {m}"
            );
        }
    }
}

/// K3e's second clause (§8.3): a write that would pass the tensor's end is an `Overrun` naming
/// the byte: `A # 96` in 32-byte packets into `A # 72` at 1024, step 2 lane 8 reaches byte
/// 1024 + 72 = 1096.
#[test]
fn a_write_past_the_tensors_end_is_an_overrun() {
    let s = S::new("A=65");
    let e = s
        .collected(DType::I8, "A # 96 / 32", "A # 96 % 32")
        .commit_trim(&s.m("A # 96 % 32"))
        .expect("trim")
        .commit_plan(&s.m("A # 72"), 1024)
        .unwrap_err();
    match &e {
        CommitError::Overrun {
            time,
            lane,
            byte,
            clobbers,
            ..
        } => {
            assert_eq!((*time, *lane, *byte), (2, 8, 1096));
            assert!(clobbers.contains("past the end"), "{clobbers}");
        }
        other => panic!("{other}"),
    }
    assert!(e.to_string().contains("would write byte 1096"), "{e}");
}
