//! Element types a memory DSD tensor may hold (spec §1.1): 16- and 32-bit numbers only.

use std::fmt;

use npusim_numerics::Format;

/// An element type of a PE tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ElemTy {
    /// Unsigned 16-bit integer.
    U16,
    /// Signed 16-bit integer.
    I16,
    /// IEEE binary16.
    F16,
    /// Unsigned 32-bit integer.
    U32,
    /// Signed 32-bit integer.
    I32,
    /// IEEE binary32.
    F32,
}

impl ElemTy {
    /// 16-bit words per element (1 or 2).
    pub const fn words(self) -> u32 {
        match self {
            ElemTy::U16 | ElemTy::I16 | ElemTy::F16 => 1,
            ElemTy::U32 | ElemTy::I32 | ElemTy::F32 => 2,
        }
    }

    /// Every element type.
    pub const ALL: [ElemTy; 6] = [
        ElemTy::U16,
        ElemTy::I16,
        ElemTy::F16,
        ElemTy::U32,
        ElemTy::I32,
        ElemTy::F32,
    ];

    /// The numerics format of the element's bits (`f16` = IEEE binary16).
    pub const fn format(self) -> Format {
        match self {
            ElemTy::U16 => Format::U16,
            ElemTy::I16 => Format::I16,
            ElemTy::F16 => Format::F16,
            ElemTy::U32 => Format::U32,
            ElemTy::I32 => Format::I32,
            ElemTy::F32 => Format::F32,
        }
    }

    /// The CSL spelling (`u16`, `f32`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            ElemTy::U16 => "u16",
            ElemTy::I16 => "i16",
            ElemTy::F16 => "f16",
            ElemTy::U32 => "u32",
            ElemTy::I32 => "i32",
            ElemTy::F32 => "f32",
        }
    }
}

impl fmt::Display for ElemTy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type stored in PE memory as one [`ElemTy`].
pub trait Element: Copy {
    /// Its element type.
    const TY: ElemTy;
    /// Its bits, low word first (the high word is ignored for 16-bit types).
    fn to_bits(self) -> u32;
    /// The value of these bits.
    fn from_bits(bits: u32) -> Self;
}

macro_rules! element {
    ($t:ty, $ty:ident, $to:expr, $from:expr) => {
        impl Element for $t {
            const TY: ElemTy = ElemTy::$ty;
            fn to_bits(self) -> u32 {
                $to(self)
            }
            fn from_bits(bits: u32) -> Self {
                $from(bits)
            }
        }
    };
}

element!(u16, U16, u32::from, |b: u32| b as u16);
element!(i16, I16, |v: i16| u32::from(v as u16), |b: u32| b as u16
    as i16);
element!(
    half::f16,
    F16,
    |v: half::f16| u32::from(v.to_bits()),
    |b: u32| { half::f16::from_bits(b as u16) }
);
element!(u32, U32, |v| v, |b| b);
element!(i32, I32, |v: i32| v as u32, |b: u32| b as i32);
element!(f32, F32, f32::to_bits, f32::from_bits);
