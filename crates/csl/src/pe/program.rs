//! Compiling a `pe_program.csl` with its params: module-level `param`s and constants
//! evaluated at compile time, `var`s and arrays planned into PE memory, DSDs from
//! `@get_dsd`, functions and tasks collected, the `comptime { }` blocks' task bindings and
//! exported symbols, then every body type-checked.

use std::collections::HashMap;

use npusim_cerebras::ElemTy;
use npusim_cerebras::dsd::{FifoAction, Priority, SimdMode};
use npusim_cerebras::pe::DsrFile;

use super::check::{LocalArray, check_bodies};
use super::dsr::{DsrLoad, dsr_file, load_options};
use super::error::PeError;
use super::fabric_dsd::simd_mode;
use super::flags::one_flag;
use super::priority::{PriorityPlace, check_priority};
use super::tensor_access::DsdSpec;
use super::value::{Ptr, RtValue};
use crate::ast::{
    Decl, DeclKind, Else, Expr, ExprKind, FnDecl, Module, Stmt, StmtKind, UnOp, VarDecl,
};
use crate::comptime::{Arch, ComptimeConfig, ConstEval, EvalError, IntType, Type, Value};
use crate::parse::parse;
use crate::source::SourceFile;
use crate::span::Span;

/// Most elements `@constants` fills: a whole WSE-3 PE memory of 16-bit elements.
const MAX_FILLED_ELEMENTS: u64 = 1 << 16;

/// A module array (or scalar `var`) of the program, placed in PE memory in this order.
#[derive(Clone, Debug, PartialEq)]
pub struct ArrayDecl {
    /// Its name (the memory array's name too).
    pub name: String,
    /// Element type.
    pub elem: ElemTy,
    /// Shape (`[1]` for a scalar).
    pub shape: Vec<u64>,
    /// Initial elements (row-major, already of the element type); zeros when `None`.
    pub init: Option<Vec<RtValue>>,
    /// A scalar `var` rather than an array.
    pub scalar: bool,
    /// `const` (the program may not assign it).
    pub is_const: bool,
    /// `align(n)` in bytes.
    pub align: Option<u32>,
}

/// The id a task is bound to by `@bind_local_task`, `@bind_data_task` or
/// `@bind_control_task`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoundTask {
    /// A local task id.
    Local(u8),
    /// A data task id (the color on WSE-2, the input queue on WSE-3).
    Data(u8),
    /// A control task id.
    Control(u8),
}

/// One `@bind_*_task(task, id)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskBinding {
    /// The task's name.
    pub task: String,
    /// Its id.
    pub id: BoundTask,
}

/// One `@export_symbol(name)` or `@export_symbol(name, "host_name")`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExportedSymbol {
    /// The program's name.
    pub symbol: String,
    /// The name the host sees.
    pub host_name: String,
}

/// What a module-level name is.
#[derive(Clone, Debug)]
pub(crate) enum Global {
    /// An array or scalar in PE memory.
    Mem {
        /// Its element type.
        elem: ElemTy,
        /// Its type as declared.
        ty: Type,
        /// A scalar (reads give the value, not the array).
        scalar: bool,
        /// `const`.
        is_const: bool,
    },
    /// A compile-time value.
    Const(RtValue),
    /// `@get_dsd(...)`, built when the program is loaded onto a PE; a `var` may be
    /// reassigned (`d = @increment_dsd_offset(d, 1, f32)`), and keeps its value between
    /// tasks.
    Dsd {
        /// How it is built.
        spec: DsdSpec,
        /// `const`.
        is_const: bool,
    },
    /// `@allocate_fifo(...)`: the FIFO with this index in [`PeProgram::fifos`].
    Fifo(usize),
    /// `@get_dsr(file, n)`.
    Dsr(DsrFile),
    /// A function or a task.
    Fn {
        /// Index of its declaration in the module.
        decl: usize,
        /// A task.
        is_task: bool,
    },
}

/// A compiled PE program.
#[derive(Clone, Debug)]
pub struct PeProgram {
    pub(crate) source: SourceFile,
    pub(crate) module: Module,
    pub(crate) globals: HashMap<String, Global>,
    /// The module arrays and scalar `var`s in declaration order.
    pub arrays: Vec<ArrayDecl>,
    /// The task bindings of the `comptime` blocks, in order.
    pub tasks: Vec<TaskBinding>,
    /// The exported symbols, in order.
    pub exports: Vec<ExportedSymbol>,
    /// The local task ids a `comptime` block activates (they run when the program starts).
    pub activations: Vec<u8>,
    /// The `@initialize_queue` calls of the `comptime` blocks, in order.
    pub queue_inits: Vec<QueueInit>,
    /// The FIFOs `@allocate_fifo` declares, in order.
    pub fifos: Vec<FifoDecl>,
    /// The `@load_to_dsr` calls of the `comptime` blocks, in order.
    pub dsr_loads: Vec<DsrLoad>,
    /// The `@block(x)` (`true`) and `@unblock(x)` (`false`) calls of the `comptime` blocks,
    /// in order, with where each is: x a task id, a channel or a microthread id.
    pub blocks: Vec<(bool, Value, Span)>,
    /// The `@get_dsd` calls inside bodies, by their span, built when the program is loaded.
    pub(crate) body_dsds: HashMap<Span, DsdSpec>,
    /// The values of id and color builtins inside bodies, by their span.
    pub(crate) body_values: HashMap<Span, Value>,
    /// The arrays declared inside bodies, by the span of their declaration.
    pub(crate) body_arrays: HashMap<Span, LocalArray>,
}

/// One `@initialize_queue(queue, .{ .color = c })`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueueInit {
    /// An input queue (else an output queue).
    pub input: bool,
    /// The queue's number.
    pub queue: u8,
    /// The color it serves.
    pub color: u8,
}

/// One `const f = @allocate_fifo(buffer, .{ ... });`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FifoDecl {
    /// The FIFO's name in the program.
    pub name: String,
    /// The module array it lives in.
    pub buffer: String,
    /// `.activate_push`: the local task activated when a push follows an empty read.
    pub activate_push: Option<u8>,
    /// `.activate_pop`: the local task activated when a pop follows a full write.
    pub activate_pop: Option<u8>,
    /// `.empty_action`: what an operation reading it empty does.
    pub empty_action: Option<FifoAction>,
    /// `.full_action` (WSE-3): what an operation writing it full does.
    pub full_action: Option<FifoAction>,
    /// `.priority` (WSE-3).
    pub priority: Option<Priority>,
    /// `.simd_mode` (WSE-2).
    pub simd_mode: Option<SimdMode>,
}

/// The memory element type of a CSL type, if it has one.
pub(crate) fn elem_of(ty: &Type) -> Option<ElemTy> {
    Some(match ty {
        Type::F32 => ElemTy::F32,
        Type::F16 => ElemTy::F16,
        Type::Int(IntType::Sized { signed, bits: 16 }) => {
            if *signed {
                ElemTy::I16
            } else {
                ElemTy::U16
            }
        }
        Type::Int(IntType::Sized { signed, bits: 32 }) => {
            if *signed {
                ElemTy::I32
            } else {
                ElemTy::U32
            }
        }
        _ => return None,
    })
}

/// The CSL type of a memory element type.
pub(crate) fn type_of_elem(e: ElemTy) -> Type {
    let int = |signed, bits| Type::Int(IntType::Sized { signed, bits });
    match e {
        ElemTy::F32 => Type::F32,
        ElemTy::F16 => Type::F16,
        ElemTy::I16 => int(true, 16),
        ElemTy::U16 => int(false, 16),
        ElemTy::I32 => int(true, 32),
        ElemTy::U32 => int(false, 32),
    }
}

impl PeProgram {
    /// Parses, evaluates and checks `source` as a PE program on `config.arch` with the
    /// params `config.params` (those `@set_tile_code` gave it).
    ///
    /// ```
    /// use npusim_csl::SourceFile;
    /// use npusim_csl::comptime::{ComptimeConfig, Value};
    /// use npusim_csl::pe::PeProgram;
    /// let src = SourceFile::new("pe.csl", "param n: i16;\nvar y: [n]f32;\nfn f() void { y[0] = 1.0; }\n");
    /// let config = ComptimeConfig { params: vec![("n".into(), Value::comptime_int(4))], ..Default::default() };
    /// let p = PeProgram::compile(&src, &config).unwrap();
    /// assert_eq!(p.arrays[0].shape, vec![4]);
    /// ```
    pub fn compile(source: &SourceFile, config: &ComptimeConfig) -> Result<PeProgram, PeError> {
        PeProgram::compile_with_modules(source, config, &|_| None)
    }

    /// [`PeProgram::compile`] of a program that may import its own modules
    /// (`@import_module("file.csl", ...)`, see [`crate::link`]), whose texts `lookup` gives
    /// by file name.
    pub fn compile_with_modules(
        source: &SourceFile,
        config: &ComptimeConfig,
        lookup: &dyn Fn(&str) -> Option<String>,
    ) -> Result<PeProgram, PeError> {
        let crate::link::Linked { source, module } =
            crate::link::link(source, parse(source)?, lookup)?;
        let source = &source;
        for (name, _) in &config.params {
            let declared = module
                .decls
                .iter()
                .any(|d| matches!(&d.kind, DeclKind::Param(p) if &p.name == name));
            if !declared {
                return Err(PeError::UnknownParam {
                    name: name.clone(),
                    file: source.name().to_string(),
                });
            }
        }
        let diag = |e: EvalError| PeError::from(source.diagnostic(e.span, e.message));
        let mut program = PeProgram {
            source: source.clone(),
            module: Module::default(),
            globals: HashMap::new(),
            arrays: Vec::new(),
            tasks: Vec::new(),
            exports: Vec::new(),
            activations: Vec::new(),
            queue_inits: Vec::new(),
            fifos: Vec::new(),
            dsr_loads: Vec::new(),
            blocks: Vec::new(),
            body_dsds: HashMap::new(),
            body_values: HashMap::new(),
            body_arrays: HashMap::new(),
        };
        {
            let mut b = Builder {
                ev: ConstEval::new(&module, config),
                program: &mut program,
                module: &module,
                arch: config.arch,
                data_binds: Vec::new(),
                given: config.params.iter().map(|(n, _)| n.clone()).collect(),
                comptime_calls: Vec::new(),
            };
            for (i, decl) in module.decls.iter().enumerate() {
                b.decl(i, decl).map_err(diag)?;
            }
            let Builder {
                mut ev, data_binds, ..
            } = b;
            let consts =
                check_bodies(&module, &program.globals, &mut ev, config.arch).map_err(diag)?;
            program.body_dsds = consts.dsds;
            program.body_values = consts.values;
            let mut locals: Vec<&LocalArray> = consts.arrays.values().collect();
            locals.sort_by(|a, b| a.memory_name.cmp(&b.memory_name));
            for a in locals {
                program.arrays.push(ArrayDecl {
                    name: a.memory_name.clone(),
                    elem: a.elem,
                    shape: a.dims.clone(),
                    init: None,
                    scalar: false,
                    is_const: false,
                    align: None,
                });
            }
            program.body_arrays = consts.arrays;
            if config.arch == Arch::Wse3 {
                program.check_wse3_queues(&data_binds).map_err(diag)?;
            }
        }
        program.module = module;
        Ok(program)
    }

    /// WSE-3 binds queues explicitly: every queue a fabric DSD names, and every input queue
    /// a data task is bound to, must be initialized by `@initialize_queue`.
    fn check_wse3_queues(&self, data_binds: &[(u8, Span)]) -> Result<(), EvalError> {
        let globals = self.globals.values().filter_map(|g| match g {
            Global::Dsd { spec, .. } => Some(spec),
            _ => None,
        });
        for spec in globals.chain(self.body_dsds.values()) {
            if let DsdSpec::Fabric(f) = spec {
                f.check_wse3_queue(&self.queue_inits)?;
            }
        }
        for (q, span) in data_binds {
            if !self.queue_inits.iter().any(|i| i.input && i.queue == *q) {
                return Err(EvalError::new(
                    *span,
                    format!(
                        "a data task is bound to input queue {q}, which no @initialize_queue binds to a color (WSE-3 needs one)"
                    ),
                ));
            }
        }
        Ok(())
    }

    /// The program's source file.
    pub fn source(&self) -> &SourceFile {
        &self.source
    }

    /// The memory array and first element a module name refers to: an array or scalar
    /// `var` itself, or a pointer constant (`const y_ptr: [*]f32 = &y;`) to it.
    pub fn symbol_array(&self, name: &str) -> Option<(String, i64)> {
        match self.globals.get(name)? {
            Global::Mem { .. } => Some((name.to_string(), 0)),
            Global::Const(RtValue::Ptr(p)) => Some((p.array.clone(), p.index)),
            _ => None,
        }
    }

    /// The declaration of function or task `name`.
    pub(crate) fn function(&self, name: &str) -> Option<&FnDecl> {
        match self.globals.get(name)? {
            Global::Fn { decl, .. } => match &self.module.decls.get(*decl)?.kind {
                DeclKind::Fn(f) | DeclKind::Task(f) => Some(f),
                _ => None,
            },
            _ => None,
        }
    }
}

struct Builder<'a, 'm> {
    ev: ConstEval<'m>,
    program: &'a mut PeProgram,
    module: &'m Module,
    arch: Arch,
    /// Each `@bind_data_task`'s id and where its id is.
    data_binds: Vec<(u8, Span)>,
    /// The names of the params given values.
    given: Vec<String>,
    /// Functions being called from `comptime` blocks, innermost last.
    comptime_calls: Vec<String>,
}

impl Builder<'_, '_> {
    fn define(&mut self, name: &str, span: Span, g: Global) -> Result<(), EvalError> {
        if self.program.globals.contains_key(name) {
            return Err(EvalError::new(span, format!("`{name}` is declared twice")));
        }
        self.program.globals.insert(name.to_string(), g);
        Ok(())
    }

    fn decl(&mut self, index: usize, decl: &Decl) -> Result<(), EvalError> {
        match &decl.kind {
            DeclKind::Param(p) => {
                // a param neither given nor defaulted is an error where it is used (an
                // unused one is no error, as the SDK compiles it)
                let given = self.given.iter().any(|n| n == &p.name);
                if !given && p.default.is_none() {
                    return self.define(
                        &p.name,
                        p.name_span,
                        Global::Const(RtValue::Comptime(Value::Undefined)),
                    );
                }
                let v = self
                    .ev
                    .global(&p.name, p.name_span)?
                    .unwrap_or(Value::Undefined);
                self.define(
                    &p.name,
                    p.name_span,
                    Global::Const(RtValue::from_comptime(v)),
                )
            }
            DeclKind::Var(v) => self.var(v),
            DeclKind::Fn(f) => self.define(
                &f.name,
                f.name_span,
                Global::Fn {
                    decl: index,
                    is_task: false,
                },
            ),
            DeclKind::Task(f) => self.define(
                &f.name,
                f.name_span,
                Global::Fn {
                    decl: index,
                    is_task: true,
                },
            ),
            DeclKind::Comptime(block) => self.comptime_stmts(&block.stmts),
            DeclKind::Layout(_) => Err(EvalError::new(
                decl.span,
                "a `layout` block belongs in the layout file, not in a PE program",
            )),
        }
    }

    fn var(&mut self, v: &VarDecl) -> Result<(), EvalError> {
        let span = v.name_span;
        if v.is_extern {
            return Err(EvalError::new(
                span,
                "`extern` variables are not supported yet",
            ));
        }
        // @get_dsd: a DSD built when the program is loaded.
        if let Some(Expr {
            kind: ExprKind::Builtin { name, args },
            span: init_span,
        }) = &v.init
            && name == "get_dsd"
        {
            let spec = DsdSpec::from_builtin(
                &mut self.ev,
                args,
                *init_span,
                &self.program.globals,
                self.arch,
            )?;
            return self.define(
                &v.name,
                span,
                Global::Dsd {
                    spec,
                    is_const: v.is_const,
                },
            );
        }
        // @allocate_fifo: a FIFO allocated when the program is loaded.
        if let Some(Expr {
            kind: ExprKind::Builtin { name, args },
            span: init_span,
        }) = &v.init
            && name == "allocate_fifo"
        {
            let fifo = self.fifo(&v.name, args, *init_span)?;
            self.program.fifos.push(fifo);
            let index = self.program.fifos.len() - 1;
            return self.define(&v.name, span, Global::Fifo(index));
        }
        // @get_dsr: a DSR of the PE.
        if let Some(Expr {
            kind: ExprKind::Builtin { name, args },
            span: init_span,
        }) = &v.init
            && name == "get_dsr"
        {
            let [file, n] = args.as_slice() else {
                return Err(EvalError::new(
                    *init_span,
                    format!("@get_dsr takes 2 arguments, found {}", args.len()),
                ));
            };
            let ExprKind::Ident(f) = &file.kind else {
                return Err(EvalError::new(
                    file.span,
                    "@get_dsr takes a DSR file first (dsr_dest, dsr_src0, dsr_src1)",
                ));
            };
            let file = dsr_file(file, f)?;
            self.ev.expr(n)?;
            return self.define(&v.name, span, Global::Dsr(file));
        }
        // &x: a pointer to a module array.
        if let Some(Expr {
            kind: ExprKind::Unary(UnOp::AddrOf, inner),
            span: init_span,
        }) = &v.init
        {
            let ptr = self.address(inner, *init_span)?;
            return self.define(&v.name, span, Global::Const(RtValue::Ptr(ptr)));
        }
        // @zeros([n]T) and @constants([n]T, value): the array type, and the fill value.
        let (zeros_ty, fill) = match &v.init {
            Some(Expr {
                kind: ExprKind::Builtin { name, args },
                span: s,
            }) if name == "zeros" || name == "constants" => {
                let want = if name == "zeros" { 1 } else { 2 };
                if args.len() != want {
                    return Err(EvalError::new(
                        *s,
                        format!("@{name} takes {want} arguments, found {}", args.len()),
                    ));
                }
                (Some(self.ev.eval_type(&args[0])?), args.get(1))
            }
            _ => (None, None),
        };
        let declared = v.ty.as_ref().map(|t| self.ev.eval_type(t)).transpose()?;
        if let (Some(d), Some(z)) = (&declared, &zeros_ty)
            && d != z
        {
            return Err(EvalError::new(
                v.init.as_ref().map_or(span, |e| e.span),
                format!("expected {d}, found {z}"),
            ));
        }
        // `[N]T{ a, b }` gives its own type
        let literal_ty = match &v.init {
            Some(Expr {
                kind: ExprKind::TypedList { ty, .. },
                ..
            }) if declared.is_none() => Some(self.ev.eval_type(ty)?),
            _ => None,
        };
        let ty = declared.or(zeros_ty.clone()).or(literal_ty);
        let align = v
            .align
            .as_ref()
            .map(|a| {
                let n = self.ev.expr(a)?;
                match n {
                    Value::Int { value, .. } if (1..=1 << 16).contains(&value) => Ok(value as u32),
                    other => Err(EvalError::new(
                        a.span,
                        format!("alignment must be a positive integer, found `{other}`"),
                    )),
                }
            })
            .transpose()?;
        match &ty {
            Some(Type::Array { dims, elem }) => {
                let e = elem_of(elem).ok_or_else(|| {
                    EvalError::new(
                        span,
                        format!("arrays of {elem} are not placed in PE memory yet"),
                    )
                })?;
                let count: u64 = dims.iter().product();
                let init = match &v.init {
                    None => None,
                    Some(_) if zeros_ty.is_some() => match fill {
                        None => None,
                        Some(f) => {
                            if count > MAX_FILLED_ELEMENTS {
                                return Err(EvalError::new(
                                    f.span,
                                    format!(
                                        "@constants of {count} elements: PE memory holds at most {MAX_FILLED_ELEMENTS}"
                                    ),
                                ));
                            }
                            let value = self.ev.expr(f)?;
                            let c = self.ev.coerce(value, elem, f.span)?;
                            Some(vec![RtValue::from_comptime(c); count as usize])
                        }
                    },
                    Some(Expr {
                        kind: ExprKind::Undefined,
                        ..
                    }) => None,
                    Some(init) => {
                        let value = self.ev.expr(init)?;
                        let items = match value {
                            Value::List(items) => items,
                            other => {
                                return Err(EvalError::new(
                                    init.span,
                                    format!(
                                        "expected {}, found {} `{other}`",
                                        ty_name(&ty),
                                        other.type_name()
                                    ),
                                ));
                            }
                        };
                        if items.len() as u64 != count {
                            return Err(EvalError::new(
                                init.span,
                                format!(
                                    "{} has {count} elements, the initialiser {}",
                                    v.name,
                                    items.len()
                                ),
                            ));
                        }
                        let mut out = Vec::with_capacity(items.len());
                        for it in items {
                            let c = self.ev.coerce(it, elem, init.span)?;
                            out.push(RtValue::from_comptime(c));
                        }
                        Some(out)
                    }
                };
                self.program.arrays.push(ArrayDecl {
                    name: v.name.clone(),
                    elem: e,
                    shape: dims.clone(),
                    init,
                    scalar: false,
                    is_const: v.is_const,
                    align,
                });
                self.define(
                    &v.name,
                    span,
                    Global::Mem {
                        elem: e,
                        ty: Type::Array {
                            dims: dims.clone(),
                            elem: elem.clone(),
                        },
                        scalar: false,
                        is_const: v.is_const,
                    },
                )
            }
            Some(t) if !v.is_const && elem_of(t).is_some() => {
                let e = elem_of(t).unwrap_or(ElemTy::F32);
                let init = match &v.init {
                    None
                    | Some(Expr {
                        kind: ExprKind::Undefined,
                        ..
                    }) => None,
                    Some(init) => {
                        let value = self.ev.expr(init)?;
                        let c = self.ev.coerce(value, t, init.span)?;
                        Some(vec![RtValue::from_comptime(c)])
                    }
                };
                self.program.arrays.push(ArrayDecl {
                    name: v.name.clone(),
                    elem: e,
                    shape: vec![1],
                    init,
                    scalar: true,
                    is_const: false,
                    align,
                });
                self.define(
                    &v.name,
                    span,
                    Global::Mem {
                        elem: e,
                        ty: t.clone(),
                        scalar: true,
                        is_const: false,
                    },
                )
            }
            _ if !v.is_const && !matches!(ty, Some(Type::Bool)) => Err(EvalError::new(
                span,
                format!(
                    "module `var {}` needs a type of a PE memory element (f16, f32, i16, u16, i32, u32) or an array of one, found {}",
                    v.name,
                    ty_name(&ty)
                ),
            )),
            _ => {
                let value = self.ev.global(&v.name, span)?.unwrap_or(Value::Undefined);
                self.define(&v.name, span, Global::Const(RtValue::from_comptime(value)))
            }
        }
    }

    /// `@allocate_fifo(buffer)` or `@allocate_fifo(buffer, .{ .activate_push = t,
    /// .activate_pop = t })`: the buffer is a module array, the tasks local task ids.
    fn fifo(&mut self, name: &str, args: &[Expr], span: Span) -> Result<FifoDecl, EvalError> {
        let (buffer, config) = match args {
            [b] => (b, None),
            [b, c] => (b, Some(c)),
            _ => {
                return Err(EvalError::new(
                    span,
                    format!(
                        "@allocate_fifo takes 1 or 2 arguments, found {}",
                        args.len()
                    ),
                ));
            }
        };
        let buffer = match &buffer.kind {
            ExprKind::Ident(b) => match self.program.globals.get(b) {
                Some(Global::Mem { scalar: false, .. }) => b.clone(),
                _ => {
                    return Err(EvalError::new(
                        buffer.span,
                        format!("@allocate_fifo takes a module array, and `{b}` is not one"),
                    ));
                }
            },
            _ => {
                return Err(EvalError::new(
                    buffer.span,
                    "@allocate_fifo takes a module array by name",
                ));
            }
        };
        let mut decl = FifoDecl {
            name: name.to_string(),
            buffer,
            activate_push: None,
            activate_pop: None,
            empty_action: None,
            full_action: None,
            priority: None,
            simd_mode: None,
        };
        if let Some(mut c) = config {
            // `if (@is_arch("wse2")) .{ ... } else .{}`, as the seed writes it
            while let ExprKind::If {
                cond,
                then,
                otherwise,
            } = &c.kind
            {
                c = match (self.ev.expr(cond)?, otherwise) {
                    (Value::Bool(true), _) => then,
                    (Value::Bool(false), Some(o)) => o,
                    (Value::Bool(false), None) => return Ok(decl),
                    (other, _) => {
                        return Err(EvalError::new(
                            cond.span,
                            format!("expected bool, found {} `{other}`", other.type_name()),
                        ));
                    }
                };
            }
            let ExprKind::StructLit(fields) = &c.kind else {
                return Err(EvalError::new(
                    c.span,
                    "@allocate_fifo takes a struct `.{ ... }` second",
                ));
            };
            for f in fields {
                match f.name.as_str() {
                    "priority" => {
                        decl.priority =
                            Some(check_priority(&f.value, PriorityPlace::Fifo, self.arch)?);
                        continue;
                    }
                    "simd_mode" => {
                        decl.simd_mode = Some(simd_mode(&f.value)?);
                        continue;
                    }
                    "empty_action" | "full_action" => {
                        let action = match one_flag(
                            &f.value,
                            &["test_or_suspend", "terminate", "suspend", "fault"],
                            &f.name,
                        )? {
                            "test_or_suspend" => FifoAction::TestOrSuspend,
                            "terminate" => FifoAction::Terminate,
                            "suspend" => FifoAction::Suspend,
                            _ => FifoAction::Fault,
                        };
                        if f.name == "empty_action" {
                            decl.empty_action = Some(action);
                        } else {
                            decl.full_action = Some(action);
                        }
                        continue;
                    }
                    _ => {}
                }
                let slot = match f.name.as_str() {
                    "activate_push" => &mut decl.activate_push,
                    "activate_pop" => &mut decl.activate_pop,
                    other => {
                        return Err(EvalError::new(
                            f.value.span,
                            format!(
                                "@allocate_fifo option `.{other}` is not supported (it takes .activate_push, .activate_pop, .empty_action, .full_action, .priority, .simd_mode)"
                            ),
                        ));
                    }
                };
                match self.ev.expr(&f.value)? {
                    Value::LocalTaskId(n) => *slot = Some(n),
                    other => {
                        return Err(EvalError::new(
                            f.value.span,
                            format!(
                                "`.{}` takes a local task id, found {} `{other}`",
                                f.name,
                                other.type_name()
                            ),
                        ));
                    }
                }
            }
        }
        Ok(decl)
    }

    /// The statements of a `comptime` block: builtin calls, and `if` / `else` on
    /// compile-time conditions (`if (@is_arch("wse3")) { ... }`) around them.
    fn comptime_stmts(&mut self, stmts: &[Stmt]) -> Result<(), EvalError> {
        for s in stmts {
            match &s.kind {
                StmtKind::Expr(e) => self.comptime_expr(e)?,
                StmtKind::Block(b) => self.comptime_stmts(&b.stmts)?,
                StmtKind::If {
                    cond,
                    then,
                    otherwise,
                } => match self.ev.expr(cond)? {
                    Value::Bool(true) => self.comptime_stmts(&then.stmts)?,
                    Value::Bool(false) => match otherwise {
                        Some(Else::Block(b)) => self.comptime_stmts(&b.stmts)?,
                        Some(Else::If(inner)) => {
                            self.comptime_stmts(std::slice::from_ref(inner.as_ref()))?;
                        }
                        None => {}
                    },
                    other => {
                        return Err(EvalError::new(
                            cond.span,
                            format!("expected bool, found {} `{other}`", other.type_name()),
                        ));
                    }
                },
                _ => {
                    return Err(EvalError::new(
                        s.span,
                        "a PE program's comptime block may hold only builtin calls and `if` for now",
                    ));
                }
            }
        }
        Ok(())
    }

    /// `&name` or `&name[i]` at module level.
    fn address(&mut self, e: &Expr, span: Span) -> Result<Ptr, EvalError> {
        let (name, index) = match &e.kind {
            ExprKind::Ident(n) => (n, 0i64),
            ExprKind::Index { base, indices } => match (&base.kind, indices.as_slice()) {
                (ExprKind::Ident(n), [i]) => {
                    let v = self.ev.expr(i)?;
                    match v {
                        Value::Int { value, .. } => (n, i64::try_from(value).unwrap_or(i64::MAX)),
                        other => {
                            return Err(EvalError::new(
                                i.span,
                                format!("an index must be an integer, found `{other}`"),
                            ));
                        }
                    }
                }
                _ => {
                    return Err(EvalError::new(
                        span,
                        "only `&array` and `&array[i]` are supported here",
                    ));
                }
            },
            _ => {
                return Err(EvalError::new(
                    span,
                    "only `&array` and `&array[i]` are supported here",
                ));
            }
        };
        match self.program.globals.get(name) {
            Some(Global::Mem { elem, .. }) => Ok(Ptr {
                array: name.clone(),
                index,
                elem: *elem,
            }),
            Some(_) => Err(EvalError::new(
                e.span,
                format!("`{name}` is not a variable in PE memory"),
            )),
            None => Err(EvalError::new(e.span, format!("unknown name `{name}`"))),
        }
    }

    fn comptime_expr(&mut self, e: &Expr) -> Result<(), EvalError> {
        // a call of a function of the program without arguments (a module's
        // `bind_and_activate()`): its statements run as the block's
        if let ExprKind::Call { callee, args } = &e.kind
            && let ExprKind::Ident(f) = &callee.kind
            && args.is_empty()
            && let Some(body) = self.module.decls.iter().find_map(|d| match &d.kind {
                DeclKind::Fn(fd) if fd.name == *f && fd.params.is_empty() => fd.body.as_ref(),
                _ => None,
            })
        {
            if self.comptime_calls.contains(f) || self.comptime_calls.len() >= 64 {
                return Err(EvalError::new(
                    e.span,
                    format!("`{f}` calls itself from a comptime block"),
                ));
            }
            self.comptime_calls.push(f.clone());
            let r = self.comptime_stmts(&body.stmts);
            self.comptime_calls.pop();
            return r;
        }
        let ExprKind::Builtin { name, args } = &e.kind else {
            self.ev.expr(e)?;
            return Ok(());
        };
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(EvalError::new(
                    e.span,
                    format!("@{name} takes {n} arguments, found {}", args.len()),
                ))
            }
        };
        match name.as_str() {
            "bind_local_task" | "bind_data_task" | "bind_control_task" => {
                arity(2)?;
                let task = match &args[0].kind {
                    ExprKind::Ident(t) => t,
                    _ => {
                        return Err(EvalError::new(
                            args[0].span,
                            format!("@{name} takes a task name first"),
                        ));
                    }
                };
                match self.program.globals.get(task) {
                    Some(Global::Fn { is_task: true, .. }) => {}
                    Some(Global::Fn { is_task: false, .. }) => {
                        return Err(EvalError::new(
                            args[0].span,
                            format!("`{task}` is a function, not a task"),
                        ));
                    }
                    Some(_) => {
                        return Err(EvalError::new(
                            args[0].span,
                            format!("`{task}` is not a task"),
                        ));
                    }
                    None => {
                        let known = self
                            .module
                            .decls
                            .iter()
                            .any(|d| matches!(&d.kind, DeclKind::Task(f) if &f.name == task));
                        let msg = if known {
                            format!("task `{task}` is bound before it is declared")
                        } else {
                            format!("unknown name `{task}`")
                        };
                        return Err(EvalError::new(args[0].span, msg));
                    }
                }
                let idv = self.ev.expr(&args[1])?;
                let id = match (name.as_str(), &idv) {
                    ("bind_local_task", Value::LocalTaskId(n)) => BoundTask::Local(*n),
                    ("bind_data_task", Value::DataTaskId(n)) => BoundTask::Data(*n),
                    ("bind_control_task", Value::ControlTaskId(n)) => BoundTask::Control(*n),
                    _ => {
                        let want = &name["bind_".len()..name.len() - "_task".len()];
                        return Err(EvalError::new(
                            args[1].span,
                            format!("expected {want}_task_id, found {} `{idv}`", idv.type_name()),
                        ));
                    }
                };
                if let Some(b) = self.program.tasks.iter().find(|b| b.id == id) {
                    return Err(EvalError::new(
                        args[1].span,
                        format!("task id `{idv}` is already bound to task `{}`", b.task),
                    ));
                }
                if let BoundTask::Data(n) = id {
                    self.data_binds.push((n, args[1].span));
                }
                let params = self
                    .module
                    .decls
                    .iter()
                    .find_map(|d| match &d.kind {
                        DeclKind::Task(f) if &f.name == task => Some(f.params.len()),
                        _ => None,
                    })
                    .unwrap_or(0);
                if params > 0 && !matches!(id, BoundTask::Data(_)) {
                    return Err(EvalError::new(
                        args[0].span,
                        format!(
                            "task `{task}` takes {params} parameters, but only a data task gets an argument (its wavelet)"
                        ),
                    ));
                }
                if let BoundTask::Local(n) = id {
                    // Activatable local task ids: 0..=30 on WSE-2, 8..=30 on WSE-3 (below 8
                    // are the input queues' data tasks there).
                    let min = match self.arch {
                        Arch::Wse2 => 0,
                        Arch::Wse3 => 8,
                    };
                    if !(min..=30).contains(&n) {
                        return Err(EvalError::new(
                            args[1].span,
                            format!(
                                "local task id {n} is out of range {min}..=30 on {}",
                                self.arch.name()
                            ),
                        ));
                    }
                }
                self.program.tasks.push(TaskBinding {
                    task: task.clone(),
                    id,
                });
                Ok(())
            }
            "export_symbol" => {
                if !(1..=2).contains(&args.len()) {
                    return Err(EvalError::new(
                        e.span,
                        format!(
                            "@export_symbol takes 1 or 2 arguments, found {}",
                            args.len()
                        ),
                    ));
                }
                let symbol = match &args[0].kind {
                    ExprKind::Ident(t) if self.program.globals.contains_key(t) => t.clone(),
                    ExprKind::Ident(t) => {
                        return Err(EvalError::new(args[0].span, format!("unknown name `{t}`")));
                    }
                    _ => {
                        return Err(EvalError::new(
                            args[0].span,
                            "@export_symbol takes a name first",
                        ));
                    }
                };
                let host_name = match args.get(1) {
                    None => symbol.clone(),
                    Some(a) => match self.ev.expr(a)? {
                        Value::Str(s) => s,
                        other => {
                            return Err(EvalError::new(
                                a.span,
                                format!("expected a string, found {} `{other}`", other.type_name()),
                            ));
                        }
                    },
                };
                if self
                    .program
                    .exports
                    .iter()
                    .any(|x| x.host_name == host_name)
                {
                    return Err(EvalError::new(
                        e.span,
                        format!("symbol `{host_name}` is exported twice"),
                    ));
                }
                self.program
                    .exports
                    .push(ExportedSymbol { symbol, host_name });
                Ok(())
            }
            "rpc" => {
                // The RPC server of `<memcpy/memcpy>`: the SDK model starts exported
                // functions itself (`crate::sdk`), so only the color is checked.
                arity(1)?;
                match self.ev.expr(&args[0])? {
                    Value::Color(_) => Ok(()),
                    other => Err(EvalError::new(
                        args[0].span,
                        format!("@rpc takes a color, found {} `{other}`", other.type_name()),
                    )),
                }
            }
            "activate" => {
                arity(1)?;
                match self.ev.expr(&args[0])? {
                    Value::LocalTaskId(n) => {
                        self.program.activations.push(n);
                        Ok(())
                    }
                    other => Err(EvalError::new(
                        args[0].span,
                        format!(
                            "@activate takes a local task id, found {} `{other}`",
                            other.type_name()
                        ),
                    )),
                }
            }
            _ => self.fabric_comptime(e, name, args),
        }
    }

    /// The fabric builtins of a `comptime` block (`@initialize_queue`, `@block`,
    /// `@unblock`, `@load_to_dsr`), and any other compile-time expression.
    fn fabric_comptime(&mut self, e: &Expr, name: &str, args: &[Expr]) -> Result<(), EvalError> {
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                Err(EvalError::new(
                    e.span,
                    format!("@{name} takes {n} arguments, found {}", args.len()),
                ))
            }
        };
        match name {
            "initialize_queue" => {
                arity(2)?;
                let queue = self.ev.expr(&args[0])?;
                let (input, queue) = match queue {
                    Value::InputQueue(q) => (true, q),
                    Value::OutputQueue(q) => (false, q),
                    other => {
                        return Err(EvalError::new(
                            args[0].span,
                            format!(
                                "@initialize_queue takes an input or output queue first, found {} `{other}`",
                                other.type_name()
                            ),
                        ));
                    }
                };
                let color = match self.ev.expr(&args[1])? {
                    Value::Struct(fields) => match fields.as_slice() {
                        [(n, Value::Color(c))] if n == "color" => *c,
                        _ => {
                            return Err(EvalError::new(
                                args[1].span,
                                "@initialize_queue takes `.{ .color = c }` second",
                            ));
                        }
                    },
                    _ => {
                        return Err(EvalError::new(
                            args[1].span,
                            "@initialize_queue takes `.{ .color = c }` second",
                        ));
                    }
                };
                if let Some(prev) = self
                    .program
                    .queue_inits
                    .iter()
                    .find(|q| q.input == input && q.queue == queue)
                {
                    return Err(EvalError::new(
                        e.span,
                        format!(
                            "{} queue {queue} is already initialized to color {}",
                            if input { "input" } else { "output" },
                            prev.color
                        ),
                    ));
                }
                self.program.queue_inits.push(QueueInit {
                    input,
                    queue,
                    color,
                });
                Ok(())
            }
            "block" | "unblock" => {
                arity(1)?;
                let v = self.ev.expr(&args[0])?;
                self.program.blocks.push((name == "block", v, args[0].span));
                Ok(())
            }
            "load_to_dsr" => {
                if !(2..=3).contains(&args.len()) {
                    return Err(EvalError::new(
                        e.span,
                        format!("@load_to_dsr takes 2 or 3 arguments, found {}", args.len()),
                    ));
                }
                let name_of = |a: &Expr, want: &str| match &a.kind {
                    ExprKind::Ident(n) => Ok(n.clone()),
                    _ => Err(EvalError::new(
                        a.span,
                        format!("@load_to_dsr takes {want} by name here"),
                    )),
                };
                let dsr = name_of(&args[0], "a DSR")?;
                if !matches!(self.program.globals.get(&dsr), Some(Global::Dsr(_))) {
                    return Err(EvalError::new(
                        args[0].span,
                        format!("`{dsr}` is not a DSR (@get_dsr)"),
                    ));
                }
                let dsd = name_of(&args[1], "a module DSD")?;
                if !matches!(self.program.globals.get(&dsd), Some(Global::Dsd { .. })) {
                    return Err(EvalError::new(
                        args[1].span,
                        format!("`{dsd}` is not a module DSD"),
                    ));
                }
                let mut load = DsrLoad {
                    dsr,
                    dsd,
                    save_address: false,
                    is_async: false,
                    activate: None,
                    unblock: None,
                    ut_id: None,
                    span: e.span,
                };
                if let Some(opts) = args.get(2) {
                    match self.ev.expr(opts)? {
                        Value::Struct(fields) => load_options(&mut load, fields, opts.span)?,
                        other => {
                            return Err(EvalError::new(
                                opts.span,
                                format!(
                                    "@load_to_dsr takes an options struct third, found {} `{other}`",
                                    other.type_name()
                                ),
                            ));
                        }
                    }
                }
                self.program.dsr_loads.push(load);
                Ok(())
            }
            _ => {
                self.ev.expr(e)?;
                Ok(())
            }
        }
    }
}

fn ty_name(t: &Option<Type>) -> String {
    t.as_ref()
        .map_or_else(|| "no type".to_string(), Type::to_string)
}
