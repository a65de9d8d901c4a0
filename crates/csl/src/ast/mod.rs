//! The CSL syntax tree: [`Module`] (one file) of [`Decl`]s; statements ([`Stmt`], [`Block`])
//! and expressions ([`Expr`]), where types are expressions too, as in Zig.
//!
//! Parentheses are not kept: the tree's shape says the grouping and the
//! [printer](crate::print) puts them back where precedence needs them.

mod decl;
mod expr;
mod op;
mod stmt;

pub use decl::{Decl, DeclKind, FnDecl, FnParam, Module, ParamDecl, VarDecl};
pub use expr::{
    EnumMember, Expr, ExprKind, FieldDecl, FieldInit, ProngBody, SwitchItem, SwitchProng,
    TensorAccess,
};
pub use op::{AssignOp, BinOp, UnOp};
pub use stmt::{Block, Else, Stmt, StmtKind};
