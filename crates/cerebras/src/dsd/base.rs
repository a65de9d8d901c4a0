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
    /// 16-bit word address of the pointee in PE memory (moved by `@increment_dsd_offset`, which
    /// checks nothing, so it may leave the memory; accesses are checked).
    pub word_addr: i64,
    /// Words the base was moved by `@increment_dsd_offset` since it named the pointee.
    pub moved: i64,
    /// Elements of the tensor pointed to; `None` for a pointer to a scalar.
    pub elements: Option<u32>,
}

impl Base {
    /// `&name`, a whole tensor of `elements` elements at `word_addr`.
    pub fn tensor(name: impl Into<String>, elem: ElemTy, word_addr: i64, elements: u32) -> Base {
        Base {
            name: name.into(),
            elem,
            word_addr,
            moved: 0,
            elements: Some(elements),
        }
    }

    /// `&name`, a pointer to one scalar at `word_addr` (e.g. `&buffer[3]`).
    pub fn scalar(name: impl Into<String>, elem: ElemTy, word_addr: i64) -> Base {
        Base {
            name: name.into(),
            elem,
            word_addr,
            moved: 0,
            elements: None,
        }
    }
}

impl Base {
    /// Word address of element `n` (element offset from the base), plus `index` words.
    pub fn element_word(&self, n: i64, index: u16) -> i64 {
        n.saturating_mul(i64::from(self.elem.words()))
            .saturating_add(self.word_addr)
            .saturating_add(i64::from(index))
    }
}

impl fmt::Display for Base {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.moved == 0 {
            write!(f, "&{}", self.name)
        } else {
            write!(f, "(&{} moved by {} words)", self.name, self.moved)
        }
    }
}
