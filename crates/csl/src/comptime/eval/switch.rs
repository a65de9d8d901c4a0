//! `switch` at compile time: the first prong whose value equals the subject, or whose
//! inclusive range holds it, else the `else` prong; none is an error.

use super::super::error::{EResult, EvalError};
use super::super::value::Value;
use super::Evaluator;
use super::stmt::Flow;
use crate::ast::{BinOp, Expr, ProngBody, SwitchItem, SwitchProng};
use crate::span::Span;

impl Evaluator<'_> {
    fn holds(&mut self, op: BinOp, a: &Value, b: Value, span: Span) -> EResult<bool> {
        Ok(self.binary(op, a.clone(), b, span)? == Value::Bool(true))
    }

    fn prong<'p>(
        &mut self,
        subject: &Expr,
        prongs: &'p [SwitchProng],
        span: Span,
    ) -> EResult<&'p SwitchProng> {
        let v = self.expr(subject)?;
        let mut otherwise = None;
        for prong in prongs {
            if prong.items.is_empty() {
                otherwise = Some(prong);
                continue;
            }
            for item in &prong.items {
                let hit = match item {
                    SwitchItem::Value(x) => {
                        let x = self.expr(x)?;
                        self.holds(BinOp::Eq, &v, x, span)?
                    }
                    SwitchItem::Range(lo, hi) => {
                        let (lo, hi) = (self.expr(lo)?, self.expr(hi)?);
                        self.holds(BinOp::Ge, &v, lo, span)?
                            && self.holds(BinOp::Le, &v, hi, span)?
                    }
                };
                if hit {
                    return Ok(prong);
                }
            }
        }
        otherwise.ok_or_else(|| EvalError::new(span, format!("no switch prong matches `{v}`")))
    }

    /// A `switch` used for its value.
    pub(super) fn switch_value(
        &mut self,
        subject: &Expr,
        prongs: &[SwitchProng],
        span: Span,
    ) -> EResult<Value> {
        match &self.prong(subject, prongs, span)?.body {
            ProngBody::Expr(e) => self.expr(e),
            ProngBody::Block(b) => match self.block(b)? {
                Flow::Normal => Ok(Value::Void),
                _ => Err(EvalError::new(
                    b.span,
                    "`return`, `break` or `continue` cannot leave a switch used as a value",
                )),
            },
        }
    }

    /// A `switch` statement: its prong's block may `return`, `break` or `continue`.
    pub(super) fn switch_stmt(
        &mut self,
        subject: &Expr,
        prongs: &[SwitchProng],
        span: Span,
    ) -> EResult<Flow> {
        match &self.prong(subject, prongs, span)?.body {
            ProngBody::Expr(e) => self.expr(e).map(|_| Flow::Normal),
            ProngBody::Block(b) => self.block(b),
        }
    }
}
