//! Normalisation: rewrite a mapping into an equivalent canonical-ish form.
//!
//! The normal form is a list of factors, major to minor. A factor is an axis digit
//! `(axis, stride, extent)` — position `p` holds coordinate `p * stride` — a broadcast, a padded
//! group, or (when no rule applies) an irreducible sub-expression. Unit factors are dropped,
//! adjacent broadcasts multiply, adjacent digits of one axis that are contiguous
//! (`outer.stride == inner.stride * inner.extent`) merge, and strides, modulos and resizes are
//! pushed through pairs digit by digit. Nested paddings of one kind collapse
//! (`(A # 8) # 32` → `A # 32`).
//!
//! The result is always equivalent to the input (same size, same finalised cells); like the
//! vendor's normaliser it makes no uniqueness claim, but equal digit lists print equally, which
//! is what layout comparisons need.

use super::expr::Node;
use super::{Axis, Form, Mapping, PaddingKind};

#[derive(Clone, Debug, PartialEq, Eq)]
enum Factor {
    Digit {
        axis: Axis,
        stride: usize,
        extent: usize,
    },
    Broadcast(usize),
    Padded {
        inner: Vec<Factor>,
        size: usize,
        kind: PaddingKind,
    },
    Other(Mapping),
}

impl Factor {
    fn size(&self) -> usize {
        match self {
            Factor::Digit { extent, .. } => *extent,
            Factor::Broadcast(n) => *n,
            Factor::Padded { size, .. } => *size,
            Factor::Other(m) => m.size(),
        }
    }

    /// Whether this factor's first position is padding. Every factor's first position holds
    /// the empty index or padding, so a size-1 factor, or a factor a stride or resize pins to
    /// its first position, may be dropped only when this is false.
    fn first_is_padding(&self) -> bool {
        match self {
            Factor::Digit { .. } | Factor::Broadcast(_) => false,
            Factor::Padded { inner, .. } => {
                list_size(inner) == 0 || inner.iter().any(Factor::first_is_padding)
            }
            Factor::Other(m) => m.size() == 0 || !m.cell(0).is_live(),
        }
    }

    fn to_mapping(&self) -> Mapping {
        match self {
            Factor::Digit {
                axis,
                stride,
                extent,
            } => digit_mapping(axis, *stride, *extent),
            Factor::Broadcast(n) => Mapping::assemble(Node::Broadcast(*n)),
            Factor::Padded { inner, size, kind } => {
                Mapping::assemble(Node::Padding(Box::new(list_mapping(inner)), *size, *kind))
            }
            Factor::Other(m) => m.clone(),
        }
    }
}

/// `axis` digit with coordinates `0, stride, .., stride * (extent - 1)` in m-notation.
fn digit_mapping(axis: &Axis, stride: usize, extent: usize) -> Mapping {
    let n = axis.size;
    let mut m = Mapping::assemble(Node::Axis(axis.clone()));
    let mut size = n;
    if stride > 1 {
        if !n.is_multiple_of(stride) {
            size = n.div_ceil(stride) * stride;
            m = Mapping::assemble(Node::Padding(Box::new(m), size, PaddingKind::Top));
        }
        m = Mapping::assemble(Node::Stride(Box::new(m), stride));
        size /= stride;
    }
    if extent < size {
        m = if size.is_multiple_of(extent) {
            Mapping::assemble(Node::Modulo(Box::new(m), extent))
        } else {
            Mapping::assemble(Node::Resize(Box::new(m), extent))
        };
    }
    m
}

fn list_mapping(list: &[Factor]) -> Mapping {
    match list {
        [] => Mapping::assemble(Node::Broadcast(1)),
        [f] => f.to_mapping(),
        [f, rest @ ..] => Mapping::assemble(Node::Pair(
            Box::new(f.to_mapping()),
            Box::new(list_mapping(rest)),
        )),
    }
}

fn list_size(list: &[Factor]) -> usize {
    list.iter().map(Factor::size).product()
}

/// Appends `f` to `out`, dropping live units and merging with the previous factor where
/// possible. A unit whose one position is padding stays: it makes every cell padding.
fn push(out: &mut Vec<Factor>, f: Factor) {
    if f.size() == 1 && !f.first_is_padding() {
        return;
    }
    match (out.last_mut(), &f) {
        (Some(Factor::Broadcast(a)), Factor::Broadcast(b)) => *a *= b,
        (
            Some(Factor::Digit {
                axis: a1,
                stride: s1,
                extent: e1,
            }),
            Factor::Digit {
                axis: a2,
                stride: s2,
                extent: e2,
            },
        ) if a1 == a2 && *s1 == s2 * e2 => {
            *s1 = *s2;
            *e1 *= e2;
        }
        _ => out.push(f),
    }
}

fn concat(a: Vec<Factor>, b: Vec<Factor>) -> Vec<Factor> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    for f in a.into_iter().chain(b) {
        push(&mut out, f);
    }
    out
}

fn stride_list(mut list: Vec<Factor>, mut n: usize) -> Vec<Factor> {
    while n > 1 {
        let Some(last) = list.pop() else {
            break;
        };
        let e = last.size();
        if n.is_multiple_of(e) && !last.first_is_padding() {
            // Every selected position has this digit at 0: drop it.
            n /= e;
            continue;
        }
        if n.is_multiple_of(e) {
            // Every selected position has this factor at its first position, which is
            // padding: keep the stride as an expression (dropping it would make them live).
            list.push(last);
            return vec![Factor::Other(Mapping::assemble(Node::Stride(
                Box::new(list_mapping(&list)),
                n,
            )))];
        }
        if e % n == 0 {
            let strided = match last {
                Factor::Digit {
                    axis,
                    stride,
                    extent,
                } => vec![Factor::Digit {
                    axis,
                    stride: stride * n,
                    extent: extent / n,
                }],
                Factor::Broadcast(b) => vec![Factor::Broadcast(b / n)],
                Factor::Padded { inner, size, kind } if list_size(&inner).is_multiple_of(n) => {
                    pad_list(stride_list(inner, n), size / n, kind)
                }
                other => vec![Factor::Other(Mapping::assemble(Node::Stride(
                    Box::new(other.to_mapping()),
                    n,
                )))],
            };
            for f in strided {
                push(&mut list, f);
            }
            return list;
        }
        // Neither divides the other: keep the remaining stride as an expression.
        list.push(last);
        return vec![Factor::Other(Mapping::assemble(Node::Stride(
            Box::new(list_mapping(&list)),
            n,
        )))];
    }
    list
}

fn take_list(mut list: Vec<Factor>, n: usize) -> Vec<Factor> {
    if n <= 1 {
        // The first position of a mapping is the empty index unless one of its factors
        // starts with padding; then it is one padding position, kept as an expression.
        if list.iter().any(Factor::first_is_padding) {
            return vec![Factor::Other(Mapping::assemble(Node::Resize(
                Box::new(list_mapping(&list)),
                n,
            )))];
        }
        return Vec::new();
    }
    if n >= list_size(&list) {
        return list;
    }
    let Some(last) = list.pop() else {
        return list;
    };
    let e = last.size();
    if n.is_multiple_of(e) {
        let mut head = take_list(list, n / e);
        push(&mut head, last);
        head
    } else if n < e && !list.iter().any(Factor::first_is_padding) {
        // Only the innermost digit moves; the others stay at 0.
        match last {
            Factor::Digit { axis, stride, .. } => vec![Factor::Digit {
                axis,
                stride,
                extent: n,
            }],
            Factor::Broadcast(_) => vec![Factor::Broadcast(n)],
            Factor::Padded { inner, kind, .. } => {
                if n <= list_size(&inner) {
                    take_list(inner, n)
                } else {
                    vec![Factor::Padded {
                        inner,
                        size: n,
                        kind,
                    }]
                }
            }
            Factor::Other(m) => vec![Factor::Other(Mapping::assemble(Node::Resize(
                Box::new(m),
                n,
            )))],
        }
    } else {
        list.push(last);
        vec![Factor::Other(Mapping::assemble(Node::Resize(
            Box::new(list_mapping(&list)),
            n,
        )))]
    }
}

fn pad_list(inner: Vec<Factor>, size: usize, kind: PaddingKind) -> Vec<Factor> {
    if list_size(&inner) == size {
        return inner;
    }
    if let [
        Factor::Padded {
            inner: nested,
            kind: k2,
            ..
        },
    ] = inner.as_slice()
        && *k2 == kind
    {
        return vec![Factor::Padded {
            inner: nested.clone(),
            size,
            kind,
        }];
    }
    vec![Factor::Padded { inner, size, kind }]
}

fn factors(m: &Mapping) -> Vec<Factor> {
    // A part with no position (`A = 0`) stays whole: the factor rules would drop it, and an
    // empty factor list stands for one position (`A = 0 # 8` is 8 padding positions, not
    // one live one and 7 of padding).
    if m.size() == 0 {
        return vec![Factor::Other(m.clone())];
    }
    match m.form() {
        Form::Axis(a) => {
            let mut out = Vec::new();
            push(
                &mut out,
                Factor::Digit {
                    axis: a.clone(),
                    stride: 1,
                    extent: a.size,
                },
            );
            out
        }
        Form::Broadcast(n) => {
            let mut out = Vec::new();
            push(&mut out, Factor::Broadcast(n));
            out
        }
        Form::Pair(l, r) => concat(factors(l), factors(r)),
        Form::Stride(l, n) => stride_list(factors(l), n),
        Form::Modulo(l, n) | Form::Resize(l, n) => take_list(factors(l), n),
        Form::Padding(l, n, k) => pad_list(factors(l), n, k),
    }
}

impl Mapping {
    /// An equivalent mapping in normal form (see the module documentation).
    ///
    /// ```
    /// use npusim_furiosa::mapping::{Axes, Mapping};
    /// let axes = Axes::parse("A=8,B=512").unwrap();
    /// let m = Mapping::parse("B / 64, B % 64", &axes).unwrap();
    /// assert_eq!(m.normalize().to_string(), "B");
    /// let m = Mapping::parse("[A, B] / 512, 1", &axes).unwrap();
    /// assert_eq!(m.normalize().to_string(), "A");
    /// ```
    pub fn normalize(&self) -> Mapping {
        // A mapping with no position (`A = 0`, `(A = 0, B)`) is its own normal form: the
        // factor rules drop size-1 factors and would change its size.
        if self.size() == 0 {
            return self.clone();
        }
        list_mapping(&factors(self))
    }
}
