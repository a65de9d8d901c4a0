//! f16/f32 arithmetic of the DSD operations against independent oracles: the host's IEEE f32
//! operations (correctly rounded, `mul_add` fused) and, for f16, exact f64 arithmetic rounded
//! once by the `half` crate.

use half::f16;
use npusim_cerebras::ops::Op;
use proptest::prelude::*;

fn finite_f32() -> impl Strategy<Value = f32> {
    any::<u32>()
        .prop_map(f32::from_bits)
        .prop_filter("finite", |x| x.is_finite())
}

fn finite_f16() -> impl Strategy<Value = u16> {
    any::<u16>().prop_filter("finite", |&b| f16::from_bits(b).is_finite())
}

proptest! {
    #[test]
    fn f32_ops_match_the_host(a in finite_f32(), b in finite_f32(), x in finite_f32()) {
        let (ab, bb, xb) = (a.to_bits(), b.to_bits(), x.to_bits());
        let same = |got: u32, want: f32| got == want.to_bits() || (want.is_nan() && f32::from_bits(got).is_nan());
        prop_assert!(same(Op::Fadds.apply(&[ab, bb]), a + b));
        prop_assert!(same(Op::Fsubs.apply(&[ab, bb]), a - b));
        prop_assert!(same(Op::Fmuls.apply(&[ab, bb]), a * b));
        prop_assert!(same(Op::Fmacs.apply(&[ab, bb, xb]), b.mul_add(x, a)));
    }

    #[test]
    fn f16_ops_match_exact_f64_rounded_once(a in finite_f16(), b in finite_f16()) {
        let (fa, fb) = (f16::from_bits(a).to_f64(), f16::from_bits(b).to_f64());
        let (a32, b32) = (u32::from(a), u32::from(b));
        let same = |got: u32, want: f64| {
            let w = f16::from_f64(want);
            got == u32::from(w.to_bits()) || (w.is_nan() && f16::from_bits(got as u16).is_nan())
        };
        prop_assert!(same(Op::Faddh.apply(&[a32, b32]), fa + fb));
        prop_assert!(same(Op::Fsubh.apply(&[a32, b32]), fa - fb));
        prop_assert!(same(Op::Fmulh.apply(&[a32, b32]), fa * fb));
        prop_assert_eq!(Op::Fh2s.apply(&[a32]), (fa as f32).to_bits());
    }
}

proptest! {
    #[test]
    fn fmachs_is_f32_plus_an_exact_f16_product(a in finite_f32(), b in finite_f16(), x in finite_f16()) {
        // the f16 product is exact in f32, so the host's f32 add of it is the one rounding
        let p = f16::from_bits(b).to_f32() * f16::from_bits(x).to_f32();
        let want = a + p;
        let got = Op::Fmachs.apply(&[a.to_bits(), u32::from(b), u32::from(x)]);
        prop_assert!(got == want.to_bits() || (want.is_nan() && f32::from_bits(got).is_nan()));
    }
}
