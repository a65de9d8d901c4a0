//! `@get_dsd(mem1d_dsd | mem4d_dsd, .{ ... })` at compile time (fabric DSDs in `fabric_dsd`): the CSL tensor access
//! `|i|{M} -> A[i * N]` with its extents and index expressions evaluated (params and
//! constants become numbers, the indices must be affine in the induction variables), kept
//! as the simulator's tensor access text; or `.base_address = &x, .extent = n` (with
//! optional `.offset`, `.stride`). The DSD itself is built when the program is loaded onto a
//! PE, from the addresses its memory gave the arrays.

use std::collections::HashMap;

use npusim_cerebras::PeMemory;
use npusim_cerebras::dsd::{Dsd, MemProps, get_mem1d};
use npusim_cerebras::memory::MemoryError;

use super::fabric_dsd::FabricSpec;
use super::program::Global;
use crate::ast::{BinOp, Expr, ExprKind, TensorAccess, UnOp};
use crate::comptime::{Arch, ConstEval, EvalError, Value};
use crate::span::Span;

/// A memory DSD as the program declares it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DsdSpec {
    /// A `mem1d_dsd` from a tensor access, in the simulator's syntax.
    Mem1dAccess(String),
    /// A `mem4d_dsd` from a tensor access, in the simulator's syntax.
    Mem4dAccess(String),
    /// A `fabin_dsd` or `fabout_dsd`.
    Fabric(FabricSpec),
    /// A `mem1d_dsd` from `.base_address = &array[index]` and `.extent`.
    Mem1dBase {
        /// The array.
        array: String,
        /// The element `&` names.
        index: i64,
        /// `.extent`.
        extent: i64,
        /// `.offset`.
        offset: Option<i64>,
        /// `.stride`.
        stride: Option<i64>,
    },
}

impl DsdSpec {
    /// Reads `@get_dsd(kind, .{ ... })`'s arguments.
    pub(crate) fn from_builtin(
        ev: &mut ConstEval<'_>,
        args: &[Expr],
        span: Span,
        globals: &HashMap<String, Global>,
        arch: Arch,
    ) -> Result<DsdSpec, EvalError> {
        let [kind, config] = args else {
            return Err(EvalError::new(
                span,
                format!("@get_dsd takes 2 arguments, found {}", args.len()),
            ));
        };
        let kind_name = match &kind.kind {
            ExprKind::Ident(k) => k.as_str(),
            _ => "",
        };
        let four = match kind_name {
            "mem1d_dsd" => false,
            "mem4d_dsd" => true,
            "fabin_dsd" | "fabout_dsd" => false,
            _ => {
                return Err(EvalError::new(
                    kind.span,
                    "@get_dsd takes a DSD type first (mem1d_dsd, mem4d_dsd, fabin_dsd, fabout_dsd)",
                ));
            }
        };
        let ExprKind::StructLit(fields) = &config.kind else {
            return Err(EvalError::new(
                config.span,
                "@get_dsd takes a struct `.{ ... }` second",
            ));
        };
        if kind_name.starts_with("fab") {
            let input = kind_name == "fabin_dsd";
            return FabricSpec::from_fields(ev, input, fields, span, arch).map(DsdSpec::Fabric);
        }
        let field = |n: &str| fields.iter().find(|f| f.name == n).map(|f| &f.value);
        for f in fields {
            if ![
                "tensor_access",
                "base_address",
                "extent",
                "offset",
                "stride",
            ]
            .contains(&f.name.as_str())
            {
                return Err(EvalError::new(
                    f.value.span,
                    format!("@get_dsd field `.{}` is not supported yet", f.name),
                ));
            }
        }
        if let Some(ta) = field("tensor_access") {
            let ExprKind::TensorAccess(access) = &ta.kind else {
                return Err(EvalError::new(
                    ta.span,
                    "`.tensor_access` takes `|i|{n} -> A[i]`",
                ));
            };
            let text = access_text(ev, access, ta.span, globals)?;
            return Ok(if four {
                DsdSpec::Mem4dAccess(text)
            } else {
                DsdSpec::Mem1dAccess(text)
            });
        }
        if four {
            return Err(EvalError::new(
                config.span,
                "a mem4d_dsd needs `.tensor_access`",
            ));
        }
        let Some(base) = field("base_address") else {
            return Err(EvalError::new(
                config.span,
                "@get_dsd needs `.tensor_access` or `.base_address` with `.extent`",
            ));
        };
        let (array, index) = address_of(ev, base, globals)?;
        let mut int = |n: &str| -> Result<Option<i64>, EvalError> {
            field(n).map(|e| int_value(ev, e)).transpose()
        };
        let extent = int("extent")?.ok_or_else(|| {
            EvalError::new(config.span, "@get_dsd with `.base_address` needs `.extent`")
        })?;
        Ok(DsdSpec::Mem1dBase {
            array,
            index,
            extent,
            offset: int("offset")?,
            stride: int("stride")?,
        })
    }

    /// The CSL type of the DSD (`mem1d_dsd`, `fabin_dsd`, ...).
    pub fn kind(&self) -> &'static str {
        match self {
            DsdSpec::Fabric(f) if f.input => "fabin_dsd",
            DsdSpec::Fabric(_) => "fabout_dsd",
            DsdSpec::Mem4dAccess(_) => "mem4d_dsd",
            DsdSpec::Mem1dAccess(_) | DsdSpec::Mem1dBase { .. } => "mem1d_dsd",
        }
    }

    /// The DSD over `mem`'s arrays.
    pub fn build(&self, mem: &PeMemory) -> Result<Dsd, MemoryError> {
        Ok(match self {
            DsdSpec::Mem1dAccess(t) => mem.mem1d(t)?.into(),
            DsdSpec::Mem4dAccess(t) => mem.mem4d(t)?.into(),
            DsdSpec::Fabric(f) => f.dsd(mem.arch())?,
            DsdSpec::Mem1dBase {
                array,
                index,
                extent,
                offset,
                stride,
            } => {
                let base = if *index == 0 {
                    mem.base(array)?
                } else {
                    mem.element(array, u64::try_from(*index).unwrap_or(u64::MAX))?
                };
                get_mem1d(MemProps {
                    base_address: Some(base),
                    extent: Some(vec![*extent]),
                    offset: *offset,
                    stride: stride.map(|s| vec![s]),
                    ..MemProps::default()
                })?
                .into()
            }
        })
    }
}

fn int_value(ev: &mut ConstEval<'_>, e: &Expr) -> Result<i64, EvalError> {
    match ev.expr(e)? {
        Value::Int { value, .. } => i64::try_from(value)
            .map_err(|_| EvalError::new(e.span, format!("{value} is out of range"))),
        other => Err(EvalError::new(
            e.span,
            format!("expected an integer, found {} `{other}`", other.type_name()),
        )),
    }
}

fn address_of(
    ev: &mut ConstEval<'_>,
    e: &Expr,
    globals: &HashMap<String, Global>,
) -> Result<(String, i64), EvalError> {
    let ExprKind::Unary(UnOp::AddrOf, inner) = &e.kind else {
        return Err(EvalError::new(
            e.span,
            "`.base_address` takes `&array` or `&array[i]`",
        ));
    };
    let (name, index) = match &inner.kind {
        ExprKind::Ident(n) => (n.clone(), 0),
        ExprKind::Index { base, indices } => match (&base.kind, indices.as_slice()) {
            (ExprKind::Ident(n), [i]) => (n.clone(), int_value(ev, i)?),
            _ => {
                return Err(EvalError::new(
                    e.span,
                    "`.base_address` takes `&array` or `&array[i]`",
                ));
            }
        },
        _ => {
            return Err(EvalError::new(
                e.span,
                "`.base_address` takes `&array` or `&array[i]`",
            ));
        }
    };
    match globals.get(&name) {
        Some(Global::Mem { .. }) => Ok((name, index)),
        Some(_) => Err(EvalError::new(
            inner.span,
            format!("`{name}` is not an array in PE memory"),
        )),
        None => Err(EvalError::new(inner.span, format!("unknown name `{name}`"))),
    }
}

/// An affine form: constant and one coefficient per induction variable.
type Affine = (i128, Vec<i128>);

fn affine(ev: &mut ConstEval<'_>, e: &Expr, vars: &[String]) -> Result<Affine, EvalError> {
    let n = vars.len();
    let overflow = || EvalError::new(e.span, "index expression overflows");
    match &e.kind {
        ExprKind::Ident(v) if vars.contains(v) => {
            let mut c = vec![0; n];
            if let Some(k) = vars.iter().position(|x| x == v) {
                c[k] = 1;
            }
            Ok((0, c))
        }
        ExprKind::Binary(op @ (BinOp::Add | BinOp::Sub), a, b) => {
            let (ka, ca) = affine(ev, a, vars)?;
            let (kb, cb) = affine(ev, b, vars)?;
            let s: i128 = if *op == BinOp::Add { 1 } else { -1 };
            let term = |x: i128, y: i128| y.checked_mul(s).and_then(|y| x.checked_add(y));
            let k = term(ka, kb).ok_or_else(overflow)?;
            let c = ca
                .iter()
                .zip(&cb)
                .map(|(x, y)| term(*x, *y).ok_or_else(overflow))
                .collect::<Result<_, _>>()?;
            Ok((k, c))
        }
        ExprKind::Binary(BinOp::Mul, a, b) => {
            let (ka, ca) = affine(ev, a, vars)?;
            let (kb, cb) = affine(ev, b, vars)?;
            let (k, c, m) = if ca.iter().all(|&x| x == 0) {
                (kb, cb, ka)
            } else if cb.iter().all(|&x| x == 0) {
                (ka, ca, kb)
            } else {
                return Err(EvalError::new(
                    e.span,
                    "a tensor access index must be affine: a product needs a constant factor",
                ));
            };
            let k = k.checked_mul(m).ok_or_else(overflow)?;
            let c = c
                .iter()
                .map(|x| x.checked_mul(m).ok_or_else(overflow))
                .collect::<Result<_, _>>()?;
            Ok((k, c))
        }
        ExprKind::Unary(UnOp::Neg, a) => {
            let (k, c) = affine(ev, a, vars)?;
            let neg = |x: i128| x.checked_neg().ok_or_else(overflow);
            Ok((neg(k)?, c.into_iter().map(neg).collect::<Result<_, _>>()?))
        }
        _ => Ok((i128::from(int_value(ev, e)?), vec![0; n])),
    }
}

fn access_text(
    ev: &mut ConstEval<'_>,
    access: &TensorAccess,
    span: Span,
    globals: &HashMap<String, Global>,
) -> Result<String, EvalError> {
    let extents = access
        .extents
        .iter()
        .map(|e| int_value(ev, e).map(|v| v.to_string()))
        .collect::<Result<Vec<_>, _>>()?;
    let ExprKind::Index { base, indices } = &access.target.kind else {
        return Err(EvalError::new(
            span,
            "a tensor access ends with `array[indices]`",
        ));
    };
    let ExprKind::Ident(array) = &base.kind else {
        return Err(EvalError::new(
            base.span,
            "a tensor access indexes an array by name",
        ));
    };
    match globals.get(array) {
        Some(Global::Mem { scalar: false, .. }) => {}
        Some(_) => {
            return Err(EvalError::new(
                base.span,
                format!("`{array}` is not an array in PE memory"),
            ));
        }
        None => return Err(EvalError::new(base.span, format!("unknown name `{array}`"))),
    }
    let mut idx = Vec::new();
    for i in indices {
        let (k, c) = affine(ev, i, &access.indices)?;
        let mut s = k.to_string();
        for (v, coef) in access.indices.iter().zip(&c) {
            if *coef != 0 {
                s.push_str(&format!(" + {coef} * {v}"));
            }
        }
        idx.push(s);
    }
    Ok(format!(
        "|{}|{{{}}} -> {array}[{}]",
        access.indices.join(", "),
        extents.join(", "),
        idx.join(", ")
    ))
}
