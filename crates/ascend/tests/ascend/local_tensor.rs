//! The LocalTensor API beyond seed 002's two result examples: int4 through ReinterpretCast,
//! strides, SetDeqScale, product tables, and every bad input as a typed error.

use npusim_ascend::limits::{DST_REP_STRIDE, LimitError, REPEAT_TIMES};
use npusim_ascend::{
    AiCore, AscendError, DType, Mask, Product, UnaryRepeatParams, UnifiedBuffer, ty,
};
use npusim_numerics::RoundMode;

fn half(x: f32) -> u64 {
    u64::from(half::f16::from_f32(x).to_bits())
}

#[test]
fn int4_calling_example_of_seed_002() {
    // dstLocal (int8_t) reinterpreted as int4b_t; Cast<int4b_t, half>(dst, src, CAST_CEIL, 128, 1, {1, 1, 4, 8})
    let mut core = AiCore::new(Product::Ascend950);
    let src = core.ub.tensor::<ty::Half>(0, 128).unwrap();
    let dst_bytes = core.ub.tensor::<ty::Int8>(512, 64).unwrap();
    let dst = dst_bytes.reinterpret_cast::<ty::Int4b>();
    assert_eq!(dst.len(), 128);
    for i in 0..128 {
        core.ub.write(&src.view(), i, half(i as f32 * 0.25 - 10.0));
    }
    let r = core
        .cast(
            &dst,
            &src,
            RoundMode::Ceil,
            Mask::Contiguous(128),
            1,
            UnaryRepeatParams::new(1, 1, 4, 8),
        )
        .unwrap();
    assert_eq!(r.written.len(), 128);
    for i in 0..128 {
        let want = (i as f64 * 0.25 - 10.0).ceil().clamp(-8.0, 7.0) as i64;
        let byte = core.ub.read(&dst_bytes.view(), i / 2) as u8;
        let nibble = if i % 2 == 0 { byte & 0xF } else { byte >> 4 }; // element 0 in the low nibble
        let got = ((nibble << 4) as i8 >> 4) as i64;
        assert_eq!(got, want, "element {i}");
    }
    // the training series' table 4 has no half -> int4b_t
    let mut t = AiCore::new(Product::AtlasTraining);
    let e = t
        .cast(
            &dst,
            &src,
            RoundMode::Ceil,
            Mask::Contiguous(128),
            1,
            UnaryRepeatParams::new(1, 1, 4, 8),
        )
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::IllegalPair {
                src: DType::Half,
                dst: DType::Int4,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn int4_counts_and_bit_pairs_must_be_even() {
    let mut core = AiCore::new(Product::Ascend950);
    let src = core.ub.tensor::<ty::Half>(0, 128).unwrap();
    let dst = core.ub.tensor::<ty::Int4b>(512, 128).unwrap();
    let e = core.cast_count(&dst, &src, RoundMode::Rint, 7).unwrap_err();
    assert_eq!(
        e,
        AscendError::OddInt4Count {
            dtype: DType::Int4,
            what: "calCount",
            value: 7
        }
    );
    let p = UnaryRepeatParams::new(1, 1, 2, 8);
    let e = core
        .cast(&dst, &src, RoundMode::Rint, Mask::Contiguous(31), 1, p)
        .unwrap_err();
    assert!(matches!(e, AscendError::OddInt4Count { value: 31, .. }));
    let e = core
        .cast(
            &dst,
            &src,
            RoundMode::Rint,
            Mask::Bitwise([0b0110, 0]),
            1,
            p,
        )
        .unwrap_err();
    assert!(e.to_string().contains("must be equal"), "{e}");
    core.cast(
        &dst,
        &src,
        RoundMode::Rint,
        Mask::Bitwise([0b1111_0011, 0]),
        1,
        p,
    )
    .unwrap();
    core.cast_count(&dst, &src, RoundMode::Rint, 6).unwrap();
}

#[test]
fn first_n_splits_into_255_repeat_issues_and_a_tail() {
    // 255 full repeats of 64 floats is 16320 elements; 16320 + 64 + 5 needs a second issue and a tail.
    let n = 255 * 64 + 64 + 5;
    let mut core = AiCore::with_ub(Product::AtlasTraining, UnifiedBuffer::new(256 * 1024));
    let src = core.ub.tensor::<ty::Float>(0, n + 3).unwrap();
    let dst = core.ub.tensor::<ty::Half>(4 * (n + 3) + 32, n + 3).unwrap();
    for i in 0..n + 3 {
        core.ub
            .write(&src.view(), i, u64::from((i as f32 * 0.001).to_bits()));
        core.ub.write(&dst.view(), i, 0xABCD);
    }
    let r = core.cast_count(&dst, &src, RoundMode::None, n).unwrap();
    assert_eq!(r.written, (0..n).collect::<Vec<_>>());
    assert_eq!(r.repeats, 255 + 1 + 1);
    for i in 0..n {
        let want = half::f16::from_f32(i as f32 * 0.001).to_bits();
        assert_eq!(core.ub.read(&dst.view(), i), u64::from(want), "{i}");
    }
    for i in n..n + 3 {
        assert_eq!(
            core.ub.read(&dst.view(), i),
            0xABCD,
            "element {i} beyond calCount untouched"
        );
    }
}

#[test]
fn block_and_repeat_strides_gather_and_scatter() {
    // float -> int32 with source block stride 2 (every other block) and destination repeat stride 16.
    let mut core = AiCore::new(Product::AtlasTraining);
    let src = core.ub.tensor::<ty::Float>(0, 2048).unwrap();
    let dst = core.ub.tensor::<ty::Int32>(16384, 2048).unwrap();
    for i in 0..2048 {
        core.ub
            .write(&src.view(), i, u64::from((i as f32).to_bits()));
    }
    let p = UnaryRepeatParams::new(1, 2, 16, 16);
    let r = core
        .cast(&dst, &src, RoundMode::Trunc, Mask::Contiguous(64), 2, p)
        .unwrap();
    assert_eq!(r.written.len(), 128);
    for rep in 0..2 {
        for lane in 0..64 {
            let (block, within) = (lane / 8, lane % 8);
            let s = rep * 16 * 8 + block * 2 * 8 + within; // element index of the source lane
            let d = rep * 16 * 8 + block * 8 + within;
            assert_eq!(
                core.ub.read(&dst.view(), d),
                s as u64,
                "rep {rep} lane {lane}"
            );
        }
    }
}

#[test]
fn deq_scale_is_required_and_applied() {
    let mut core = AiCore::new(Product::AtlasTraining);
    let src = core.ub.tensor::<ty::Int32>(0, 64).unwrap();
    let dst = core.ub.tensor::<ty::Half>(512, 64).unwrap();
    for i in 0..64 {
        core.ub.write(&src.view(), i, (i as u64) * 1000);
    }
    assert_eq!(
        core.cast_count(&dst, &src, RoundMode::Rint, 64),
        Err(AscendError::DeqScaleNotSet)
    );
    core.set_deq_scale(0x4000); // SetDeqScale(static_cast<half>(2.0))
    core.cast_count(&dst, &src, RoundMode::Rint, 64).unwrap();
    for i in 0..64 {
        let want = half::f16::from_f64(i as f64 * 2000.0).to_bits(); // exact in f32, one RINT to f16
        let want = if i * 2000 > 65504 { 0x7BFF } else { want };
        assert_eq!(core.ub.read(&dst.view(), i), u64::from(want), "{i}");
    }
}

#[test]
fn training_table_4_is_enforced() {
    let mut core = AiCore::new(Product::AtlasTraining);
    let h = core.ub.tensor::<ty::Half>(0, 128).unwrap();
    let i8t = core.ub.tensor::<ty::Int8>(1024, 128).unwrap();
    // half -> int8 with CAST_RINT: seed 002 table 4 lists FLOOR/CEIL/ROUND/TRUNC/NONE only
    let e = core.cast_count(&i8t, &h, RoundMode::Rint, 128).unwrap_err();
    assert!(matches!(e, AscendError::IllegalRoundMode { .. }));
    let msg = e.to_string();
    assert!(
        msg.contains("half -> int8_t") && msg.contains("CAST_FLOOR") && msg.contains("CAST_NONE"),
        "{msg}"
    );
    // CAST_NONE on half -> int8 rounds to nearest even; saturates
    for (x, want) in [(2.5f32, 2u64), (3.5, 4), (127.5, 127), (-200.0, 0x80)] {
        core.ub.write(&h.view(), 0, half(x));
        core.cast_count(&i8t, &h, RoundMode::None, 2).unwrap();
        assert_eq!(core.ub.read(&i8t.view(), 0), want, "{x}");
    }
    // float -> bf16 is not a training-series conversion
    let bf = core.ub.tensor::<ty::BFloat16>(4096, 64).unwrap();
    let f = core.ub.tensor::<ty::Float>(8192, 64).unwrap();
    let e = core.cast_count(&bf, &f, RoundMode::Rint, 64).unwrap_err();
    assert!(
        e.to_string().contains("supported pairs: half->float"),
        "{e}"
    );
    // Inf and NaN inputs saturate (spec A-S1)
    core.ub.write(&h.view(), 0, 0x7C00);
    core.ub.write(&h.view(), 1, 0x7E00);
    let f32t = core.ub.tensor::<ty::Int32>(2048, 64).unwrap();
    core.cast_count(&f32t, &h, RoundMode::Rint, 2).unwrap();
    assert_eq!(core.ub.read(&f32t.view(), 0), 0x7FFF_FFFF);
    assert_eq!(core.ub.read(&f32t.view(), 1), 0);
}

#[test]
fn bad_inputs_are_typed_errors_naming_the_numbers() {
    let mut core = AiCore::new(Product::AtlasTraining);
    let src = core.ub.tensor::<ty::Half>(0, 512).unwrap();
    let dst = core.ub.tensor::<ty::Int32>(2048, 512).unwrap();
    let p = UnaryRepeatParams::new(1, 1, 8, 4);
    let ceil = RoundMode::Ceil;
    // repeatTimes > 255
    assert_eq!(
        core.cast(&dst, &src, ceil, Mask::Contiguous(64), 256, p),
        Err(AscendError::Limit(LimitError {
            limit: REPEAT_TIMES,
            value: 256
        }))
    );
    // mask beyond the wider type's 64 lanes
    let e = core
        .cast(&dst, &src, ceil, Mask::Contiguous(100), 1, p)
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "contiguous mask 100 is out of range [1, 64] for a cast whose wider type is 32-bit"
    );
    // strides out of their registers' range
    let e = core
        .cast(
            &dst,
            &src,
            ceil,
            Mask::Contiguous(64),
            1,
            UnaryRepeatParams::new(1, 1, 300, 4),
        )
        .unwrap_err();
    assert_eq!(
        e,
        AscendError::Limit(LimitError {
            limit: DST_REP_STRIDE,
            value: 300
        })
    );
    // block strides are uint16: 70000 names the real limit, 65535
    let e = core
        .cast(
            &dst,
            &src,
            ceil,
            Mask::Contiguous(64),
            1,
            UnaryRepeatParams::new(1, 70000, 8, 4),
        )
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "srcBlkStride 70000 is out of range [0, 65535]"
    );
    // misaligned tensor
    let odd = src.offset(3).unwrap();
    assert_eq!(
        core.cast(&dst, &odd, ceil, Mask::Contiguous(64), 1, p),
        Err(AscendError::Misaligned { addr: 6 })
    );
    // a tensor outside the unified buffer
    assert!(matches!(
        core.ub.tensor::<ty::Float>(256 * 1024 - 64, 32),
        Err(AscendError::OutsideBuffer { .. })
    ));
    // a buffer too small for mask x repeat x strides
    let small = core.ub.tensor::<ty::Int32>(2048, 100).unwrap();
    let e = core
        .cast(&small, &src, ceil, Mask::Contiguous(64), 2, p)
        .unwrap_err();
    assert!(
        matches!(
            e,
            AscendError::TensorTooSmall {
                role: "dst",
                len: 100,
                needed: 128,
                repeat: 1,
                lane: 36,
                ..
            }
        ),
        "{e}"
    );
    // calCount larger than a tensor
    assert!(matches!(
        core.cast_count(&small, &src, ceil, 128),
        Err(AscendError::CountTooLarge { count: 128, .. })
    ));
    // dstBlkStride 0 with several blocks per repeat
    let e = core
        .cast(
            &dst,
            &src,
            ceil,
            Mask::Contiguous(64),
            1,
            UnaryRepeatParams::new(0, 1, 8, 4),
        )
        .unwrap_err();
    assert_eq!(e, AscendError::ZeroDstBlockStride);
}

#[test]
fn overlap_rules_of_the_precautions() {
    let mut core = AiCore::new(Product::AtlasTraining);
    let p = UnaryRepeatParams::new(1, 1, 8, 8);
    // same-width in place, the same elements: allowed
    let f = core.ub.tensor::<ty::Float>(0, 512).unwrap();
    let i = f.reinterpret_cast::<ty::Int32>();
    for k in 0..512 {
        core.ub
            .write(&f.view(), k, u64::from((k as f32 + 0.5).to_bits()));
    }
    core.cast(&i, &f, RoundMode::Floor, Mask::Contiguous(64), 8, p)
        .unwrap();
    assert_eq!(core.ub.read(&i.view(), 10), 10);
    // different elements of the same memory: dst shifted by one block
    let shifted = core.ub.tensor::<ty::Int32>(32, 400).unwrap();
    let e = core
        .cast(&shifted, &f, RoundMode::Floor, Mask::Contiguous(64), 1, p)
        .unwrap_err();
    assert!(matches!(e, AscendError::ForbiddenOverlap { .. }), "{e}");
    // a dependency between repeats: repeat r writes what repeat r+1 reads
    let src = core.ub.tensor::<ty::Float>(4096, 1024).unwrap();
    let dst = core.ub.tensor::<ty::Int32>(4096 + 256, 512).unwrap();
    let e = core
        .cast(
            &dst,
            &src,
            RoundMode::Floor,
            Mask::Contiguous(64),
            2,
            UnaryRepeatParams::new(1, 1, 0, 8),
        )
        .unwrap_err();
    assert!(
        e.to_string().contains("dependency") || e.to_string().contains("different elements"),
        "{e}"
    );
    // widening in place: half -> float over the same bytes
    let h = core.ub.tensor::<ty::Half>(8192, 128).unwrap();
    let hf = core.ub.tensor::<ty::Float>(8192, 64).unwrap();
    let e = core
        .cast(
            &hf,
            &h,
            RoundMode::None,
            Mask::Contiguous(64),
            1,
            UnaryRepeatParams::new(1, 1, 8, 4),
        )
        .unwrap_err();
    assert!(e.to_string().contains("element width"), "{e}");
}
