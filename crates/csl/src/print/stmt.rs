//! Declarations, statements and blocks.

use super::Printer;
use super::expr::PREFIX;
use crate::ast::{Block, Decl, DeclKind, Else, Expr, ExprKind, FnDecl, Stmt, StmtKind, VarDecl};

impl Printer {
    /// Whether the declaration ends in a block (set apart by blank lines).
    pub(super) fn is_block_decl(&self, decl: &Decl) -> bool {
        match &decl.kind {
            DeclKind::Fn(f) | DeclKind::Task(f) => f.body.is_some(),
            DeclKind::Comptime(_) | DeclKind::Layout(_) => true,
            DeclKind::Var(_) | DeclKind::Param(_) => false,
        }
    }

    pub(super) fn decl(&mut self, decl: &Decl) {
        match &decl.kind {
            DeclKind::Var(v) => self.var(v),
            DeclKind::Param(p) => {
                self.push("param ");
                self.push(&p.name);
                if let Some(ty) = &p.ty {
                    self.push(": ");
                    self.expr(ty, PREFIX);
                }
                if let Some(d) = &p.default {
                    self.push(" = ");
                    self.expr(d, 0);
                }
                self.push(";");
            }
            DeclKind::Fn(f) => self.function("fn", f),
            DeclKind::Task(f) => self.function("task", f),
            DeclKind::Comptime(b) => {
                self.push("comptime ");
                self.block(b);
            }
            DeclKind::Layout(b) => {
                self.push("layout ");
                self.block(b);
            }
        }
    }

    fn var(&mut self, v: &VarDecl) {
        if v.is_export {
            self.push("export ");
        }
        if v.is_extern {
            self.push("extern ");
        }
        self.push(if v.is_const { "const " } else { "var " });
        self.push(&v.name);
        if let Some(ty) = &v.ty {
            self.push(": ");
            self.expr(ty, PREFIX);
        }
        if let Some(a) = &v.align {
            self.push(" align(");
            self.expr(a, 0);
            self.push(")");
        }
        if let Some(init) = &v.init {
            self.push(" = ");
            self.expr(init, 0);
        }
        self.push(";");
    }

    fn function(&mut self, keyword: &str, f: &FnDecl) {
        if f.is_export {
            self.push("export ");
        }
        if f.is_extern {
            self.push("extern ");
        }
        if f.is_inline {
            self.push("inline ");
        }
        self.push(keyword);
        self.push(" ");
        self.push(&f.name);
        self.push("(");
        for (i, p) in f.params.iter().enumerate() {
            if i > 0 {
                self.push(", ");
            }
            if p.is_comptime {
                self.push("comptime ");
            }
            self.push(&p.name);
            self.push(": ");
            self.expr(&p.ty, PREFIX);
        }
        self.push(") ");
        self.expr(&f.ret, PREFIX);
        match &f.body {
            Some(b) => {
                self.push(" ");
                self.block(b);
            }
            None => self.push(";"),
        }
    }

    pub(super) fn block(&mut self, b: &Block) {
        if b.stmts.is_empty() {
            self.push("{}");
            return;
        }
        self.push("{");
        self.indent += 1;
        for s in &b.stmts {
            self.newline();
            self.stmt(s);
        }
        self.indent -= 1;
        self.newline();
        self.push("}");
    }

    /// An expression at the start of a statement: an `if` expression, or one whose text
    /// starts with `{}`, needs parentheses there, or it would read as an `if` statement or a
    /// block.
    fn stmt_expr(&mut self, e: &Expr) {
        if matches!(e.kind, ExprKind::If { .. } | ExprKind::Switch { .. }) || starts_with_brace(e) {
            self.push("(");
            self.expr(e, 0);
            self.push(")");
        } else {
            self.expr(e, 0);
        }
    }

    /// A statement without its `;` where it has one (`while` steps print this way).
    fn simple(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Expr(e) => self.stmt_expr(e),
            StmtKind::Assign { target, op, value } => {
                self.stmt_expr(target);
                self.push(" ");
                self.push(&op.symbol());
                self.push(" ");
                self.expr(value, 0);
            }
            _ => self.stmt(s),
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match &s.kind {
            StmtKind::Var(v) => self.var(v),
            // A switch statement ends with its `}`.
            StmtKind::Expr(
                e @ Expr {
                    kind: ExprKind::Switch { .. },
                    ..
                },
            ) => self.expr(e, 0),
            StmtKind::Expr(_) | StmtKind::Assign { .. } => {
                self.simple(s);
                self.push(";");
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.push("if (");
                self.expr(cond, 0);
                self.push(") ");
                self.block(then);
                match otherwise {
                    Some(Else::Block(b)) => {
                        self.push(" else ");
                        self.block(b);
                    }
                    Some(Else::If(s)) => {
                        self.push(" else ");
                        self.stmt(s);
                    }
                    None => {}
                }
            }
            StmtKind::While { cond, step, body } => {
                self.push("while (");
                self.expr(cond, 0);
                self.push(") ");
                if let Some(step) = step {
                    self.push(": (");
                    self.simple(step);
                    self.push(") ");
                }
                self.block(body);
            }
            StmtKind::For {
                iter,
                captures,
                body,
            } => {
                self.push("for (");
                self.expr(iter, 0);
                self.push(") |");
                self.push(&captures.join(", "));
                self.push("| ");
                self.block(body);
            }
            StmtKind::Return(value) => {
                self.push("return");
                if let Some(v) = value {
                    self.push(" ");
                    self.expr(v, 0);
                }
                self.push(";");
            }
            StmtKind::Break => self.push("break;"),
            StmtKind::Continue => self.push("continue;"),
            StmtKind::Block(b) => self.block(b),
            StmtKind::Comptime(b) => {
                self.push("comptime ");
                self.block(b);
            }
        }
    }
}

/// Whether the printed text of `e` starts with `{}` or a `switch` (postfix bases and left
/// operands are printed without parentheses, as both bind tightest).
fn starts_with_brace(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::VoidLit | ExprKind::Switch { .. } => true,
        ExprKind::Binary(_, left, _) => starts_with_brace(left),
        ExprKind::Call { callee: base, .. }
        | ExprKind::Index { base, .. }
        | ExprKind::Slice { base, .. }
        | ExprKind::Field { base, .. }
        | ExprKind::Deref(base) => starts_with_brace(base),
        _ => false,
    }
}
