//! Spec §12 goldens A–D that need no fabric, and seed 004's operation fragments.

#![allow(clippy::unwrap_used)]

use crate::common::in_queue;
use half::f16;
use npusim_cerebras::dsd::{
    CircBuf, Dsd, FifoAction, FifoConfig, MemProps, get_mem1d, increment_dsd_offset,
    set_dsd_base_addr,
};
use npusim_cerebras::ops::{Op, OpError, Operand, Scalar};
use npusim_cerebras::pe::{DsrFile, LengthPolicy, OpConfig, Pe};
use npusim_cerebras::{Arch, ElemTy};

fn pe() -> Pe {
    Pe::new(Arch::Wse2)
}

fn h(v: &[f32]) -> Vec<f16> {
    v.iter().map(|&x| f16::from_f32(x)).collect()
}

fn ptr(pe: &Pe, name: &str) -> Operand {
    Operand::Ptr(pe.mem.element(name, 0).unwrap())
}

#[test]
fn g01_g02_contiguous_and_odd_elements() {
    let mut pe = pe();
    pe.mem
        .declare_with("array", &[10], &(0..10).collect::<Vec<u16>>())
        .unwrap();
    pe.mem.declare("out", ElemTy::U16, &[10]).unwrap();
    let src = pe.mem.mem1d("|i|{10} -> array[i]").unwrap();
    let dst = pe.mem.mem1d("|i|{10} -> out[i]").unwrap();
    assert!(pe.mov16(&dst, &src).unwrap().completed);
    assert_eq!(
        pe.mem.read::<u16>("out").unwrap(),
        (0..10).collect::<Vec<_>>()
    );
    let odd = pe.mem.mem1d("|i|{5} -> array[2 * i + 1]").unwrap();
    pe.add16(&odd, &odd, Scalar::u16(100)).unwrap();
    assert_eq!(
        pe.mem.read::<u16>("array").unwrap(),
        [0, 101, 2, 103, 4, 105, 6, 107, 8, 109]
    );
}

#[test]
fn g03_single_element_stride_zero() {
    let mut pe = pe();
    pe.mem
        .declare_with("array", &[10], &[7u16, 1, 2, 3, 4, 5, 6, 7, 8, 9])
        .unwrap();
    pe.mem.declare("out", ElemTy::U16, &[10]).unwrap();
    pe.mem
        .declare_with("src", &[10], &(0..10).collect::<Vec<u16>>())
        .unwrap();
    let first = pe.mem.mem1d("|i|{10} -> array[0]").unwrap();
    let out = pe.mem.mem1d("|i|{10} -> out[i]").unwrap();
    pe.mov16(&out, &first).unwrap();
    assert_eq!(pe.mem.read::<u16>("out").unwrap(), [7; 10]);
    let src = pe.mem.mem1d("|i|{10} -> src[i]").unwrap();
    pe.mov16(&first, &src).unwrap();
    assert_eq!(
        pe.mem.read::<u16>("array").unwrap(),
        [9, 1, 2, 3, 4, 5, 6, 7, 8, 9]
    );
}

#[test]
fn g04_diagonal_with_a_scalar_source() {
    let mut pe = pe();
    pe.mem.declare("array", ElemTy::U16, &[20, 20]).unwrap();
    let diag = pe.mem.mem1d("|i|{20} -> array[i,i]").unwrap();
    let o = pe.mov16(&diag, Scalar::u16(7)).unwrap();
    assert_eq!(o.elements, 20);
    let a = pe.mem.read::<u16>("array").unwrap();
    for (k, v) in a.iter().enumerate() {
        assert_eq!(*v, if k % 21 == 0 { 7 } else { 0 }, "element {k}");
    }
}

#[test]
fn g07_runtime_fields_negative_stride() {
    let mut pe = pe();
    pe.mem
        .declare_with("B", &[10], &(0..10).collect::<Vec<i16>>())
        .unwrap();
    pe.mem.declare("out", ElemTy::I16, &[4]).unwrap();
    let d = get_mem1d(MemProps {
        base_address: Some(pe.mem.element("B", 9).unwrap()),
        stride: Some(vec![-1]),
        extent: Some(vec![4]),
        ..MemProps::default()
    })
    .unwrap();
    let out = pe.mem.mem1d("|i|{4} -> out[i]").unwrap();
    pe.mov16(&out, &d).unwrap();
    assert_eq!(pe.mem.read::<i16>("out").unwrap(), [9, 8, 7, 6]);
}

#[test]
fn g08_g09_wavelet_index_offset_with_add16() {
    let mut pe = pe();
    pe.mem
        .declare_with("array", &[16], &(0..16).collect::<Vec<u16>>())
        .unwrap();
    let d: Operand = pe
        .mem
        .mem1d("|i|{10} -> array[i]")
        .unwrap()
        .with_wavelet_index_offset(true)
        .into();
    let cfg = OpConfig { index: Some(3) };
    pe.exec(Op::Add16, &d, &[d.clone(), Scalar::u16(42).into()], &cfg)
        .unwrap();
    assert_eq!(
        pe.mem.read::<u16>("array").unwrap(),
        [0, 1, 2, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 13, 14, 15]
    );
    let e = pe.add16(d.clone(), d, Scalar::u16(42)).unwrap_err();
    assert!(matches!(e, OpError::MissingIndex { .. }), "{e}");
}

#[test]
fn g17_set_dsd_base_addr_resets_the_offset() {
    let mut pe = pe();
    pe.mem.declare("X", ElemTy::I16, &[8]).unwrap();
    pe.mem
        .declare_with("Y", &[8], &(10..18).collect::<Vec<i16>>())
        .unwrap();
    pe.mem.declare("out", ElemTy::I16, &[4]).unwrap();
    let d: Dsd = pe.mem.mem1d("|i|{4} -> X[2*i+1]").unwrap().into();
    let d2 = set_dsd_base_addr(&d, pe.mem.base("Y").unwrap()).unwrap();
    let out = pe.mem.mem1d("|i|{4} -> out[i]").unwrap();
    pe.mov16(&out, &d2).unwrap();
    assert_eq!(pe.mem.read::<i16>("out").unwrap(), [10, 12, 14, 16]);
}

#[test]
fn g19_g20_g21_circular_buffers_through_a_dsr() {
    let mut pe = pe();
    pe.mem
        .declare_with(
            "buffer",
            &[10],
            &h(&(0..10).map(|x| x as f32).collect::<Vec<_>>()),
        )
        .unwrap();
    pe.mem.declare("out", ElemTy::F16, &[20]).unwrap();
    let out = pe.mem.mem1d("|i|{20} -> out[i]").unwrap();
    let c1 = CircBuf::new(pe.mem.base("buffer").unwrap(), 20, None).unwrap();
    let dsr = pe.load_to_dsr_xdsr(DsrFile::Src1, &c1, false).unwrap();
    pe.fmovh(&out, dsr).unwrap();
    let want: Vec<f32> = (0..10).chain(0..10).map(|x| x as f32).collect();
    assert_eq!(pe.mem.read::<f16>("out").unwrap(), h(&want));
    let c2 = CircBuf::new(pe.mem.base("buffer").unwrap(), 20, Some(5)).unwrap();
    let dsr = pe.load_to_dsr_xdsr(DsrFile::Src0, &c2, false).unwrap();
    pe.fmovh(&out, dsr).unwrap();
    assert_eq!(
        pe.mem.read::<f16>("out").unwrap(),
        h(&[0., 1., 2., 3., 4.].repeat(4))
    );
    // circbuf passed directly is an error
    let e = pe.fmovh(&out, Dsd::CircBuf(c1)).unwrap_err();
    assert!(e.to_string().contains("only through a DSR"), "{e}");
}

#[test]
fn g22_save_address_chunks() {
    let mut pe = pe();
    pe.mem
        .declare_with("in", &[12], &(0..12).collect::<Vec<i16>>())
        .unwrap();
    pe.mem.declare("out", ElemTy::I16, &[12]).unwrap();
    let i: Dsd = pe.mem.mem1d("|i|{4} -> in[i]").unwrap().into();
    let o: Dsd = pe.mem.mem1d("|i|{4} -> out[i]").unwrap().into();
    let si = pe.load_to_dsr(DsrFile::Src1, &i, true).unwrap();
    let so = pe.load_to_dsr(DsrFile::Dest, &o, true).unwrap();
    for _ in 0..3 {
        pe.mov16(so, si).unwrap();
    }
    assert_eq!(
        pe.mem.read::<i16>("out").unwrap(),
        (0..12).collect::<Vec<_>>()
    );
    // a dest DSR cannot be a source
    assert!(pe.mov16(si, so).is_err());
}

#[test]
fn g22_save_address_on_a_mem4d_continues_in_the_outermost_dimension() {
    // a 2 x 3 block of a 4 x 6 array, walked in chunks: each operation moves the DSR past the
    // rows it used, so two operations copy the 3 first columns of all four rows
    let (rows, cols) = (4u64, 6u64);
    let mut pe = pe();
    let data: Vec<i16> = (0..(rows * cols) as i16).collect();
    pe.mem.declare_with("in", &[rows, cols], &data).unwrap();
    pe.mem.declare("out", ElemTy::I16, &[12]).unwrap();
    let block = pe.mem.mem4d("|i,j|{2,3} -> in[i, j]").unwrap();
    assert_eq!(block.stride, [1, 4]);
    let o: Dsd = pe.mem.mem1d("|i|{6} -> out[i]").unwrap().into();
    let si = pe.load_to_dsr_xdsr_sr(DsrFile::Src1, &block, true).unwrap();
    let so = pe.load_to_dsr(DsrFile::Dest, &o, true).unwrap();
    pe.mov16(so, si).unwrap();
    pe.mov16(so, si).unwrap();
    let want: Vec<i16> = (0..rows as i16)
        .flat_map(|r| (0..3).map(move |c| r * cols as i16 + c))
        .collect();
    assert_eq!(pe.mem.read::<i16>("out").unwrap(), want);
    // without save_address the DSR stays put
    let fixed = pe
        .load_to_dsr_xdsr_sr(DsrFile::Src1, &block, false)
        .unwrap();
    let so = pe.load_to_dsr(DsrFile::Dest, &o, false).unwrap();
    pe.mov16(so, fixed).unwrap();
    pe.mov16(so, fixed).unwrap();
    assert_eq!(pe.mem.read::<i16>("out").unwrap()[..6], [0, 1, 2, 6, 7, 8]);
}

#[test]
fn g23_pointer_to_scalar_destination_keeps_the_last_element() {
    let mut pe = pe();
    pe.mem
        .declare_with("src_array", &[8], &h(&[0., 1., 2., 3., 4., 5., 6., 7.]))
        .unwrap();
    pe.mem.declare("dst_array", ElemTy::F16, &[1]).unwrap();
    pe.mem.declare("dst_scalar", ElemTy::F16, &[1]).unwrap();
    let src = pe.mem.mem1d("|i|{4} -> src_array[2*i]").unwrap();
    let dst = pe.mem.mem1d("|i|{4} -> dst_array[0]").unwrap();
    pe.fmovh(&dst, &src).unwrap();
    assert_eq!(pe.mem.read::<f16>("dst_array").unwrap(), h(&[6.0]));
    let p = ptr(&pe, "dst_scalar");
    pe.fmovh(p, &src).unwrap();
    assert_eq!(
        pe.mem.read::<u16>("dst_scalar").unwrap_err().to_string(),
        "array `dst_scalar` holds f16, not u16"
    );
    assert_eq!(
        pe.mem.read::<f16>("dst_scalar").unwrap()[0].to_bits(),
        0x4600
    );
}

#[test]
fn g24_g25_register_reductions() {
    // [INF] the accumulating pointer form (spec §0.7, §2.10): not a seed case
    let mut pe = pe();
    pe.mem.declare_with("result", &[1], &h(&[1.0])).unwrap();
    pe.mem
        .declare_with("buf", &[3], &h(&[100., 250., 349.]))
        .unwrap();
    let buf = pe.mem.mem1d("|i|{3} -> buf[i]").unwrap();
    let r = ptr(&pe, "result");
    pe.faddh(r, Scalar::f16(1.0), &buf).unwrap();
    assert_eq!(pe.mem.read::<f16>("result").unwrap()[0].to_bits(), 0x6178);
    pe.mem
        .declare_with("z", &[4], &[3.0f32, -1.0, 7.0, 2.0])
        .unwrap();
    pe.mem.declare("m", ElemTy::F32, &[1]).unwrap();
    let z = pe.mem.mem1d("|i|{4} -> z[i]").unwrap();
    let m = ptr(&pe, "m");
    pe.fmaxs(m.clone(), Scalar::f32(f32::NEG_INFINITY), &z)
        .unwrap();
    assert_eq!(pe.mem.read::<f32>("m").unwrap(), [7.0]);
    // min idiom
    pe.fnegs(&z, &z).unwrap();
    pe.fmaxs(m, Scalar::f32(f32::NEG_INFINITY), &z).unwrap();
    assert_eq!(pe.mem.read::<f32>("m").unwrap(), [1.0]);
    pe.fnegs(&z, &z).unwrap();
    assert_eq!(pe.mem.read::<f32>("z").unwrap(), [3.0, -1.0, 7.0, 2.0]);
}

#[test]
fn g26_the_length_rule() {
    let mut pe = pe();
    pe.mem.declare("dst", ElemTy::I16, &[8]).unwrap();
    pe.mem.declare_with("src", &[3], &[1i16, 2, 3]).unwrap();
    let dst = pe.mem.mem1d("|i|{8} -> dst[i]").unwrap();
    let src = pe.mem.mem1d("|i|{3} -> src[i]").unwrap();
    assert_eq!(pe.mov16(&dst, &src).unwrap().elements, 3);
    assert_eq!(pe.mem.read::<i16>("dst").unwrap(), [1, 2, 3, 0, 0, 0, 0, 0]);
    let d5 = pe.mem.mem1d("|i|{5} -> dst[i]").unwrap();
    assert_eq!(pe.mov16(&d5, Scalar::i16(9)).unwrap().elements, 5);
    assert_eq!(pe.mem.read::<i16>("dst").unwrap(), [9, 9, 9, 9, 9, 0, 0, 0]);
    pe.mem.declare("d", ElemTy::F32, &[4]).unwrap();
    pe.mem
        .declare_with("a", &[4], &[1.0f32, 2.0, 3.0, 4.0])
        .unwrap();
    pe.mem
        .declare_with("b", &[4], &[10.0f32, 20.0, 30.0, 40.0])
        .unwrap();
    let d2 = pe.mem.mem1d("|i|{2} -> d[i]").unwrap();
    let a = pe.mem.mem1d("|i|{4} -> a[i]").unwrap();
    let b = pe.mem.mem1d("|i|{4} -> b[i]").unwrap();
    assert_eq!(
        pe.fadds(&d2, &a, &b).unwrap().elements,
        4,
        "the destination is over-run"
    );
    assert_eq!(pe.mem.read::<f32>("d").unwrap(), [11.0, 22.0, 33.0, 44.0]);
    pe.length_policy = LengthPolicy::Strict;
    let e = pe.fadds(&d2, &a, &b).unwrap_err();
    assert!(
        matches!(
            e,
            OpError::LengthMismatch {
                length: 2,
                governing: 4,
                ..
            }
        ),
        "{e}"
    );
    pe.length_policy = LengthPolicy::HardwarePriority;
    pe.mem.declare("s", ElemTy::F32, &[1]).unwrap();
    let a3 = pe.mem.mem1d("|i|{3} -> a[i]").unwrap();
    pe.fmovs(ptr(&pe, "s"), &a3).unwrap();
    assert_eq!(pe.mem.read::<f32>("s").unwrap(), [3.0]);
}

#[test]
fn g28_fmach_with_index_offset() {
    let mut pe = pe();
    let a: Vec<f32> = (0..32).map(|k| k as f32 / 8.0).collect();
    pe.mem.declare_with("A", &[8, 4], &h(&a)).unwrap();
    pe.mem.declare("mt", ElemTy::F16, &[8]).unwrap();
    let dsd_a: Operand = pe
        .mem
        .mem1d("|i|{8} -> A[i, 0]")
        .unwrap()
        .with_wavelet_index_offset(true)
        .into();
    let mt: Operand = pe.mem.mem1d("|i|{8} -> mt[i]").unwrap().into();
    for j in 0..4u16 {
        let cfg = OpConfig { index: Some(j) };
        let x = Scalar::f16(f32::from(j + 1));
        pe.exec(Op::Fmach, &mt, &[mt.clone(), dsd_a.clone(), x.into()], &cfg)
            .unwrap();
    }
    assert_eq!(
        pe.mem.read::<f16>("mt").unwrap(),
        h(&[2.5, 7.5, 12.5, 17.5, 22.5, 27.5, 32.5, 37.5])
    );
}

#[test]
fn g29_mem4d_reduction_into_a_shorter_vector() {
    let mut pe = pe();
    pe.mem
        .declare_with(
            "buffer",
            &[4, 3, 6],
            &(0..72).map(|x| x as f32).collect::<Vec<_>>(),
        )
        .unwrap();
    pe.mem.declare("acc", ElemTy::F32, &[6]).unwrap();
    let buf = pe.mem.mem4d("|i,j,k|{4,3,6} -> buffer[i,j,k]").unwrap();
    let acc = pe.mem.mem4d("|i,j,k|{4,3,6} -> acc[k]").unwrap();
    pe.fadds(&acc, &acc, &buf).unwrap();
    assert_eq!(
        pe.mem.read::<f32>("acc").unwrap(),
        [396.0, 408.0, 420.0, 432.0, 444.0, 456.0]
    );
}

#[test]
fn g30_sixteen_bit_integer_semantics() {
    let mut pe = pe();
    let mut run = |op: Op, input: &[u16], b: Option<u16>| -> Vec<u16> {
        let id =
            format!("a{:?}{:?}{:?}", op, input, b).replace([' ', ',', '[', ']', '(', ')'], "_");
        pe.mem
            .declare_with(&id, &[input.len() as u64], input)
            .unwrap();
        let d: Operand = pe
            .mem
            .mem1d(&format!("|i|{{{}}} -> {id}[i]", input.len()))
            .unwrap()
            .into();
        let srcs: Vec<Operand> = match b {
            Some(b) => vec![d.clone(), Scalar::u16(b).into()],
            None => vec![d.clone()],
        };
        pe.exec(op, &d, &srcs, &OpConfig::default()).unwrap();
        pe.mem.read::<u16>(&id).unwrap()
    };
    assert_eq!(run(Op::Add16, &[0x7FFF, 0xFFFF], Some(1)), [0x8000, 0x0000]);
    assert_eq!(run(Op::Add16, &[0xFFFF], Some(2)), [0x0001]);
    assert_eq!(
        run(Op::Sll16, &[0x0001, 0x1001, 0x8000], Some(3)),
        [0x0008, 0x8008, 0x0000]
    );
    assert_eq!(
        run(Op::Slr16, &[0x00F0, 0x8000, 0xFFFF], Some(4)),
        [0x000F, 0x0800, 0x0FFF]
    );
    assert_eq!(
        run(Op::Sar16, &[0x00F0, 0x8000, 0xFFFF], Some(4)),
        [0x000F, 0xF800, 0xFFFF]
    );
    assert_eq!(
        run(Op::Popcnt, &[0, 1, 0xFFFF, 0x00F0], None),
        [0, 1, 16, 4]
    );
    assert_eq!(run(Op::Clz, &[0, 1, 0xFFFF, 0x00F0], None), [16, 15, 0, 8]);
    assert_eq!(run(Op::Ctz, &[0, 1, 0xFFFF, 0x00F0], None), [16, 0, 0, 4]);
}

#[test]
fn g31_map_sqrt_on_the_diagonal_and_reductions() {
    let mut pe = pe();
    pe.mem.declare_with("A", &[5, 5], &[42.0f32; 25]).unwrap();
    pe.mem.declare("out", ElemTy::F32, &[5]).unwrap();
    let diag = pe.mem.mem1d("|i|{5} -> A[i,i]").unwrap();
    let out = pe.mem.mem1d("|i|{5} -> out[i]").unwrap();
    pe.map(&[diag.into()], Some(&out.into()), |v| {
        Scalar::f32(v[0].as_f32().sqrt())
    })
    .unwrap();
    assert!(
        pe.mem
            .read::<f32>("out")
            .unwrap()
            .iter()
            .all(|&x| x == 6.480_740_5_f32)
    );
    pe.mem
        .declare_with("B", &[5], &[10i32, 20, 30, 40, 50])
        .unwrap();
    pe.mem.declare("sum", ElemTy::I32, &[1]).unwrap();
    let b = pe.mem.mem1d("|i|{5} -> B[i]").unwrap();
    let sum = ptr(&pe, "sum");
    pe.map(&[b.into(), sum.clone()], Some(&sum), |v| {
        Scalar::i32((v[0].as_i64() + v[1].as_i64()) as i32)
    })
    .unwrap();
    assert_eq!(pe.mem.read::<i32>("sum").unwrap(), [150]);
    // mismatched lengths: the loop stops at the first exhausted operand
    pe.mem.declare("o5", ElemTy::F32, &[5]).unwrap();
    let o5 = pe.mem.mem1d("|i|{5} -> o5[i]").unwrap();
    let a3 = pe.mem.mem1d("|i|{3} -> A[i, 0]").unwrap();
    let o = pe
        .map(&[o5.clone().into(), a3.into()], Some(&o5.into()), |v| {
            Scalar::f32(v[1].as_f32() + 1.0)
        })
        .unwrap();
    assert_eq!(o.elements, 3);
    assert_eq!(
        pe.mem.read::<f32>("o5").unwrap(),
        [43.0, 43.0, 43.0, 0.0, 0.0]
    );
}

/// Spec §4.6: `@map` takes memory DSDs (directly or through a DSR), scalars and pointers. A
/// DSR holding a fabric DSD is refused like the fabric DSD itself (it used to read zeros and
/// leave the queue untouched).
#[test]
fn map_refuses_a_dsr_holding_a_fabric_dsd() {
    let mut pe = pe();
    pe.mem.declare("out", ElemTy::U32, &[2]).unwrap();
    let out = pe.mem.mem1d("|i|{2} -> out[i]").unwrap();
    let fin = npusim_cerebras::dsd::FabIn::new(Arch::Wse2, 2, Some(in_queue(1)), Some(3)).unwrap();
    let dsr = pe
        .load_to_dsr(
            DsrFile::Src0,
            &npusim_cerebras::dsd::Dsd::FabIn(fin.clone()),
            false,
        )
        .unwrap();
    let e = pe
        .map(&[dsr.into()], Some(&out.clone().into()), |v| v[0])
        .unwrap_err();
    assert!(
        matches!(&e, OpError::Kind { op: "map", position, .. } if position == "argument 0"),
        "{e}"
    );
    let e = pe
        .map(&[fin.into()], Some(&out.into()), |v| v[0])
        .unwrap_err();
    assert!(matches!(&e, OpError::Kind { op: "map", .. }), "{e}");
}

fn fifo_pe(elems: u64, cfg: FifoConfig) -> (Pe, npusim_cerebras::ops::FifoId) {
    let mut pe = pe();
    pe.mem
        .declare("fifo_buffer", ElemTy::I16, &[elems])
        .unwrap();
    let f = pe.allocate_fifo("fifo_buffer", cfg).unwrap();
    (pe, f)
}

#[test]
fn g32_g33_g34_g35_fifo_reads() {
    let (mut pe, f) = fifo_pe(8, FifoConfig::default());
    pe.mem.declare_with("src", &[3], &[5i16, 6, 7]).unwrap();
    pe.mem.declare("dst", ElemTy::I16, &[5]).unwrap();
    pe.mem.declare_with("p", &[1], &[77i16]).unwrap();
    let src = pe.mem.mem1d("|i|{3} -> src[i]").unwrap();
    let dst3 = pe.mem.mem1d("|i|{3} -> dst[i]").unwrap();
    assert!(pe.mov16(f, &src).unwrap().completed);
    assert!(pe.mov16(&dst3, f).unwrap().completed);
    assert_eq!(pe.mem.read::<i16>("dst").unwrap(), [5, 6, 7, 0, 0]);
    assert!(pe.fifo_contents(f).unwrap().is_empty());
    // empty, default action: false, read length = 3
    let o = pe.mov16(&dst3, f).unwrap();
    assert!(!o.completed);
    assert_eq!(pe.fifo(f).unwrap().read_length, 3);
    pe.set_fifo_read_length(f, 0).unwrap();
    assert!(!pe.mov16(ptr(&pe, "p"), f).unwrap().completed);
    assert_eq!(pe.mem.read::<i16>("p").unwrap(), [77]);
    // partial read then empty
    pe.set_fifo_read_length(f, 0).unwrap();
    let two = pe.mem.mem1d("|i|{2} -> src[i]").unwrap();
    pe.mov16(f, &two).unwrap();
    pe.mem.write("dst", &[0i16; 5]).unwrap();
    let dst5 = pe.mem.mem1d("|i|{5} -> dst[i]").unwrap();
    assert!(!pe.mov16(&dst5, f).unwrap().completed);
    assert_eq!(pe.mem.read::<i16>("dst").unwrap(), [5, 6, 0, 0, 0]);
    assert_eq!(pe.fifo(f).unwrap().read_length, 3);
    // terminate returns true
    let (mut pe, f) = fifo_pe(
        8,
        FifoConfig {
            empty_action: Some(FifoAction::Terminate),
            ..FifoConfig::default()
        },
    );
    pe.mem.declare("dst", ElemTy::I16, &[3]).unwrap();
    let dst3 = pe.mem.mem1d("|i|{3} -> dst[i]").unwrap();
    assert!(pe.mov16(&dst3, f).unwrap().completed);
}

#[test]
fn g36_write_to_a_full_fifo() {
    let (mut pe, f) = fifo_pe(4, FifoConfig::default());
    pe.mem
        .declare_with("src", &[6], &[1i16, 2, 3, 4, 5, 6])
        .unwrap();
    let src = pe.mem.mem1d("|i|{6} -> src[i]").unwrap();
    assert!(!pe.mov16(f, &src).unwrap().completed);
    assert_eq!(pe.fifo_contents(f).unwrap(), [1, 2, 3, 4]);
    assert_eq!(pe.fifo(f).unwrap().write_length, 2);
}

#[test]
fn g37_activate_push_only_after_an_empty_event() {
    let cfg = FifoConfig {
        activate_push: Some(push_task()),
        ..FifoConfig::default()
    };
    let (mut pe, f) = fifo_pe(4, cfg);
    pe.mem.declare("dst", ElemTy::I16, &[1]).unwrap();
    let dst = pe.mem.mem1d("|i|{1} -> dst[i]").unwrap();
    assert!(!pe.mov16(&dst, f).unwrap().completed);
    pe.set_fifo_read_length(f, 0).unwrap();
    assert_eq!(
        pe.mov16(f, Scalar::i16(5)).unwrap().activated,
        [push_task()]
    );
    assert!(pe.mov16(f, Scalar::i16(6)).unwrap().activated.is_empty());
}

#[test]
fn g37_mirror_activate_pop_only_after_a_full_event() {
    let cfg = FifoConfig {
        activate_pop: Some(pop_task()),
        ..FifoConfig::default()
    };
    let (mut pe, f) = fifo_pe(2, cfg);
    pe.mem.declare_with("src", &[3], &[1i16, 2, 3]).unwrap();
    pe.mem.declare("dst", ElemTy::I16, &[1]).unwrap();
    let src = pe.mem.mem1d("|i|{3} -> src[i]").unwrap();
    let dst = pe.mem.mem1d("|i|{1} -> dst[i]").unwrap();
    // no full event yet: a push then a pop activate nothing
    pe.mov16(f, Scalar::i16(9)).unwrap();
    assert!(pe.mov16(&dst, f).unwrap().activated.is_empty());
    // three pushes into two slots: full event, the operation returns false
    let o = pe.mov16(f, &src).unwrap();
    assert_eq!((o.completed, o.elements), (false, 2));
    pe.set_fifo_write_length(f, 0).unwrap();
    // the first pop makes room for the blocked push: P once; the next pop: nothing
    let o = pe.mov16(&dst, f).unwrap();
    assert_eq!(
        (
            o.activated.as_slice(),
            pe.mem.read::<i16>("dst").unwrap()[0]
        ),
        (&[pop_task()][..], 1)
    );
    let o = pe.mov16(&dst, f).unwrap();
    assert!(o.activated.is_empty());
    assert_eq!(pe.mem.read::<i16>("dst").unwrap(), [2]);
}

#[test]
fn g38_fifo_operand_rules_and_a_governing_read_length() {
    let mut pe = pe();
    pe.mem.declare("fb", ElemTy::F32, &[8]).unwrap();
    pe.mem.declare("fb2", ElemTy::F32, &[8]).unwrap();
    pe.mem.declare("m", ElemTy::F32, &[4]).unwrap();
    let fa = pe.allocate_fifo("fb", FifoConfig::default()).unwrap();
    let fb = pe.allocate_fifo("fb2", FifoConfig::default()).unwrap();
    let m = pe.mem.mem1d("|i|{4} -> m[i]").unwrap();
    let e = pe.fadds(&m, fa, &m).unwrap_err();
    assert!(e.to_string().contains("cannot be the first source"), "{e}");
    let e = pe.fadds(&m, fa, fb).unwrap_err();
    assert!(e.to_string().contains("at most one FIFO"), "{e}");
    assert!(
        pe.map(&[fa.into()], Some(&m.clone().into()), |v| v[0])
            .is_err()
    );
    assert!(
        pe.fmovs(fa, fb).is_ok(),
        "one source: two FIFOs allowed (spec §0.2)"
    );
    // a non-zero read length governs
    let (mut pe, f) = fifo_pe(8, FifoConfig::default());
    pe.mem.declare_with("src", &[3], &[9i16, 8, 7]).unwrap();
    pe.mem.declare("p", ElemTy::I16, &[1]).unwrap();
    let src = pe.mem.mem1d("|i|{3} -> src[i]").unwrap();
    pe.mov16(f, &src).unwrap();
    pe.set_fifo_read_length(f, 2).unwrap();
    pe.mov16(ptr(&pe, "p"), f).unwrap();
    assert_eq!(pe.mem.read::<i16>("p").unwrap(), [8]);
    assert_eq!(pe.fifo_contents(f).unwrap(), [7]);
}

#[test]
fn operand_kinds_and_types_are_checked() {
    let mut pe = pe();
    pe.mem.declare("a", ElemTy::F32, &[4]).unwrap();
    pe.mem.declare("u", ElemTy::U16, &[4]).unwrap();
    let a = pe.mem.mem1d("|i|{4} -> a[i]").unwrap();
    let u = pe.mem.mem1d("|i|{4} -> u[i]").unwrap();
    let e = pe.fmovh(&a, &a).unwrap_err();
    assert!(
        e.to_string().contains("destination is f32, expected f16"),
        "{e}"
    );
    assert!(matches!(
        pe.sub16(&u, Scalar::u16(1), &u),
        Err(OpError::Form { .. })
    ));
    assert!(matches!(
        pe.mov16(Scalar::u16(1), &u),
        Err(OpError::Form { .. })
    ));
    assert!(pe.mov16(&u, &a).is_err());
    // an access outside PE memory is an error
    let far = increment_dsd_offset(&Dsd::Mem1d(u.clone()), 30_000, ElemTy::U16).unwrap();
    let e = pe.mov16(far, Scalar::u16(1)).unwrap_err();
    assert!(e.to_string().contains("PE memory byte address"), "{e}");
}

#[test]
fn cycle_estimates_follow_the_simd_model() {
    let mut pe = Pe::new(Arch::Wse3);
    pe.mem.declare("a", ElemTy::F32, &[64]).unwrap();
    let a = pe.mem.mem1d("|i|{16} -> a[i]").unwrap();
    let o = pe.fadds(&a, &a, &a).unwrap();
    assert_eq!(o.cycles.total(), 4, "16 elements at width 4");
    let s8 = pe.mem.mem1d("|i|{8} -> a[8 * i]").unwrap();
    assert_eq!(
        pe.fadds(&s8, &s8, &s8).unwrap().cycles.total(),
        8,
        "stride 8: width 1"
    );
}

#[test]
fn cycle_model_widths_per_generation_stride_and_map() {
    use npusim_cerebras::pe::stride_width;
    // the stride rule of spec §4.7, out of a full width of 8
    let want = |s: i64| match s.rem_euclid(8) {
        _ if s == 0 || s == 1 => 8,
        2 | 3 | 5 | 6 => 8,
        0 => 1,
        _ => 2,
    };
    for s in -20..=20 {
        assert_eq!(stride_width(s, 8), want(s), "stride {s}");
    }
    for (arch, op, n) in [
        (Arch::Wse2, Op::Fmaxs, 12u64),
        (Arch::Wse3, Op::Fmaxs, 12),
        (Arch::Wse2, Op::Fadds, 12),
        (Arch::Wse3, Op::Faddh, 12),
    ] {
        let mut pe = Pe::new(arch);
        let ty = if op == Op::Faddh {
            ElemTy::F16
        } else {
            ElemTy::F32
        };
        pe.mem.declare("a", ty, &[8 * n]).unwrap();
        for stride in [1u64, 7, 8] {
            let d: Operand = pe
                .mem
                .mem1d(&format!("|i|{{{n}}} -> a[{stride} * i]"))
                .unwrap()
                .into();
            let o = pe
                .exec(op, &d, &[d.clone(), d.clone()], &OpConfig::default())
                .unwrap();
            let width = stride_width(stride as i64, op.simd_width(arch));
            assert_eq!(
                o.cycles.total(),
                n.div_ceil(width),
                "{op} on {arch}, stride {stride}"
            );
            assert_eq!(
                o.elements, n,
                "the estimate never changes the element count"
            );
        }
    }
    // the widths are spec §4.7's list, one element per cycle for an operation it omits
    let listed = "add16 4/8, addc16 1/8, and16 4/8, fabsh 4/8, fabss 2/4, faddh 4/8, \
        faddhs 2/4, fadds 2/4, fnormh 4/8, fnorms 2/4, fh2s 1/4, fh2xp16 1/8, fmach 4/8, \
        fmachs 2/4, fmaxh 1/8, fmaxs 1/4, fmovh 4/8, fmovs 2/4, fmulh 4/8, fnegh 4/8, \
        fnegs 2/4, fs2h 1/4, fs2xp16 1/4, fscaleh 4/8, fscales 2/4, fsubh 4/8, fsubs 2/4, \
        mov16 4/8, mov32 2/4, or16 4/8, sar16 1/4, sll16 1/4, slr16 1/4, sub16 4/8, \
        xor16 4/8, xp162fh 1/8, xp162fs 1/4";
    for op in Op::ALL {
        let entry = listed.split(", ").find_map(|e| {
            let (name, w) = e.split_once(' ')?;
            let (w2, w3) = w.split_once('/')?;
            (name == op.name()).then(|| (w2.parse::<u64>().ok(), w3.parse::<u64>().ok()))
        });
        let want = match entry {
            Some((Some(w2), Some(w3))) => (w2, w3),
            _ => (1, 1),
        };
        assert_eq!(
            (op.simd_width(Arch::Wse2), op.simd_width(Arch::Wse3)),
            want,
            "{op}"
        );
    }
    // @map: one element per cycle
    let mut pe = pe();
    pe.mem.declare("m", ElemTy::F32, &[6]).unwrap();
    let m: Operand = pe.mem.mem1d("|i|{6} -> m[i]").unwrap().into();
    let o = pe
        .map(std::slice::from_ref(&m), Some(&m), |v| v[0])
        .unwrap();
    assert_eq!(o.cycles.total(), 6);
}

#[test]
fn a_single_source_may_sit_in_either_source_dsr() {
    // spec §0.1: the seed loads @mov16's only source into dsr_src0
    let mut pe = pe();
    pe.mem.declare_with("src", &[4], &[1i16, 2, 3, 4]).unwrap();
    pe.mem.declare("dst", ElemTy::I16, &[4]).unwrap();
    let s: Dsd = pe.mem.mem1d("|i|{4} -> src[i]").unwrap().into();
    let d: Dsd = pe.mem.mem1d("|i|{4} -> dst[i]").unwrap().into();
    for file in [DsrFile::Src0, DsrFile::Src1] {
        pe.mem.write("dst", &[0i16; 4]).unwrap();
        let src = pe.load_to_dsr(file, &s, false).unwrap();
        let dst = pe.load_to_dsr(DsrFile::Dest, &d, false).unwrap();
        pe.mov16(dst, src).unwrap();
        assert_eq!(pe.mem.read::<i16>("dst").unwrap(), [1, 2, 3, 4]);
    }
    // dsr_src0 may also be the destination; dsr_src1 may not
    let d0 = pe.load_to_dsr(DsrFile::Src0, &d, false).unwrap();
    pe.mov16(d0, Scalar::i16(9)).unwrap();
    assert_eq!(pe.mem.read::<i16>("dst").unwrap(), [9; 4]);
    let d1 = pe.load_to_dsr(DsrFile::Src1, &d, false).unwrap();
    assert!(matches!(
        pe.mov16(d1, Scalar::i16(9)),
        Err(OpError::Kind { .. })
    ));
}

#[test]
fn seed_set_fifo_lengths_42_on_a_32_element_buffer_and_the_ring_wraps() {
    let (mut pe, f) = fifo_pe(32, FifoConfig::default());
    pe.mem
        .declare_with("src", &[42], &(1..=42).collect::<Vec<i16>>())
        .unwrap();
    pe.mem.declare("dst", ElemTy::I16, &[42]).unwrap();
    pe.set_fifo_write_length(f, 42).unwrap();
    // the FIFO's write length governs the scalar-sourced write: 32 fit, then full
    let o = pe.mov16(f, Scalar::i16(0)).unwrap();
    assert_eq!((o.completed, o.elements), (false, 32));
    assert_eq!(pe.fifo(f).unwrap().write_length, 10);
    pe.set_fifo_read_length(f, 42).unwrap();
    let dst = pe.mem.mem1d("|i|{42} -> dst[i]").unwrap();
    let o = pe.mov16(&dst, f).unwrap();
    assert_eq!((o.completed, o.elements), (false, 32));
    assert_eq!(pe.fifo(f).unwrap().read_length, 10);
    // pushes now wrap around the ring's end
    let src = pe.mem.mem1d("|i|{40} -> src[i]").unwrap();
    pe.set_fifo_write_length(f, 0).unwrap();
    pe.mov16(f, &src).unwrap();
    pe.set_fifo_read_length(f, 0).unwrap();
    let dst = pe.mem.mem1d("|i|{20} -> dst[i]").unwrap();
    pe.mov16(&dst, f).unwrap();
    assert_eq!(
        pe.mem.read::<i16>("dst").unwrap()[..20],
        (1..=20).collect::<Vec<_>>()[..]
    );
    assert_eq!(
        pe.fifo_contents(f).unwrap(),
        (21..=32).map(|v| v as u32).collect::<Vec<_>>()
    );
    // head is at slot 20 with 12 held: the next pushes land in slots 0.. of the buffer
    pe.set_fifo_write_length(f, 5).unwrap();
    pe.mov16(f, Scalar::i16(99)).unwrap();
    let mut want: Vec<u32> = (21..=32).collect();
    want.extend([99; 5]);
    assert_eq!(pe.fifo_contents(f).unwrap(), want);
    assert_eq!(pe.mem.read::<i16>("fifo_buffer").unwrap()[..5], [99; 5]);
}

#[test]
fn fifo_terminate_and_fault_actions_on_wse3() {
    let mut pe = Pe::new(Arch::Wse3);
    pe.mem.declare("fifo_buffer", ElemTy::I16, &[4]).unwrap();
    pe.mem
        .declare_with("src", &[6], &[1i16, 2, 3, 4, 5, 6])
        .unwrap();
    let cfg = FifoConfig {
        empty_action: Some(FifoAction::Terminate),
        full_action: Some(FifoAction::Fault),
        ..FifoConfig::default()
    };
    let f = pe.allocate_fifo("fifo_buffer", cfg).unwrap();
    let src = pe.mem.mem1d("|i|{6} -> src[i]").unwrap();
    let e = pe.mov16(f, &src).unwrap_err();
    assert!(matches!(e, OpError::FifoFault { state: "full", .. }), "{e}");
}

/// The local task a FIFO's `activate_pop` names in these tests.
fn pop_task() -> npusim_cerebras::ids::LocalTaskId {
    npusim_cerebras::ids::LocalTaskId::new(12).expect("a local task id")
}

/// The local task a FIFO's `activate_push` names in these tests.
fn push_task() -> npusim_cerebras::ids::LocalTaskId {
    npusim_cerebras::ids::LocalTaskId::new(13).expect("a local task id")
}
