//! A memory DSD's base address: a named tensor (or one element of it) in PE memory.

use std::fmt;

use crate::elem::ElemTy;

/// Where a memory DSD starts: `&tensor` or `&tensor[k]` (a pointer to a scalar).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Base {
    /// How CSL writes the pointee (`A`, `buffer[3]`).
    pub name: String,
    /// Element type of the tensor.
    pub elem: ElemTy,
    /// 16-bit word address of the pointee in PE memory.
    pub word_addr: u32,
    /// Elements of the tensor pointed to; `None` for a pointer to a scalar.
    pub elements: Option<u32>,
}

impl Base {
    /// `&name`, a whole tensor of `elements` elements at `word_addr`.
    pub fn tensor(name: impl Into<String>, elem: ElemTy, word_addr: u32, elements: u32) -> Base {
        Base {
            name: name.into(),
            elem,
            word_addr,
            elements: Some(elements),
        }
    }

    /// `&name`, a pointer to one scalar at `word_addr` (e.g. `&buffer[3]`).
    pub fn scalar(name: impl Into<String>, elem: ElemTy, word_addr: u32) -> Base {
        Base {
            name: name.into(),
            elem,
            word_addr,
            elements: None,
        }
    }
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "&{}", self.name)
    }
}
