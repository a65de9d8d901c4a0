//! Statements and control flow.

use std::collections::HashMap;

use super::super::error::{EResult, EvalError};
use super::super::value::Value;
use super::{Evaluator, Local};
use crate::ast::{AssignOp, Block, Else, Expr, ExprKind, Stmt, StmtKind, VarDecl};
use crate::span::Span;

/// How a statement ended.
pub(super) enum Flow {
    /// It ran to its end.
    Normal,
    /// `break` (where).
    Break(Span),
    /// `continue` (where).
    Continue(Span),
    /// `return` with the value.
    Return(Value),
}

impl Evaluator<'_> {
    /// Runs a block in its own scope.
    pub(super) fn block(&mut self, block: &Block) -> EResult<Flow> {
        self.nested(block.span, |ev| {
            ev.scopes.push(HashMap::new());
            let result = ev.stmts(&block.stmts);
            ev.scopes.pop();
            result
        })
    }

    fn stmts(&mut self, stmts: &[Stmt]) -> EResult<Flow> {
        for s in stmts {
            let flow = self.stmt(s)?;
            if !matches!(flow, Flow::Normal) {
                return Ok(flow);
            }
        }
        Ok(Flow::Normal)
    }

    /// The value a `const`/`var` declaration starts with, of its declared type.
    pub(super) fn var_value(&mut self, v: &VarDecl) -> EResult<Value> {
        let ty = v.ty.as_ref().map(|t| self.eval_type(t)).transpose()?;
        let Some(init) = &v.init else {
            return Err(EvalError::new(
                v.name_span,
                format!("`{}` needs a value at compile time", v.name),
            ));
        };
        let value = self.expr(init)?;
        match &ty {
            Some(ty) => self.coerce(value, ty, init.span),
            None => Ok(value),
        }
    }

    fn stmt(&mut self, s: &Stmt) -> EResult<Flow> {
        match &s.kind {
            StmtKind::Var(v) => {
                let ty = v.ty.as_ref().map(|t| self.eval_type(t)).transpose()?;
                let value = self.var_value(v)?;
                let scope = self.scopes.last_mut();
                if let Some(scope) = scope {
                    scope.insert(
                        v.name.clone(),
                        Local {
                            value,
                            mutable: !v.is_const,
                            ty,
                        },
                    );
                }
                Ok(Flow::Normal)
            }
            StmtKind::Expr(Expr {
                kind: ExprKind::Switch { subject, prongs },
                span,
            }) => self.switch_stmt(subject, prongs, *span),
            StmtKind::Expr(e) => {
                self.expr(e)?;
                Ok(Flow::Normal)
            }
            StmtKind::Assign { target, op, value } => {
                self.assign(target, *op, value)?;
                Ok(Flow::Normal)
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.bool_of(cond)? {
                    self.block(then)
                } else {
                    match otherwise {
                        Some(Else::Block(b)) => self.block(b),
                        Some(Else::If(s)) => self.stmt(s),
                        None => Ok(Flow::Normal),
                    }
                }
            }
            StmtKind::While { cond, step, body } => {
                while self.bool_of(cond)? {
                    self.tick(s.span)?;
                    match self.block(body)? {
                        Flow::Break(_) => break,
                        Flow::Return(v) => return Ok(Flow::Return(v)),
                        Flow::Normal | Flow::Continue(_) => {}
                    }
                    if let Some(step) = step {
                        self.stmt(step)?;
                    }
                }
                Ok(Flow::Normal)
            }
            StmtKind::For {
                iter,
                captures,
                body,
            } => self.for_loop(iter, captures, body, s.span),
            StmtKind::Return(v) => {
                let v = v.as_ref().map(|e| self.expr(e)).transpose()?;
                Ok(Flow::Return(v.unwrap_or(Value::Void)))
            }
            StmtKind::Break => Ok(Flow::Break(s.span)),
            StmtKind::Continue => Ok(Flow::Continue(s.span)),
            StmtKind::Block(b) | StmtKind::Comptime(b) => self.block(b),
        }
    }

    fn for_loop(
        &mut self,
        iter: &Expr,
        captures: &[String],
        body: &Block,
        span: Span,
    ) -> EResult<Flow> {
        if captures.len() > 2 {
            return Err(EvalError::new(
                span,
                "a `for` loop captures an element and at most an index",
            ));
        }
        let items: Box<dyn Iterator<Item = Value>> = match self.expr(iter)? {
            Value::Range {
                start,
                end,
                step,
                ty,
            } => Box::new(
                std::iter::successors(Some(start), move |&v| v.checked_add(step))
                    .take_while(move |&v| if step > 0 { v < end } else { v > end })
                    .map(move |value| Value::Int { value, ty }),
            ),
            Value::List(items) => Box::new(items.into_iter()),
            other => {
                return Err(EvalError::new(
                    iter.span,
                    format!("a `for` loop cannot iterate over {}", other.type_name()),
                ));
            }
        };
        for (index, item) in items.enumerate() {
            self.tick(span)?;
            let mut frame = HashMap::new();
            let mut bind = |name: &String, value| {
                frame.insert(
                    name.clone(),
                    Local {
                        value,
                        mutable: false,
                        ty: None,
                    },
                );
            };
            if let Some(name) = captures.first() {
                bind(name, item);
            }
            if let Some(name) = captures.get(1) {
                bind(name, Value::comptime_int(index as i128));
            }
            self.scopes.push(frame);
            let flow = self.block(body);
            self.scopes.pop();
            match flow? {
                Flow::Break(_) => break,
                Flow::Return(v) => return Ok(Flow::Return(v)),
                Flow::Normal | Flow::Continue(_) => {}
            }
        }
        Ok(Flow::Normal)
    }

    fn assign(&mut self, target: &Expr, op: AssignOp, value: &Expr) -> EResult<()> {
        let ExprKind::Ident(name) = &target.kind else {
            return Err(EvalError::new(
                target.span,
                "only variables can be assigned at compile time",
            ));
        };
        let mut v = self.expr(value)?;
        if let AssignOp::Compound(op) = op {
            let old = self.expr(target)?;
            v = self.binary(op, old, v, value.span)?;
        }
        for i in (0..self.scopes.len()).rev() {
            let Some(local) = self.scopes[i].get(name.as_str()) else {
                continue;
            };
            if !local.mutable {
                return Err(EvalError::new(
                    target.span,
                    format!("cannot assign to constant `{name}`"),
                ));
            }
            let ty = local.ty.clone();
            let v = match &ty {
                Some(ty) => self.coerce(v, ty, value.span)?,
                None => v,
            };
            if let Some(local) = self.scopes[i].get_mut(name.as_str()) {
                local.value = v;
            }
            return Ok(());
        }
        if self.set_global(name, v, target.span)? {
            return Ok(());
        }
        Err(EvalError::new(
            target.span,
            format!("use of undeclared identifier `{name}`"),
        ))
    }
}
