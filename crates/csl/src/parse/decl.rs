//! Top-level declarations: `const`/`var`, `param`, `fn`, `task`, `comptime { }`,
//! `layout { }`, with `export`/`extern`/`inline` prefixes.

use super::cursor::{PResult, Parser};
use crate::ast::{Decl, DeclKind, FnDecl, FnParam, Module, ParamDecl, VarDecl};
use crate::lex::Tok;

impl Parser<'_> {
    /// The whole file.
    pub(super) fn module(&mut self) -> PResult<Module> {
        let mut decls = Vec::new();
        while self.peek().is_some() {
            decls.push(self.decl()?);
        }
        Ok(Module { decls })
    }

    fn decl(&mut self) -> PResult<Decl> {
        let start = self.span();
        let is_export = self.eat(Tok::Export);
        let is_extern = !is_export && self.eat(Tok::Extern);
        let kind = match self.peek() {
            Some(Tok::Const | Tok::Var) => DeclKind::Var(self.var_decl(is_export, is_extern)?),
            Some(Tok::Fn | Tok::Inline) => DeclKind::Fn(self.fn_decl(is_export, is_extern)?),
            Some(Tok::Param) if !is_export && !is_extern => DeclKind::Param(self.param_decl()?),
            Some(Tok::Task) if !is_export && !is_extern => {
                self.bump();
                DeclKind::Task(self.fn_rest(false, false, false)?)
            }
            Some(Tok::Comptime) if !is_export && !is_extern => {
                self.bump();
                DeclKind::Comptime(self.block()?)
            }
            Some(Tok::Layout) if !is_export && !is_extern => {
                self.bump();
                DeclKind::Layout(self.block()?)
            }
            _ if is_export || is_extern => {
                return Err(self.expected("`const`, `var` or `fn` after `export`/`extern`"));
            }
            _ => {
                return Err(self.expected(
                    "a declaration (`const`, `var`, `param`, `fn`, `task`, `comptime` or `layout`)",
                ));
            }
        };
        Ok(Decl {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// `const|var name [: T] [align(a)] [= init];` (the `export`/`extern` prefix already
    /// read).
    pub(super) fn var_decl(&mut self, is_export: bool, is_extern: bool) -> PResult<VarDecl> {
        let is_const = self.bump_is(Tok::Const);
        let (name, name_span) = self.ident("a name after `const`/`var`")?;
        let ty = if self.eat(Tok::Colon) {
            Some(self.type_expr()?)
        } else {
            None
        };
        let align = if self.eat(Tok::Align) {
            self.expect(Tok::LParen, "after `align`")?;
            let a = self.expr()?;
            self.expect(Tok::RParen, "after the alignment")?;
            Some(a)
        } else {
            None
        };
        let init = if self.eat(Tok::Eq) {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect(Tok::Semi, "after the declaration")?;
        Ok(VarDecl {
            is_export,
            is_extern,
            is_const,
            name,
            ty,
            align,
            init,
            name_span,
        })
    }

    /// Moves past the current token and says whether it was `tok`.
    fn bump_is(&mut self, tok: Tok) -> bool {
        let is = self.at(tok);
        self.bump();
        is
    }

    fn param_decl(&mut self) -> PResult<ParamDecl> {
        self.bump();
        let (name, name_span) = self.ident("a name after `param`")?;
        let ty = if self.eat(Tok::Colon) {
            Some(self.type_expr()?)
        } else {
            None
        };
        let default = if self.eat(Tok::Eq) {
            Some(self.expr()?)
        } else {
            None
        };
        self.expect(Tok::Semi, "after the param declaration")?;
        Ok(ParamDecl {
            name,
            ty,
            default,
            name_span,
        })
    }

    fn fn_decl(&mut self, is_export: bool, is_extern: bool) -> PResult<FnDecl> {
        let is_inline = self.eat(Tok::Inline);
        self.expect(Tok::Fn, "after `inline`")?;
        self.fn_rest(is_export, is_extern, is_inline)
    }

    /// `name(params) R { body }` or `... R;` after `fn` or `task`.
    fn fn_rest(&mut self, is_export: bool, is_extern: bool, is_inline: bool) -> PResult<FnDecl> {
        let (name, name_span) = self.ident("a function name")?;
        self.expect(Tok::LParen, "after the function name")?;
        let params = self.list(Tok::RParen, "after the parameters", |p| {
            let is_comptime = p.eat(Tok::Comptime);
            let (name, _) = p.ident("a parameter name")?;
            p.expect(Tok::Colon, "after the parameter name")?;
            let ty = p.type_expr()?;
            Ok(FnParam {
                is_comptime,
                name,
                ty,
            })
        })?;
        let saved = self.no_brace_init;
        self.no_brace_init = true;
        let ret = self.type_expr();
        self.no_brace_init = saved;
        let ret = ret?;
        let body = if self.eat(Tok::Semi) {
            None
        } else {
            Some(self.block()?)
        };
        Ok(FnDecl {
            is_export,
            is_extern,
            is_inline,
            name,
            params,
            ret,
            body,
            name_span,
        })
    }
}
