//! Operator expressions: binary operators by precedence climbing (Zig's table, see
//! [`BinOp::precedence`]), prefix operators, and postfix calls, indexing, slices, fields,
//! `.*` and typed literals.

use super::ParseError;
use super::cursor::{PResult, Parser};
use crate::ast::{BinOp, Expr, ExprKind, UnOp};
use crate::lex::Tok;

/// The binary operator a token spells, if any.
fn bin_op(tok: Option<Tok>) -> Option<BinOp> {
    Some(match tok? {
        Tok::Or => BinOp::Or,
        Tok::And => BinOp::And,
        Tok::EqEq => BinOp::Eq,
        Tok::BangEq => BinOp::Ne,
        Tok::Lt => BinOp::Lt,
        Tok::Le => BinOp::Le,
        Tok::Gt => BinOp::Gt,
        Tok::Ge => BinOp::Ge,
        Tok::Amp => BinOp::BitAnd,
        Tok::Caret => BinOp::BitXor,
        Tok::Bar => BinOp::BitOr,
        Tok::Shl => BinOp::Shl,
        Tok::Shr => BinOp::Shr,
        Tok::Plus => BinOp::Add,
        Tok::Minus => BinOp::Sub,
        Tok::PlusPlus => BinOp::Concat,
        Tok::Star => BinOp::Mul,
        Tok::Slash => BinOp::Div,
        Tok::Percent => BinOp::Rem,
        _ => return None,
    })
}

/// Whether `e` can be the type of a typed literal `e{ ... }`.
fn is_init_type(e: &Expr) -> bool {
    matches!(
        e.kind,
        ExprKind::Ident(_) | ExprKind::Field { .. } | ExprKind::ArrayType { .. }
    )
}

impl Parser<'_> {
    /// A full expression.
    pub(super) fn expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.binary(1))
    }

    /// A type: a prefix-level expression (no binary operators at its top).
    pub(super) fn type_expr(&mut self) -> PResult<Expr> {
        self.nested(|p| p.prefix())
    }

    fn binary(&mut self, min: u8) -> PResult<Expr> {
        let mut lhs = self.prefix()?;
        while let Some(op) = bin_op(self.peek()) {
            let prec = op.precedence();
            if prec < min {
                break;
            }
            self.bump();
            let rhs = self.binary(prec + 1)?;
            if op.is_comparison() && bin_op(self.peek()).is_some_and(BinOp::is_comparison) {
                return Err(ParseError::new(
                    self.span(),
                    "comparison operators cannot be chained: add parentheses",
                ));
            }
            let span = lhs.span.to(rhs.span);
            lhs = Expr::new(ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)), span);
        }
        Ok(lhs)
    }

    /// Prefix operators, then a postfix expression.
    pub(super) fn prefix(&mut self) -> PResult<Expr> {
        let op = match self.peek() {
            Some(Tok::Minus) => UnOp::Neg,
            Some(Tok::Bang) => UnOp::Not,
            Some(Tok::Tilde) => UnOp::BitNot,
            Some(Tok::Amp) => UnOp::AddrOf,
            Some(Tok::Comptime) => {
                let start = self.bump();
                let inner = self.nested(|p| p.prefix())?;
                let span = start.to(inner.span);
                return Ok(Expr::new(ExprKind::Comptime(Box::new(inner)), span));
            }
            _ => return self.postfix(),
        };
        let start = self.bump();
        let inner = self.nested(|p| p.prefix())?;
        let span = start.to(inner.span);
        Ok(Expr::new(ExprKind::Unary(op, Box::new(inner)), span))
    }

    /// A primary expression and its postfix operations.
    pub(super) fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.primary()?;
        loop {
            e = match self.peek() {
                Some(Tok::LParen) => {
                    self.bump();
                    let args = self.list(Tok::RParen, "after the arguments", |p| p.expr())?;
                    let span = e.span.to(self.prev_span());
                    Expr::new(
                        ExprKind::Call {
                            callee: Box::new(e),
                            args,
                        },
                        span,
                    )
                }
                Some(Tok::LBracket) => self.index(e)?,
                Some(Tok::Dot) => {
                    self.bump();
                    let (name, name_span) = self.field_name()?;
                    let span = e.span.to(name_span);
                    Expr::new(
                        ExprKind::Field {
                            base: Box::new(e),
                            name,
                        },
                        span,
                    )
                }
                Some(Tok::DotStar) => {
                    let end = self.bump();
                    let span = e.span.to(end);
                    Expr::new(ExprKind::Deref(Box::new(e)), span)
                }
                Some(Tok::LBrace) if !self.no_brace_init && is_init_type(&e) => {
                    self.typed_literal(e)?
                }
                _ => return Ok(e),
            };
        }
    }

    /// `[i]`, `[i, j]`, `[a..b]` or `[a..]` after `base`.
    fn index(&mut self, base: Expr) -> PResult<Expr> {
        self.bump();
        let first = self.expr()?;
        if self.eat(Tok::DotDot) {
            let end = if self.at(Tok::RBracket) {
                None
            } else {
                Some(Box::new(self.expr()?))
            };
            self.expect(Tok::RBracket, "after the slice")?;
            let span = base.span.to(self.prev_span());
            return Ok(Expr::new(
                ExprKind::Slice {
                    base: Box::new(base),
                    start: Box::new(first),
                    end,
                },
                span,
            ));
        }
        let mut indices = vec![first];
        if self.eat(Tok::Comma) {
            indices.extend(self.list(Tok::RBracket, "after the indices", |p| p.expr())?);
        } else {
            self.expect(Tok::RBracket, "after the index")?;
        }
        let span = base.span.to(self.prev_span());
        Ok(Expr::new(
            ExprKind::Index {
                base: Box::new(base),
                indices,
            },
            span,
        ))
    }

    /// A field name after `.`: an identifier, or a keyword used as a name (`.layout`).
    pub(super) fn field_name(&mut self) -> PResult<(String, crate::span::Span)> {
        let word = self.slice();
        let is_word = self
            .peek()
            .is_some_and(|t| t == Tok::Ident || !t.spelling().is_empty())
            && word.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_');
        if is_word {
            let name = word.to_string();
            Ok((name, self.bump()))
        } else {
            Err(self.expected("a field name after `.`"))
        }
    }
}
