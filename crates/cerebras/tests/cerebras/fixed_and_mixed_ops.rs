//! The operations of spec §4.2 whose details the documentation leaves open: `@addc16`,
//! `@faddhs`, `@fh2xp16` / `@fs2xp16`, `@fscaleh` / `@fscales`, `@fnormh` / `@fnorms`, and the
//! FP16 format parameter (bf16).

#![allow(clippy::unwrap_used)]

use half::f16;
use npusim_cerebras::ops::{Fp16Format, OpError, Operand, Scalar};
use npusim_cerebras::pe::Pe;
use npusim_cerebras::{Arch, ElemTy};

fn ptr(pe: &Pe, name: &str) -> Operand {
    Operand::Ptr(pe.mem.element(name, 0).unwrap())
}

fn words(v: &[u32]) -> Vec<u16> {
    v.iter()
        .flat_map(|&x| [x as u16, (x >> 16) as u16])
        .collect()
}

#[test]
fn addc16_over_little_endian_words_adds_wide_integers() {
    // one @addc16 over the 16-bit words of each 32-bit pair adds the pair exactly, when the
    // carry chains from word to word; the carry leaving the top word is dropped
    let pairs = [
        (0x0001_FFFFu32, 0x0000_0001u32),
        (0xFFFF_FFFF, 0x0000_0001),
        (0x1234_8000, 0x0FED_8000),
        (0x7FFF_FFFF, 0x7FFF_FFFF),
        (0, 0),
    ];
    for (a, b) in pairs {
        let mut pe = Pe::new(Arch::Wse3);
        pe.mem.declare_with("a", &[2], &words(&[a])).unwrap();
        pe.mem.declare_with("b", &[2], &words(&[b])).unwrap();
        pe.mem.declare("s", ElemTy::U16, &[2]).unwrap();
        let (da, db, ds) = (
            pe.mem.mem1d("|i|{2} -> a[i]").unwrap(),
            pe.mem.mem1d("|i|{2} -> b[i]").unwrap(),
            pe.mem.mem1d("|i|{2} -> s[i]").unwrap(),
        );
        pe.addc16(&ds, &da, &db).unwrap();
        assert_eq!(
            pe.mem.read::<u16>("s").unwrap(),
            words(&[a.wrapping_add(b)]),
            "{a:#x} + {b:#x}"
        );
        // add16 alone drops the carry between the words
        pe.add16(&ds, &da, &db).unwrap();
        let lo = (a as u16).wrapping_add(b as u16);
        let hi = ((a >> 16) as u16).wrapping_add((b >> 16) as u16);
        assert_eq!(pe.mem.read::<u16>("s").unwrap(), [lo, hi]);
    }
}

#[test]
fn addc16_carry_starts_at_zero_in_every_operation_and_uses_its_simd_width() {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare_with("a", &[8], &[0xFFFFu16; 8]).unwrap();
    pe.mem.declare("s", ElemTy::U16, &[8]).unwrap();
    let (a, s) = (
        pe.mem.mem1d("|i|{8} -> a[i]").unwrap(),
        pe.mem.mem1d("|i|{8} -> s[i]").unwrap(),
    );
    let o = pe.addc16(&s, Scalar::u16(1), &a).unwrap();
    // 0xFFFF + 1 + 0 = 0 carry 1, then 0xFFFF + 1 + 1 = 1 carry 1, ...
    let mut want = vec![1u16; 8];
    want[0] = 0;
    assert_eq!(pe.mem.read::<u16>("s").unwrap(), want);
    assert_eq!(o.cycles.total(), 8, "addc16 is width 1 on WSE-2");
    let o = pe.addc16(&s, Scalar::u16(1), &a).unwrap();
    assert_eq!(
        pe.mem.read::<u16>("s").unwrap(),
        want,
        "no carry kept between operations"
    );
    assert_eq!(o.elements, 8);
}

#[test]
fn faddhs_adds_an_f16_to_an_f32_with_one_rounding() {
    let a = [1.0f32, 16_777_216.0, -3.25, 1.0e-3, 65_504.0, 0.1];
    let b = [0.5f32, 1.0, 3.25, 2.0e-3, 65_504.0, 1.0e-4];
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare_with("a", &[6], &a).unwrap();
    let bh: Vec<f16> = b.iter().map(|&x| f16::from_f32(x)).collect();
    pe.mem.declare_with("b", &[6], &bh).unwrap();
    pe.mem.declare("y", ElemTy::F32, &[6]).unwrap();
    let (da, db, dy) = (
        pe.mem.mem1d("|i|{6} -> a[i]").unwrap(),
        pe.mem.mem1d("|i|{6} -> b[i]").unwrap(),
        pe.mem.mem1d("|i|{6} -> y[i]").unwrap(),
    );
    pe.faddhs(&dy, &da, &db).unwrap();
    // the f16 widens exactly; the host's f32 addition rounds once, like the model
    let want: Vec<u32> = a
        .iter()
        .zip(&bh)
        .map(|(&x, y)| (x + y.to_f32()).to_bits())
        .collect();
    let got: Vec<u32> = pe
        .mem
        .read::<f32>("y")
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    assert_eq!(got, want);
    // (*f, f, D): a register reduction of f16 values into an f32 accumulator
    pe.mem.declare("acc", ElemTy::F32, &[1]).unwrap();
    let acc = ptr(&pe, "acc");
    pe.faddhs(acc, Scalar::f32(0.25), &db).unwrap();
    let sum = bh.iter().fold(0.25f32, |s, y| s + y.to_f32());
    assert_eq!(
        pe.mem.read::<f32>("acc").unwrap()[0].to_bits(),
        sum.to_bits()
    );
    // the 16-bit operand is the second source
    let e = pe.faddhs(&dy, &db, &da).unwrap_err();
    assert!(matches!(e, OpError::Type { .. }), "{e}");
    assert!(
        e.to_string().contains("source 0 is f16, expected f32"),
        "{e}"
    );
}

fn nearest_even_saturating(x: f64) -> i16 {
    if x.is_nan() {
        0
    } else {
        x.round_ties_even().clamp(-32768.0, 32767.0) as i16
    }
}

#[test]
fn float_to_xp16_rounds_to_nearest_even_and_saturates() {
    let xs = [
        0.5f32,
        1.5,
        2.5,
        -2.5,
        -0.5,
        7.49,
        -7.51,
        32767.4,
        32768.0,
        -32768.6,
        1.0e9,
        f32::NEG_INFINITY,
    ];
    let mut pe = Pe::new(Arch::Wse3);
    pe.mem.declare_with("x", &[12], &xs).unwrap();
    pe.mem.declare("q", ElemTy::I16, &[12]).unwrap();
    let (dx, dq) = (
        pe.mem.mem1d("|i|{12} -> x[i]").unwrap(),
        pe.mem.mem1d("|i|{12} -> q[i]").unwrap(),
    );
    pe.fs2xp16(&dq, &dx).unwrap();
    let want: Vec<i16> = xs
        .iter()
        .map(|&x| nearest_even_saturating(f64::from(x)))
        .collect();
    assert_eq!(pe.mem.read::<i16>("q").unwrap(), want);

    let hs: Vec<f16> = [0.5f32, 1.5, -2.5, 1000.5, 65504.0, -65504.0, 3.25, -0.0]
        .iter()
        .map(|&x| f16::from_f32(x))
        .collect();
    pe.mem.declare_with("h", &[8], &hs).unwrap();
    let dh = pe.mem.mem1d("|i|{8} -> h[i]").unwrap();
    let dq8 = pe.mem.mem1d("|i|{8} -> q[i]").unwrap();
    pe.fh2xp16(&dq8, &dh).unwrap();
    let want: Vec<i16> = hs
        .iter()
        .map(|h| nearest_even_saturating(h.to_f64()))
        .collect();
    assert_eq!(pe.mem.read::<i16>("q").unwrap()[..8], want[..]);

    // (*i16, scalar): one computation
    pe.mem.declare("p", ElemTy::I16, &[1]).unwrap();
    let p = ptr(&pe, "p");
    let o = pe.fs2xp16(p.clone(), Scalar::f32(-3.5)).unwrap();
    assert_eq!((pe.mem.read::<i16>("p").unwrap()[0], o.elements), (-4, 1));
    pe.fh2xp16(p, Scalar::f16(9.5)).unwrap();
    assert_eq!(pe.mem.read::<i16>("p").unwrap()[0], 10);
}

#[test]
fn fscale_multiplies_by_a_power_of_two() {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem.declare("s", ElemTy::F32, &[1]).unwrap();
    pe.mem.declare("h", ElemTy::F16, &[1]).unwrap();
    for (x, k) in [
        (3.0f32, 4i16),
        (-1.5, -3),
        (0.75, 0),
        (1.0, 127),
        (5.0, -140),
    ] {
        let s = ptr(&pe, "s");
        pe.fscales(s, Scalar::f32(x), Scalar::i16(k)).unwrap();
        let want = (f64::from(x) * 2f64.powi(i32::from(k))) as f32;
        assert_eq!(
            pe.mem.read::<f32>("s").unwrap()[0].to_bits(),
            want.to_bits(),
            "{x} * 2^{k}"
        );
    }
    for (x, k) in [(3.0f32, 2i16), (0.5, -3), (1.0, 16)] {
        let h = ptr(&pe, "h");
        pe.fscaleh(h, Scalar::f16(x), Scalar::i16(k)).unwrap();
        let want = f16::from_f64(f64::from(x) * 2f64.powi(i32::from(k)));
        assert_eq!(
            pe.mem.read::<f16>("h").unwrap()[0].to_bits(),
            want.to_bits()
        );
    }
    // only the scalar forms exist
    let d = pe.mem.mem1d("|i|{1} -> s[i]").unwrap();
    let e = pe
        .fscales(&d, Scalar::f32(1.0), Scalar::i16(1))
        .unwrap_err();
    assert!(matches!(e, OpError::Form { .. }), "{e}");
}

#[test]
fn fnorm_is_refused_because_its_semantics_are_undocumented() {
    let mut pe = Pe::new(Arch::Wse2);
    pe.mem
        .declare_with("h", &[1], &[f16::from_f32(3.0)])
        .unwrap();
    let p = ptr(&pe, "h");
    let e = pe.fnormh(p, Scalar::f16(5.0)).unwrap_err();
    assert!(
        matches!(e, OpError::Undocumented { op: "fnormh", .. }),
        "{e}"
    );
    assert_eq!(
        pe.mem.read::<f16>("h").unwrap()[0].to_f32(),
        3.0,
        "nothing written"
    );
    pe.mem.declare("s", ElemTy::F32, &[1]).unwrap();
    let p = ptr(&pe, "s");
    assert!(
        pe.fnorms(p, Scalar::f32(1.0))
            .unwrap_err()
            .to_string()
            .contains("undocumented")
    );
}

#[test]
fn the_fp16_format_parameter_switches_the_h_operations_to_bfloat16() {
    // 1 + 2^-8: exact in binary16 (10 mantissa bits), a tie in bfloat16 (7 bits) that rounds
    // to even, 1.0
    let sum = |fmt: Fp16Format| {
        let mut pe = Pe::new(Arch::Wse2);
        pe.fp16 = fmt;
        let tiny = f16::from_bits(fmt.scalar(2f32.powi(-8)).bits as u16);
        pe.mem.declare_with("t", &[1], &[tiny]).unwrap();
        pe.mem.declare("r", ElemTy::F16, &[1]).unwrap();
        let t = pe.mem.mem1d("|i|{1} -> t[i]").unwrap();
        let r = ptr(&pe, "r");
        pe.faddh(r, fmt.scalar(1.0), &t).unwrap();
        fmt.value(pe.mem.read::<f16>("r").unwrap()[0].to_bits())
    };
    assert_eq!(sum(Fp16Format::Ieee), 1.0 + 2f32.powi(-8));
    assert_eq!(sum(Fp16Format::Bf16), 1.0);
    // fh2s widens bfloat16 exactly: its bits are the f32's top half
    let bits = [0x3F80u16, 0x4040, 0x7F7F, 0x8001, 0xFF80, 0x0000];
    let mut pe = Pe::new(Arch::Wse2);
    pe.fp16 = Fp16Format::Bf16;
    let hs: Vec<f16> = bits.iter().map(|&b| f16::from_bits(b)).collect();
    pe.mem.declare_with("b", &[6], &hs).unwrap();
    pe.mem.declare("w", ElemTy::F32, &[6]).unwrap();
    let (b, w) = (
        pe.mem.mem1d("|i|{6} -> b[i]").unwrap(),
        pe.mem.mem1d("|i|{6} -> w[i]").unwrap(),
    );
    pe.fh2s(&w, &b).unwrap();
    let got: Vec<u32> = pe
        .mem
        .read::<f32>("w")
        .unwrap()
        .iter()
        .map(|v| v.to_bits())
        .collect();
    let want: Vec<u32> = bits.iter().map(|&b| u32::from(b) << 16).collect();
    assert_eq!(got, want);
}
