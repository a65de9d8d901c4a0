//! The mapping expression as data (spec §1.1, §1.3): seven constructors, their sizes and the
//! position → cell function.

use std::fmt;

use thiserror::Error;

use super::{Axis, Cell, Final, PaddingKind};

/// A mapping expression: a size and a function from buffer position to [`Cell`].
///
/// Built by the checked constructors below or by [`Mapping::parse`](crate::mapping::Mapping::parse);
/// the constructors enforce the static constraints of spec §1.3, so a `Mapping` value is always
/// well formed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mapping {
    /// A declared axis: position `p` holds coordinate `p`.
    Axis(Axis),
    /// `n`: `n` live positions holding the empty index (`1` is the identity).
    Broadcast(usize),
    /// `L, R`: `L` major, `R` minor.
    Pair(Box<Mapping>, Box<Mapping>),
    /// `L / n`: position `p` holds `L`'s position `p * n`.
    Stride(Box<Mapping>, usize),
    /// `L % n`: the first `n` positions of `L`, `n` dividing `L`'s size.
    Modulo(Box<Mapping>, usize),
    /// `L = n`: the first `n` positions of `L`, `n` at most `L`'s size.
    Resize(Box<Mapping>, usize),
    /// `L # n` / `L #{0} n` / `L #{!} n`: `L` followed by padding up to size `n`.
    Padding(Box<Mapping>, usize, PaddingKind),
}

/// A constructor constraint of spec §1.3 that a mapping breaks.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ShapeError {
    /// `L / n` with `n` not dividing `L`'s size (or `n` = 0).
    #[error(
        "`{mapping}`: stride {n} does not divide the size {size} of `{inner}` (rule: a stride must divide its inner size)"
    )]
    Stride {
        /// The rejected mapping in m-notation.
        mapping: String,
        /// The inner mapping in m-notation.
        inner: String,
        /// Inner size.
        size: usize,
        /// The stride.
        n: usize,
    },
    /// `L % n` with `n` not dividing `L`'s size (or `n` = 0).
    #[error(
        "`{mapping}`: modulo {n} does not divide the size {size} of `{inner}` (rule: a modulo must divide its inner size)"
    )]
    Modulo {
        /// The rejected mapping in m-notation.
        mapping: String,
        /// The inner mapping in m-notation.
        inner: String,
        /// Inner size.
        size: usize,
        /// The modulo.
        n: usize,
    },
    /// `L = n` with `n` larger than `L`'s size (or 0).
    #[error(
        "`{mapping}`: resize {n} is larger than the size {size} of `{inner}` (rule: a resize takes 1 to {size} positions)"
    )]
    Resize {
        /// The rejected mapping in m-notation.
        mapping: String,
        /// The inner mapping in m-notation.
        inner: String,
        /// Inner size.
        size: usize,
        /// The resize.
        n: usize,
    },
    /// `L # n` with `n` smaller than `L`'s size.
    #[error(
        "`{mapping}`: padding {n} is smaller than the size {size} of `{inner}` (rule: padding extends to at least the inner size)"
    )]
    Padding {
        /// The rejected mapping in m-notation.
        mapping: String,
        /// The inner mapping in m-notation.
        inner: String,
        /// Inner size.
        size: usize,
        /// The padded size.
        n: usize,
    },
    /// A broadcast of size 0.
    #[error("`0`: a broadcast has at least one position")]
    ZeroBroadcast,
    /// The size does not fit in `usize`.
    #[error("`{mapping}`: size overflows")]
    Overflow {
        /// The rejected mapping in m-notation.
        mapping: String,
    },
}

impl Mapping {
    /// A declared axis.
    pub fn axis(axis: &Axis) -> Mapping {
        Mapping::Axis(axis.clone())
    }

    /// `n` (a broadcast; `1` is the identity).
    pub fn broadcast(n: usize) -> Result<Mapping, ShapeError> {
        if n == 0 {
            return Err(ShapeError::ZeroBroadcast);
        }
        Ok(Mapping::Broadcast(n))
    }

    /// `self, minor`.
    pub fn pair(self, minor: Mapping) -> Result<Mapping, ShapeError> {
        let m = Mapping::Pair(Box::new(self), Box::new(minor));
        match m.checked_size() {
            Some(_) => Ok(m),
            None => Err(ShapeError::Overflow {
                mapping: m.to_string(),
            }),
        }
    }

    /// `self / n`; `n` must divide the size.
    pub fn stride(self, n: usize) -> Result<Mapping, ShapeError> {
        let size = self.size();
        if n == 0 || !size.is_multiple_of(n) {
            return Err(ShapeError::Stride {
                mapping: format!("{} / {n}", self.operand()),
                inner: self.to_string(),
                size,
                n,
            });
        }
        Ok(Mapping::Stride(Box::new(self), n))
    }

    /// `self % n`; `n` must divide the size.
    pub fn modulo(self, n: usize) -> Result<Mapping, ShapeError> {
        let size = self.size();
        if n == 0 || !size.is_multiple_of(n) {
            return Err(ShapeError::Modulo {
                mapping: format!("{} % {n}", self.operand()),
                inner: self.to_string(),
                size,
                n,
            });
        }
        Ok(Mapping::Modulo(Box::new(self), n))
    }

    /// `self = n`; `1 <= n <= size`.
    pub fn resize(self, n: usize) -> Result<Mapping, ShapeError> {
        let size = self.size();
        if n == 0 || n > size {
            return Err(ShapeError::Resize {
                mapping: format!("{} = {n}", self.operand()),
                inner: self.to_string(),
                size,
                n,
            });
        }
        Ok(Mapping::Resize(Box::new(self), n))
    }

    /// `self # n` with padding `kind`; `n >= size`.
    pub fn pad(self, n: usize, kind: PaddingKind) -> Result<Mapping, ShapeError> {
        let size = self.size();
        if n < size {
            return Err(ShapeError::Padding {
                mapping: format!("{} {} {n}", self.operand(), kind.operator()),
                inner: self.to_string(),
                size,
                n,
            });
        }
        Ok(Mapping::Padding(Box::new(self), n, kind))
    }

    fn checked_size(&self) -> Option<usize> {
        match self {
            Mapping::Axis(a) => Some(a.size),
            Mapping::Broadcast(n) => Some(*n),
            Mapping::Pair(l, r) => l.checked_size()?.checked_mul(r.checked_size()?),
            Mapping::Stride(l, n) => Some(l.checked_size()? / n),
            Mapping::Modulo(_, n) | Mapping::Resize(_, n) | Mapping::Padding(_, n, _) => Some(*n),
        }
    }

    /// Number of positions (`SIZE`).
    pub fn size(&self) -> usize {
        self.checked_size().unwrap_or(usize::MAX)
    }

    /// The raw cell at `pos` (spec §1.3); `pos >= size()` is out of bounds.
    pub fn map(&self, pos: usize) -> Cell {
        if pos >= self.size() {
            return Cell::OutOfBounds;
        }
        match self {
            Mapping::Axis(a) => {
                let mut m = std::collections::BTreeMap::new();
                m.insert(a.clone(), pos);
                Cell::Index(m)
            }
            Mapping::Broadcast(_) => Cell::empty(),
            Mapping::Pair(l, r) => {
                let rs = r.size();
                l.map(pos / rs).combine(r.map(pos % rs))
            }
            Mapping::Stride(l, n) => l.map(pos * n),
            Mapping::Modulo(l, _) | Mapping::Resize(l, _) => l.map(pos),
            Mapping::Padding(l, _, kind) => {
                if pos < l.size() {
                    l.map(pos)
                } else {
                    Cell::Padding(*kind)
                }
            }
        }
    }

    /// The finalised cell at `pos` (overshooting coordinates become `Top`, spec §1.6).
    pub fn cell(&self, pos: usize) -> Final {
        self.map(pos).finalize()
    }

    /// Every position's finalised cell, in position order.
    pub fn cells(&self) -> Vec<Final> {
        (0..self.size()).map(|p| self.cell(p)).collect()
    }

    /// Whether `self` and `other` are equivalent (spec §1.7): same size and the same finalised
    /// cell at every position.
    pub fn equivalent(&self, other: &Mapping) -> bool {
        self.size() == other.size() && (0..self.size()).all(|p| self.cell(p) == other.cell(p))
    }

    /// The axes the mapping mentions, each once, in first-mention order.
    pub fn axes(&self) -> Vec<Axis> {
        let mut out: Vec<Axis> = Vec::new();
        self.visit_axes(&mut |a| {
            if !out.contains(a) {
                out.push(a.clone());
            }
        });
        out
    }

    fn visit_axes(&self, f: &mut dyn FnMut(&Axis)) {
        match self {
            Mapping::Axis(a) => f(a),
            Mapping::Broadcast(_) => {}
            Mapping::Pair(l, r) => {
                l.visit_axes(f);
                r.visit_axes(f);
            }
            Mapping::Stride(l, _)
            | Mapping::Modulo(l, _)
            | Mapping::Resize(l, _)
            | Mapping::Padding(l, _, _) => l.visit_axes(f),
        }
    }

    /// The number of live positions.
    pub fn live_count(&self) -> usize {
        (0..self.size()).filter(|&p| self.cell(p).is_live()).count()
    }

    /// The mapping as it is written inside `m![..]`: like [`Display`](fmt::Display) but
    /// without the parentheses of a top-level pair (`A, B` rather than `(A, B)`).
    pub fn m_notation(&self) -> String {
        let s = self.to_string();
        match self {
            Mapping::Pair(..) => s[1..s.len() - 1].to_string(),
            _ => s,
        }
    }

    /// The text of `self` as the operand of a postfix operator (pairs are parenthesised anyway).
    fn operand(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Mapping {
    /// m-notation: pairs flattened as `(A, B, C)`, postfix operators `A / 8`, `A % 8`, `A = 2`,
    /// `A # 64`, `A #{0} 8`, `A #{!} 8`, broadcasts as their size. The text parses back to a
    /// structurally equal mapping.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Mapping::Axis(a) => f.write_str(&a.name),
            Mapping::Broadcast(n) => write!(f, "{n}"),
            Mapping::Pair(l, r) => {
                write!(f, "({l}")?;
                let mut rest: &Mapping = r;
                while let Mapping::Pair(a, b) = rest {
                    write!(f, ", {a}")?;
                    rest = b;
                }
                write!(f, ", {rest})")
            }
            Mapping::Stride(l, n) => write!(f, "{l} / {n}"),
            Mapping::Modulo(l, n) => write!(f, "{l} % {n}"),
            Mapping::Resize(l, n) => write!(f, "{l} = {n}"),
            Mapping::Padding(l, n, k) => write!(f, "{l} {} {n}", k.operator()),
        }
    }
}
