//! Tensor access expressions inside CSL: `|i, j|{M, N} -> A[i, j]`.

use super::cursor::{PResult, Parser};
use crate::ast::{Expr, ExprKind, TensorAccess};
use crate::lex::Tok;

impl Parser<'_> {
    /// `|i, ...|{extent, ...} -> target` (the `|` is the current token).
    pub(super) fn tensor_access(&mut self) -> PResult<Expr> {
        let start = self.bump();
        let mut indices = vec![self.ident("an induction variable after `|`")?.0];
        while self.eat(Tok::Comma) {
            indices.push(self.ident("an induction variable")?.0);
        }
        self.expect(Tok::Bar, "after the induction variables")?;
        self.expect(Tok::LBrace, "to open the extents")?;
        let extents = self.nested(|p| p.list(Tok::RBrace, "after the extents", |p| p.expr()))?;
        self.expect(Tok::Arrow, "after the extents")?;
        let target = self.nested(|p| p.postfix())?;
        let span = start.to(target.span);
        Ok(Expr::new(
            ExprKind::TensorAccess(TensorAccess {
                indices,
                extents,
                target: Box::new(target),
            }),
            span,
        ))
    }
}
