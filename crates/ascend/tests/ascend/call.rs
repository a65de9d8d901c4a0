//! Cast calls described as data (what `npusim ascend cast` runs).

use npusim_ascend::call::{CastCall, run_call};
use npusim_ascend::limits::{LimitError, REPEAT_TIMES};
use npusim_ascend::{Api, AscendError, DType, Product, RegLayout, SatMode};
use npusim_examples::ascend::document_examples::lane_examples;
use npusim_numerics::RoundMode;

fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn more_samples_mask32_as_a_call_with_prior_contents() {
    let ex = lane_examples().remove(1);
    let call = CastCall {
        product: Product::AtlasTraining,
        src: Some(DType::Half),
        dst: Some(DType::Int32),
        round: RoundMode::Ceil.into(),
        mask: Some(32),
        repeat: Some(8),
        params: Some([1, 1, 8, 4]),
        ..CastCall::default()
    };
    let prior: Vec<u8> = ex.expected.iter().flat_map(|d| d.to_le_bytes()).collect();
    let out = run_call(&call, &le16(&ex.src), Some(&prior)).unwrap();
    assert_eq!(out.dst_len, 512);
    assert_eq!(
        out.dst, prior,
        "computed lanes equal the printed ones, the rest kept"
    );
    assert_eq!(out.written.len(), 256);
    assert_eq!(out.written[32], 64);
}

#[test]
fn reg_call_over_two_registers_with_a_count() {
    let xs: Vec<u8> = (0..128)
        .flat_map(|i| (i as f32 + 0.5).to_le_bytes())
        .collect();
    let call = CastCall {
        product: Product::Ascend950,
        api: Api::Reg,
        src: Some(DType::Float),
        dst: Some(DType::Half),
        round: RoundMode::Rint.into(),
        sat: SatMode::Sat,
        layout: RegLayout::One,
        count: Some(100),
        ..CastCall::default()
    };
    let out = run_call(&call, &xs, None).unwrap();
    assert_eq!(out.steps, 2);
    assert_eq!(out.dst_len, 256);
    // layout ONE writes the odd half lanes; 64 in the first register, 36 in the second
    assert_eq!(out.written.len(), 100);
    assert_eq!(out.written[0], 1);
    assert_eq!(*out.written.last().unwrap(), 128 + 2 * 35 + 1);
    let lane = |i: usize| u16::from_le_bytes([out.dst[2 * i], out.dst[2 * i + 1]]);
    assert_eq!(lane(1), half::f16::from_f32(0.5).to_bits());
    assert_eq!(lane(3), half::f16::from_f32(1.5).to_bits());
    assert_eq!(lane(0), 0);
}

#[test]
fn bad_calls_are_typed_errors() {
    let base = CastCall {
        src: Some(DType::Half),
        dst: Some(DType::Int32),
        round: RoundMode::Ceil.into(),
        ..CastCall::default()
    };
    let input = le16(&[0x3C00; 64]);
    let no_mask = run_call(&base, &input, None).unwrap_err();
    assert!(no_mask.to_string().contains("count"), "{no_mask}");
    let both = CastCall {
        count: Some(64),
        mask: Some(64),
        ..base.clone()
    };
    assert!(run_call(&both, &input, None).is_err());
    let reg_on_training = CastCall {
        api: Api::Reg,
        count: Some(64),
        ..base.clone()
    };
    assert!(
        run_call(&reg_on_training, &input, None)
            .unwrap_err()
            .to_string()
            .contains("950")
    );
    // unknown spellings are rejected when the description is read, naming the legal values
    let bad_type = toml::from_str::<CastCall>("dst = \"int12_t\"").unwrap_err();
    assert!(bad_type.to_string().contains("int32_t"), "{bad_type}");
    let bad_mode = toml::from_str::<CastCall>("round = \"CAST_SIDEWAYS\"")
        .unwrap_err()
        .to_string();
    assert!(
        bad_mode.contains("CAST_SIDEWAYS") && bad_mode.contains("CAST_RINT"),
        "{bad_mode}"
    );
    assert!(matches!(
        "int12_t".parse::<DType>(),
        Err(AscendError::UnknownDType { .. })
    ));
    let too_many = CastCall {
        repeat: Some(300),
        mask: Some(64),
        ..base
    };
    assert_eq!(
        run_call(&too_many, &input, None),
        Err(AscendError::Limit(LimitError {
            limit: REPEAT_TIMES,
            value: 300
        }))
        .map(|_: ()| unreachable!())
    );
}

#[test]
fn every_field_reads_from_its_toml_spelling() {
    let text = r#"
        product = "950"
        api = "microapi"
        src = "float"
        dst = "hifloat8_t"
        round = "CAST_HYBRID"
        sat = "NO_SAT"
        layout = "TWO"
        merge = "ZEROING"
        hybrid = "input-low-bits"
        widening_mask = "source"
        ctrl = 0
    "#;
    let call: CastCall = toml::from_str(text).unwrap();
    assert_eq!(call.product, Product::Ascend950);
    assert_eq!(call.api, Api::Reg);
    assert_eq!(call.round.mode(), Some(RoundMode::Hybrid));
    assert_eq!((call.sat, call.layout), (SatMode::NoSat, RegLayout::Two));
    assert_eq!(call.hybrid, npusim_ascend::HybridKind::InputLowBits);
    // and writes back to the same spellings
    let back = toml::to_string(&call).unwrap();
    assert!(back.contains("round = \"CAST_HYBRID\""), "{back}");
    assert_eq!(toml::from_str::<CastCall>(&back).unwrap(), call);
    // the example file loads
    let example = include_str!("../../../../examples/ascend/more_samples_mask32.toml");
    let call: CastCall = toml::from_str(example).unwrap();
    assert_eq!(call.round.mode(), Some(RoundMode::Ceil));
    // unknown values list the legal ones
    for (key, legal) in [
        ("api", "reg"),
        ("sat", "NO_SAT"),
        ("layout", "THREE"),
        ("merge", "ZEROING"),
        ("hybrid", "input-low-bits"),
        ("widening_mask", "source"),
        ("product", "950"),
    ] {
        let e = toml::from_str::<CastCall>(&format!("{key} = \"bogus\""))
            .unwrap_err()
            .to_string();
        assert!(e.contains("bogus") && e.contains(legal), "{key}: {e}");
    }
}

#[test]
fn ctrl_reaches_the_950_local_tensor_cast_and_is_refused_on_training() {
    let input: Vec<u8> = 1e6f32.to_le_bytes().repeat(64);
    let call = CastCall {
        product: Product::Ascend950,
        src: Some(DType::Float),
        dst: Some(DType::Half),
        round: RoundMode::Rint.into(),
        count: Some(64),
        ..CastCall::default()
    };
    let lane0 = |c: &CastCall| {
        let out = run_call(c, &input, None).unwrap();
        u16::from_le_bytes([out.dst[0], out.dst[1]])
    };
    assert_eq!(lane0(&call), 0x7BFF);
    let inf = CastCall {
        ctrl: Some((1 << 60) | (1 << 48)),
        ..call.clone()
    };
    assert_eq!(lane0(&inf), 0x7C00);
    let training = CastCall {
        product: Product::AtlasTraining,
        ..inf
    };
    let e = run_call(&training, &input, None).unwrap_err().to_string();
    assert!(e.contains("does not read CTRL"), "{e}");
}

#[test]
fn absurd_sizes_and_addresses_are_errors_not_panics() {
    let input = le16(&[0x3C00; 64]);
    let base = CastCall {
        src: Some(DType::Half),
        dst: Some(DType::Int32),
        round: RoundMode::Ceil.into(),
        count: Some(64),
        ..CastCall::default()
    };
    let huge_ub = CastCall {
        ub_bytes: Some(usize::MAX),
        ..base.clone()
    };
    let e = run_call(&huge_ub, &input, None).unwrap_err().to_string();
    assert!(e.contains("ub_bytes"), "{e}");
    let far = CastCall {
        src_addr: Some(usize::MAX - 8),
        ..base
    };
    assert!(run_call(&far, &input, None).is_err());
}
