//! Type checking of a PE program's function and task bodies before it runs: names must be
//! declared, calls must give a function as many arguments as it has parameters, and a
//! value may only go where its type may (no float into an integer, no integer into a float,
//! no `f32` into `f16` or back, no narrowing of integers, no bool into a number), as Zig
//! requires without an `@as`. What the checker cannot type (struct fields, builtins it does
//! not know) is left to the run, which checks every value again.

use std::collections::HashMap;

use super::program::{Global, elem_of};
use super::tensor_access::DsdSpec;
use super::value::RtValue;
use crate::ast::{Block, DeclKind, Expr, ExprKind, Module, Stmt, StmtKind, UnOp};
use crate::comptime::{Arch, ConstEval, EvalError, IntType, Type, Value};
use crate::span::Span;
use npusim_cerebras::ElemTy;

/// The operands DSD builtins take, the options struct not counted.
pub(crate) fn dsd_builtin_arity(name: &str) -> Option<usize> {
    Some(match name {
        "fmacs" => 4,
        "fadds" | "fmuls" | "fsubs" => 3,
        "fmovs" => 2,
        _ => return None,
    })
}

/// The library and function name of a call `module.function(...)` of an imported SDK
/// library (`sys_mod.unblock_cmd_stream()`).
pub(crate) fn library_of(
    callee: &Expr,
    globals: &HashMap<String, Global>,
) -> Option<(crate::comptime::ModuleRef, String)> {
    let ExprKind::Field { base, name } = &callee.kind else {
        return None;
    };
    let ExprKind::Ident(m) = &base.kind else {
        return None;
    };
    match globals.get(m)? {
        Global::Const(RtValue::Comptime(Value::Module(r))) => Some((r.clone(), name.clone())),
        _ => None,
    }
}

/// Checks every function and task body of `module`.
///
/// A `@get_dsd` in a body is evaluated here, at compile time (its fields must be known then,
/// as the params and module names are); the specs it gives are returned by the call's span
/// and built when the program is loaded.
pub(crate) fn check_bodies(
    module: &Module,
    globals: &HashMap<String, Global>,
    ev: &mut ConstEval<'_>,
    arch: Arch,
) -> Result<BodyConstants, EvalError> {
    let mut consts = BodyConstants::default();
    for decl in &module.decls {
        let (DeclKind::Fn(f) | DeclKind::Task(f)) = &decl.kind else {
            continue;
        };
        let Some(body) = &f.body else { continue };
        let mut params = HashMap::new();
        for p in &f.params {
            let t = if p.is_comptime {
                None
            } else {
                Some(ev.eval_type(&p.ty)?)
            };
            params.insert(p.name.clone(), t);
        }
        let mut c = Checker {
            ev,
            module,
            globals,
            scopes: vec![params],
            arch,
            consts: &mut consts,
            func: &f.name,
        };
        c.block(body)?;
    }
    Ok(consts)
}

/// What bodies compute at compile time, by the span of the builtin call: `@get_dsd`s, and
/// the ids and colors of `@get_color`, `@get_local_task_id`, `@get_data_task_id`, ...
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyConstants {
    /// The `@get_dsd`s, built when the program is loaded.
    pub(crate) dsds: HashMap<Span, DsdSpec>,
    /// The values of id and color builtins.
    pub(crate) values: HashMap<Span, Value>,
    /// The arrays declared inside bodies (`var data = [3]i16 { 1, 2, 3 };`), by the span of
    /// their declaration.
    pub(crate) arrays: HashMap<Span, LocalArray>,
}

/// An array declared inside a function or task body. It has a place of its own in PE memory
/// (CSL has no recursion, so one place per declaration serves every call); each run of the
/// declaration writes its initial value there again (zeros for `undefined` or none).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LocalArray {
    /// The name of its memory array: `function.name@offset`, which no CSL name can be.
    pub(crate) memory_name: String,
    /// Its element type.
    pub(crate) elem: ElemTy,
    /// Its shape.
    pub(crate) dims: Vec<u64>,
}

/// Builtins of bodies evaluated at compile time (their arguments must be known then).
pub(crate) const COMPTIME_BUILTINS: [&str; 8] = [
    "get_color",
    "get_local_task_id",
    "get_data_task_id",
    "get_control_task_id",
    "get_input_queue",
    "get_output_queue",
    "get_ut_id",
    "get_dsd",
];

struct Checker<'a, 'e, 'm> {
    ev: &'a mut ConstEval<'e>,
    module: &'m Module,
    globals: &'m HashMap<String, Global>,
    scopes: Vec<HashMap<String, Option<Type>>>,
    arch: Arch,
    consts: &'a mut BodyConstants,
    /// The name of the function or task being checked.
    func: &'m str,
}

fn rt_type(v: &RtValue) -> Option<Type> {
    match v {
        RtValue::Int { ty, .. } => Some(Type::Int(*ty)),
        RtValue::F32(_) => Some(Type::F32),
        RtValue::F16(_) => Some(Type::F16),
        RtValue::ComptimeFloat(_) => Some(Type::ComptimeFloat),
        RtValue::Bool(_) => Some(Type::Bool),
        _ => None,
    }
}

/// Whether a value of type `from` may be stored where `to` is declared; the error if not.
pub(crate) fn assignable(to: &Type, from: &Type) -> Result<(), String> {
    let bad = || Err(format!("expected {to}, found {from}"));
    let float = |t: &Type| matches!(t, Type::F16 | Type::F32);
    match (to, from) {
        (Type::Int(IntType::Sized { .. }), Type::F16 | Type::F32 | Type::ComptimeFloat) => bad(),
        (Type::Int(a @ IntType::Sized { .. }), Type::Int(b @ IntType::Sized { .. })) => {
            if a.peer(*b) == Some(*a) {
                Ok(())
            } else {
                bad()
            }
        }
        (t, Type::Int(IntType::Sized { .. })) if float(t) => bad(),
        (Type::F16, Type::F32) | (Type::F32, Type::F16) => bad(),
        (Type::Bool, t) if float(t) || matches!(t, Type::Int(_) | Type::ComptimeFloat) => bad(),
        (t, Type::Bool) if float(t) || matches!(t, Type::Int(_)) => bad(),
        _ => Ok(()),
    }
}

impl Checker<'_, '_, '_> {
    fn block(&mut self, b: &Block) -> Result<(), EvalError> {
        self.scopes.push(HashMap::new());
        let r = b.stmts.iter().try_for_each(|s| self.stmt(s));
        self.scopes.pop();
        r
    }

    fn local(&self, name: &str) -> Option<&Option<Type>> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn stmt(&mut self, s: &Stmt) -> Result<(), EvalError> {
        match &s.kind {
            StmtKind::Var(v) => {
                let declared = v.ty.as_ref().map(|t| self.ev.eval_type(t)).transpose()?;
                let init = v.init.as_ref().map(|e| self.expr(e)).transpose()?.flatten();
                if let (Some(d), Some(i), Some(e)) = (&declared, &init, &v.init) {
                    assignable(d, i).map_err(|m| EvalError::new(e.span, m))?;
                }
                let ty = declared.or(init);
                if let Some(Type::Array { dims, elem }) = &ty {
                    let e = elem_of(elem).ok_or_else(|| {
                        EvalError::new(
                            v.name_span,
                            format!("arrays of {elem} are not placed in PE memory yet"),
                        )
                    })?;
                    self.consts.arrays.insert(
                        s.span,
                        LocalArray {
                            memory_name: format!("{}.{}@{}", self.func, v.name, s.span.start),
                            elem: e,
                            dims: dims.clone(),
                        },
                    );
                }
                if let Some(scope) = self.scopes.last_mut() {
                    scope.insert(v.name.clone(), ty);
                }
                Ok(())
            }
            StmtKind::Expr(e) => self.expr(e).map(|_| ()),
            StmtKind::Assign { target, value, .. } => {
                if let ExprKind::Ident(name) = &target.kind
                    && self.local(name).is_none()
                    && let Some(
                        Global::Mem { is_const: true, .. }
                        | Global::Const(_)
                        | Global::Dsd { is_const: true, .. }
                        | Global::Fifo(_)
                        | Global::Dsr(_)
                        | Global::Fn { .. },
                    ) = self.globals.get(name)
                {
                    return Err(EvalError::new(
                        target.span,
                        format!("cannot assign to constant `{name}`"),
                    ));
                }
                let t = self.expr(target)?;
                let v = self.expr(value)?;
                if let (Some(t), Some(v)) = (&t, &v) {
                    assignable(t, v).map_err(|m| EvalError::new(value.span, m))?;
                }
                Ok(())
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.condition(cond)?;
                self.block(then)?;
                match otherwise {
                    Some(crate::ast::Else::Block(b)) => self.block(b),
                    Some(crate::ast::Else::If(s)) => self.stmt(s),
                    None => Ok(()),
                }
            }
            StmtKind::While { cond, step, body } => {
                self.condition(cond)?;
                self.block(body)?;
                if let Some(step) = step {
                    self.stmt(step)?;
                }
                Ok(())
            }
            StmtKind::For {
                iter,
                captures,
                body,
            } => {
                self.expr(iter)?;
                let elem = match &iter.kind {
                    ExprKind::Builtin { name, args } if name == "range" => {
                        args.first().map(|t| self.ev.eval_type(t)).transpose()?
                    }
                    _ => None,
                };
                let mut scope = HashMap::new();
                for (i, c) in captures.iter().enumerate() {
                    let t = if i == 0 { elem.clone() } else { None };
                    scope.insert(c.clone(), t);
                }
                self.scopes.push(scope);
                let r = self.block(body);
                self.scopes.pop();
                r
            }
            StmtKind::Return(e) => e.as_ref().map(|e| self.expr(e)).transpose().map(|_| ()),
            StmtKind::Break | StmtKind::Continue => Ok(()),
            StmtKind::Block(b) | StmtKind::Comptime(b) => self.block(b),
        }
    }

    fn condition(&mut self, cond: &Expr) -> Result<(), EvalError> {
        match self.expr(cond)? {
            Some(t) if t != Type::Bool => Err(EvalError::new(
                cond.span,
                format!("expected bool, found {t}"),
            )),
            _ => Ok(()),
        }
    }

    fn exprs(&mut self, es: &[Expr]) -> Result<(), EvalError> {
        es.iter().try_for_each(|e| self.expr(e).map(|_| ()))
    }

    fn expr(&mut self, e: &Expr) -> Result<Option<Type>, EvalError> {
        Ok(match &e.kind {
            ExprKind::Ident(name) => {
                if let Some(t) = self.local(name) {
                    return Ok(t.clone());
                }
                match self.globals.get(name) {
                    Some(Global::Mem { ty, .. }) => Some(ty.clone()),
                    Some(Global::Const(v)) => rt_type(v),
                    Some(Global::Dsd { spec, .. }) => Some(Type::Dsd(spec.kind())),
                    Some(Global::Fifo(_)) => Some(Type::Dsd("fifo_dsd")),
                    Some(Global::Dsr(_)) => None,
                    Some(Global::Fn { .. }) => None,
                    None if Type::from_name(name).is_some() => Some(Type::Type),
                    None if self.module.decls.iter().any(|d| matches!(&d.kind, DeclKind::Fn(f) | DeclKind::Task(f) if &f.name == name)) => None,
                    None => {
                        return Err(EvalError::new(e.span, format!("unknown name `{name}`")));
                    }
                }
            }
            ExprKind::Int(_) | ExprKind::Char(_) => Some(Type::Int(IntType::Comptime)),
            ExprKind::Float(_) => Some(Type::ComptimeFloat),
            ExprKind::Bool(_) => Some(Type::Bool),
            ExprKind::Binary(op, a, b) => {
                let ta = self.expr(a)?;
                let tb = self.expr(b)?;
                use crate::ast::BinOp;
                match op {
                    BinOp::And | BinOp::Or => Some(Type::Bool),
                    _ => {
                        if let (Some(x), Some(y)) = (&ta, &tb) {
                            let num = |t: &Type| {
                                matches!(
                                    t,
                                    Type::F16 | Type::F32 | Type::Int(IntType::Sized { .. })
                                )
                            };
                            if num(x)
                                && num(y)
                                && assignable(x, y).is_err()
                                && assignable(y, x).is_err()
                            {
                                return Err(EvalError::new(
                                    e.span,
                                    format!(
                                        "operands of `{op}` are {x} and {y}: convert one with @as"
                                    ),
                                ));
                            }
                        }
                        if op.is_comparison() {
                            Some(Type::Bool)
                        } else {
                            match (ta, tb) {
                                (Some(Type::Int(IntType::Comptime) | Type::ComptimeFloat), t) => t,
                                (t, _) => t,
                            }
                        }
                    }
                }
            }
            ExprKind::Unary(UnOp::AddrOf, a) => {
                let t = self.expr(a)?;
                t.map(|t| Type::Ptr {
                    is_const: false,
                    elem: Box::new(t),
                })
            }
            ExprKind::Unary(_, a) => self.expr(a)?,
            ExprKind::Index { base, indices } => {
                let t = self.expr(base)?;
                self.exprs(indices)?;
                match t {
                    Some(
                        Type::Array { elem, .. }
                        | Type::ManyPtr { elem, .. }
                        | Type::Slice { elem, .. },
                    ) => Some(*elem),
                    Some(Type::Ptr { elem, .. }) => match *elem {
                        Type::Array { elem, .. } => Some(*elem),
                        _ => None,
                    },
                    Some(t @ (Type::F16 | Type::F32 | Type::Bool | Type::Int(_))) => {
                        return Err(EvalError::new(
                            base.span,
                            format!("cannot index a value of type {t}"),
                        ));
                    }
                    _ => None,
                }
            }
            ExprKind::Deref(p) => match self.expr(p)? {
                Some(Type::Ptr { elem, .. }) => Some(*elem),
                _ => None,
            },
            ExprKind::Call { callee, args } => {
                self.exprs(args)?;
                if let Some(m) = library_of(callee, self.globals) {
                    return crate::sdk::check_library_call(&m.0, &m.1, args.len(), e.span);
                }
                let ExprKind::Ident(name) = &callee.kind else {
                    return Err(EvalError::new(
                        callee.span,
                        "only functions of this file may be called",
                    ));
                };
                let decl = self.module.decls.iter().find_map(|d| match &d.kind {
                    DeclKind::Fn(f) if &f.name == name => Some((f, false)),
                    DeclKind::Task(f) if &f.name == name => Some((f, true)),
                    _ => None,
                });
                match decl {
                    None if self.local(name).is_some() || self.globals.contains_key(name) => {
                        return Err(EvalError::new(
                            callee.span,
                            format!("`{name}` is not a function"),
                        ));
                    }
                    None => {
                        return Err(EvalError::new(
                            callee.span,
                            format!("unknown name `{name}`"),
                        ));
                    }
                    Some((_, true)) => {
                        return Err(EvalError::new(
                            callee.span,
                            format!(
                                "`{name}` is a task: it is activated or started by a wavelet, not called"
                            ),
                        ));
                    }
                    Some((f, false)) => {
                        if f.params.len() != args.len() {
                            return Err(EvalError::new(
                                e.span,
                                format!(
                                    "`{name}` takes {} argument{}, found {}",
                                    f.params.len(),
                                    if f.params.len() == 1 { "" } else { "s" },
                                    args.len()
                                ),
                            ));
                        }
                        for (p, a) in f.params.iter().zip(args) {
                            if p.is_comptime {
                                continue;
                            }
                            let pt = self.ev.eval_type(&p.ty)?;
                            if let Some(at) = self.expr(a)? {
                                assignable(&pt, &at).map_err(|m| EvalError::new(a.span, m))?;
                            }
                        }
                        match self.ev.eval_type(&f.ret)? {
                            Type::Void => Some(Type::Void),
                            t => Some(t),
                        }
                    }
                }
            }
            ExprKind::Builtin { name, args } => {
                if let Some(n) = dsd_builtin_arity(name)
                    && args.len() != n
                    && args.len() != n + 1
                {
                    return Err(EvalError::new(
                        e.span,
                        format!(
                            "@{name} takes {n} operands and an optional options struct, found {} arguments",
                            args.len()
                        ),
                    ));
                }
                match name.as_str() {
                    "as" => {
                        self.exprs(args.get(1..).unwrap_or(&[]))?;
                        args.first().map(|t| self.ev.eval_type(t)).transpose()?
                    }
                    "get_dsd" => {
                        let spec =
                            DsdSpec::from_builtin(self.ev, args, e.span, self.globals, self.arch)?;
                        let kind = spec.kind();
                        self.consts.dsds.insert(e.span, spec);
                        Some(Type::Dsd(kind))
                    }
                    n if COMPTIME_BUILTINS.contains(&n) => {
                        let v = self.ev.expr(e)?;
                        self.consts.values.insert(e.span, v);
                        None
                    }
                    "range" => None,
                    "random16" if args.is_empty() => Some(Type::Int(IntType::Sized {
                        signed: false,
                        bits: 16,
                    })),
                    "random16" => {
                        return Err(EvalError::new(
                            e.span,
                            format!("@random16 takes no arguments, found {}", args.len()),
                        ));
                    }
                    "zeros" if args.len() == 1 => Some(self.ev.eval_type(&args[0])?),
                    _ => {
                        for a in args {
                            match &a.kind {
                                // an options struct: its values are checked (and their id
                                // builtins evaluated), its field names are the builtin's
                                ExprKind::StructLit(fields) => {
                                    for f in fields {
                                        self.expr(&f.value)?;
                                    }
                                }
                                _ => {
                                    self.expr(a)?;
                                }
                            }
                        }
                        None
                    }
                }
            }
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                self.condition(cond)?;
                let t = self.expr(then)?;
                if let Some(o) = otherwise {
                    self.expr(o)?;
                }
                t
            }
            ExprKind::TypedList { ty, elems } => {
                self.exprs(elems)?;
                Some(self.ev.eval_type(ty)?)
            }
            ExprKind::Comptime(x) => match self.ev.expr(x)? {
                v @ Value::Int { .. } => rt_type(&RtValue::from_comptime(v)),
                _ => None,
            },
            _ => None,
        })
    }
}
