//! Named arrays a program reads back, compared bit for bit with their expected values.

use std::fmt;

use half::f16;

/// The values of one array, in their element type.
#[derive(Clone, Debug, PartialEq)]
pub enum Values {
    /// 32-bit floats.
    F32(Vec<f32>),
    /// 16-bit floats.
    F16(Vec<f16>),
    /// 16-bit signed integers.
    I16(Vec<i16>),
    /// 32-bit unsigned integers.
    U32(Vec<u32>),
    /// 32-bit signed integers.
    I32(Vec<i32>),
}

impl Values {
    /// Number of values.
    pub fn len(&self) -> usize {
        match self {
            Values::F32(v) => v.len(),
            Values::F16(v) => v.len(),
            Values::I16(v) => v.len(),
            Values::U32(v) => v.len(),
            Values::I32(v) => v.len(),
        }
    }

    /// Whether there are no values.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The element type's CSL name.
    pub const fn type_name(&self) -> &'static str {
        match self {
            Values::F32(_) => "f32",
            Values::F16(_) => "f16",
            Values::I16(_) => "i16",
            Values::U32(_) => "u32",
            Values::I32(_) => "i32",
        }
    }

    /// Each value's bit pattern (floats compared by bits, so `-0.0 != 0.0`, NaN == same NaN).
    pub fn bits(&self) -> Vec<u64> {
        match self {
            Values::F32(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
            Values::F16(v) => v.iter().map(|x| u64::from(x.to_bits())).collect(),
            Values::I16(v) => v.iter().map(|&x| u64::from(x as u16)).collect(),
            Values::U32(v) => v.iter().map(|&x| u64::from(x)).collect(),
            Values::I32(v) => v.iter().map(|&x| u64::from(x as u32)).collect(),
        }
    }

    /// Whether `self` and `other` have the same type, length and bits.
    pub fn same_bits(&self, other: &Values) -> bool {
        self.type_name() == other.type_name() && self.bits() == other.bits()
    }

    /// The values as JSON numbers (floats as their decimal value; NaN and infinities as
    /// strings, which JSON numbers cannot hold).
    pub fn to_json_items(&self) -> Vec<String> {
        fn float(x: f64) -> String {
            if x.is_finite() {
                format!("{x}")
            } else {
                format!("\"{x}\"")
            }
        }
        match self {
            Values::F32(v) => v.iter().map(|&x| float(f64::from(x))).collect(),
            Values::F16(v) => v.iter().map(|x| float(f64::from(x.to_f32()))).collect(),
            Values::I16(v) => v.iter().map(i16::to_string).collect(),
            Values::U32(v) => v.iter().map(u32::to_string).collect(),
            Values::I32(v) => v.iter().map(i32::to_string).collect(),
        }
    }
}

impl fmt::Display for Values {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let items: Vec<String> = match self {
            Values::F32(v) => v.iter().map(|x| format!("{x:?}")).collect(),
            Values::F16(v) => v.iter().map(|x| format!("{:?}", x.to_f32())).collect(),
            Values::I16(v) => v.iter().map(i16::to_string).collect(),
            Values::U32(v) => v.iter().map(u32::to_string).collect(),
            Values::I32(v) => v.iter().map(i32::to_string).collect(),
        };
        write!(f, "{}[{}]", self.type_name(), items.join(", "))
    }
}

/// One array a program reads back: its name (where it lives) and values.
#[derive(Clone, Debug, PartialEq)]
pub struct Output {
    /// What the array is, e.g. `y (PE (1, 0))` or `received at the east edge`.
    pub name: String,
    /// The values.
    pub values: Values,
}

impl Output {
    /// An output called `name`.
    pub fn new(name: impl Into<String>, values: Values) -> Output {
        Output {
            name: name.into(),
            values,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_compare_by_bits() {
        let a = Values::F32(vec![0.0, f32::NAN]);
        assert!(a.same_bits(&a.clone()));
        assert!(!a.same_bits(&Values::F32(vec![-0.0, f32::NAN])));
        assert!(!Values::U32(vec![1]).same_bits(&Values::F32(vec![f32::from_bits(1)])));
        assert_eq!(Values::I16(vec![-1, 2]).to_string(), "i16[-1, 2]");
        assert_eq!(
            Values::F32(vec![f32::INFINITY]).to_json_items(),
            ["\"inf\""]
        );
    }
}
