//! Statements and blocks.

use super::cursor::{PResult, Parser};
use crate::ast::{AssignOp, BinOp, Block, Else, Stmt, StmtKind};
use crate::lex::Tok;

/// The assignment operator a token spells, if any.
fn assign_op(tok: Option<Tok>) -> Option<AssignOp> {
    let op = match tok? {
        Tok::Eq => return Some(AssignOp::Set),
        Tok::PlusEq => BinOp::Add,
        Tok::MinusEq => BinOp::Sub,
        Tok::StarEq => BinOp::Mul,
        Tok::SlashEq => BinOp::Div,
        Tok::PercentEq => BinOp::Rem,
        Tok::AmpEq => BinOp::BitAnd,
        Tok::BarEq => BinOp::BitOr,
        Tok::CaretEq => BinOp::BitXor,
        Tok::ShlEq => BinOp::Shl,
        Tok::ShrEq => BinOp::Shr,
        _ => return None,
    };
    Some(AssignOp::Compound(op))
}

impl Parser<'_> {
    /// `{ stmt* }`.
    pub(super) fn block(&mut self) -> PResult<Block> {
        self.nested(|p| {
            let open = p.expect(Tok::LBrace, "to open a block")?;
            let mut stmts = Vec::new();
            while !p.at(Tok::RBrace) {
                if p.peek().is_none() {
                    return Err(p.expected("`}` to close the block"));
                }
                stmts.push(p.stmt()?);
            }
            let close = p.bump();
            Ok(Block {
                stmts,
                span: open.to(close),
            })
        })
    }

    /// A block, or one statement standing for a block (`if (c) x = 1;`).
    fn body(&mut self) -> PResult<Block> {
        if self.at(Tok::LBrace) {
            self.block()
        } else {
            let stmt = self.nested(|p| p.stmt())?;
            Ok(Block {
                span: stmt.span,
                stmts: vec![stmt],
            })
        }
    }

    fn stmt(&mut self) -> PResult<Stmt> {
        let start = self.span();
        let kind = match self.peek() {
            Some(Tok::Const | Tok::Var) => StmtKind::Var(self.var_decl(false, false)?),
            Some(Tok::If) => self.if_stmt()?,
            Some(Tok::While) => self.while_stmt()?,
            Some(Tok::For) => self.for_stmt()?,
            Some(Tok::Inline) if matches!(self.peek_at(1), Some(Tok::For | Tok::While)) => {
                self.bump();
                return self.stmt();
            }
            Some(Tok::Return) => {
                self.bump();
                let value = if self.at(Tok::Semi) {
                    None
                } else {
                    Some(self.expr()?)
                };
                self.expect(Tok::Semi, "after `return`")?;
                StmtKind::Return(value)
            }
            Some(Tok::Break) => {
                self.bump();
                self.expect(Tok::Semi, "after `break`")?;
                StmtKind::Break
            }
            Some(Tok::Continue) => {
                self.bump();
                self.expect(Tok::Semi, "after `continue`")?;
                StmtKind::Continue
            }
            Some(Tok::LBrace) => StmtKind::Block(self.block()?),
            Some(Tok::Switch) => {
                // A switch statement needs no `;` (one is accepted).
                let e = self.switch()?;
                self.eat(Tok::Semi);
                StmtKind::Expr(e)
            }
            Some(Tok::Comptime) if self.peek_at(1) == Some(Tok::LBrace) => {
                self.bump();
                StmtKind::Comptime(self.block()?)
            }
            _ => {
                let kind = self.simple_stmt()?;
                self.expect(Tok::Semi, "after the statement")?;
                kind
            }
        };
        Ok(Stmt {
            kind,
            span: start.to(self.prev_span()),
        })
    }

    /// An expression or an assignment, without the `;` (also a `while` step).
    fn simple_stmt(&mut self) -> PResult<StmtKind> {
        let target = self.expr()?;
        match assign_op(self.peek()) {
            Some(op) => {
                self.bump();
                let value = self.expr()?;
                Ok(StmtKind::Assign { target, op, value })
            }
            None => Ok(StmtKind::Expr(target)),
        }
    }

    fn paren_cond(&mut self, after: &str) -> PResult<crate::ast::Expr> {
        self.expect(Tok::LParen, after)?;
        let cond = self.expr()?;
        self.expect(Tok::RParen, "after the condition")?;
        Ok(cond)
    }

    fn if_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_cond("after `if`")?;
        let keyword = matches!(
            self.peek(),
            Some(
                Tok::Return
                    | Tok::Break
                    | Tok::Continue
                    | Tok::If
                    | Tok::While
                    | Tok::For
                    | Tok::Inline
                    | Tok::Const
                    | Tok::Var
                    | Tok::Comptime
            )
        );
        let then = if self.at(Tok::LBrace) || keyword {
            self.body()?
        } else {
            // `if (c) a = 1;` or `if (c) f() else g();`: the `;` comes after the else branch.
            let start = self.span();
            let kind = self.nested(|p| p.simple_stmt())?;
            let stmt = Stmt {
                kind,
                span: start.to(self.prev_span()),
            };
            if !self.at(Tok::Else) {
                self.expect(Tok::Semi, "after the statement")?;
            }
            Block {
                span: stmt.span,
                stmts: vec![stmt],
            }
        };
        let otherwise = if self.eat(Tok::Else) {
            if self.at(Tok::If) {
                let start = self.span();
                let kind = self.nested(|p| p.if_stmt())?;
                Some(Else::If(Box::new(Stmt {
                    kind,
                    span: start.to(self.prev_span()),
                })))
            } else {
                Some(Else::Block(self.body()?))
            }
        } else {
            None
        };
        Ok(StmtKind::If {
            cond,
            then,
            otherwise,
        })
    }

    fn while_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        let cond = self.paren_cond("after `while`")?;
        let step = if self.eat(Tok::Colon) {
            self.expect(Tok::LParen, "to open the loop step")?;
            let start = self.span();
            let kind = self.simple_stmt()?;
            let step = Stmt {
                kind,
                span: start.to(self.prev_span()),
            };
            self.expect(Tok::RParen, "after the loop step")?;
            Some(Box::new(step))
        } else {
            None
        };
        let body = self.body()?;
        Ok(StmtKind::While { cond, step, body })
    }

    fn for_stmt(&mut self) -> PResult<StmtKind> {
        self.bump();
        self.expect(Tok::LParen, "after `for`")?;
        let iter = self.expr()?;
        self.expect(Tok::RParen, "after what `for` iterates")?;
        self.expect(Tok::Bar, "to open the loop's captures")?;
        let mut captures = vec![self.ident("a capture name")?.0];
        while self.eat(Tok::Comma) {
            captures.push(self.ident("a capture name")?.0);
        }
        self.expect(Tok::Bar, "to close the loop's captures")?;
        let body = self.body()?;
        Ok(StmtKind::For {
            iter,
            captures,
            body,
        })
    }
}
