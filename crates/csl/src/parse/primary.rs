//! Primary expressions: names, literals, builtin calls, parentheses, `.{ }` literals,
//! `if` expressions, and the entries to types and tensor access expressions.

use super::ParseError;
use super::cursor::{PResult, Parser};
use super::literal::{float_text, int_value, unescape};
use crate::ast::{Expr, ExprKind, FieldInit};
use crate::lex::Tok;

/// What the braces of a literal hold.
pub(super) enum InitList {
    /// `.a = x, .b = y`.
    Fields(Vec<FieldInit>),
    /// `x, y` (or nothing).
    Elems(Vec<Expr>),
}

impl Parser<'_> {
    pub(super) fn primary(&mut self) -> PResult<Expr> {
        let span = self.span();
        let kind = match self.peek() {
            Some(Tok::Ident) => {
                let name = self.slice().to_string();
                self.bump();
                ExprKind::Ident(name)
            }
            Some(Tok::Int) => {
                let v = int_value(self.slice(), span)?;
                self.bump();
                ExprKind::Int(v)
            }
            Some(Tok::Float) => {
                let t = float_text(self.slice(), span)?;
                self.bump();
                ExprKind::Float(t)
            }
            Some(Tok::Str) => {
                let text = self.slice();
                let s = unescape(&text[1..text.len() - 1], span)?;
                self.bump();
                ExprKind::Str(s)
            }
            Some(Tok::Char) => {
                let text = self.slice();
                let s = unescape(&text[1..text.len() - 1], span)?;
                let mut chars = s.chars();
                let c = match (chars.next(), chars.next()) {
                    (Some(c), None) => c,
                    _ => {
                        return Err(ParseError::new(
                            span,
                            "a character literal holds exactly one character",
                        ));
                    }
                };
                self.bump();
                ExprKind::Char(u32::from(c))
            }
            Some(Tok::True) => {
                self.bump();
                ExprKind::Bool(true)
            }
            Some(Tok::False) => {
                self.bump();
                ExprKind::Bool(false)
            }
            Some(Tok::Undefined) => {
                self.bump();
                ExprKind::Undefined
            }
            Some(Tok::Null) => {
                self.bump();
                ExprKind::Null
            }
            Some(Tok::LBrace) if self.peek_at(1) == Some(Tok::RBrace) => {
                self.bump();
                self.bump();
                ExprKind::VoidLit
            }
            Some(Tok::Builtin) => {
                let name = self.slice()[1..].to_string();
                self.bump();
                self.expect(Tok::LParen, "after the builtin name")?;
                let saved = self.no_brace_init;
                self.no_brace_init = false;
                let args = self.list(Tok::RParen, "after the arguments", |p| p.expr());
                self.no_brace_init = saved;
                ExprKind::Builtin { name, args: args? }
            }
            Some(Tok::LParen) => {
                self.bump();
                let saved = self.no_brace_init;
                self.no_brace_init = false;
                let inner = self.expr();
                self.no_brace_init = saved;
                let inner = inner?;
                self.expect(Tok::RParen, "to close the parenthesis")?;
                // The tree keeps no parentheses; the span grows to cover them.
                return Ok(Expr::new(inner.kind, span.to(self.prev_span())));
            }
            Some(Tok::Dot) => {
                self.bump();
                if self.at(Tok::LBrace) {
                    match self.init_list()? {
                        InitList::Fields(f) => ExprKind::StructLit(f),
                        // `.{}` is the empty struct (module params, empty options).
                        InitList::Elems(e) if e.is_empty() => ExprKind::StructLit(Vec::new()),
                        InitList::Elems(e) => ExprKind::ListLit(e),
                    }
                } else {
                    ExprKind::EnumLit(self.field_name()?.0)
                }
            }
            Some(Tok::If) => self.if_expr()?,
            Some(Tok::Switch) => return self.switch(),
            Some(Tok::Bar) => return self.tensor_access(),
            Some(Tok::LBracket | Tok::Star | Tok::Fn | Tok::Struct | Tok::Enum) => {
                return self.type_constructor();
            }
            _ => return Err(self.expected("an expression")),
        };
        Ok(Expr::new(kind, span.to(self.prev_span())))
    }

    /// `{ .a = x, ... }` or `{ x, ... }` (the `{` is the current token).
    pub(super) fn init_list(&mut self) -> PResult<InitList> {
        self.nested(|p| {
            p.expect(Tok::LBrace, "")?;
            let saved = p.no_brace_init;
            p.no_brace_init = false;
            let fields = p.at(Tok::Dot) && p.peek_at(2) == Some(Tok::Eq);
            let result = if fields {
                p.list(Tok::RBrace, "after the fields", |p| {
                    p.expect(Tok::Dot, "before the field name")?;
                    let (name, _) = p.field_name()?;
                    p.expect(Tok::Eq, "after the field name")?;
                    let value = p.expr()?;
                    Ok(FieldInit { name, value })
                })
                .map(InitList::Fields)
            } else {
                p.list(Tok::RBrace, "after the elements", |p| p.expr())
                    .map(InitList::Elems)
            };
            p.no_brace_init = saved;
            result
        })
    }

    /// `T{ ... }` after the type `ty`.
    pub(super) fn typed_literal(&mut self, ty: Expr) -> PResult<Expr> {
        let is_array = matches!(ty.kind, ExprKind::ArrayType { .. });
        let list = self.init_list()?;
        let span = ty.span.to(self.prev_span());
        let ty = Box::new(ty);
        let kind = match list {
            InitList::Elems(elems) if is_array || !elems.is_empty() => {
                ExprKind::TypedList { ty, elems }
            }
            InitList::Elems(_) => ExprKind::TypedStruct {
                ty,
                fields: Vec::new(),
            },
            InitList::Fields(fields) => ExprKind::TypedStruct { ty, fields },
        };
        Ok(Expr::new(kind, span))
    }

    /// `if (c) a else b`.
    fn if_expr(&mut self) -> PResult<ExprKind> {
        self.bump();
        self.expect(Tok::LParen, "after `if`")?;
        let cond = self.expr()?;
        self.expect(Tok::RParen, "after the condition")?;
        let then = self.expr()?;
        let otherwise = if self.eat(Tok::Else) {
            Some(Box::new(self.expr()?))
        } else {
            None
        };
        Ok(ExprKind::If {
            cond: Box::new(cond),
            then: Box::new(then),
            otherwise,
        })
    }
}
