//! The Cast Engine: both examples of the "Cast Engine" page, goldens G22, and every refusal.

use npusim_furiosa::dtype::{Bf16, F8E4M3, F16, I4};
use npusim_furiosa::engine::cast::CastError;
use npusim_furiosa::mapping::Axes;
use npusim_furiosa::tensor::{Dim, Position};
use npusim_furiosa::{CastProfile, DType, Mapping, StreamTensor, axes, m};

fn ax(decl: &str) -> Axes {
    Axes::parse(decl).expect("axes")
}

fn mp(axes: &Axes, text: &str) -> Mapping {
    Mapping::parse(text, axes).unwrap_or_else(|e| panic!("{e}"))
}

/// `[1, 1, 1, time, packet]`.
fn dims(axes: &Axes, time: &str, packet: &str) -> [Mapping; 5] {
    [
        mp(axes, "1"),
        mp(axes, "1"),
        mp(axes, "1"),
        mp(axes, time),
        mp(axes, packet),
    ]
}

/// Seed 000, "Single-flit packet": i32 `Time = m![B]`, `Packet = m![A]` -> i8 `m![A # 32]`.
#[test]
fn seed_cast_i32_to_i8() {
    let ax = axes![B = 4, A = 8].expect("axes");
    let values: Vec<i32> = (0..32).map(|i| i * 97 - 1500).collect();
    let input = StreamTensor::collect_i32(dims(&ax, "B", "A"), &values).expect("input");
    let out = input.cast::<i8>(&m!(ax; A # 32).expect("m")).expect("cast");
    assert_eq!(out.dtype(), DType::I8);
    assert_eq!(out.position(), Position::Cast);
    assert_eq!(out.time(), &mp(&ax, "B"), "Time passes through");
    assert_eq!(out.packet().to_string(), "A # 32");
    let got = out.ints();
    assert_eq!(got.len(), 4 * 32);
    for b in 0..4 {
        for p in 0..32 {
            let want = if p < 8 {
                i64::from(values[b * 8 + p] as i8)
            } else {
                0
            };
            assert_eq!(got[b * 32 + p], want, "time {b} packet {p}");
        }
    }
    assert_eq!(
        out.to_string(),
        "CastTensor<i8, m![1], m![1], m![1], m![B], m![A # 32]>"
    );
}

/// Seed 000, "Padded input packet": i32 `m![A # 8]` (A = 4) -> i8 `m![A # 32]`.
#[test]
fn seed_cast_padded() {
    let ax = axes![A = 4].expect("axes");
    // Positions 4..7 are the Collect Engine's padding; whatever they hold is not output.
    let values = [300, -300, 127, -128, 11, 22, 33, 44];
    let input = StreamTensor::collect_i32(dims(&ax, "1", "A # 8"), &values).expect("input");
    let out = input.cast::<i8>(&mp(&ax, "A # 32")).expect("cast");
    let mut want = vec![44i64, -44, 127, -128];
    want.resize(32, 0);
    assert_eq!(out.ints(), want);
    // The nested form of the same packet is accepted too (spec §0.5).
    assert!(input.cast::<i8>(&mp(&ax, "(A # 8) # 32")).is_ok());
}

#[test]
fn g22_shapes() {
    let ax = ax("A=8,N=8,T=3");
    // f32 m![N] -> bf16 m![N # 16]
    let values: Vec<f32> = (0..24).map(|i| i as f32 * 0.3 - 2.0).collect();
    let input = StreamTensor::collect_f32(dims(&ax, "T", "N"), &values).expect("input");
    let out = input.cast::<Bf16>(&mp(&ax, "N # 16")).expect("bf16");
    assert_eq!(out.codes().len(), 3 * 16);
    for t in 0..3 {
        for p in 0..16 {
            let want = if p < 8 {
                // Independent oracle: bf16 RNE by hand on the f32 bits (no NaN or subnormal here).
                let b = values[t * 8 + p].to_bits();
                let round = 0x7fff + ((b >> 16) & 1);
                u64::from((b + round) >> 16)
            } else {
                0
            };
            assert_eq!(out.codes().get(t * 16 + p).unwrap_or(u64::MAX), want);
        }
    }
    // f32 -> f16 (the Cast Engine page's table), f8e4m3 and i4 outputs.
    assert!(input.cast::<F16>(&mp(&ax, "N # 16")).is_ok());
    assert!(input.cast::<F8E4M3>(&mp(&ax, "N # 32")).is_ok());
    let ints =
        StreamTensor::collect_i32(dims(&ax, "1", "A"), &[1, 2, 3, 4, 5, 6, 7, 8]).expect("i");
    let i4 = ints.cast::<I4>(&mp(&ax, "A # 64")).expect("i4");
    assert_eq!(&i4.ints()[..9], &[1, 2, 3, 4, 5, 6, 7, -8, 0]);
    let i16 = ints.cast::<i16>(&mp(&ax, "A # 16")).expect("i16");
    assert_eq!(i16.codes().len(), 16);
}

#[test]
fn refusals_name_the_rule_and_both_mappings() {
    let ax = ax("A=8,C=4");
    let ints = |packet: &str, n: usize| {
        StreamTensor::collect_i32(dims(&ax, "1", packet), &vec![7; n]).expect("input")
    };
    // i32 m![C] (4 elements, 16 bytes) is not one flit.
    let e = ints("C", 4)
        .cast::<i8>(&mp(&ax, "C # 32"))
        .expect_err("16 B");
    assert!(matches!(
        e,
        CastError::InputNotOneFlit {
            elements: 4,
            bytes: 16,
            ..
        }
    ));
    let text = e.to_string();
    assert!(
        text.contains("m![C]") && text.contains("m![C # 32]") && text.contains("one flit"),
        "{text}"
    );

    // Not a precision-lowering pair.
    let e = ints("A", 8)
        .cast::<i32>(&mp(&ax, "A"))
        .expect_err("i32 -> i32");
    assert_eq!(
        e.to_string(),
        "the Cast Engine cannot cast `i32` to `i32` (rule: i32 -> i4, i8, i16; f32 -> f8e5m2, f8e4m3, f16, bf16); input CollectTensor<i32, m![1], m![1], m![1], m![1], m![A]>"
    );
    assert!(ints("A", 8).cast::<Bf16>(&mp(&ax, "A # 16")).is_err());

    // Output packet not one output flit.
    let e = ints("A", 8)
        .cast::<i8>(&mp(&ax, "A # 16"))
        .expect_err("16 x i8");
    assert!(matches!(
        e,
        CastError::OutputNotOneFlit {
            elements: 16,
            bytes: 16,
            ..
        }
    ));
    assert!(e.to_string().contains("m![A # 32]"), "{e}");

    // One flit, but not the re-padded input packet.
    for bad in ["(A % 4, A / 4) # 32", "A #{0} 32", "(C, 2) # 32"] {
        let e = ints("A", 8).cast::<i8>(&mp(&ax, bad)).expect_err(bad);
        assert!(matches!(e, CastError::PacketMismatch { .. }), "{bad}: {e}");
        let text = e.to_string();
        assert!(
            text.contains("m![A]") && text.contains("m![A # 32]"),
            "{text}"
        );
    }

    // A Cast tensor cannot be cast again.
    let once = ints("A", 8).cast::<i8>(&mp(&ax, "A # 32")).expect("cast");
    let e = once
        .cast_to(DType::I4, &mp(&ax, "A # 64"), &CastProfile::default())
        .expect_err("twice");
    assert!(matches!(&e, CastError::Position(s) if s.starts_with("CastTensor<i8, ")));
    assert!(e.to_string().contains("m![A # 32]"), "{e}");
}

#[test]
fn spatial_dims_pass_through() {
    let ax = ax("S=2,A=8");
    let d = [
        mp(&ax, "1"),
        mp(&ax, "1 # 2"),
        mp(&ax, "S"),
        mp(&ax, "1"),
        mp(&ax, "A"),
    ];
    let values: Vec<i32> = (0..32).collect();
    let input = StreamTensor::collect_i32(d, &values).expect("input");
    let out = input.cast::<i8>(&mp(&ax, "A # 32")).expect("cast");
    assert_eq!(out.mapping(Dim::Cluster).to_string(), "1 # 2");
    assert_eq!(out.mapping(Dim::Slice).to_string(), "S");
    assert_eq!(out.ints()[32 + 1], 9);
    assert_eq!(out.ints()[3 * 32 + 7], 31);
}

#[test]
fn stream_tensor_limits_are_typed_errors() {
    let ax = ax("S=512,K=3,A=8");
    let d = |cluster: &str, slice: &str| {
        [
            mp(&ax, "1"),
            mp(&ax, cluster),
            mp(&ax, slice),
            mp(&ax, "1"),
            mp(&ax, "A"),
        ]
    };
    let e = StreamTensor::collect_i32(d("1", "S"), &vec![0; 512 * 8]).expect_err("512 slices");
    assert_eq!(
        e.to_string(),
        "Slice = m![S] has 512 positions: Slice size (slices per cluster) 512 is out of range [1, 256]"
    );
    let e = StreamTensor::collect_i32(d("K", "1"), &[0; 24]).expect_err("3 clusters");
    assert!(
        e.to_string().starts_with("Cluster = m![K] has 3 positions"),
        "{e}"
    );
    let e = StreamTensor::collect_i32(d("1", "S / 2"), &[0; 5]).expect_err("length");
    assert!(e.to_string().contains("holds 5 elements but"), "{e}");
    assert!(e.to_string().contains("has 2048 positions"), "{e}");
}
