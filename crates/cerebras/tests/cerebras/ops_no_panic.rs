//! No operation panics, whatever operands a program hands it: random operations over random
//! operand kinds, element types, strides, offsets, lengths and FIFOs give a result or a typed
//! error.

use npusim_cerebras::dsd::{FifoAction, FifoConfig, Mem1d};
use std::sync::atomic::{AtomicU64, Ordering};

use npusim_cerebras::ops::{Class, Fp16Format, Op, Operand, Scalar};
use npusim_cerebras::pe::{DsrFile, LengthPolicy, OpConfig, Pe};
use npusim_cerebras::{Arch, ElemTy};
use proptest::prelude::*;

/// Arrays of every element type, small so walks leave them (and sometimes the memory).
const ARRAYS: [(&str, ElemTy); 6] = [
    ("u", ElemTy::U16),
    ("i", ElemTy::I16),
    ("h", ElemTy::F16),
    ("w", ElemTy::U32),
    ("j", ElemTy::I32),
    ("f", ElemTy::F32),
];

/// One operand, before the operation picks its kind letter and element type.
#[derive(Clone, Debug)]
struct Raw {
    /// Index into the admitted element types (or any type when `any_type`).
    ty: usize,
    any_type: bool,
    offset: i64,
    stride: i64,
    extent: i64,
    wio: bool,
    bits: u32,
    /// 0: memory DSD, 1: FIFO, 2: DSR (for a `D` operand).
    d_kind: u8,
    fifo: usize,
    dsr_file: usize,
    save: bool,
}

fn raw() -> impl Strategy<Value = Raw> {
    (
        (0..6usize, proptest::bool::weighted(0.2)),
        (-40i64..40, -128i64..128, 0i64..40, any::<bool>()),
        any::<u32>(),
        (0u8..3, 0..2usize, 0..3usize, any::<bool>()),
    )
        .prop_map(
            |(
                (ty, any_type),
                (offset, stride, extent, wio),
                bits,
                (d_kind, fifo, dsr_file, save),
            )| Raw {
                ty,
                any_type,
                offset,
                stride,
                extent,
                wio,
                bits,
                d_kind,
                fifo,
                dsr_file,
                save,
            },
        )
}

fn operand(
    pe: &mut Pe,
    letter: char,
    class: Option<Class>,
    r: &Raw,
    fifos: &[Operand],
) -> Option<Operand> {
    let admitted: Vec<usize> = (0..ARRAYS.len())
        .filter(|&k| r.any_type || class.is_none_or(|c| c.admits(ARRAYS[k].1)))
        .collect();
    let a = *admitted.get(r.ty % admitted.len().max(1))?;
    let (name, ty) = ARRAYS[a];
    Some(match letter {
        'S' => Operand::Scalar(Scalar::from_bits(ty, r.bits)),
        'P' => Operand::Ptr(pe.mem.element(name, u64::from(r.bits % 20)).ok()?),
        _ => match r.d_kind {
            1 => fifos[r.fifo].clone(),
            2 => {
                let base = pe.mem.base(name).ok()?;
                let d = Mem1d::new(base, r.offset, r.stride.clamp(-3, 3), 8)
                    .ok()?
                    .into();
                let file = [DsrFile::Dest, DsrFile::Src0, DsrFile::Src1][r.dsr_file];
                Operand::Dsr(pe.load_to_dsr(file, &d, r.save).ok()?)
            }
            _ => {
                let base = pe.mem.base(name).ok()?;
                Mem1d::new(base, r.offset, r.stride, r.extent)
                    .ok()?
                    .with_wavelet_index_offset(r.wio)
                    .into()
            }
        },
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_operations_never_panic(
        op in 0..Op::ALL.len(),
        form in any::<prop::sample::Index>(),
        raws in proptest::collection::vec(raw(), 4),
        index in proptest::option::of(any::<u16>()),
        lengths in (0u16..50, 0u16..50),
        wse3 in any::<bool>(),
        strict in any::<bool>(),
        bf16 in any::<bool>(),
    ) {
        let arch = if wse3 { Arch::Wse3 } else { Arch::Wse2 };
        let mut pe = Pe::new(arch);
        if strict {
            pe.length_policy = LengthPolicy::Strict;
        }
        if bf16 {
            pe.fp16 = Fp16Format::Bf16;
        }
        for (name, ty) in ARRAYS {
            pe.mem.declare(name, ty, &[16]).unwrap_or_else(|e| panic!("{e}"));
        }
        pe.mem.declare("qa", ElemTy::I16, &[4]).unwrap_or_else(|e| panic!("{e}"));
        pe.mem.declare("qb", ElemTy::F32, &[3]).unwrap_or_else(|e| panic!("{e}"));
        let terminate = FifoConfig { empty_action: Some(FifoAction::Terminate), ..FifoConfig::default() };
        let fa = pe.allocate_fifo("qa", FifoConfig::default()).unwrap_or_else(|e| panic!("{e}"));
        let fb = pe.allocate_fifo("qb", terminate).unwrap_or_else(|e| panic!("{e}"));
        let _ = pe.set_fifo_read_length(fa, i64::from(lengths.0));
        let _ = pe.set_fifo_write_length(fb, i64::from(lengths.1));
        let fifos = [Operand::Fifo(fa), Operand::Fifo(fb)];
        let op = Op::ALL[op];
        let letters = form.get(op.forms());
        let classes: Vec<Class> = std::iter::once(op.dest_class())
            .chain(op.source_classes().iter().copied())
            .collect();
        let mut ops = Vec::new();
        for (k, letter) in letters.chars().enumerate() {
            if let Some(o) = operand(&mut pe, letter, classes.get(k).copied(), &raws[k], &fifos) {
                ops.push(o);
            }
        }
        prop_assume!(!ops.is_empty());
        let cfg = OpConfig { index };
        let _ = pe.exec(op, &ops[0], &ops[1..], &cfg);
        // run it twice: FIFO and DSR state carried over
        let _ = pe.exec(op, &ops[0], &ops[1..], &cfg);
        let _ = pe.map(&ops[1..], Some(&ops[0]), |v| v.first().copied().unwrap_or(Scalar::u16(0)));
    }
}

#[test]
fn the_random_operations_reach_the_engine() {
    // the generator is seen to exercise the engine, not only the validation
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::with_cases(300),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let ok_runs = AtomicU64::new(0);
    let strategy = (
        0..Op::ALL.len(),
        any::<prop::sample::Index>(),
        proptest::collection::vec(raw(), 4),
    );
    let result = runner.run(&strategy, |(op, form, raws)| {
        let mut pe = Pe::new(Arch::Wse3);
        for (name, ty) in ARRAYS {
            pe.mem
                .declare(name, ty, &[16])
                .unwrap_or_else(|e| panic!("{e}"));
        }
        pe.mem
            .declare("qa", ElemTy::I16, &[4])
            .unwrap_or_else(|e| panic!("{e}"));
        let fa = pe
            .allocate_fifo("qa", FifoConfig::default())
            .unwrap_or_else(|e| panic!("{e}"));
        let fifos = [Operand::Fifo(fa), Operand::Fifo(fa)];
        let op = Op::ALL[op];
        let classes: Vec<Class> = std::iter::once(op.dest_class())
            .chain(op.source_classes().iter().copied())
            .collect();
        let ops: Vec<Operand> = form
            .get(op.forms())
            .chars()
            .enumerate()
            .filter_map(|(k, l)| operand(&mut pe, l, classes.get(k).copied(), &raws[k], &fifos))
            .collect();
        if !ops.is_empty()
            && pe
                .exec(op, &ops[0], &ops[1..], &OpConfig::default())
                .is_ok()
        {
            ok_runs.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    });
    assert!(result.is_ok());
    let ran = ok_runs.load(Ordering::Relaxed);
    println!("{ran} of 300 random operations ran to a result");
    assert!(
        ran >= 30,
        "only {ran} of 300 random operations ran to a result"
    );
}
