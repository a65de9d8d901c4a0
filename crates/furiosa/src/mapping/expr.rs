//! The mapping expression as data: seven constructors, their sizes and the
//! position → cell function.

use std::fmt;

use thiserror::Error;

use super::{Axis, Cell, PaddingKind};

/// A mapping expression: a size and a function from buffer position to [`Cell`].
///
/// Built by the checked constructors below or by
/// [`Mapping::parse`](crate::mapping::Mapping::parse); the constructors enforce the static
/// constraints of the notation and the constructors are the only way in (the tree is private), so a
/// `Mapping` value is always well formed: its size is exact, and its text parses back to it. Read
/// its shape with [`Mapping::form`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mapping {
    /// Number of positions, computed once by the constructor.
    size: usize,
    /// The top constructor.
    node: Node,
}

/// The seven constructors of the notation, as stored (private: built only by checked constructors).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Node {
    Axis(Axis),
    Broadcast(usize),
    Pair(Box<Mapping>, Box<Mapping>),
    Stride(Box<Mapping>, usize),
    Modulo(Box<Mapping>, usize),
    Resize(Box<Mapping>, usize),
    Padding(Box<Mapping>, usize, PaddingKind),
}

/// The top constructor of a mapping, borrowed: what [`Mapping::form`] shows of a well-formed
/// mapping.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form<'a> {
    /// A declared axis: position `p` holds coordinate `p`.
    Axis(&'a Axis),
    /// `n`: `n` live positions holding the empty index (`1` is the identity).
    Broadcast(usize),
    /// `L, R`: `L` major, `R` minor.
    Pair(&'a Mapping, &'a Mapping),
    /// `L / n`: position `p` holds `L`'s position `p * n` (`n` divides `L`'s size).
    Stride(&'a Mapping, usize),
    /// `L % n`: the first `n` positions of `L`, `n` dividing `L`'s size.
    Modulo(&'a Mapping, usize),
    /// `L = n`: the first `n` positions of `L`, `0 <= n <= ` `L`'s size.
    Resize(&'a Mapping, usize),
    /// `L # n` / `L #{0} n` / `L #{!} n`: `L` followed by padding up to size `n >= ` `L`'s size.
    Padding(&'a Mapping, usize, PaddingKind),
}

/// A constructor constraint of the notation that a mapping breaks.
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
    /// `L % n` (n ≥ 1) of a mapping with no position: `n` positions cannot be kept.
    #[error(
        "`{mapping}`: modulo {n} of `{inner}`, which has no position (rule: a modulo keeps n of its inner positions; a mapping of size 0 has none to keep)"
    )]
    ModuloOfEmpty {
        /// The rejected mapping in m-notation.
        mapping: String,
        /// The inner mapping in m-notation.
        inner: String,
        /// The modulo.
        n: usize,
    },
    /// `L = n` with `n` larger than `L`'s size.
    #[error(
        "`{mapping}`: resize {n} is larger than the size {size} of `{inner}` (rule: a resize takes 0 to {size} positions)"
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
    /// Wraps a node whose constraints the caller has checked, computing its size once.
    ///
    /// Only this module's constructors and the normaliser (which rewrites well-formed mappings
    /// into equivalent well-formed ones) call it.
    pub(super) fn assemble(node: Node) -> Mapping {
        let size = match &node {
            Node::Axis(a) => a.size,
            Node::Broadcast(n) => *n,
            Node::Pair(l, r) => l.size.saturating_mul(r.size),
            Node::Stride(l, n) => l.size / n,
            Node::Modulo(_, n) | Node::Resize(_, n) | Node::Padding(_, n, _) => *n,
        };
        Mapping { size, node }
    }

    /// A declared axis.
    pub fn axis(axis: &Axis) -> Mapping {
        Mapping::assemble(Node::Axis(axis.clone()))
    }

    /// `n` (a broadcast; `1` is the identity).
    pub fn broadcast(n: usize) -> Result<Mapping, ShapeError> {
        if n == 0 {
            return Err(ShapeError::ZeroBroadcast);
        }
        Ok(Mapping::assemble(Node::Broadcast(n)))
    }

    /// `self, minor`; the product of the sizes must fit in `usize`.
    pub fn pair(self, minor: Mapping) -> Result<Mapping, ShapeError> {
        if self.size.checked_mul(minor.size).is_none() {
            return Err(ShapeError::Overflow {
                mapping: Mapping::assemble(Node::Pair(Box::new(self), Box::new(minor))).to_string(),
            });
        }
        Ok(Mapping::assemble(Node::Pair(
            Box::new(self),
            Box::new(minor),
        )))
    }

    /// `self / n`; `n` must divide the size.
    pub fn stride(self, n: usize) -> Result<Mapping, ShapeError> {
        let size = self.size;
        if n == 0 || !size.is_multiple_of(n) {
            return Err(ShapeError::Stride {
                mapping: format!("{self} / {n}"),
                inner: self.to_string(),
                size,
                n,
            });
        }
        Ok(Mapping::assemble(Node::Stride(Box::new(self), n)))
    }

    /// `self % n`; `n` must divide the size, and a mapping of size 0 has no modulo (it would
    /// claim `n` positions it does not have).
    pub fn modulo(self, n: usize) -> Result<Mapping, ShapeError> {
        let size = self.size;
        if size == 0 && n > 0 {
            return Err(ShapeError::ModuloOfEmpty {
                mapping: format!("{self} % {n}"),
                inner: self.to_string(),
                n,
            });
        }
        if n == 0 || !size.is_multiple_of(n) {
            return Err(ShapeError::Modulo {
                mapping: format!("{self} % {n}"),
                inner: self.to_string(),
                size,
                n,
            });
        }
        Ok(Mapping::assemble(Node::Modulo(Box::new(self), n)))
    }

    /// `self = n`; `0 <= n <= size` (`A = 0` is the empty mapping of an empty tile; engines
    /// refuse a stream of size 0).
    pub fn resize(self, n: usize) -> Result<Mapping, ShapeError> {
        let size = self.size;
        if n > size {
            return Err(ShapeError::Resize {
                mapping: format!("{self} = {n}"),
                inner: self.to_string(),
                size,
                n,
            });
        }
        Ok(Mapping::assemble(Node::Resize(Box::new(self), n)))
    }

    /// `self # n` with padding `kind`; `n >= size`.
    pub fn pad(self, n: usize, kind: PaddingKind) -> Result<Mapping, ShapeError> {
        let size = self.size;
        if n < size {
            return Err(ShapeError::Padding {
                mapping: format!("{self} {} {n}", kind.operator()),
                inner: self.to_string(),
                size,
                n,
            });
        }
        Ok(Mapping::assemble(Node::Padding(Box::new(self), n, kind)))
    }

    /// The same mapping with every padding of kind `from` relabelled `to` (sizes and live
    /// cells unchanged): `fetch_mask` turns `#` (Top) into `#{0}` (Zero).
    pub fn repad(&self, from: PaddingKind, to: PaddingKind) -> Mapping {
        let sub = |m: &Mapping| Box::new(m.repad(from, to));
        let node = match &self.node {
            Node::Axis(_) | Node::Broadcast(_) => return self.clone(),
            Node::Pair(l, r) => Node::Pair(sub(l), sub(r)),
            Node::Stride(l, n) => Node::Stride(sub(l), *n),
            Node::Modulo(l, n) => Node::Modulo(sub(l), *n),
            Node::Resize(l, n) => Node::Resize(sub(l), *n),
            Node::Padding(l, n, k) => Node::Padding(sub(l), *n, if *k == from { to } else { *k }),
        };
        Mapping::assemble(node)
    }

    /// The top constructor and its operands (read only).
    pub fn form(&self) -> Form<'_> {
        match &self.node {
            Node::Axis(a) => Form::Axis(a),
            Node::Broadcast(n) => Form::Broadcast(*n),
            Node::Pair(l, r) => Form::Pair(l, r),
            Node::Stride(l, n) => Form::Stride(l, *n),
            Node::Modulo(l, n) => Form::Modulo(l, *n),
            Node::Resize(l, n) => Form::Resize(l, *n),
            Node::Padding(l, n, k) => Form::Padding(l, *n, *k),
        }
    }

    /// Number of positions (`SIZE`).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The raw cell at `pos`, as an index by axis; `pos >= size()` is out of
    /// bounds. For many positions, [`Mapping::evaluator`] computes the same cells without
    /// building an index per cell.
    pub fn map(&self, pos: usize) -> Cell {
        if pos >= self.size {
            return Cell::OutOfBounds;
        }
        match &self.node {
            Node::Axis(a) => {
                let mut m = std::collections::BTreeMap::new();
                m.insert(a.clone(), pos);
                Cell::Index(m)
            }
            Node::Broadcast(_) => Cell::empty(),
            Node::Pair(l, r) => l.map(pos / r.size).combine(r.map(pos % r.size)),
            Node::Stride(l, n) => l.map(pos * n),
            Node::Modulo(l, _) | Node::Resize(l, _) => l.map(pos),
            Node::Padding(l, _, kind) => {
                if pos < l.size {
                    l.map(pos)
                } else {
                    Cell::Padding(*kind)
                }
            }
        }
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
        match &self.node {
            Node::Axis(a) => f(a),
            Node::Broadcast(_) => {}
            Node::Pair(l, r) => {
                l.visit_axes(f);
                r.visit_axes(f);
            }
            Node::Stride(l, _)
            | Node::Modulo(l, _)
            | Node::Resize(l, _)
            | Node::Padding(l, _, _) => l.visit_axes(f),
        }
    }

    /// The mapping as it is written inside `m![..]`: like [`Display`](fmt::Display) but
    /// without the parentheses of a top-level pair (`A, B` rather than `(A, B)`).
    pub fn m_notation(&self) -> String {
        let s = self.to_string();
        match self.node {
            Node::Pair(..) => s[1..s.len() - 1].to_string(),
            _ => s,
        }
    }
}

impl fmt::Display for Mapping {
    /// m-notation: pairs flattened as `(A, B, C)`, postfix operators `A / 8`, `A % 8`, `A = 2`,
    /// `A # 64`, `A #{0} 8`, `A #{!} 8`, broadcasts as their size. The text parses back to a
    /// structurally equal mapping.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Node::Axis(a) => f.write_str(&a.name),
            Node::Broadcast(n) => write!(f, "{n}"),
            Node::Pair(l, r) => {
                write!(f, "({l}")?;
                let mut rest: &Mapping = r;
                while let Node::Pair(a, b) = &rest.node {
                    write!(f, ", {a}")?;
                    rest = b;
                }
                write!(f, ", {rest})")
            }
            Node::Stride(l, n) => write!(f, "{l} / {n}"),
            Node::Modulo(l, n) => write!(f, "{l} % {n}"),
            Node::Resize(l, n) => write!(f, "{l} = {n}"),
            Node::Padding(l, n, k) => write!(f, "{l} {} {n}", k.operator()),
        }
    }
}
