//! Statements and blocks.

use super::decl::VarDecl;
use super::expr::Expr;
use super::op::AssignOp;
use crate::span::Span;

/// `{ statements }`.
#[derive(Clone, Debug, PartialEq)]
pub struct Block {
    /// The statements in order.
    pub stmts: Vec<Stmt>,
    /// From `{` to `}`.
    pub span: Span,
}

/// A statement and where it starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Stmt {
    /// What it is.
    pub kind: StmtKind,
    /// Its text.
    pub span: Span,
}

/// What follows `else`.
#[derive(Clone, Debug, PartialEq)]
pub enum Else {
    /// `else { }`.
    Block(Block),
    /// `else if ...`.
    If(Box<Stmt>),
}

/// The kinds of statement.
#[derive(Clone, Debug, PartialEq)]
pub enum StmtKind {
    /// `const x = e;` / `var x: T = e;`.
    Var(VarDecl),
    /// `e;`.
    Expr(Expr),
    /// `target = value;` / `target += value;`.
    Assign {
        /// What is assigned.
        target: Expr,
        /// `=` or `op=`.
        op: AssignOp,
        /// The value.
        value: Expr,
    },
    /// `if (c) { } else ...`.
    If {
        /// The condition.
        cond: Expr,
        /// Run when true.
        then: Block,
        /// Run when false.
        otherwise: Option<Else>,
    },
    /// `while (c) : (step) { }`.
    While {
        /// The condition.
        cond: Expr,
        /// Run after each iteration (an assignment or expression, no `;`).
        step: Option<Box<Stmt>>,
        /// The body.
        body: Block,
    },
    /// `for (iter) |x, i| { }`.
    For {
        /// What is iterated (`@range(...)`, an array or slice).
        iter: Expr,
        /// The capture names.
        captures: Vec<String>,
        /// The body.
        body: Block,
    },
    /// `return;` / `return e;`.
    Return(Option<Expr>),
    /// `break;`.
    Break,
    /// `continue;`.
    Continue,
    /// `{ }`.
    Block(Block),
    /// `comptime { }`.
    Comptime(Block),
}
