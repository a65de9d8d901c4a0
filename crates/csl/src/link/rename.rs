//! Renaming an imported module's names into the importing program's one namespace: each
//! top-level name `n` of a module imported as `m` becomes `m__n`, and `m.n` in the importer
//! becomes that name. Locals (function parameters, body declarations, loop captures, tensor
//! access indices) shadow top-level names and are left alone.

use std::collections::{HashMap, HashSet};

use crate::ast::{
    Block, Decl, DeclKind, Else, Expr, ExprKind, FnDecl, ProngBody, Stmt, StmtKind, SwitchItem,
};

/// The renaming of one module's code.
pub(super) struct Renamer {
    /// Top-level names and what they become.
    pub names: HashMap<String, String>,
    /// Own-module imports (the alias) and the prefix of the names they hold.
    pub aliases: HashMap<String, String>,
    /// Locals in scope, innermost last.
    scopes: Vec<HashSet<String>>,
}

impl Renamer {
    /// A renamer of `names` with the module imports `aliases`.
    pub fn new(names: HashMap<String, String>, aliases: HashMap<String, String>) -> Renamer {
        Renamer {
            names,
            aliases,
            scopes: Vec::new(),
        }
    }

    fn local(&self, n: &str) -> bool {
        self.scopes.iter().any(|s| s.contains(n))
    }

    fn bind(&mut self, n: &str) {
        if let Some(s) = self.scopes.last_mut() {
            s.insert(n.to_string());
        }
    }

    /// Renames a top-level declaration's body (not its name).
    pub fn decl(&mut self, d: &mut Decl) {
        match &mut d.kind {
            DeclKind::Var(v) => {
                for e in [&mut v.ty, &mut v.align, &mut v.init].into_iter().flatten() {
                    self.expr(e);
                }
            }
            DeclKind::Param(p) => {
                for e in [&mut p.ty, &mut p.default].into_iter().flatten() {
                    self.expr(e);
                }
            }
            DeclKind::Fn(f) | DeclKind::Task(f) => self.function(f),
            DeclKind::Comptime(b) | DeclKind::Layout(b) => self.block(b),
        }
    }

    fn function(&mut self, f: &mut FnDecl) {
        self.scopes.push(HashSet::new());
        for p in &mut f.params {
            self.expr(&mut p.ty);
            self.bind(&p.name.clone());
        }
        self.expr(&mut f.ret);
        if let Some(b) = &mut f.body {
            self.block(b);
        }
        self.scopes.pop();
    }

    fn block(&mut self, b: &mut Block) {
        self.scopes.push(HashSet::new());
        for s in &mut b.stmts {
            self.stmt(s);
        }
        self.scopes.pop();
    }

    fn stmt(&mut self, s: &mut Stmt) {
        match &mut s.kind {
            StmtKind::Var(v) => {
                for e in [&mut v.ty, &mut v.align, &mut v.init].into_iter().flatten() {
                    self.expr(e);
                }
                self.bind(&v.name.clone());
            }
            StmtKind::Expr(e) | StmtKind::Return(Some(e)) => self.expr(e),
            StmtKind::Assign { target, value, .. } => {
                self.expr(target);
                self.expr(value);
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.block(then);
                match otherwise {
                    Some(Else::Block(b)) => self.block(b),
                    Some(Else::If(s)) => self.stmt(s),
                    None => {}
                }
            }
            StmtKind::While { cond, step, body } => {
                self.expr(cond);
                if let Some(s) = step {
                    self.stmt(s);
                }
                self.block(body);
            }
            StmtKind::For {
                iter,
                captures,
                body,
            } => {
                self.expr(iter);
                self.scopes.push(captures.iter().cloned().collect());
                self.block(body);
                self.scopes.pop();
            }
            StmtKind::Block(b) | StmtKind::Comptime(b) => self.block(b),
            StmtKind::Return(None) | StmtKind::Break | StmtKind::Continue => {}
        }
    }

    /// Renames an expression in place.
    pub fn expr(&mut self, e: &mut Expr) {
        // `m.n` of an own module `m`
        if let ExprKind::Field { base, name } = &e.kind
            && let ExprKind::Ident(m) = &base.kind
            && !self.local(m)
            && let Some(prefix) = self.aliases.get(m)
        {
            e.kind = ExprKind::Ident(format!("{prefix}{name}"));
            return;
        }
        match &mut e.kind {
            ExprKind::Ident(n) => {
                if !self.local(n)
                    && let Some(to) = self.names.get(n.as_str())
                {
                    *n = to.clone();
                }
            }
            ExprKind::StructLit(fields) => {
                for f in fields {
                    self.expr(&mut f.value);
                }
            }
            ExprKind::TypedStruct { ty, fields } => {
                self.expr(ty);
                for f in fields {
                    self.expr(&mut f.value);
                }
            }
            ExprKind::ListLit(items) => items.iter_mut().for_each(|x| self.expr(x)),
            ExprKind::TypedList { ty, elems } => {
                self.expr(ty);
                elems.iter_mut().for_each(|x| self.expr(x));
            }
            ExprKind::Unary(_, x)
            | ExprKind::Deref(x)
            | ExprKind::Comptime(x)
            | ExprKind::PtrType { elem: x, .. }
            | ExprKind::ManyPtrType { elem: x, .. }
            | ExprKind::SliceType { elem: x, .. } => self.expr(x),
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Call { callee, args } => {
                self.expr(callee);
                args.iter_mut().for_each(|x| self.expr(x));
            }
            ExprKind::Builtin { args, .. } => args.iter_mut().for_each(|x| self.expr(x)),
            ExprKind::Index { base, indices } => {
                self.expr(base);
                indices.iter_mut().for_each(|x| self.expr(x));
            }
            ExprKind::Slice { base, start, end } => {
                self.expr(base);
                self.expr(start);
                if let Some(x) = end {
                    self.expr(x);
                }
            }
            ExprKind::Field { base, .. } => self.expr(base),
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.expr(cond);
                self.expr(then);
                if let Some(x) = otherwise {
                    self.expr(x);
                }
            }
            ExprKind::Switch { subject, prongs } => {
                self.expr(subject);
                for p in prongs {
                    for item in &mut p.items {
                        match item {
                            SwitchItem::Value(x) => self.expr(x),
                            SwitchItem::Range(a, b) => {
                                self.expr(a);
                                self.expr(b);
                            }
                        }
                    }
                    match &mut p.body {
                        ProngBody::Expr(x) => self.expr(x),
                        ProngBody::Block(b) => self.block(b),
                    }
                }
            }
            ExprKind::TensorAccess(t) => {
                self.scopes.push(t.indices.iter().cloned().collect());
                t.extents.iter_mut().for_each(|x| self.expr(x));
                self.expr(&mut t.target);
                self.scopes.pop();
            }
            ExprKind::ArrayType { dims, elem } => {
                dims.iter_mut().for_each(|x| self.expr(x));
                self.expr(elem);
            }
            ExprKind::FnType { params, ret } => {
                params.iter_mut().for_each(|x| self.expr(x));
                self.expr(ret);
            }
            ExprKind::StructType(fields) => {
                for f in fields {
                    self.expr(&mut f.ty);
                    if let Some(d) = &mut f.default {
                        self.expr(d);
                    }
                }
            }
            ExprKind::EnumType { tag, members } => {
                if let Some(t) = tag {
                    self.expr(t);
                }
                for m in members {
                    if let Some(v) = &mut m.value {
                        self.expr(v);
                    }
                }
            }
            ExprKind::Int(_)
            | ExprKind::Float(_)
            | ExprKind::Str(_)
            | ExprKind::Char(_)
            | ExprKind::Bool(_)
            | ExprKind::Undefined
            | ExprKind::Null
            | ExprKind::VoidLit
            | ExprKind::EnumLit(_) => {}
        }
    }
}
