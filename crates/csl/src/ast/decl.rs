//! Declarations: the items of a file, and `const`/`var` inside blocks.

use super::expr::Expr;
use super::stmt::Block;
use crate::span::Span;

/// One parsed `.csl` file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Module {
    /// Its top-level declarations in order.
    pub decls: Vec<Decl>,
}

/// A top-level declaration and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    /// What it is.
    pub kind: DeclKind,
    /// Its text.
    pub span: Span,
}

/// The kinds of top-level declaration.
#[derive(Clone, Debug, PartialEq)]
pub enum DeclKind {
    /// `const` / `var`.
    Var(VarDecl),
    /// `param name: T = default;`.
    Param(ParamDecl),
    /// `fn name(...) R { }`.
    Fn(FnDecl),
    /// `task name(...) void { }`.
    Task(FnDecl),
    /// `comptime { }`.
    Comptime(Block),
    /// `layout { }`.
    Layout(Block),
}

/// `[export|extern] const|var name: T align(a) = init;`.
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    /// `export`.
    pub is_export: bool,
    /// `extern`.
    pub is_extern: bool,
    /// `const` (else `var`).
    pub is_const: bool,
    /// The name.
    pub name: String,
    /// The declared type.
    pub ty: Option<Expr>,
    /// `align(a)`.
    pub align: Option<Expr>,
    /// The initial value.
    pub init: Option<Expr>,
    /// Where the name is.
    pub name_span: Span,
}

/// `param name: T = default;`.
#[derive(Clone, Debug, PartialEq)]
pub struct ParamDecl {
    /// The name.
    pub name: String,
    /// The declared type.
    pub ty: Option<Expr>,
    /// The value used when none is given.
    pub default: Option<Expr>,
    /// Where the name is.
    pub name_span: Span,
}

/// A function's parameter `[comptime] name: T`.
#[derive(Clone, Debug, PartialEq)]
pub struct FnParam {
    /// `comptime`.
    pub is_comptime: bool,
    /// The name.
    pub name: String,
    /// The type.
    pub ty: Expr,
}

/// `[export|extern] [inline] fn name(params) R { body }`, and tasks.
#[derive(Clone, Debug, PartialEq)]
pub struct FnDecl {
    /// `export`.
    pub is_export: bool,
    /// `extern` (no body).
    pub is_extern: bool,
    /// `inline`.
    pub is_inline: bool,
    /// The name.
    pub name: String,
    /// The parameters.
    pub params: Vec<FnParam>,
    /// The return type.
    pub ret: Expr,
    /// The body (`None` for `extern` and `;`-terminated declarations).
    pub body: Option<Block>,
    /// Where the name is.
    pub name_span: Span,
}
