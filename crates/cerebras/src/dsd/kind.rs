//! Every DSD kind in one type, and the builtins that make a new DSD from an old one
//! (`@set_dsd_base_addr`, `@increment_dsd_offset`, `@set_dsd_length`, `@set_dsd_stride`).

use std::fmt;

use super::base::Base;
use super::circbuf::CircBuf;
use super::error::DsdError;
use super::fabric::{FabIn, FabOut};
use super::mem1d::Mem1d;
use super::mem4d::Mem4d;
use crate::elem::ElemTy;
use crate::limits::{INCREMENT_OFFSET, LENGTH, MEM1D_STRIDE};

/// A DSD value of any kind (FIFOs, which hold state, are separate: [`super::Fifo`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dsd {
    /// `mem1d_dsd`.
    Mem1d(Mem1d),
    /// `mem4d_dsd`.
    Mem4d(Mem4d),
    /// `circbuf_dsd`.
    CircBuf(CircBuf),
    /// `fabin_dsd`.
    FabIn(FabIn),
    /// `fabout_dsd`.
    FabOut(FabOut),
}

impl Dsd {
    /// The CSL type name (`mem1d_dsd`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            Dsd::Mem1d(_) => "mem1d_dsd",
            Dsd::Mem4d(_) => "mem4d_dsd",
            Dsd::CircBuf(_) => "circbuf_dsd",
            Dsd::FabIn(_) => "fabin_dsd",
            Dsd::FabOut(_) => "fabout_dsd",
        }
    }

    /// The DSD's length: its extent (the product of the extents for mem4d).
    pub fn length(&self) -> u64 {
        match self {
            Dsd::Mem1d(d) => u64::from(d.extent),
            Dsd::Mem4d(d) => d.len(),
            Dsd::CircBuf(d) => u64::from(d.extent),
            Dsd::FabIn(d) => u64::from(d.extent),
            Dsd::FabOut(d) => u64::from(d.extent),
        }
    }

    /// Word addresses of a memory DSD's elements in access order, `index` words added
    /// (circular buffers from head 0); `None` for fabric DSDs.
    pub fn element_words(&self, index: u16) -> Option<Vec<i64>> {
        match self {
            Dsd::Mem1d(d) => Some(
                d.element_offsets()
                    .map(|n| d.base.element_word(n, index))
                    .collect(),
            ),
            Dsd::Mem4d(d) => Some(
                d.element_offsets()
                    .map(|n| d.base.element_word(n, index))
                    .collect(),
            ),
            Dsd::CircBuf(d) => Some(
                d.element_offsets(0)
                    .map(|n| d.base.element_word(n, index))
                    .collect(),
            ),
            Dsd::FabIn(_) | Dsd::FabOut(_) => None,
        }
    }

    fn base_mut(
        &mut self,
        builtin: &'static str,
    ) -> Result<(&mut Base, Option<&mut i16>), DsdError> {
        match self {
            Dsd::Mem1d(d) => Ok((&mut d.base, Some(&mut d.offset))),
            Dsd::Mem4d(d) => Ok((&mut d.base, Some(&mut d.offset))),
            other => Err(DsdError::WrongKind {
                builtin,
                kind: other.kind(),
            }),
        }
    }
}

/// `@set_dsd_base_addr(dsd, base)`: a memory DSD on a new base; the offset becomes 0 (the new
/// base replaces both base and offset).
pub fn set_dsd_base_addr(dsd: &Dsd, base: Base) -> Result<Dsd, DsdError> {
    let mut out = dsd.clone();
    let (b, offset) = out.base_mut("@set_dsd_base_addr")?;
    *b = base;
    if let Some(o) = offset {
        *o = 0;
    }
    Ok(out)
}

/// `@increment_dsd_offset(dsd, offset, elem_type)`: a memory DSD whose base moved by `offset`
/// elements of `elem_type` (converted to words). No bounds check, as the seed says.
pub fn increment_dsd_offset(dsd: &Dsd, offset: i64, elem_type: ElemTy) -> Result<Dsd, DsdError> {
    INCREMENT_OFFSET
        .check(i128::from(offset))
        .map_err(|e| DsdError::limit("@increment_dsd_offset offset", e))?;
    let mut out = dsd.clone();
    let (b, _) = out.base_mut("@increment_dsd_offset")?;
    let words = offset * i64::from(elem_type.words());
    b.word_addr += words;
    b.moved += words;
    Ok(out)
}

/// `@set_dsd_length(dsd, length)`: any kind but mem4d.
pub fn set_dsd_length(dsd: &Dsd, length: i64) -> Result<Dsd, DsdError> {
    LENGTH
        .check(i128::from(length))
        .map_err(|e| DsdError::limit("@set_dsd_length length", e))?;
    let n = length as u16;
    let mut out = dsd.clone();
    match &mut out {
        Dsd::Mem1d(d) => d.extent = n,
        Dsd::CircBuf(d) => d.extent = n,
        Dsd::FabIn(d) => d.extent = n,
        Dsd::FabOut(d) => d.extent = n,
        Dsd::Mem4d(_) => {
            return Err(DsdError::WrongKind {
                builtin: "@set_dsd_length",
                kind: "mem4d_dsd",
            });
        }
    }
    Ok(out)
}

/// `@set_dsd_stride(dsd, stride)`: mem1d only, `i8` stride in elements.
pub fn set_dsd_stride(dsd: &Dsd, stride: i64) -> Result<Dsd, DsdError> {
    let Dsd::Mem1d(d) = dsd else {
        return Err(DsdError::WrongKind {
            builtin: "@set_dsd_stride",
            kind: dsd.kind(),
        });
    };
    MEM1D_STRIDE
        .check(i128::from(stride))
        .map_err(|e| DsdError::limit("@set_dsd_stride stride", e))?;
    let mut d = d.clone();
    d.stride = stride as i8;
    Ok(Dsd::Mem1d(d))
}

impl fmt::Display for Dsd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dsd::Mem1d(d) => d.fmt(f),
            Dsd::Mem4d(d) => d.fmt(f),
            Dsd::CircBuf(d) => d.fmt(f),
            Dsd::FabIn(d) => d.fmt(f),
            Dsd::FabOut(d) => d.fmt(f),
        }
    }
}

impl From<Mem1d> for Dsd {
    fn from(d: Mem1d) -> Dsd {
        Dsd::Mem1d(d)
    }
}

impl From<Mem4d> for Dsd {
    fn from(d: Mem4d) -> Dsd {
        Dsd::Mem4d(d)
    }
}

impl From<CircBuf> for Dsd {
    fn from(d: CircBuf) -> Dsd {
        Dsd::CircBuf(d)
    }
}
