//! Expressions with the fewest parentheses that keep their tree.

use super::Printer;
use super::literal::{quote_char, quote_str};
use crate::ast::{Expr, ExprKind, FieldInit, ProngBody, SwitchItem};

/// The precedence of prefix operators and type constructors.
pub(super) const PREFIX: u8 = 8;
/// The precedence of postfix operations and atoms.
const POSTFIX: u8 = 9;

/// How tightly `e` binds: what the context must allow to print it without parentheses.
fn precedence(e: &Expr) -> u8 {
    match &e.kind {
        ExprKind::Binary(op, _, _) => op.precedence(),
        ExprKind::If { .. } => 0,
        ExprKind::Unary(..)
        | ExprKind::Comptime(_)
        | ExprKind::TensorAccess(_)
        | ExprKind::PtrType { .. }
        | ExprKind::ManyPtrType { .. }
        | ExprKind::SliceType { .. }
        | ExprKind::ArrayType { .. }
        | ExprKind::FnType { .. } => PREFIX,
        _ => POSTFIX,
    }
}

impl Printer {
    /// Prints `e` in a context that binds at `min`: parentheses if `e` binds looser.
    pub(super) fn expr(&mut self, e: &Expr, min: u8) {
        if precedence(e) < min {
            self.push("(");
            self.expr_bare(e);
            self.push(")");
        } else {
            self.expr_bare(e);
        }
    }

    fn list(&mut self, items: &[Expr]) {
        for (i, item) in items.iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.expr(item, 0);
        }
    }

    fn fields(&mut self, fields: &[FieldInit]) {
        if fields.is_empty() {
            self.push("{}");
            return;
        }
        self.push("{ ");
        for (i, f) in fields.iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            self.push(".");
            self.push(&f.name);
            self.push(" = ");
            self.expr(&f.value, 0);
        }
        self.push(" }");
    }

    fn elems(&mut self, elems: &[Expr]) {
        if elems.is_empty() {
            self.push("{}");
        } else {
            self.push("{ ");
            self.list(elems);
            self.push(" }");
        }
    }

    /// The type of a typed literal: an array type needs no parentheses before its `{`.
    fn literal_type(&mut self, ty: &Expr) {
        if matches!(ty.kind, ExprKind::ArrayType { .. }) {
            self.expr_bare(ty);
        } else {
            self.expr(ty, POSTFIX);
        }
    }

    fn const_prefix(&mut self, is_const: bool) {
        if is_const {
            self.push("const ");
        }
    }

    fn expr_bare(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Ident(name) => self.push(name),
            ExprKind::Int(v) => self.push(&v.to_string()),
            ExprKind::Float(t) => self.push(t),
            ExprKind::Str(s) => self.push(&quote_str(s)),
            ExprKind::Char(c) => self.push(&quote_char(*c)),
            ExprKind::Bool(b) => self.push(if *b { "true" } else { "false" }),
            ExprKind::Undefined => self.push("undefined"),
            ExprKind::Null => self.push("null"),
            ExprKind::VoidLit => self.push("{}"),
            ExprKind::EnumLit(name) => {
                self.push(".");
                self.push(name);
            }
            ExprKind::StructLit(fields) => {
                self.push(".");
                self.fields(fields);
            }
            ExprKind::ListLit(elems) => {
                self.push(".");
                self.elems(elems);
            }
            ExprKind::TypedStruct { ty, fields } => {
                self.literal_type(ty);
                self.fields(fields);
            }
            ExprKind::TypedList { ty, elems } => {
                self.literal_type(ty);
                self.elems(elems);
            }
            ExprKind::Unary(op, inner) => {
                self.push(op.symbol());
                self.expr(inner, PREFIX);
            }
            ExprKind::Binary(op, l, r) => {
                let p = op.precedence();
                let left_min = if op.is_comparison() { p + 1 } else { p };
                self.expr(l, left_min);
                self.push(" ");
                self.push(op.symbol());
                self.push(" ");
                self.expr(r, p + 1);
            }
            ExprKind::Call { callee, args } => {
                self.expr(callee, POSTFIX);
                self.push("(");
                self.list(args);
                self.push(")");
            }
            ExprKind::Builtin { name, args } => {
                self.push("@");
                self.push(name);
                self.push("(");
                self.list(args);
                self.push(")");
            }
            ExprKind::Index { base, indices } => {
                self.expr(base, POSTFIX);
                self.push("[");
                self.list(indices);
                self.push("]");
            }
            ExprKind::Slice { base, start, end } => {
                self.expr(base, POSTFIX);
                self.push("[");
                self.expr(start, 0);
                self.push("..");
                if let Some(end) = end {
                    // `a[i.. .x]`: `...` would lex as one token.
                    if starts_with_dot(end) {
                        self.push(" ");
                    }
                    self.expr(end, 0);
                }
                self.push("]");
            }
            ExprKind::Field { base, name } => {
                self.expr(base, POSTFIX);
                self.push(".");
                self.push(name);
            }
            ExprKind::Deref(base) => {
                self.expr(base, POSTFIX);
                self.push(".*");
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.push("if (");
                self.expr(cond, 0);
                self.push(") ");
                // An `else` would attach to an inner `if` that has none: keep it inside.
                let dangling = matches!(
                    then.kind,
                    ExprKind::If {
                        otherwise: None,
                        ..
                    }
                );
                if dangling && otherwise.is_some() {
                    self.push("(");
                    self.expr(then, 0);
                    self.push(")");
                } else {
                    self.expr(then, 0);
                }
                if let Some(otherwise) = otherwise {
                    self.push(" else ");
                    self.expr(otherwise, 0);
                }
            }
            ExprKind::Switch { subject, prongs } => {
                self.push("switch (");
                self.expr(subject, 0);
                self.push(") {");
                self.indent += 1;
                for prong in prongs {
                    self.newline();
                    if prong.items.is_empty() {
                        self.push("else");
                    }
                    for (i, item) in prong.items.iter().enumerate() {
                        if i > 0 {
                            self.push(", ");
                        }
                        match item {
                            SwitchItem::Value(v) => self.expr(v, 0),
                            SwitchItem::Range(lo, hi) => {
                                self.expr(lo, 0);
                                self.push("...");
                                self.expr(hi, 0);
                            }
                        }
                    }
                    self.push(" => ");
                    match &prong.body {
                        ProngBody::Expr(e) => self.expr(e, 0),
                        ProngBody::Block(b) => self.block(b),
                    }
                    self.push(",");
                }
                self.indent -= 1;
                self.newline();
                self.push("}");
            }
            ExprKind::Comptime(inner) => {
                self.push("comptime ");
                self.expr(inner, PREFIX);
            }
            ExprKind::TensorAccess(ta) => {
                self.push("|");
                self.push(&ta.indices.join(", "));
                self.push("|{");
                self.list(&ta.extents);
                self.push("} -> ");
                self.expr(&ta.target, POSTFIX);
            }
            ExprKind::ArrayType { dims, elem } => {
                self.push("[");
                self.list(dims);
                self.push("]");
                self.expr(elem, PREFIX);
            }
            ExprKind::PtrType { is_const, elem } => {
                self.push("*");
                self.const_prefix(*is_const);
                self.expr(elem, PREFIX);
            }
            ExprKind::ManyPtrType { is_const, elem } => {
                self.push("[*]");
                self.const_prefix(*is_const);
                self.expr(elem, PREFIX);
            }
            ExprKind::SliceType { is_const, elem } => {
                self.push("[]");
                self.const_prefix(*is_const);
                self.expr(elem, PREFIX);
            }
            ExprKind::FnType { params, ret } => {
                self.push("fn(");
                self.list(params);
                self.push(") ");
                self.expr(ret, PREFIX);
            }
            ExprKind::StructType(fields) => {
                self.push("struct { ");
                for (i, f) in fields.iter().enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    self.push(&f.name);
                    self.push(": ");
                    self.expr(&f.ty, PREFIX);
                    if let Some(d) = &f.default {
                        self.push(" = ");
                        self.expr(d, 0);
                    }
                }
                self.push(" }");
            }
            ExprKind::EnumType { tag, members } => {
                self.push("enum");
                if let Some(tag) = tag {
                    self.push("(");
                    self.expr(tag, PREFIX);
                    self.push(")");
                }
                self.push(" { ");
                for (i, m) in members.iter().enumerate() {
                    if i > 0 {
                        self.push(", ");
                    }
                    self.push(&m.name);
                    if let Some(v) = &m.value {
                        self.push(" = ");
                        self.expr(v, 0);
                    }
                }
                self.push(" }");
            }
        }
    }
}

/// Whether the printed text of `e` starts with `.` (an enum, struct or list literal at its
/// left edge, where postfix bases and left operands print without parentheses).
fn starts_with_dot(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::EnumLit(_) | ExprKind::StructLit(_) | ExprKind::ListLit(_) => true,
        ExprKind::Binary(op, left, _) => {
            let min = op.precedence() + u8::from(op.is_comparison());
            precedence(left) >= min && starts_with_dot(left)
        }
        ExprKind::Call { callee: base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::Field { base, .. }
        | ExprKind::Deref(base) => starts_with_dot(base),
        _ => false,
    }
}
