//! Expressions.

use std::collections::HashMap;

use super::super::error::{EResult, EvalError};

use super::super::value::{Dir, Type, Value};
use super::stmt::Flow;
use super::{Evaluator, Local, MAX_CALL_DEPTH};
use crate::ast::{BinOp, DeclKind, Expr, ExprKind, FnDecl};
use crate::span::Span;

impl<'m> Evaluator<'m> {
    /// The value of `e`.
    pub(super) fn expr(&mut self, e: &Expr) -> EResult<Value> {
        self.nested(e.span, |ev| ev.expr_inner(e))
    }

    fn expr_inner(&mut self, e: &Expr) -> EResult<Value> {
        let span = e.span;
        match &e.kind {
            ExprKind::Ident(name) => self.name(name, span),
            ExprKind::Int(v) => i128::try_from(*v)
                .map(Value::comptime_int)
                .map_err(|_| EvalError::new(span, format!("integer {v} does not fit in 128 bits"))),
            ExprKind::Float(t) => t
                .parse::<f64>()
                .map(|value| Value::Float {
                    value,
                    ty: Type::ComptimeFloat,
                })
                .map_err(|_| EvalError::new(span, format!("`{t}` is not a float"))),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::Char(c) => Ok(Value::comptime_int(i128::from(*c))),
            ExprKind::Bool(b) => Ok(Value::Bool(*b)),
            ExprKind::Undefined => Ok(Value::Undefined),
            ExprKind::VoidLit => Ok(Value::Void),
            ExprKind::Null => Err(EvalError::new(span, "`null` has no compile-time use here")),
            ExprKind::EnumLit(name) => Ok(Value::EnumLit(name.clone())),
            ExprKind::StructLit(fields) => {
                let mut out: Vec<(String, Value)> = Vec::with_capacity(fields.len());
                for f in fields {
                    if out.iter().any(|(n, _)| n == &f.name) {
                        return Err(EvalError::new(
                            f.value.span,
                            format!("field `{}` is given twice", f.name),
                        ));
                    }
                    let v = self.expr(&f.value)?;
                    out.push((f.name.clone(), v));
                }
                Ok(Value::Struct(out))
            }
            ExprKind::ListLit(elems) => {
                let items = elems.iter().map(|x| self.expr(x)).collect::<EResult<_>>()?;
                Ok(Value::List(items))
            }
            ExprKind::TypedList { ty, elems } => {
                let ty = self.eval_type(ty)?;
                let items = elems.iter().map(|x| self.expr(x)).collect::<EResult<_>>()?;
                self.coerce(Value::List(items), &ty, span)
            }
            ExprKind::TypedStruct { .. } => Err(EvalError::new(
                span,
                "typed struct literals are not evaluated at compile time yet",
            )),
            ExprKind::Unary(op, inner) => {
                let v = self.expr(inner)?;
                self.unary(*op, v, span)
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), l, r) => {
                let left = self.bool_of(l)?;
                if (*op == BinOp::And) != left {
                    return Ok(Value::Bool(left));
                }
                Ok(Value::Bool(self.bool_of(r)?))
            }
            ExprKind::Binary(op, l, r) => {
                let a = self.expr(l)?;
                let b = self.expr(r)?;
                self.binary(*op, a, b, span)
            }
            ExprKind::Call { callee, args } => self.call(callee, args, span),
            ExprKind::Builtin { name, args } => self.builtin(name, args, span),
            ExprKind::Index { base, indices } => {
                let mut v = self.expr(base)?;
                for index in indices {
                    let i = self.expr(index)?;
                    v = self.index(v, i, index.span)?;
                }
                Ok(v)
            }
            ExprKind::Field { base, name } => {
                let v = self.expr(base)?;
                self.field(v, name, span)
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.bool_of(cond)? {
                    self.expr(then)
                } else {
                    match otherwise {
                        Some(otherwise) => self.expr(otherwise),
                        None => Ok(Value::Void),
                    }
                }
            }
            ExprKind::Comptime(inner) => self.expr(inner),
            ExprKind::Switch { subject, prongs } => self.switch_value(subject, prongs, span),
            ExprKind::ArrayType { .. }
            | ExprKind::PtrType { .. }
            | ExprKind::ManyPtrType { .. }
            | ExprKind::SliceType { .. }
            | ExprKind::FnType { .. } => self.type_constructor(e).map(Value::Type),
            ExprKind::Slice { .. }
            | ExprKind::Deref(_)
            | ExprKind::TensorAccess(_)
            | ExprKind::StructType(_)
            | ExprKind::EnumType { .. } => Err(EvalError::new(
                span,
                "this expression has no compile-time value in a layout",
            )),
        }
    }

    /// A condition: the value of `e`, which must be a `bool`.
    pub(super) fn bool_of(&mut self, e: &Expr) -> EResult<bool> {
        match self.expr(e)? {
            Value::Bool(b) => Ok(b),
            other => Err(EvalError::new(
                e.span,
                format!("expected a bool, found {} `{other}`", other.type_name()),
            )),
        }
    }

    /// A name: a local, a global, a builtin type or a direction.
    fn name(&mut self, name: &str, span: Span) -> EResult<Value> {
        for scope in self.scopes.iter().rev() {
            if let Some(local) = scope.get(name) {
                return Ok(local.value.clone());
            }
        }
        if let Some(v) = self.global(name, span)? {
            return Ok(v);
        }
        if let Some(t) = Type::from_name(name) {
            return Ok(Value::Type(t));
        }
        if let Some(d) = Dir::from_name(name) {
            return Ok(Value::Dir(d));
        }
        Err(EvalError::new(
            span,
            format!("use of undeclared identifier `{name}`"),
        ))
    }

    fn index(&mut self, v: Value, i: Value, span: Span) -> EResult<Value> {
        let Value::Int { value: i, .. } = i else {
            return Err(EvalError::new(
                span,
                format!("an index must be an integer, found {}", i.type_name()),
            ));
        };
        match v {
            Value::List(items) => {
                let len = items.len();
                usize::try_from(i)
                    .ok()
                    .and_then(|i| items.into_iter().nth(i))
                    .ok_or_else(|| {
                        EvalError::new(span, format!("index {i} is out of bounds for length {len}"))
                    })
            }
            other => Err(EvalError::new(
                span,
                format!("a value of type {} cannot be indexed", other.type_name()),
            )),
        }
    }

    fn field(&mut self, v: Value, name: &str, span: Span) -> EResult<Value> {
        match v {
            Value::Struct(fields) => {
                let names: Vec<String> = fields.iter().map(|(n, _)| n.clone()).collect();
                fields
                    .into_iter()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v)
                    .ok_or_else(|| {
                        EvalError::new(
                            span,
                            format!(
                                "no field `{name}` in this struct (its fields: {})",
                                names.join(", ")
                            ),
                        )
                    })
            }
            Value::List(items) if name == "len" => Ok(Value::comptime_int(items.len() as i128)),
            Value::Str(s) if name == "len" => Ok(Value::comptime_int(s.len() as i128)),
            Value::Module(m) => {
                crate::sdk::library_field(&m, name).map_err(|message| EvalError::new(span, message))
            }
            other => Err(EvalError::new(
                span,
                format!(
                    "a value of type {} has no field `{name}`",
                    other.type_name()
                ),
            )),
        }
    }

    /// `callee(args)`: a function of the file, or of an imported library.
    fn call(&mut self, callee: &Expr, args: &[Expr], span: Span) -> EResult<Value> {
        let target = match &callee.kind {
            ExprKind::Field { base, name } => match self.expr(base)? {
                Value::Module(m) => {
                    let args = args
                        .iter()
                        .map(|a| self.expr(a))
                        .collect::<EResult<Vec<_>>>()?;
                    return self.library_call(&m, name, &args, span);
                }
                other => self.field(other, name, callee.span)?,
            },
            _ => self.expr(callee)?,
        };
        let Value::Function(name) = target else {
            return Err(EvalError::new(
                callee.span,
                format!("a value of type {} cannot be called", target.type_name()),
            ));
        };
        let module = self.module;
        let Some(f) = module.decls.iter().find_map(|d| match &d.kind {
            DeclKind::Fn(f) if f.name == name => Some(f),
            _ => None,
        }) else {
            return Err(EvalError::new(
                span,
                format!("task `{name}` cannot be called at compile time"),
            ));
        };
        self.call_fn(f, args, span)
    }

    fn call_fn(&mut self, f: &'m FnDecl, args: &[Expr], span: Span) -> EResult<Value> {
        if args.len() != f.params.len() {
            return Err(EvalError::new(
                span,
                format!(
                    "`{}` takes {} arguments, found {}",
                    f.name,
                    f.params.len(),
                    args.len()
                ),
            ));
        }
        let Some(body) = &f.body else {
            return Err(EvalError::new(
                span,
                format!("`{}` has no body to run at compile time", f.name),
            ));
        };
        if self.calls >= MAX_CALL_DEPTH {
            return Err(EvalError::new(
                span,
                format!("calls nest deeper than {MAX_CALL_DEPTH} levels at compile time"),
            ));
        }
        self.tick(span)?;
        let mut frame = HashMap::new();
        for (p, a) in f.params.iter().zip(args) {
            let ty = self.eval_type(&p.ty)?;
            let v = self.expr(a)?;
            let v = self.coerce(v, &ty, a.span)?;
            frame.insert(
                p.name.clone(),
                Local {
                    value: v,
                    mutable: false,
                    ty: Some(ty),
                },
            );
        }
        let ret = self.eval_type(&f.ret)?;
        let saved = std::mem::replace(&mut self.scopes, vec![frame]);
        self.calls += 1;
        let flow = self.block(body);
        self.calls -= 1;
        self.scopes = saved;
        let value = match flow? {
            Flow::Return(v) => v,
            Flow::Normal => Value::Void,
            Flow::Break(at) | Flow::Continue(at) => {
                return Err(EvalError::new(at, "`break`/`continue` outside a loop"));
            }
        };
        self.coerce(value, &ret, span)
    }

    /// The type `e` denotes.
    pub(super) fn eval_type(&mut self, e: &Expr) -> EResult<Type> {
        match self.expr(e)? {
            Value::Type(t) => Ok(t),
            other => Err(EvalError::new(
                e.span,
                format!("expected a type, found {} `{other}`", other.type_name()),
            )),
        }
    }

    fn type_constructor(&mut self, e: &Expr) -> EResult<Type> {
        Ok(match &e.kind {
            ExprKind::ArrayType { dims, elem } => {
                let mut lengths = Vec::with_capacity(dims.len());
                for d in dims {
                    let v = self.expr(d)?;
                    let len = match v {
                        Value::Int { value, .. } => u64::try_from(value).ok(),
                        _ => None,
                    };
                    lengths.push(len.ok_or_else(|| {
                        EvalError::new(
                            d.span,
                            format!("an array length must be a non-negative integer, found `{v}`"),
                        )
                    })?);
                }
                Type::Array {
                    dims: lengths,
                    elem: Box::new(self.eval_type(elem)?),
                }
            }
            ExprKind::PtrType { is_const, elem } => Type::Ptr {
                is_const: *is_const,
                elem: Box::new(self.eval_type(elem)?),
            },
            ExprKind::ManyPtrType { is_const, elem } => Type::ManyPtr {
                is_const: *is_const,
                elem: Box::new(self.eval_type(elem)?),
            },
            ExprKind::SliceType { is_const, elem } => Type::Slice {
                is_const: *is_const,
                elem: Box::new(self.eval_type(elem)?),
            },
            ExprKind::FnType { params, ret } => Type::Fn {
                params: params
                    .iter()
                    .map(|p| self.eval_type(p))
                    .collect::<EResult<_>>()?,
                ret: Box::new(self.eval_type(ret)?),
            },
            _ => return Err(EvalError::new(e.span, "expected a type")),
        })
    }

    /// The integer value of `v`, for a builtin's argument.
    pub(super) fn int_of(&self, v: &Value, what: &str, span: Span) -> EResult<i128> {
        match v {
            Value::Int { value, .. } => Ok(*value),
            other => Err(EvalError::new(
                span,
                format!(
                    "{what} must be an integer, found {} `{other}`",
                    other.type_name()
                ),
            )),
        }
    }
}
