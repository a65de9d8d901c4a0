//! Cast calls described as data (what `npusim ascend cast` runs).

use npusim_ascend::AscendError;
use npusim_ascend::call::{CastCall, run_call};
use npusim_ascend::limits::{LimitError, REPEAT_TIMES};
use npusim_ascend::seed_examples::seed002_examples;

fn le16(v: &[u16]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[test]
fn seed002_mask32_as_a_call_with_prior_contents() {
    let ex = seed002_examples().remove(1);
    let call = CastCall {
        product: "training".into(),
        src: "half".into(),
        dst: "int32_t".into(),
        round: "CAST_CEIL".into(),
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
        product: "950".into(),
        api: "reg".into(),
        src: "float".into(),
        dst: "half".into(),
        round: "rint".into(),
        sat: "SAT".into(),
        layout: "ONE".into(),
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
        src: "half".into(),
        dst: "int32_t".into(),
        round: "CAST_CEIL".into(),
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
        api: "reg".into(),
        count: Some(64),
        ..base.clone()
    };
    assert!(
        run_call(&reg_on_training, &input, None)
            .unwrap_err()
            .to_string()
            .contains("950")
    );
    let bad_type = CastCall {
        dst: "int12_t".into(),
        count: Some(64),
        ..base.clone()
    };
    assert!(matches!(
        run_call(&bad_type, &input, None),
        Err(AscendError::UnknownDType { .. })
    ));
    let bad_mode = CastCall {
        round: "CAST_SIDEWAYS".into(),
        count: Some(64),
        ..base.clone()
    };
    assert!(
        run_call(&bad_mode, &input, None)
            .unwrap_err()
            .to_string()
            .contains("CAST_SIDEWAYS")
    );
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
