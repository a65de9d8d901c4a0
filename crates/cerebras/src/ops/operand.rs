//! What a DSD operation's arguments can be: a DSD, a DSR, a FIFO, a scalar value or a pointer
//! to a scalar. A fabric operand (`fabin_dsd`, `fabout_dsd`) is one more DSD kind, run by
//! the PE's fabric ports ([`crate::pe::FabInPort`], [`crate::pe::FabOutPort`]).

use std::fmt;

use half::f16;
use npusim_numerics::Format;

use super::fp;
use crate::dsd::{Base, Dsd, FabIn, FabOut, Mem1d, Mem4d};
use crate::elem::ElemTy;

/// A scalar value with its element type (its bits in the low 16 or 32 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Scalar {
    /// Its type.
    pub ty: ElemTy,
    /// Its bits.
    pub bits: u32,
}

impl Scalar {
    /// A value of type `ty` with these bits.
    pub fn from_bits(ty: ElemTy, bits: u32) -> Scalar {
        let bits = if ty.words() == 1 { bits & 0xFFFF } else { bits };
        Scalar { ty, bits }
    }

    /// An `f32`.
    pub fn f32(x: f32) -> Scalar {
        Scalar::from_bits(ElemTy::F32, x.to_bits())
    }

    /// An `f16`: `x` rounded to nearest even (numerics).
    pub fn f16(x: f32) -> Scalar {
        Scalar::from_bits(
            ElemTy::F16,
            fp::convert(x.to_bits(), Format::F32, Format::F16),
        )
    }

    /// A `u16`.
    pub fn u16(x: u16) -> Scalar {
        Scalar::from_bits(ElemTy::U16, u32::from(x))
    }

    /// An `i16`.
    pub fn i16(x: i16) -> Scalar {
        Scalar::from_bits(ElemTy::I16, u32::from(x as u16))
    }

    /// A `u32`.
    pub fn u32(x: u32) -> Scalar {
        Scalar::from_bits(ElemTy::U32, x)
    }

    /// An `i32`.
    pub fn i32(x: i32) -> Scalar {
        Scalar::from_bits(ElemTy::I32, x as u32)
    }

    /// The value as an `f32` (f16 widens exactly; integers convert).
    pub fn as_f32(self) -> f32 {
        match self.ty {
            ElemTy::F32 => f32::from_bits(self.bits),
            ElemTy::F16 => f16::from_bits(self.bits as u16).to_f32(),
            ElemTy::U16 | ElemTy::U32 => self.bits as f32,
            ElemTy::I16 => f32::from(self.bits as u16 as i16),
            ElemTy::I32 => self.bits as i32 as f32,
        }
    }

    /// The value as an `i64` (integers; floats truncate toward zero).
    pub fn as_i64(self) -> i64 {
        match self.ty {
            ElemTy::U16 | ElemTy::U32 => i64::from(self.bits),
            ElemTy::I16 => i64::from(self.bits as u16 as i16),
            ElemTy::I32 => i64::from(self.bits as i32),
            ElemTy::F16 | ElemTy::F32 => self.as_f32() as i64,
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.ty {
            ElemTy::F16 | ElemTy::F32 => write!(f, "@as({}, {})", self.ty, self.as_f32()),
            _ => write!(f, "@as({}, {})", self.ty, self.as_i64()),
        }
    }
}

/// A FIFO allocated on a PE (`@allocate_fifo`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FifoId(pub usize);

/// A Data Structure Register loaded on a PE (`@get_dsr` + `@load_to_dsr*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DsrId(pub usize);

/// An argument of a DSD operation.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A DSD value (memory kinds; circular buffers only through a DSR).
    Dsd(Dsd),
    /// A loaded DSR.
    Dsr(DsrId),
    /// A FIFO.
    Fifo(FifoId),
    /// A scalar value (no length).
    Scalar(Scalar),
    /// A pointer to a scalar (`&x`), as destination (or `@map` argument).
    Ptr(Base),
}

impl Operand {
    /// The letter of the operand's kind in [`super::Op::forms`].
    pub fn letter(&self) -> char {
        match self {
            Operand::Dsd(_) | Operand::Dsr(_) | Operand::Fifo(_) => 'D',
            Operand::Scalar(_) => 'S',
            Operand::Ptr(_) => 'P',
        }
    }
}

impl From<Dsd> for Operand {
    fn from(d: Dsd) -> Operand {
        Operand::Dsd(d)
    }
}

impl From<&Dsd> for Operand {
    fn from(d: &Dsd) -> Operand {
        Operand::Dsd(d.clone())
    }
}

impl From<Mem1d> for Operand {
    fn from(d: Mem1d) -> Operand {
        Operand::Dsd(Dsd::Mem1d(d))
    }
}

impl From<&Mem1d> for Operand {
    fn from(d: &Mem1d) -> Operand {
        Operand::Dsd(Dsd::Mem1d(d.clone()))
    }
}

impl From<Mem4d> for Operand {
    fn from(d: Mem4d) -> Operand {
        Operand::Dsd(Dsd::Mem4d(d))
    }
}

impl From<&Mem4d> for Operand {
    fn from(d: &Mem4d) -> Operand {
        Operand::Dsd(Dsd::Mem4d(d.clone()))
    }
}

impl From<Scalar> for Operand {
    fn from(s: Scalar) -> Operand {
        Operand::Scalar(s)
    }
}

impl From<FifoId> for Operand {
    fn from(f: FifoId) -> Operand {
        Operand::Fifo(f)
    }
}

impl From<DsrId> for Operand {
    fn from(d: DsrId) -> Operand {
        Operand::Dsr(d)
    }
}

impl From<FabIn> for Operand {
    fn from(d: FabIn) -> Operand {
        Operand::Dsd(Dsd::FabIn(d))
    }
}

impl From<&FabIn> for Operand {
    fn from(d: &FabIn) -> Operand {
        Operand::Dsd(Dsd::FabIn(d.clone()))
    }
}

impl From<FabOut> for Operand {
    fn from(d: FabOut) -> Operand {
        Operand::Dsd(Dsd::FabOut(d))
    }
}

impl From<&FabOut> for Operand {
    fn from(d: &FabOut) -> Operand {
        Operand::Dsd(Dsd::FabOut(d.clone()))
    }
}
