//! Vector Engine operations and their bit-exact CPU semantics, one enum per
//! stage. Integer ops wrap unless the name says `Sat`; float ops are plain IEEE f32 (no flush).

use super::stage::Alu;

/// An error that keeps the variant names serde lists when it meets an unknown one: how
/// [`names`](LogicBinaryOp::names) reads an enum's names from its `Deserialize` derive.
#[derive(Debug)]
struct VariantNames(&'static [&'static str]);

impl std::fmt::Display for VariantNames {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join(", "))
    }
}

impl std::error::Error for VariantNames {}

impl serde::de::Error for VariantNames {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        VariantNames(&[])
    }

    fn unknown_variant(_: &str, expected: &'static [&'static str]) -> Self {
        VariantNames(expected)
    }
}

/// `Type::parse(name)` and `Type::names()` for op enums, from their `Deserialize` derive (the
/// variants' Rust spellings), so a name list never repeats the enum.
macro_rules! named {
    ($($t:ident),*) => {
        $(impl $t {
            /// The variant named `name` (its Rust spelling, e.g. `AddFxp`).
            pub fn parse(name: &str) -> Option<$t> {
                use serde::de::IntoDeserializer;
                let d: serde::de::value::StrDeserializer<'_, serde::de::value::Error> =
                    name.into_deserializer();
                <$t as serde::Deserialize>::deserialize(d).ok()
            }

            /// Every variant's name, in declaration order.
            pub fn names() -> &'static [&'static str] {
                use serde::de::IntoDeserializer;
                let d: serde::de::value::StrDeserializer<'_, VariantNames> =
                    "".into_deserializer();
                match <$t as serde::Deserialize>::deserialize(d) {
                    Err(VariantNames(names)) => names,
                    Ok(_) => &[],
                }
            }
        })*
    };
}

named!(
    LogicBinaryOp,
    FxpBinaryOp,
    FpBinaryOp,
    ClipBinaryOp,
    IntraSliceReduceOpI32,
    IntraSliceReduceOpF32,
    InterSliceReduceOpI32,
    InterSliceReduceOpF32
);

pub use super::branch::BranchMode;

/// i32 operations of the Logic stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
pub enum LogicBinaryOp {
    /// `a & b`.
    BitAnd,
    /// `a | b`.
    BitOr,
    /// `a ^ b`.
    BitXor,
    /// `a << (b & 31)`.
    LeftShift,
    /// Zero-filling `a >> (b & 31)`.
    LogicRightShift,
    /// Sign-filling `a >> (b & 31)`.
    ArithRightShift,
}

impl LogicBinaryOp {
    /// The ALU the op occupies.
    pub fn alu(self) -> Alu {
        match self {
            LogicBinaryOp::BitAnd => Alu::LogicAnd,
            LogicBinaryOp::BitOr => Alu::LogicOr,
            LogicBinaryOp::BitXor => Alu::LogicXor,
            LogicBinaryOp::LeftShift => Alu::LogicLshift,
            LogicBinaryOp::LogicRightShift | LogicBinaryOp::ArithRightShift => Alu::LogicRshift,
        }
    }

    /// `op(a, b)` on raw 32-bit patterns.
    pub fn apply(self, a: i32, b: i32) -> i32 {
        let s = (b as u32) & 31;
        match self {
            LogicBinaryOp::BitAnd => a & b,
            LogicBinaryOp::BitOr => a | b,
            LogicBinaryOp::BitXor => a ^ b,
            LogicBinaryOp::LeftShift => a.wrapping_shl(s),
            LogicBinaryOp::LogicRightShift => ((a as u32) >> s) as i32,
            LogicBinaryOp::ArithRightShift => a >> s,
        }
    }
}

/// i32 operations of the Fxp stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
pub enum FxpBinaryOp {
    /// Wrapping add.
    AddFxp,
    /// Saturating add.
    AddFxpSat,
    /// Wrapping subtract.
    SubFxp,
    /// Saturating subtract.
    SubFxpSat,
    /// `a << (b & 31)`, wrapping.
    LeftShift,
    /// `a.saturating_mul(1 << b)` (the CPU's literal rule; `1 << 31` is `i32::MIN`).
    LeftShiftSat,
    /// Q31 multiply, rounding half toward +∞; `MIN · MIN = MAX`.
    MulFxp,
    /// Wrapping multiply.
    MulInt,
    /// Zero-filling right shift.
    LogicRightShift,
    /// Sign-filling right shift.
    ArithRightShift,
}

impl FxpBinaryOp {
    /// The ALU the op occupies.
    pub fn alu(self) -> Alu {
        match self {
            FxpBinaryOp::AddFxp
            | FxpBinaryOp::AddFxpSat
            | FxpBinaryOp::SubFxp
            | FxpBinaryOp::SubFxpSat => Alu::FxpAdd,
            FxpBinaryOp::LeftShift | FxpBinaryOp::LeftShiftSat => Alu::FxpLshift,
            FxpBinaryOp::MulFxp | FxpBinaryOp::MulInt => Alu::FxpMul,
            FxpBinaryOp::LogicRightShift | FxpBinaryOp::ArithRightShift => Alu::FxpRshift,
        }
    }

    /// `op(a, b)`.
    pub fn apply(self, a: i32, b: i32) -> i32 {
        let s = (b as u32) & 31;
        match self {
            FxpBinaryOp::AddFxp => a.wrapping_add(b),
            FxpBinaryOp::AddFxpSat => a.saturating_add(b),
            FxpBinaryOp::SubFxp => a.wrapping_sub(b),
            FxpBinaryOp::SubFxpSat => a.saturating_sub(b),
            FxpBinaryOp::LeftShift => a.wrapping_shl(s),
            FxpBinaryOp::LeftShiftSat => a.saturating_mul(1i32.wrapping_shl(s)),
            FxpBinaryOp::MulFxp => {
                if a == i32::MIN && b == i32::MIN {
                    i32::MAX
                } else {
                    let p = i64::from(a) * i64::from(b);
                    (((p >> 30) + 1) >> 1) as i32
                }
            }
            FxpBinaryOp::MulInt => a.wrapping_mul(b),
            FxpBinaryOp::LogicRightShift => ((a as u32) >> s) as i32,
            FxpBinaryOp::ArithRightShift => a >> s,
        }
    }
}

/// f32 operations of the Fp stage (Way4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
pub enum FpBinaryOp {
    /// `a + b`.
    AddF,
    /// `a - b`.
    SubF,
    /// `a * b`.
    MulF,
}

impl FpBinaryOp {
    /// `op(a, b)`.
    pub fn apply(self, a: f32, b: f32) -> f32 {
        match self {
            FpBinaryOp::AddF => a + b,
            FpBinaryOp::SubF => a - b,
            FpBinaryOp::MulF => a * b,
        }
    }
}

/// Operations of the Clip stage (i32 or f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
pub enum ClipBinaryOp {
    /// Wrapping add (i32) / IEEE add (f32).
    Add,
    /// Saturating add (i32 only; f32 adds).
    AddSat,
    /// Maximum (f32: a NaN operand is ignored).
    Max,
    /// Minimum (f32: a NaN operand is ignored).
    Min,
}

impl ClipBinaryOp {
    /// The ALU the op occupies.
    pub fn alu(self) -> Alu {
        match self {
            ClipBinaryOp::Add | ClipBinaryOp::AddSat => Alu::ClipAdd,
            ClipBinaryOp::Max => Alu::ClipMax,
            ClipBinaryOp::Min => Alu::ClipMin,
        }
    }

    /// The i32 result.
    pub fn apply_i32(self, a: i32, b: i32) -> i32 {
        match self {
            ClipBinaryOp::Add => a.wrapping_add(b),
            ClipBinaryOp::AddSat => a.saturating_add(b),
            ClipBinaryOp::Max => a.max(b),
            ClipBinaryOp::Min => a.min(b),
        }
    }

    /// The f32 result.
    pub fn apply_f32(self, a: f32, b: f32) -> f32 {
        match self {
            ClipBinaryOp::Add | ClipBinaryOp::AddSat => a + b,
            ClipBinaryOp::Max => max_f32(a, b),
            ClipBinaryOp::Min => min_f32(a, b),
        }
    }
}

/// f32 maximum with NaN skipped (the other operand wins) and `−0 < +0`, so the result never
/// depends on the operand order: `max(−0, +0) = +0` (IEEE 754-2019 `maximumNumber`; the
/// documents are silent on signed zeros — npusim's choice).
pub fn max_f32(a: f32, b: f32) -> f32 {
    if a == b {
        if a.is_sign_positive() { a } else { b }
    } else {
        a.max(b)
    }
}

/// f32 minimum with NaN skipped (the other operand wins) and `−0 < +0`, so the result never
/// depends on the operand order: `min(−0, +0) = −0` (IEEE 754-2019 `minimumNumber`; npusim's
/// choice).
pub fn min_f32(a: f32, b: f32) -> f32 {
    if a == b {
        if a.is_sign_negative() { a } else { b }
    } else {
        a.min(b)
    }
}

/// The result of an f32 fold step with NaN propagation pinned: a NaN accumulator `a` wins
/// over a NaN element `b`, each quieted (`x86`'s rule for `a + b`). IEEE 754 leaves which NaN
/// an operation on two NaNs returns open, and compiled code may swap a sum's operands, so
/// npusim fixes it — the documents are silent; npusim's choice.
pub fn nan_first(a: f32, b: f32, value: f32) -> f32 {
    const QUIET: u32 = 0x0040_0000;
    if a.is_nan() {
        f32::from_bits(a.to_bits() | QUIET)
    } else if b.is_nan() {
        f32::from_bits(b.to_bits() | QUIET)
    } else {
        value
    }
}

/// `vector_fxp_to_fp(w)`: `x · 2^(w−31)` rounded to nearest-even f32 (`w ≤ 31`).
pub fn fxp_to_fp(x: i32, int_width: u32) -> f32 {
    // x · 2^(w−31) is exact in f64; the one rounding is f64 → f32 (ties to even).
    (f64::from(x) * 2f64.powi(int_width as i32 - 31)) as f32
}

/// `vector_fp_to_fxp(w)`: `round_half_away(x · 2^(31−w))` in f64, clamped to i32; NaN gives
/// `i32::MAX` with the sign bit clear and `i32::MIN` with it set.
pub fn fp_to_fxp(x: f32, int_width: u32) -> i32 {
    if x.is_nan() {
        return if x.is_sign_negative() {
            i32::MIN
        } else {
            i32::MAX
        };
    }
    let y = (f64::from(x) * 2f64.powi(31 - int_width as i32)).round();
    y.clamp(f64::from(i32::MIN), f64::from(i32::MAX)) as i32
}

/// i32 operations of the intra-slice reducer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
pub enum IntraSliceReduceOpI32 {
    /// Saturating addition (saturates at every step, in fold order).
    AddSat,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
}

/// f32 operations of the intra-slice reducer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
pub enum IntraSliceReduceOpF32 {
    /// IEEE addition from +0.0.
    Add,
    /// NaN-ignoring maximum from −∞.
    Max,
    /// NaN-ignoring minimum from +∞.
    Min,
}

/// Either intra-slice reducer op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntraSliceReduceOp {
    /// An i32 op.
    I32(IntraSliceReduceOpI32),
    /// An f32 op.
    F32(IntraSliceReduceOpF32),
}

impl From<IntraSliceReduceOpI32> for IntraSliceReduceOp {
    fn from(op: IntraSliceReduceOpI32) -> Self {
        IntraSliceReduceOp::I32(op)
    }
}

impl From<IntraSliceReduceOpF32> for IntraSliceReduceOp {
    fn from(op: IntraSliceReduceOpF32) -> Self {
        IntraSliceReduceOp::F32(op)
    }
}

impl IntraSliceReduceOp {
    /// The same fold as a reducer op (identity and step are shared with the inter-slice
    /// reducer: npusim has one generic reduction routine).
    pub fn fold(self) -> InterSliceReduceOp {
        match self {
            IntraSliceReduceOp::I32(op) => InterSliceReduceOp::I32(match op {
                IntraSliceReduceOpI32::AddSat => InterSliceReduceOpI32::AddSat,
                IntraSliceReduceOpI32::Max => InterSliceReduceOpI32::Max,
                IntraSliceReduceOpI32::Min => InterSliceReduceOpI32::Min,
            }),
            IntraSliceReduceOp::F32(op) => InterSliceReduceOp::F32(match op {
                IntraSliceReduceOpF32::Add => InterSliceReduceOpF32::Add,
                IntraSliceReduceOpF32::Max => InterSliceReduceOpF32::Max,
                IntraSliceReduceOpF32::Min => InterSliceReduceOpF32::Min,
            }),
        }
    }
}

/// i32 operations of the inter-slice reducer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
pub enum InterSliceReduceOpI32 {
    /// Wrapping addition.
    Add,
    /// Saturating addition (saturates at every step, in fold order).
    AddSat,
    /// Maximum.
    Max,
    /// Minimum.
    Min,
}

/// f32 operations of the inter-slice reducer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Deserialize)]
pub enum InterSliceReduceOpF32 {
    /// IEEE addition from +0.0.
    Add,
    /// NaN-ignoring maximum from −∞.
    Max,
    /// NaN-ignoring minimum from +∞.
    Min,
    /// IEEE multiplication from 1.0.
    Mul,
}

/// Either reducer op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum InterSliceReduceOp {
    /// An i32 op.
    I32(InterSliceReduceOpI32),
    /// An f32 op.
    F32(InterSliceReduceOpF32),
}

impl From<InterSliceReduceOpI32> for InterSliceReduceOp {
    fn from(op: InterSliceReduceOpI32) -> Self {
        InterSliceReduceOp::I32(op)
    }
}

impl From<InterSliceReduceOpF32> for InterSliceReduceOp {
    fn from(op: InterSliceReduceOpF32) -> Self {
        InterSliceReduceOp::F32(op)
    }
}

impl InterSliceReduceOp {
    /// The identity, as a 32-bit pattern.
    pub fn identity(self) -> u32 {
        match self {
            InterSliceReduceOp::I32(op) => match op {
                InterSliceReduceOpI32::Add | InterSliceReduceOpI32::AddSat => 0,
                InterSliceReduceOpI32::Max => i32::MIN as u32,
                InterSliceReduceOpI32::Min => i32::MAX as u32,
            },
            InterSliceReduceOp::F32(op) => match op {
                InterSliceReduceOpF32::Add => 0.0f32.to_bits(),
                InterSliceReduceOpF32::Max => f32::NEG_INFINITY.to_bits(),
                InterSliceReduceOpF32::Min => f32::INFINITY.to_bits(),
                InterSliceReduceOpF32::Mul => 1.0f32.to_bits(),
            },
        }
    }

    /// `acc ∘ v` on 32-bit patterns.
    pub fn step(self, acc: u32, v: u32) -> u32 {
        match self {
            InterSliceReduceOp::I32(op) => {
                let (a, b) = (acc as i32, v as i32);
                (match op {
                    InterSliceReduceOpI32::Add => a.wrapping_add(b),
                    InterSliceReduceOpI32::AddSat => a.saturating_add(b),
                    InterSliceReduceOpI32::Max => a.max(b),
                    InterSliceReduceOpI32::Min => a.min(b),
                }) as u32
            }
            InterSliceReduceOp::F32(op) => {
                let (a, b) = (f32::from_bits(acc), f32::from_bits(v));
                (match op {
                    InterSliceReduceOpF32::Add => nan_first(a, b, a + b),
                    InterSliceReduceOpF32::Mul => nan_first(a, b, a * b),
                    InterSliceReduceOpF32::Max if b.is_nan() => a,
                    InterSliceReduceOpF32::Min if b.is_nan() => a,
                    InterSliceReduceOpF32::Max => max_f32(a, b),
                    InterSliceReduceOpF32::Min => min_f32(a, b),
                })
                .to_bits()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn g30_fixed_point() {
        let mul = |a, b| FxpBinaryOp::MulFxp.apply(a, b);
        assert_eq!(mul(1 << 30, 1 << 30), 1 << 29);
        assert_eq!(mul(i32::MIN, i32::MIN), i32::MAX);
        assert_eq!(mul(3, 1 << 30), 2);
        assert_eq!(mul(-3, 1 << 30), -1);
        assert_eq!(mul(5, 1 << 30), 3);
        assert_eq!(mul(-5, 1 << 30), -2);
        assert_eq!(mul(i32::MIN, i32::MAX), -2147483647);
        assert_eq!(mul(i32::MAX, i32::MAX), 2147483646);
        let lss = |a, b| FxpBinaryOp::LeftShiftSat.apply(a, b);
        assert_eq!(lss(3, 30), i32::MAX);
        assert_eq!(lss(1, 31), i32::MIN);
        assert_eq!(lss(-1, 31), i32::MAX);
        assert_eq!(FxpBinaryOp::AddFxp.apply(i32::MAX, 1), i32::MIN);
        assert_eq!(FxpBinaryOp::AddFxpSat.apply(i32::MAX, 1), i32::MAX);
    }

    #[test]
    fn g29_conversions() {
        assert_eq!(fxp_to_fp(1, 31), 1.0);
        assert_eq!(fxp_to_fp(16_777_217, 31), 16_777_216.0);
        assert_eq!(fxp_to_fp(-16_777_217, 31), -16_777_216.0);
        assert_eq!(fxp_to_fp(i32::MIN, 31), -(2f32.powi(31)));
        assert_eq!(fxp_to_fp(1, 30), 0.5);
        assert_eq!(fxp_to_fp(3, 30), 1.5);
        for (x, want) in [
            (2.5f32, 3),
            (-2.5, -3),
            (0.5, 1),
            (-0.5, -1),
            (1.499_999_9, 1),
            (3e9, i32::MAX),
            (-3e9, i32::MIN),
            (f32::INFINITY, i32::MAX),
        ] {
            assert_eq!(fp_to_fxp(x, 31), want, "{x}");
        }
        assert_eq!(fp_to_fxp(f32::NAN, 31), i32::MAX);
        assert_eq!(fp_to_fxp(-f32::NAN, 31), i32::MIN);
        assert_eq!(fp_to_fxp(2.5, 30), 5);
        assert_eq!(fp_to_fxp(0.75, 30), 2);
        assert_eq!(fp_to_fxp(0.5, 0), 1_073_741_824);
        assert_eq!(fp_to_fxp(0.75, 0), 1_610_612_736);
    }

    fn fold(op: impl Into<InterSliceReduceOp>, xs: &[u32]) -> u32 {
        let op = op.into();
        xs.iter().fold(op.identity(), |a, &v| op.step(a, v))
    }

    #[test]
    fn g39_fold_rules() {
        use InterSliceReduceOpF32 as F;
        use InterSliceReduceOpI32 as I;
        let i = |xs: &[i32]| xs.iter().map(|&x| x as u32).collect::<Vec<_>>();
        let f = |xs: &[f32]| xs.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(fold(I::AddSat, &i(&[i32::MAX, 1, -1, 5])) as i32, i32::MAX);
        assert_eq!(fold(I::AddSat, &i(&[i32::MAX, 1, -1])) as i32, i32::MAX - 1);
        assert_eq!(fold(I::AddSat, &i(&[i32::MAX, -1, 1])) as i32, i32::MAX);
        assert_eq!(fold(I::AddSat, &i(&[i32::MIN, -1])) as i32, i32::MIN);
        assert_eq!(fold(I::Add, &i(&[i32::MAX, 1])) as i32, i32::MIN);
        assert_eq!(fold(I::Max, &i(&[3, -7, 9, 0])) as i32, 9);
        assert_eq!(fold(I::Min, &i(&[3, -7, 9, 0])) as i32, -7);
        assert_eq!(fold(F::Add, &f(&[-0.0, -0.0])), 0.0f32.to_bits());
        assert_eq!(
            fold(F::Max, &f(&[f32::NAN, 1.0, f32::NAN, -2.0])),
            1.0f32.to_bits()
        );
        assert_eq!(
            fold(F::Max, &f(&[f32::NAN, f32::NAN])),
            f32::NEG_INFINITY.to_bits()
        );
        assert_eq!(fold(F::Min, &f(&[f32::NAN])), f32::INFINITY.to_bits());
        assert_eq!(fold(F::Mul, &f(&[2.0, -3.0])), (-6.0f32).to_bits());
    }
}
