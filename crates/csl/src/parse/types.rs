//! Type constructors: `[N]T`, `[M, N]T`, `[*]T`, `[]T`, `*T`, `*const T`, `fn(A) R`,
//! `struct { }` and `enum(T) { }`.

use super::cursor::{PResult, Parser};
use crate::ast::{EnumMember, Expr, ExprKind, FieldDecl};
use crate::lex::Tok;

impl Parser<'_> {
    /// A type constructor (the current token is `[`, `*`, `fn`, `struct` or `enum`).
    pub(super) fn type_constructor(&mut self) -> PResult<Expr> {
        let start = self.span();
        let kind = match self.peek() {
            Some(Tok::Star) => {
                self.bump();
                let is_const = self.eat(Tok::Const);
                ExprKind::PtrType {
                    is_const,
                    elem: Box::new(self.elem_type()?),
                }
            }
            Some(Tok::LBracket) => {
                self.bump();
                if self.at(Tok::Star) && self.peek_at(1) == Some(Tok::RBracket) {
                    self.bump();
                    self.bump();
                    let is_const = self.eat(Tok::Const);
                    ExprKind::ManyPtrType {
                        is_const,
                        elem: Box::new(self.elem_type()?),
                    }
                } else if self.eat(Tok::RBracket) {
                    let is_const = self.eat(Tok::Const);
                    ExprKind::SliceType {
                        is_const,
                        elem: Box::new(self.elem_type()?),
                    }
                } else {
                    let saved = self.no_brace_init;
                    self.no_brace_init = false;
                    let dims = self.list(Tok::RBracket, "after the array length", |p| p.expr());
                    self.no_brace_init = saved;
                    ExprKind::ArrayType {
                        dims: dims?,
                        elem: Box::new(self.elem_type()?),
                    }
                }
            }
            Some(Tok::Fn) => {
                self.bump();
                self.expect(Tok::LParen, "after `fn`")?;
                let params = self.list(Tok::RParen, "after the parameter types", |p| {
                    if p.at(Tok::Ident) && p.peek_at(1) == Some(Tok::Colon) {
                        p.bump();
                        p.bump();
                    }
                    p.type_expr()
                })?;
                ExprKind::FnType {
                    params,
                    ret: Box::new(self.elem_type()?),
                }
            }
            Some(Tok::Struct) => {
                self.bump();
                self.expect(Tok::LBrace, "after `struct`")?;
                let fields = self.nested(|p| {
                    p.list(Tok::RBrace, "after the fields", |p| {
                        let (name, _) = p.ident("a field name")?;
                        p.expect(Tok::Colon, "after the field name")?;
                        let ty = p.type_expr()?;
                        let default = if p.eat(Tok::Eq) {
                            Some(p.expr()?)
                        } else {
                            None
                        };
                        Ok(FieldDecl { name, ty, default })
                    })
                })?;
                ExprKind::StructType(fields)
            }
            _ => {
                self.expect(Tok::Enum, "")?;
                let tag = if self.eat(Tok::LParen) {
                    let t = self.type_expr()?;
                    self.expect(Tok::RParen, "after the tag type")?;
                    Some(Box::new(t))
                } else {
                    None
                };
                self.expect(Tok::LBrace, "to open the enum's members")?;
                let members = self.nested(|p| {
                    p.list(Tok::RBrace, "after the members", |p| {
                        let (name, _) = p.ident("a member name")?;
                        let value = if p.eat(Tok::Eq) {
                            Some(p.expr()?)
                        } else {
                            None
                        };
                        Ok(EnumMember { name, value })
                    })
                })?;
                ExprKind::EnumType { tag, members }
            }
        };
        Ok(Expr::new(kind, start.to(self.prev_span())))
    }

    /// An element, pointee or return type: no typed literal may start at its `{`.
    fn elem_type(&mut self) -> PResult<Expr> {
        let saved = self.no_brace_init;
        self.no_brace_init = true;
        let ty = self.type_expr();
        self.no_brace_init = saved;
        ty
    }
}
