//! Bad input never panics: random text, random near-valid expressions and extreme shapes give
//! a value or a typed error.

use npusim_cerebras::ElemTy;
use npusim_cerebras::access::{BoundsPolicy, lower, parse};
use npusim_cerebras::dsd::{Base, Mem1d, Mem4d};
use proptest::prelude::*;

fn try_all(text: &str, shape: &[u64]) {
    if let Ok(a) = parse(text) {
        let _ = a.to_string();
        for policy in [BoundsPolicy::Unchecked, BoundsPolicy::Strict] {
            if let Ok(l) = lower(&a, shape, policy) {
                let base = Base::tensor("A", ElemTy::U16, 0, 1);
                let _ = Mem1d::from_lowered(base.clone(), &l).map(|d| d.to_string());
                let _ = Mem4d::from_lowered(base, &l).map(|d| d.to_string());
                let _ = l.addresses().take(64).count();
            }
        }
    }
}

proptest! {
    #[test]
    fn random_text_never_panics(text in "\\PC{0,60}", shape in proptest::collection::vec(any::<u64>(), 0..5)) {
        try_all(&text, &shape);
    }

    #[test]
    fn near_valid_expressions_never_panic(
        tokens in proptest::collection::vec(
            prop_oneof![
                Just("|"), Just("i"), Just("j"), Just(","), Just("{"), Just("}"), Just("->"),
                Just("A"), Just("["), Just("]"), Just("+"), Just("-"), Just("*"), Just("("),
                Just(")"), Just("9223372036854775807"), Just("65536"), Just("3"), Just("0x7fff"),
            ],
            0..40,
        ),
        shape in proptest::collection::vec(prop_oneof![1u64..10, Just(u64::MAX), Just(1u64 << 40)], 1..4),
    ) {
        try_all(&tokens.join(" "), &shape);
        let valid = format!("|i, j|{{3, 4}} -> A[{}]", tokens.join(""));
        try_all(&valid, &shape);
    }
}

#[test]
fn huge_constants_and_shapes_are_typed_errors() {
    let a = parse("|i|{2} -> A[9223372036854775807, 9223372036854775807 * i, 1]").unwrap();
    let e = lower(&a, &[u64::MAX, u64::MAX, u64::MAX], BoundsPolicy::Unchecked).unwrap_err();
    assert!(e.to_string().contains("overflow"), "{e}");
    let e = parse("|i|{2} -> A[9223372036854775807 * 2 * i]").unwrap_err();
    assert!(e.to_string().contains("overflow"), "{e}");
}
