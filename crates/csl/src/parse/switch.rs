//! `switch (x) { values => body, ..., else => body }`, as an expression or a statement.

use super::cursor::{PResult, Parser};
use crate::ast::{Expr, ExprKind, ProngBody, SwitchItem, SwitchProng};
use crate::lex::Tok;

impl Parser<'_> {
    /// A `switch` (the current token is `switch`).
    pub(super) fn switch(&mut self) -> PResult<Expr> {
        let start = self.bump();
        self.expect(Tok::LParen, "after `switch`")?;
        let subject = self.expr()?;
        self.expect(Tok::RParen, "after the switch subject")?;
        if !self.at(Tok::LBrace) {
            return Err(self.expected("`{` to open the switch prongs"));
        }
        self.bump();
        let saved = self.no_brace_init;
        self.no_brace_init = false;
        let prongs = self.nested(|p| p.list(Tok::RBrace, "after the switch prongs", |p| p.prong()));
        self.no_brace_init = saved;
        let prongs = prongs?;
        Ok(Expr::new(
            ExprKind::Switch {
                subject: Box::new(subject),
                prongs,
            },
            start.to(self.prev_span()),
        ))
    }

    fn prong(&mut self) -> PResult<SwitchProng> {
        let mut items = Vec::new();
        if !self.eat(Tok::Else) {
            loop {
                let first = self.expr()?;
                items.push(if self.eat(Tok::Ellipsis) {
                    SwitchItem::Range(first, self.expr()?)
                } else {
                    SwitchItem::Value(first)
                });
                if !self.eat(Tok::Comma) || self.at(Tok::FatArrow) {
                    break;
                }
            }
        }
        self.expect(Tok::FatArrow, "after the prong's values")?;
        let body = if self.at(Tok::LBrace) && self.peek_at(1) != Some(Tok::RBrace) {
            ProngBody::Block(self.block()?)
        } else {
            ProngBody::Expr(self.expr()?)
        };
        Ok(SwitchProng { items, body })
    }
}
