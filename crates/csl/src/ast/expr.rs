//! Expressions, type expressions included.

use super::op::{BinOp, UnOp};
use super::stmt::Block;

use crate::span::Span;

/// An expression and where it is.
#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    /// What it is.
    pub kind: ExprKind,
    /// Its text.
    pub span: Span,
}

/// `.name = value` in a struct literal.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldInit {
    /// The field name.
    pub name: String,
    /// Its value.
    pub value: Expr,
}

/// `name: T = default` in a `struct { }` type.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldDecl {
    /// The field name.
    pub name: String,
    /// Its type.
    pub ty: Expr,
    /// Its default value.
    pub default: Option<Expr>,
}

/// `name = value` in an `enum { }` type.
#[derive(Clone, Debug, PartialEq)]
pub struct EnumMember {
    /// The member name.
    pub name: String,
    /// Its explicit value.
    pub value: Option<Expr>,
}

/// One `values => body` arm of a `switch`.
#[derive(Clone, Debug, PartialEq)]
pub struct SwitchProng {
    /// The values it matches (`a`, or `lo...hi` as [`SwitchItem::Range`]); empty for `else`.
    pub items: Vec<SwitchItem>,
    /// What it evaluates or runs.
    pub body: ProngBody,
}

/// A value or an inclusive range a switch prong matches.
#[derive(Clone, Debug, PartialEq)]
pub enum SwitchItem {
    /// `a`.
    Value(Expr),
    /// `lo...hi`.
    Range(Expr, Expr),
}

/// The body of a switch prong.
#[derive(Clone, Debug, PartialEq)]
pub enum ProngBody {
    /// `=> expr`.
    Expr(Expr),
    /// `=> { statements }`.
    Block(Block),
}

/// A tensor access expression `|i, j|{M, N} -> A[i, j]`.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorAccess {
    /// The induction variables.
    pub indices: Vec<String>,
    /// Their extents.
    pub extents: Vec<Expr>,
    /// What is accessed (an indexing of an array).
    pub target: Box<Expr>,
}

/// The kinds of expression.
#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    /// A name.
    Ident(String),
    /// An integer literal's value.
    Int(u128),
    /// A float literal's digits as written, without `_`.
    Float(String),
    /// A string literal's value (escapes decoded).
    Str(String),
    /// A character literal's code point.
    Char(u32),
    /// `true` / `false`.
    Bool(bool),
    /// `undefined`.
    Undefined,
    /// `null`.
    Null,
    /// `{}`: the value of type `void`.
    VoidLit,
    /// `.name`: an enum literal.
    EnumLit(String),
    /// `.{ .a = 1, .b = x }` (and `.{}`).
    StructLit(Vec<FieldInit>),
    /// `.{ a, b }`: an anonymous list.
    ListLit(Vec<Expr>),
    /// `T{ .a = 1 }`: a typed struct literal.
    TypedStruct {
        /// The type.
        ty: Box<Expr>,
        /// The fields.
        fields: Vec<FieldInit>,
    },
    /// `[N]T{ a, b }`: a typed array literal.
    TypedList {
        /// The type.
        ty: Box<Expr>,
        /// The elements.
        elems: Vec<Expr>,
    },
    /// A prefix operation.
    Unary(UnOp, Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<Expr>, Box<Expr>),
    /// `f(a, b)`.
    Call {
        /// What is called.
        callee: Box<Expr>,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `@name(a, b)`.
    Builtin {
        /// The name without `@`.
        name: String,
        /// The arguments.
        args: Vec<Expr>,
    },
    /// `a[i]` or `a[i, j]`.
    Index {
        /// What is indexed.
        base: Box<Expr>,
        /// The indices.
        indices: Vec<Expr>,
    },
    /// `a[start..end]` or `a[start..]`.
    Slice {
        /// What is sliced.
        base: Box<Expr>,
        /// First index.
        start: Box<Expr>,
        /// One past the last index, or the end.
        end: Option<Box<Expr>>,
    },
    /// `a.name`.
    Field {
        /// The container.
        base: Box<Expr>,
        /// The field name.
        name: String,
    },
    /// `p.*`.
    Deref(Box<Expr>),
    /// `if (c) a else b` as an expression; without `else` its value is `void` when the
    /// condition is false (CSL accepts `const id = if (c1) a else if (c2) b;`).
    If {
        /// The condition.
        cond: Box<Expr>,
        /// The value when true.
        then: Box<Expr>,
        /// The value when false.
        otherwise: Option<Box<Expr>>,
    },
    /// `comptime e`.
    Comptime(Box<Expr>),
    /// `switch (x) { 0 => a, 1, 2 => { ... }, 3...5 => b, else => c }`.
    Switch {
        /// What is matched.
        subject: Box<Expr>,
        /// The arms in order.
        prongs: Vec<SwitchProng>,
    },
    /// `|i|{N} -> A[i]`.
    TensorAccess(TensorAccess),
    /// `[N]T` or `[M, N]T` (`[_]T` has the identifier `_` as its length).
    ArrayType {
        /// The lengths.
        dims: Vec<Expr>,
        /// The element type.
        elem: Box<Expr>,
    },
    /// `*T` or `*const T`.
    PtrType {
        /// Whether the pointee is read-only.
        is_const: bool,
        /// The pointee type.
        elem: Box<Expr>,
    },
    /// `[*]T` or `[*]const T`.
    ManyPtrType {
        /// Whether the pointees are read-only.
        is_const: bool,
        /// The element type.
        elem: Box<Expr>,
    },
    /// `[]T` or `[]const T`.
    SliceType {
        /// Whether the elements are read-only.
        is_const: bool,
        /// The element type.
        elem: Box<Expr>,
    },
    /// `fn(A, B) R`.
    FnType {
        /// The parameter types.
        params: Vec<Expr>,
        /// The return type.
        ret: Box<Expr>,
    },
    /// `struct { a: T, b: U = 0 }`.
    StructType(Vec<FieldDecl>),
    /// `enum(T) { a, b = 2 }`.
    EnumType {
        /// The tag type.
        tag: Option<Box<Expr>>,
        /// The members.
        members: Vec<EnumMember>,
    },
}

impl Expr {
    /// An expression of `kind` covering `span`.
    pub fn new(kind: ExprKind, span: Span) -> Expr {
        Expr { kind, span }
    }
}
