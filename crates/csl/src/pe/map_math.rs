//! The `<math>` functions `@map` applies natively (`@map(math.sqrt_f32, in, out)`): square
//! roots and absolute values of f32 and f16 elements, each result correctly rounded (an f32
//! square root is IEEE's; an f16 one is computed in f64, exact enough to round once, as 53 ≥
//! 2·11 + 2).

use npusim_cerebras::{ElemTy, Scalar};

use super::arith::{f16_to_f64, f64_to_f16};

/// The element type a `<math>` function of `@map` takes and gives, if it is one.
pub(crate) fn math_elem(name: &str) -> Option<ElemTy> {
    match name {
        "sqrt_f32" | "abs_f32" => Some(ElemTy::F32),
        "sqrt_f16" | "abs_f16" => Some(ElemTy::F16),
        _ => None,
    }
}

/// `name` applied to one element (of the type [`math_elem`] gives).
pub(crate) fn apply_math(name: &str, v: Scalar) -> Scalar {
    match (name, v.ty) {
        ("sqrt_f32", _) => Scalar::f32(f32::from_bits(v.bits).sqrt()),
        ("abs_f32", _) => Scalar::from_bits(ElemTy::F32, v.bits & 0x7fff_ffff),
        ("sqrt_f16", _) => Scalar::from_bits(
            ElemTy::F16,
            u32::from(f64_to_f16(f16_to_f64(v.bits as u16).sqrt())),
        ),
        _ => Scalar::from_bits(ElemTy::F16, v.bits & 0x7fff),
    }
}
