//! The executor of function and task bodies: a tree-walking interpreter whose module
//! variables live in the simulated PE memory, run inside the simulator's scheduler as
//! `Action::call` steps.
//!
//! A task's body is one `Action::call` that starts an interpreter; each `Action::call` runs
//! one scalar statement (or one loop test) and returns another `Action::call` that resumes
//! the interpreter; a statement that is a DSD operation or `@activate` / `@block` /
//! `@unblock` returns that action first. So each scalar statement and loop test takes one
//! cycle of the main thread (the simulator's cost of Rust code), every DSD operation takes
//! the simulator's own cycles and statistics, and an endless loop ends at the run's cycle
//! limit. Loops and calls of functions keep their
//! place between steps (a stack of frames of statement cursors); a function whose value is
//! used in an expression runs to its end at once, so it may not contain DSD operations.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use npusim_cerebras::Arch as SimArch;
use npusim_cerebras::dsd::{
    Dsd, increment_dsd_offset, set_dsd_base_addr, set_dsd_length, set_dsd_stride,
};
use npusim_cerebras::ids::{MicrothreadId, TaskId};
use npusim_cerebras::ops::{DsrId, FifoId, OpError};
use npusim_cerebras::sched::{Action, AsyncConfig, CallCtx, Completion, OnControl};
use npusim_cerebras::{ElemTy, Op, OpConfig, Operand, PeMemory, Scalar};

use super::arith::{self, f16_to_f64, f64_to_f16};
use super::check::{COMPTIME_BUILTINS, LocalArray, assignable};
use super::map_math::{apply_math, math_elem};
use super::priority::{PriorityPlace, check_priority};
use super::program::{BoundTask, Global, PeProgram, elem_of, type_of_elem};
use super::target::{Target, target_of};
use super::value::{Ptr, RtValue, elem_name};
use crate::ast::{
    AssignOp, BinOp, Block, Else, Expr, ExprKind, FieldInit, FnParam, Stmt, StmtKind, UnOp, VarDecl,
};
use crate::comptime::{IntType, Type, Value};
use crate::diagnostic::Diagnostic;
use crate::span::Span;

/// Statements a function whose value an expression uses may run (all in one cycle) before
/// the program is stopped as endless.
pub const MAX_SCALAR_STEPS: u64 = 1_000_000;
/// Deepest nesting of function calls at run time.
pub const MAX_RUN_CALL_DEPTH: usize = 64;

/// The first run-time error of a PE's code, kept for the caller of the run.
pub type FaultSlot = Arc<Mutex<Option<Diagnostic>>>;

/// One PE's code: the program, the DSDs built over that PE's memory, and its fault slot.
pub(crate) struct PeCode {
    pub(crate) program: Arc<PeProgram>,
    /// The module DSDs' current values (a `var` DSD changes when assigned).
    pub(crate) dsds: Mutex<HashMap<String, Dsd>>,
    /// The DSDs of `@get_dsd` calls inside bodies, by the call's span.
    pub(crate) built: HashMap<Span, Dsd>,
    /// The PE's FIFOs, in the order of the program's `@allocate_fifo`s.
    pub(crate) fifos: Vec<FifoId>,
    /// The DSR each DSR name holds, by the last `@load_to_dsr` into it.
    pub(crate) dsrs: Mutex<HashMap<String, DsrId>>,
    pub(crate) fault: FaultSlot,
    blocks: Mutex<HashMap<Span, Arc<[Stmt]>>>,
}

impl PeCode {
    pub(crate) fn new(
        program: Arc<PeProgram>,
        dsds: HashMap<String, Dsd>,
        built: HashMap<Span, Dsd>,
        fifos: Vec<FifoId>,
        dsrs: HashMap<String, DsrId>,
        fault: FaultSlot,
    ) -> PeCode {
        PeCode {
            program,
            dsds: Mutex::new(dsds),
            built,
            fifos,
            dsrs: Mutex::new(dsrs),
            fault,
            blocks: Mutex::new(HashMap::new()),
        }
    }

    fn stmts(&self, b: &Block) -> Arc<[Stmt]> {
        self.blocks
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(b.span)
            .or_insert_with(|| b.stmts.clone().into())
            .clone()
    }
}

impl std::fmt::Debug for PeCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "PeCode({})", self.program.source().name())
    }
}

/// A run-time error: where and what.
pub(crate) struct Fault {
    pub(crate) span: Span,
    pub(crate) message: String,
}

pub(crate) type RResult<T> = Result<T, Fault>;

pub(crate) fn fault<T>(span: Span, message: impl Into<String>) -> RResult<T> {
    Err(Fault {
        span,
        message: message.into(),
    })
}

struct Local {
    value: RtValue,
    mutable: bool,
    ty: Option<Type>,
}

enum LoopState {
    While {
        started: bool,
    },
    For {
        start: i128,
        step: i128,
        count: i128,
        ty: IntType,
        next: i128,
    },
}

enum Cont {
    Seq {
        stmts: Arc<[Stmt]>,
        idx: usize,
        scoped: bool,
    },
    Loop {
        stmts: Arc<[Stmt]>,
        idx: usize,
        state: LoopState,
    },
}

struct Frame {
    name: String,
    scopes: Vec<HashMap<String, Local>>,
    conts: Vec<Cont>,
}

/// Where a run of the interpreter stopped.
enum Step {
    /// At an action for the simulator.
    Act(Action),
    /// After one statement or loop test: the next one runs in the next cycle.
    Pause,
    /// At the end of the task.
    Done,
}

/// What one statement did.
enum Effect {
    Next,
    Yield(Action),
}

/// An interpreter of one start of a task.
struct Machine {
    code: Arc<PeCode>,
    frames: Vec<Frame>,
    ret: Option<RtValue>,
    /// The simulator's cycle of the current step (what `<time>` reads).
    cycle: u64,
}

/// The body of a bound task: an `Action::call` starting the interpreter on `task`. A data
/// task's parameters take the wavelet that started it: one 32-bit parameter takes its 32
/// bits, one 16-bit parameter its low half, two 16-bit parameters the low then the high
/// half.
pub(crate) fn task_body(code: Arc<PeCode>, task: String) -> Vec<Action> {
    body(code, task, false)
}

/// The body of the local task `launch` starts exported function `name` with: its
/// parameters take the arguments the host wrote (see `sdk::launch_args`).
pub(crate) fn launch_body(code: Arc<PeCode>, name: String) -> Vec<Action> {
    body(code, name, true)
}

fn body(code: Arc<PeCode>, task: String, launched: bool) -> Vec<Action> {
    vec![Action::call(move |ctx: &mut CallCtx<'_>| {
        let Some(f) = code.program.function(&task) else {
            return Ok(Vec::new());
        };
        let Some(body) = &f.body else {
            return Ok(Vec::new());
        };
        let stmts = code.stmts(body);
        let mut m = Machine {
            code: code.clone(),
            frames: Vec::new(),
            ret: None,
            cycle: ctx.cycle,
        };
        let scope = if launched {
            m.launch_params(&f.params, &ctx.pe.mem, &task, f.name_span)
        } else {
            m.wavelet_params(&f.params, ctx.wavelet.map(|w| w.payload), f.name_span)
        };
        let scope = match scope {
            Ok(scope) => scope,
            Err(e) => return Err(record(&code, e)),
        };
        m.frames.push(Frame {
            name: task.clone(),
            scopes: vec![scope],
            conts: vec![Cont::Seq {
                stmts,
                idx: 0,
                scoped: false,
            }],
        });
        resume(Arc::new(Mutex::new(m)), ctx)
    })]
}

/// Keeps the first run-time fault of a PE's code; the error the simulator stops with.
fn record(code: &PeCode, f: Fault) -> OpError {
    let d = code.program.source().diagnostic(f.span, f.message);
    let mut slot = code
        .fault
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if slot.is_none() {
        *slot = Some(d);
    }
    OpError::Undocumented {
        op: "csl",
        why: "the CSL code failed at run time (the program's error says where)",
    }
}

/// Runs the interpreter to its next action; records a fault in the PE's slot.
fn resume(m: Arc<Mutex<Machine>>, ctx: &mut CallCtx<'_>) -> Result<Vec<Action>, OpError> {
    let result = {
        let mut guard = m.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        guard.cycle = ctx.cycle;
        guard.run(&mut ctx.pe.mem)
    };
    let next = m.clone();
    let again = move || Action::call(move |ctx: &mut CallCtx<'_>| resume(next.clone(), ctx));
    match result {
        Ok(Step::Done) => Ok(Vec::new()),
        Ok(Step::Pause) => Ok(vec![again()]),
        Ok(Step::Act(action)) => Ok(vec![action, again()]),
        Err(f) => {
            let code = m
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .code
                .clone();
            Err(record(&code, f))
        }
    }
}

impl Machine {
    /// The locals a task's parameters give: none for a task started without a wavelet
    /// (whose parameters are an error), the wavelet's halves or whole for a data task.
    fn wavelet_params(
        &mut self,
        params: &[FnParam],
        payload: Option<u32>,
        span: Span,
    ) -> RResult<HashMap<String, Local>> {
        let mut scope = HashMap::new();
        if params.is_empty() {
            return Ok(scope);
        }
        let Some(payload) = payload else {
            return fault(
                span,
                format!(
                    "this task takes {} parameters but was started without a wavelet (only a data task gets one)",
                    params.len()
                ),
            );
        };
        let mut types = Vec::new();
        for p in params {
            let t = self.type_expr(&p.ty)?;
            let Some(e) = elem_of(&t) else {
                return fault(
                    p.ty.span,
                    format!("a data task parameter is a 16- or 32-bit number, found {t}"),
                );
            };
            types.push((p.name.clone(), t, e));
        }
        let words: Vec<u32> = types.iter().map(|(_, _, e)| e.words()).collect();
        let parts: Vec<u32> = match words.as_slice() {
            [2] => vec![payload],
            [1] => vec![payload & 0xffff],
            [1, 1] => vec![payload & 0xffff, payload >> 16],
            _ => {
                return fault(
                    span,
                    "a data task takes one 32-bit parameter, one 16-bit parameter, or two 16-bit parameters (the wavelet's low and high halves)",
                );
            }
        };
        for ((name, t, e), bits) in types.into_iter().zip(parts) {
            scope.insert(
                name,
                Local {
                    value: from_bits(bits, e),
                    mutable: false,
                    ty: Some(t),
                },
            );
        }
        Ok(scope)
    }

    /// A task named where a task id may stand (`.activate = exit_task`): the id it is bound
    /// to; any other value as it is.
    fn bound_id(&self, v: &RtValue) -> RtValue {
        if let RtValue::Comptime(Value::Function(name)) = v
            && let Some(t) = self.code.program.tasks.iter().find(|t| t.task == *name)
        {
            return RtValue::Comptime(match t.id {
                BoundTask::Local(n) => Value::LocalTaskId(n),
                BoundTask::Data(n) => Value::DataTaskId(n),
                BoundTask::Control(n) => Value::ControlTaskId(n),
            });
        }
        v.clone()
    }

    /// The parameters of exported function `name` from the arguments of `launch`: a
    /// typed argument must be of its parameter's type, a plain number is converted to it.
    fn launch_params(
        &mut self,
        params: &[FnParam],
        mem: &PeMemory,
        name: &str,
        span: Span,
    ) -> RResult<HashMap<String, Local>> {
        let mut scope = HashMap::new();
        if params.is_empty() {
            return Ok(scope);
        }
        let values = mem
            .read::<u32>(crate::sdk::LAUNCH_ARGS_ARRAY)
            .ok()
            .and_then(|w| crate::sdk::launch_values(&w));
        let Some(values) = values else {
            return fault(
                span,
                format!(
                    "`{name}` takes {} arguments, and none were launched with it",
                    params.len()
                ),
            );
        };
        if values.len() != params.len() {
            return fault(
                span,
                format!(
                    "`{name}` takes {} arguments, launch gave {}",
                    params.len(),
                    values.len()
                ),
            );
        }
        for (i, (p, v)) in params.iter().zip(values).enumerate() {
            let t = self.type_expr(&p.ty)?;
            let typed = !matches!(
                v,
                RtValue::ComptimeFloat(_)
                    | RtValue::Int {
                        ty: IntType::Comptime,
                        ..
                    }
            );
            if typed && v.type_name() != t.to_string() {
                return fault(
                    p.ty.span,
                    format!(
                        "launch argument {} of `{name}` is {} {v}, its parameter `{}` is {t}",
                        i + 1,
                        v.type_name(),
                        p.name
                    ),
                );
            }
            let value = convert(v, &t, p.ty.span).map_err(|f| Fault {
                span: f.span,
                message: format!(
                    "launch argument {} of `{name}` (parameter `{}`): {}",
                    i + 1,
                    p.name,
                    f.message
                ),
            })?;
            scope.insert(
                p.name.clone(),
                Local {
                    value,
                    mutable: false,
                    ty: Some(t),
                },
            );
        }
        Ok(scope)
    }

    /// `@map(f, inputs..., output)`: `f` a function of this file taking one value per
    /// input (16- or 32-bit numbers), run on each element's arguments as the simulator's
    /// `@map` operation (one element per cycle). The function sees its arguments and the
    /// program's constants, not PE memory; a fault in it stops the run at the fault.
    fn map_action(&mut self, args: &[Expr], span: Span, mem: &mut PeMemory) -> RResult<Action> {
        let Some((f, rest)) = args.split_first() else {
            return fault(span, "@map takes a function, its inputs and an output");
        };
        if let ExprKind::Field { base, name } = &f.kind
            && let ExprKind::Ident(m) = &base.kind
            && let Some(Global::Const(RtValue::Comptime(Value::Module(r)))) =
                self.code.program.globals.get(m)
        {
            if r.path != "<math>" || math_elem(name).is_none() {
                return fault(
                    f.span,
                    format!(
                        "@map of library function `{}.{name}` is not supported (of <math>: sqrt_f32, sqrt_f16, abs_f32, abs_f16)",
                        r.path
                    ),
                );
            }
            return self.math_map(name, rest, span, mem);
        }
        let ExprKind::Ident(fname) = &f.kind else {
            return fault(
                f.span,
                "@map takes a function of this file or of <math> first",
            );
        };
        let code = self.code.clone();
        let decl = match code.program.globals.get(fname) {
            Some(Global::Fn { is_task: false, .. }) => code.program.function(fname),
            _ => None,
        };
        let Some(decl) = decl else {
            return fault(f.span, format!("`{fname}` is not a function of this file"));
        };
        let n = decl.params.len();
        if rest.len() != n && rest.len() != n + 1 {
            return fault(
                span,
                format!(
                    "@map of `{fname}` takes {n} inputs and an optional output, found {} arguments",
                    rest.len()
                ),
            );
        }
        // each parameter: its name, type, element type and whether it is a pointer (whose
        // argument the function reads through `p.*`)
        let mut params = Vec::with_capacity(n);
        for p in &decl.params {
            let t = self.type_expr(&p.ty)?;
            let (e, ptr) = match &t {
                Type::Ptr { elem, .. } => (elem_of(elem), true),
                t => (elem_of(t), false),
            };
            let Some(e) = e else {
                return fault(
                    p.ty.span,
                    format!(
                        "a @map function takes 16- or 32-bit numbers or pointers to one, and `{}` is {t}",
                        p.name
                    ),
                );
            };
            params.push((p.name.clone(), t, e, ptr));
        }
        let ret_t = self.type_expr(&decl.ret)?;
        let ret_e = elem_of(&ret_t);
        let mut ops = Vec::with_capacity(rest.len());
        for (k, a) in rest.iter().enumerate() {
            let v = self.expr(a, mem)?;
            // a scalar input takes its parameter's type, as a literal argument would
            let o = match (&v, params.get(k)) {
                (RtValue::Dsd(_) | RtValue::Fifo(_) | RtValue::Ptr(_), _) | (_, None) => {
                    operand(v, Op::Fmovs, a.span, mem)?
                }
                (_, Some((_, _, e, _))) => {
                    Operand::Scalar(Scalar::from_bits(*e, to_bits(v, *e, a.span)?))
                }
            };
            ops.push(o);
        }
        let output = if rest.len() == n + 1 {
            if ret_e.is_none() {
                return fault(
                    span,
                    format!("`{fname}` returns {ret_t}, which cannot be written to an output"),
                );
            }
            ops.pop()
        } else {
            None
        };
        let ret_e = ret_e.unwrap_or(ElemTy::U32);
        let arch = mem.arch();
        let fname = fname.clone();
        let body = match &decl.body {
            Some(b) => code.stmts(b),
            None => return fault(f.span, format!("`{fname}` has no body")),
        };
        let call_span = span;
        Ok(Action::map(ops, output, move |values: &[Scalar]| {
            let run = || -> RResult<Scalar> {
                let mut scope = HashMap::new();
                let mut scratch = PeMemory::new(arch);
                for ((name, t, e, ptr), v) in params.iter().zip(values) {
                    if v.ty != *e {
                        return fault(
                            call_span,
                            format!(
                                "@map: `{name}` of `{fname}` is {t}, the element given is {}",
                                elem_name(v.ty)
                            ),
                        );
                    }
                    let value = if *ptr {
                        // the pointee's value, in a one-element array of the function's own
                        // memory, read through the pointer
                        let array = format!("{name} (the @map argument)");
                        scratch
                            .declare(&array, *e, &[1])
                            .and_then(|a| scratch.store(a.word_addr, *e, v.bits))
                            .or_else(|err| fault(call_span, err.to_string()))?;
                        RtValue::Ptr(Ptr {
                            array,
                            index: 0,
                            elem: *e,
                        })
                    } else {
                        from_bits(v.bits, *e)
                    };
                    scope.insert(
                        name.clone(),
                        Local {
                            value,
                            mutable: false,
                            ty: Some(t.clone()),
                        },
                    );
                }
                let mut m = Machine {
                    code: code.clone(),
                    frames: vec![Frame {
                        name: fname.clone(),
                        scopes: vec![scope],
                        conts: vec![Cont::Seq {
                            stmts: body.clone(),
                            idx: 0,
                            scoped: false,
                        }],
                    }],
                    ret: None,
                    cycle: 0,
                };
                if let Step::Act(_) = m.run_until(&mut scratch, 0, false)? {
                    return fault(
                        call_span,
                        format!(
                            "`{fname}` runs a DSD operation or task builtin, so @map cannot apply it"
                        ),
                    );
                }
                let r = m.ret.take().unwrap_or(RtValue::Void);
                Ok(Scalar::from_bits(ret_e, to_bits(r, ret_e, call_span)?))
            };
            run().unwrap_or_else(|f| {
                record(&code, f);
                Scalar::from_bits(ret_e, 0)
            })
        }))
    }

    /// `@map(math.f, input, output)` with a `<math>` function ([`math_elem`]): one input,
    /// elements of the function's type.
    fn math_map(
        &mut self,
        name: &str,
        rest: &[Expr],
        span: Span,
        mem: &mut PeMemory,
    ) -> RResult<Action> {
        let Some(e) = math_elem(name) else {
            return fault(
                span,
                format!("`{name}` is not a <math> function @map applies"),
            );
        };
        let (input, output) = match rest {
            [i] => (i, None),
            [i, o] => (i, Some(o)),
            _ => {
                return fault(
                    span,
                    format!(
                        "@map of `{name}` takes 1 input and an optional output, found {} arguments",
                        rest.len()
                    ),
                );
            }
        };
        let v = self.expr(input, mem)?;
        let input = match v {
            RtValue::Dsd(_) | RtValue::Fifo(_) | RtValue::Ptr(_) | RtValue::Dsr(_) => {
                operand(v, Op::Fmovs, input.span, mem)?
            }
            v => Operand::Scalar(Scalar::from_bits(e, to_bits(v, e, input.span)?)),
        };
        let output = match output {
            Some(o) => {
                let v = self.expr(o, mem)?;
                Some(operand(v, Op::Fmovs, o.span, mem)?)
            }
            None => None,
        };
        let code = self.code.clone();
        let name = name.to_string();
        Ok(Action::map(
            vec![input],
            output,
            move |values: &[Scalar]| match values.first() {
                Some(v) if v.ty == e => apply_math(&name, *v),
                Some(v) => {
                    record(
                        &code,
                        Fault {
                            span,
                            message: format!(
                                "@map: `{name}` takes {} elements, the element given is {}",
                                elem_name(e),
                                elem_name(v.ty)
                            ),
                        },
                    );
                    Scalar::from_bits(e, 0)
                }
                None => Scalar::from_bits(e, 0),
            },
        ))
    }

    /// `@load_to_dsr(dsr, dsd)` or `(dsr, dsd, .{ .save_address = b })` at run time: an
    /// action that loads the DSD into a new DSR of the file and names it by `dsr`.
    fn load_to_dsr(&mut self, args: &[Expr], span: Span, mem: &mut PeMemory) -> RResult<Action> {
        let (dsr, dsd, opts) = match args {
            [a, b] => (a, b, None),
            [a, b, c] => (a, b, Some(c)),
            _ => {
                return fault(
                    span,
                    format!("@load_to_dsr takes 2 or 3 arguments, found {}", args.len()),
                );
            }
        };
        let code = self.code.clone();
        let (name, file) = match &dsr.kind {
            ExprKind::Ident(n) => match code.program.globals.get(n) {
                Some(Global::Dsr(file)) => (n.clone(), *file),
                _ => return fault(dsr.span, format!("`{n}` is not a DSR (@get_dsr)")),
            },
            _ => return fault(dsr.span, "@load_to_dsr takes a DSR by name first"),
        };
        let d = match self.expr(dsd, mem)? {
            RtValue::Dsd(d) => d,
            other => {
                return fault(
                    dsd.span,
                    format!(
                        "@load_to_dsr takes a DSD second, found {} `{other}`",
                        other.type_name()
                    ),
                );
            }
        };
        let mut save = false;
        if let Some(Expr {
            kind: ExprKind::StructLit(fields),
            ..
        }) = opts
        {
            for f in fields {
                match (f.name.as_str(), self.expr(&f.value, mem)?) {
                    ("save_address", RtValue::Bool(b)) => save = b,
                    ("async", RtValue::Bool(false)) => {}
                    ("async" | "activate" | "unblock" | "ut_id", _) => {
                        return fault(
                            f.value.span,
                            "an asynchronous @load_to_dsr is supported in a comptime block only (the simulator takes a DSR's asynchronous settings before the run)",
                        );
                    }
                    (n, v) => {
                        return fault(
                            f.value.span,
                            format!(
                                "@load_to_dsr option `.{n}` = {} `{v}` is not supported",
                                v.type_name()
                            ),
                        );
                    }
                }
            }
        } else if let Some(o) = opts {
            return fault(
                o.span,
                "@load_to_dsr takes an options struct `.{ ... }` third",
            );
        }
        Ok(Action::call(move |ctx: &mut CallCtx<'_>| {
            let id = ctx.pe.load_to_dsr(file, &d, save)?;
            code.dsrs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(name.clone(), id);
            Ok(Vec::new())
        }))
    }

    fn frame(&mut self) -> &mut Frame {
        // `run` only calls this with a frame on the stack.
        if self.frames.is_empty() {
            self.frames.push(Frame {
                name: String::new(),
                scopes: vec![HashMap::new()],
                conts: Vec::new(),
            });
        }
        let n = self.frames.len() - 1;
        &mut self.frames[n]
    }

    /// Runs one statement (or loop test), or to the action of a DSD operation or task
    /// builtin, or to the end of the task.
    fn run(&mut self, mem: &mut PeMemory) -> RResult<Step> {
        self.run_until(mem, 0, true)
    }

    /// Runs until an action, or until the stack is no deeper than `floor` frames; with
    /// `pause`, stops before a second statement or loop test.
    fn run_until(&mut self, mem: &mut PeMemory, floor: usize, pause: bool) -> RResult<Step> {
        let mut steps = 0u64;
        let mut work = 0u32;
        while self.frames.len() > floor {
            steps += 1;
            if steps > MAX_SCALAR_STEPS {
                let span = self.current_span();
                return fault(
                    span,
                    format!(
                        "more than {MAX_SCALAR_STEPS} statements ran in a function whose value is used: an endless loop?"
                    ),
                );
            }
            let frame = self.frame();
            let Some(cont) = frame.conts.last_mut() else {
                self.frames.pop();
                continue;
            };
            match cont {
                Cont::Seq { stmts, idx, scoped } => {
                    if *idx >= stmts.len() {
                        let scoped = *scoped;
                        frame.conts.pop();
                        if scoped {
                            frame.scopes.pop();
                        }
                        continue;
                    }
                    if pause && work > 0 {
                        return Ok(Step::Pause);
                    }
                    work += 1;
                    let stmts = stmts.clone();
                    let i = *idx;
                    *idx += 1;
                    if let Effect::Yield(a) = self.stmt(&stmts, i, mem)? {
                        return Ok(Step::Act(a));
                    }
                }
                Cont::Loop { stmts, idx, state } => {
                    if pause && work > 0 {
                        return Ok(Step::Pause);
                    }
                    work += 1;
                    let stmts = stmts.clone();
                    let s = &stmts[*idx];
                    match (&s.kind, state) {
                        (StmtKind::While { cond, step, body }, LoopState::While { started }) => {
                            let first = !*started;
                            *started = true;
                            if !first && let Some(step) = step {
                                // the step is a statement of its own (no DSD operations)
                                let one: Arc<[Stmt]> = Arc::from(vec![(**step).clone()]);
                                if let Effect::Yield(_) = self.stmt(&one, 0, mem)? {
                                    return fault(
                                        step.span,
                                        "a DSD operation cannot be a loop's step",
                                    );
                                }
                            }
                            if self.truth(cond, mem)? {
                                let body = self.code.stmts(body);
                                let f = self.frame();
                                f.scopes.push(HashMap::new());
                                f.conts.push(Cont::Seq {
                                    stmts: body,
                                    idx: 0,
                                    scoped: true,
                                });
                            } else {
                                self.frame().conts.pop();
                            }
                        }
                        (
                            StmtKind::For { captures, body, .. },
                            LoopState::For {
                                start,
                                step,
                                count,
                                ty,
                                next,
                            },
                        ) => {
                            if *next >= *count {
                                frame.conts.pop();
                                continue;
                            }
                            let mut scope = HashMap::new();
                            if let Some(c) = captures.first() {
                                scope.insert(
                                    c.clone(),
                                    Local {
                                        value: RtValue::Int {
                                            value: *start + *next * *step,
                                            ty: *ty,
                                        },
                                        mutable: false,
                                        ty: None,
                                    },
                                );
                            }
                            if let Some(c) = captures.get(1) {
                                scope.insert(
                                    c.clone(),
                                    Local {
                                        value: RtValue::Int {
                                            value: *next,
                                            ty: IntType::Comptime,
                                        },
                                        mutable: false,
                                        ty: None,
                                    },
                                );
                            }
                            *next += 1;
                            let body = self.code.stmts(body);
                            let f = self.frame();
                            f.scopes.push(scope);
                            f.conts.push(Cont::Seq {
                                stmts: body,
                                idx: 0,
                                scoped: true,
                            });
                        }
                        _ => {
                            self.frame().conts.pop();
                        }
                    }
                }
            }
        }
        Ok(Step::Done)
    }

    fn current_span(&self) -> Span {
        self.frames
            .last()
            .and_then(|f| f.conts.last())
            .map_or(Span::default(), |c| match c {
                Cont::Seq { stmts, idx, .. } => stmts
                    .get(idx.saturating_sub(1))
                    .map_or(Span::default(), |s| s.span),
                Cont::Loop { stmts, idx, .. } => stmts[*idx].span,
            })
    }

    fn lookup(&self, name: &str) -> Option<&Local> {
        self.frames
            .last()?
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name))
    }

    fn lookup_mut(&mut self, name: &str) -> Option<&mut Local> {
        self.frames
            .last_mut()?
            .scopes
            .iter_mut()
            .rev()
            .find_map(|s| s.get_mut(name))
    }

    fn stmt(&mut self, stmts: &Arc<[Stmt]>, i: usize, mem: &mut PeMemory) -> RResult<Effect> {
        let s = &stmts[i];
        match &s.kind {
            StmtKind::Var(v) => {
                if let Some(a) = self.code.program.body_arrays.get(&s.span).cloned() {
                    return self.local_array(v, &a, s.span, mem);
                }
                let ty = v.ty.as_ref().map(|t| self.type_expr(t)).transpose()?;
                let value = match &v.init {
                    Some(e) => self.expr(e, mem)?,
                    None => {
                        return fault(s.span, format!("`{}` needs an initial value", v.name));
                    }
                };
                let value = match &ty {
                    Some(t) => coerce(value, t, v.init.as_ref().map_or(s.span, |e| e.span))?,
                    None => value,
                };
                let f = self.frame();
                if let Some(scope) = f.scopes.last_mut() {
                    scope.insert(
                        v.name.clone(),
                        Local {
                            value,
                            mutable: !v.is_const,
                            ty,
                        },
                    );
                }
                Ok(Effect::Next)
            }
            StmtKind::Expr(e) => self.expr_stmt(e, mem),
            StmtKind::Assign { target, op, value } => {
                let v = self.expr(value, mem)?;
                let v = match op {
                    AssignOp::Set => v,
                    AssignOp::Compound(bin) => {
                        let old = self.expr(target, mem)?;
                        arith::binary(*bin, old, v).or_else(|m| fault(s.span, m))?
                    }
                };
                self.store(target, v, value.span, mem)?;
                Ok(Effect::Next)
            }
            StmtKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.truth(cond, mem)? {
                    self.enter(then);
                    return Ok(Effect::Next);
                }
                match otherwise {
                    Some(Else::Block(b)) => {
                        self.enter(b);
                        Ok(Effect::Next)
                    }
                    Some(Else::If(inner)) => {
                        let one: Arc<[Stmt]> = Arc::from(vec![(**inner).clone()]);
                        self.frame().conts.push(Cont::Seq {
                            stmts: one,
                            idx: 0,
                            scoped: false,
                        });
                        Ok(Effect::Next)
                    }
                    None => Ok(Effect::Next),
                }
            }
            StmtKind::While { .. } => {
                self.frame().conts.push(Cont::Loop {
                    stmts: stmts.clone(),
                    idx: i,
                    state: LoopState::While { started: false },
                });
                Ok(Effect::Next)
            }
            StmtKind::For { iter, .. } => {
                let (start, step, count, ty) = self.iteration(iter, mem)?;
                self.frame().conts.push(Cont::Loop {
                    stmts: stmts.clone(),
                    idx: i,
                    state: LoopState::For {
                        start,
                        step,
                        count,
                        ty,
                        next: 0,
                    },
                });
                Ok(Effect::Next)
            }
            StmtKind::Return(e) => {
                let v = e.as_ref().map(|e| self.expr(e, mem)).transpose()?;
                self.ret = v;
                self.frames.pop();
                Ok(Effect::Next)
            }
            StmtKind::Break | StmtKind::Continue => {
                let is_break = matches!(s.kind, StmtKind::Break);
                let f = self.frame();
                loop {
                    match f.conts.last() {
                        None => return fault(s.span, "`break` or `continue` outside a loop"),
                        Some(Cont::Loop { .. }) => {
                            if is_break {
                                f.conts.pop();
                            }
                            return Ok(Effect::Next);
                        }
                        Some(Cont::Seq { scoped, .. }) => {
                            if *scoped {
                                f.scopes.pop();
                            }
                            f.conts.pop();
                        }
                    }
                }
            }
            StmtKind::Block(b) | StmtKind::Comptime(b) => {
                self.enter(b);
                Ok(Effect::Next)
            }
        }
    }

    /// The declaration of an array inside a body: its initial value (a list of elements,
    /// `@zeros`, or zeros for `undefined` or none) is written to its place in PE memory, and
    /// the name is a pointer to that place.
    fn local_array(
        &mut self,
        v: &VarDecl,
        a: &LocalArray,
        span: Span,
        mem: &mut PeMemory,
    ) -> RResult<Effect> {
        let count: u64 = a.dims.iter().product();
        let items: Vec<(RtValue, Span)> = match &v.init {
            None => Vec::new(),
            Some(Expr {
                kind: ExprKind::Undefined,
                ..
            }) => Vec::new(),
            Some(Expr {
                kind: ExprKind::Builtin { name, .. },
                ..
            }) if name == "zeros" => Vec::new(),
            Some(Expr {
                kind: ExprKind::TypedList { elems, .. } | ExprKind::ListLit(elems),
                span: list_span,
            }) => {
                if elems.len() as u64 != count {
                    return fault(
                        *list_span,
                        format!(
                            "`{}` has {count} elements, the initialiser {}",
                            v.name,
                            elems.len()
                        ),
                    );
                }
                let mut out = Vec::with_capacity(elems.len());
                for e in elems {
                    out.push((self.expr(e, mem)?, e.span));
                }
                out
            }
            Some(other) => {
                return fault(
                    other.span,
                    "an array inside a body is initialised by a list (`[3]i16 { 1, 2, 3 }`), @zeros or undefined for now",
                );
            }
        };
        let base = Ptr {
            array: a.memory_name.clone(),
            index: 0,
            elem: a.elem,
        };
        let first = word_of(mem, &base, span)?;
        for k in 0..count {
            let bits = match items.get(k as usize) {
                Some((value, vspan)) => to_bits(value.clone(), a.elem, *vspan)?,
                None => 0,
            };
            let word = first + k as i64 * i64::from(a.elem.words());
            mem.store(word, a.elem, bits)
                .or_else(|e| fault(span, e.to_string()))?;
        }
        let ty = Type::Array {
            dims: a.dims.clone(),
            elem: Box::new(type_of_elem(a.elem)),
        };
        let f = self.frame();
        if let Some(scope) = f.scopes.last_mut() {
            scope.insert(
                v.name.clone(),
                Local {
                    value: RtValue::Ptr(base),
                    mutable: !v.is_const,
                    ty: Some(ty),
                },
            );
        }
        Ok(Effect::Next)
    }

    fn enter(&mut self, b: &Block) {
        let stmts = self.code.stmts(b);
        let f = self.frame();
        f.scopes.push(HashMap::new());
        f.conts.push(Cont::Seq {
            stmts,
            idx: 0,
            scoped: true,
        });
    }

    fn truth(&mut self, cond: &Expr, mem: &mut PeMemory) -> RResult<bool> {
        match self.expr(cond, mem)? {
            RtValue::Bool(b) => Ok(b),
            other => fault(
                cond.span,
                format!("expected bool, found {} `{other}`", other.type_name()),
            ),
        }
    }

    /// `@range(T, ...)`: first value, step, number of values and type.
    fn iteration(
        &mut self,
        iter: &Expr,
        mem: &mut PeMemory,
    ) -> RResult<(i128, i128, i128, IntType)> {
        let ExprKind::Builtin { name, args } = &iter.kind else {
            return fault(
                iter.span,
                "a run-time `for` iterates over `@range(T, ...)` for now",
            );
        };
        if name != "range" || !(2..=4).contains(&args.len()) {
            return fault(
                iter.span,
                "a run-time `for` iterates over `@range(T, ...)` for now",
            );
        }
        let ty = match self.type_expr(&args[0])? {
            Type::Int(t) => t,
            other => {
                return fault(
                    args[0].span,
                    format!("@range takes an integer type, found {other}"),
                );
            }
        };
        let mut ints = Vec::new();
        for a in &args[1..] {
            match self.expr(a, mem)? {
                RtValue::Int { value, .. } if ty.contains(value) => ints.push(value),
                RtValue::Int { value, .. } => {
                    return fault(a.span, format!("@range bound {value} does not fit in {ty}"));
                }
                other => {
                    return fault(
                        a.span,
                        format!(
                            "@range takes integers, found {} `{other}`",
                            other.type_name()
                        ),
                    );
                }
            }
        }
        let (start, end, step) = match ints.as_slice() {
            [n] => (0, *n, 1),
            [s, e] => (*s, *e, 1),
            [s, e, st] => (*s, *e, *st),
            _ => (0, 0, 1),
        };
        if step == 0 {
            return fault(iter.span, "@range step is 0");
        }
        let count = if step > 0 {
            (end - start).max(0).div_euclid(step) + i128::from((end - start).max(0) % step != 0)
        } else {
            (start - end).max(0).div_euclid(-step) + i128::from((start - end).max(0) % -step != 0)
        };
        Ok((start, step, count, ty))
    }

    fn type_expr(&mut self, e: &Expr) -> RResult<Type> {
        match &e.kind {
            ExprKind::Ident(n) => match Type::from_name(n) {
                Some(t) => Ok(t),
                None => match self.global_value(n, e.span) {
                    Some(RtValue::Comptime(Value::Type(t))) => Ok(t),
                    _ => fault(e.span, format!("`{n}` is not a type")),
                },
            },
            ExprKind::PtrType { is_const, elem } => Ok(Type::Ptr {
                is_const: *is_const,
                elem: Box::new(self.type_expr(elem)?),
            }),
            ExprKind::ManyPtrType { is_const, elem } => Ok(Type::ManyPtr {
                is_const: *is_const,
                elem: Box::new(self.type_expr(elem)?),
            }),
            ExprKind::ArrayType { dims, elem } => {
                let mut lengths = Vec::with_capacity(dims.len());
                for d in dims {
                    match self.const_value(d) {
                        Some(RtValue::Int { value, .. }) if value >= 0 => {
                            lengths.push(u64::try_from(value).unwrap_or(u64::MAX));
                        }
                        _ => {
                            return fault(
                                d.span,
                                "an array length here must be a non-negative integer known at compile time",
                            );
                        }
                    }
                }
                Ok(Type::Array {
                    dims: lengths,
                    elem: Box::new(self.type_expr(elem)?),
                })
            }
            _ => fault(e.span, "this type is not supported in run-time code yet"),
        }
    }

    /// The value of an expression of literals, module constants and params (an array
    /// length in a type), if it is one.
    fn const_value(&self, e: &Expr) -> Option<RtValue> {
        match &e.kind {
            ExprKind::Int(v) => i128::try_from(*v).ok().map(|value| RtValue::Int {
                value,
                ty: IntType::Comptime,
            }),
            ExprKind::Ident(n) => match self.global_value(n, e.span)? {
                v @ RtValue::Int { .. } => Some(v),
                _ => None,
            },
            ExprKind::Binary(op, a, b) => {
                arith::binary(*op, self.const_value(a)?, self.const_value(b)?).ok()
            }
            ExprKind::Comptime(x) => self.const_value(x),
            _ => None,
        }
    }

    fn global_value(&self, name: &str, _span: Span) -> Option<RtValue> {
        match self.code.program.globals.get(name)? {
            Global::Const(v) => Some(v.clone()),
            _ => None,
        }
    }

    /// An expression statement: a DSD operation or task builtin yields its action, a call
    /// of a function enters it, anything else is evaluated.
    fn expr_stmt(&mut self, e: &Expr, mem: &mut PeMemory) -> RResult<Effect> {
        match &e.kind {
            ExprKind::Builtin { name, args } => {
                if let Some(action) = self.action_builtin(name, args, e.span, mem)? {
                    return Ok(Effect::Yield(action));
                }
            }
            ExprKind::Call { callee, args } => {
                self.enter_call(callee, args, e.span, mem)?;
                return Ok(Effect::Next);
            }
            _ => {}
        }
        self.expr(e, mem)?;
        Ok(Effect::Next)
    }

    fn enter_call(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        span: Span,
        mem: &mut PeMemory,
    ) -> RResult<()> {
        if self.library_call(callee, args, span, mem)?.is_some() {
            return Ok(());
        }
        let ExprKind::Ident(name) = &callee.kind else {
            return fault(callee.span, "only functions of this file may be called");
        };
        let code = self.code.clone();
        let Some(f) = code.program.function(name) else {
            return fault(callee.span, format!("`{name}` is not a function"));
        };
        if f.params.len() != args.len() {
            return fault(
                span,
                format!(
                    "`{name}` takes {} arguments, found {}",
                    f.params.len(),
                    args.len()
                ),
            );
        }
        if self.frames.len() >= MAX_RUN_CALL_DEPTH {
            return fault(span, format!("calls nest deeper than {MAX_RUN_CALL_DEPTH}"));
        }
        let mut scope = HashMap::new();
        for (p, a) in f.params.iter().zip(args) {
            let v = self.expr(a, mem)?;
            let ty = if p.is_comptime {
                None
            } else {
                Some(self.type_expr(&p.ty)?)
            };
            let v = match &ty {
                Some(t) => coerce(v, t, a.span)?,
                None => v,
            };
            scope.insert(
                p.name.clone(),
                Local {
                    value: v,
                    mutable: false,
                    ty,
                },
            );
        }
        let Some(body) = &f.body else {
            return fault(callee.span, format!("`{name}` has no body"));
        };
        let stmts = code.stmts(body);
        self.frames.push(Frame {
            name: name.clone(),
            scopes: vec![scope],
            conts: vec![Cont::Seq {
                stmts,
                idx: 0,
                scoped: false,
            }],
        });
        Ok(())
    }

    /// A call of an imported SDK library's function, run by [`crate::sdk`]; `None` when the
    /// callee is not one.
    fn library_call(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        span: Span,
        mem: &mut PeMemory,
    ) -> RResult<Option<RtValue>> {
        let code = self.code.clone();
        let Some((module, name)) = super::check::library_of(callee, &code.program.globals) else {
            return Ok(None);
        };
        let mut values = Vec::with_capacity(args.len());
        for a in args {
            values.push(self.expr(a, mem)?);
        }
        crate::sdk::library_call(&module, &name, &values, mem, self.cycle)
            .map(Some)
            .or_else(|m| fault(span, m))
    }

    fn call_value(
        &mut self,
        callee: &Expr,
        args: &[Expr],
        span: Span,
        mem: &mut PeMemory,
    ) -> RResult<RtValue> {
        if let Some(v) = self.library_call(callee, args, span, mem)? {
            return Ok(v);
        }
        let depth = self.frames.len();
        self.enter_call(callee, args, span, mem)?;
        self.ret = None;
        if let Step::Act(_) = self.run_until(mem, depth, false)? {
            let name = self
                .frames
                .last()
                .map(|f| f.name.clone())
                .unwrap_or_default();
            self.frames.truncate(depth);
            return fault(
                span,
                format!(
                    "`{name}` runs a DSD operation or task builtin, so its value cannot be used in an expression; call it as a statement"
                ),
            );
        }
        Ok(self.ret.take().unwrap_or(RtValue::Void))
    }

    /// The action of a DSD operation or task builtin, or `None` for other builtins.
    fn action_builtin(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
        mem: &mut PeMemory,
    ) -> RResult<Option<Action>> {
        match name {
            "activate" | "block" | "unblock" => {
                let [arg] = args else {
                    return fault(
                        span,
                        format!("@{name} takes 1 argument, found {}", args.len()),
                    );
                };
                let v = self.expr(arg, mem)?;
                let target = target_of(&self.bound_id(&v), mem.arch(), arg.span)?;
                Ok(Some(match (name, target) {
                    ("activate", Target::Task(TaskId::Local(t))) => Action::Activate(t),
                    ("activate", _) => {
                        return fault(
                            arg.span,
                            format!(
                                "@activate takes a local task id, found {} `{v}`",
                                v.type_name()
                            ),
                        );
                    }
                    ("block", Target::Task(id)) => Action::Block(id),
                    ("block", Target::Channel(c)) => Action::BlockChannel(c),
                    ("block", Target::Microthread(u)) => Action::BlockMicrothread(u),
                    (_, Target::Task(id)) => Action::Unblock(id),
                    (_, Target::Channel(c)) => Action::UnblockChannel(c),
                    (_, Target::Microthread(u)) => Action::UnblockMicrothread(u),
                }))
            }
            "map" => self.map_action(args, span, mem).map(Some),
            "load_to_dsr" => self.load_to_dsr(args, span, mem).map(Some),
            _ => {
                let Some(op) = Op::ALL.iter().copied().find(|o| o.name() == name) else {
                    return Ok(None);
                };
                let (operands, options) = match args.split_last() {
                    Some((last, rest)) if matches!(last.kind, ExprKind::StructLit(_)) => {
                        (rest, Some(last))
                    }
                    _ => (args, None),
                };
                if operands.is_empty() {
                    return fault(span, format!("@{name} needs a destination"));
                }
                let mut ops = Vec::with_capacity(operands.len());
                for a in operands {
                    let v = self.expr(a, mem)?;
                    ops.push(operand(v, op, a.span, mem)?);
                }
                // `@fmovs` only moves 32 bits: over integer memory it is the simulator's
                // 32-bit move (the same bits and cost), as the tutorials send u32 arrays
                let int32 = |o: &Operand| {
                    let base = match o {
                        Operand::Dsd(npusim_cerebras::dsd::Dsd::Mem1d(m)) => Some(&m.base),
                        Operand::Dsd(npusim_cerebras::dsd::Dsd::Mem4d(m)) => Some(&m.base),
                        Operand::Ptr(b) => Some(b),
                        _ => None,
                    };
                    base.is_some_and(|b| matches!(b.elem, ElemTy::U32 | ElemTy::I32))
                };
                let op = if op == Op::Fmovs && ops.iter().any(int32) {
                    Op::Mov32
                } else {
                    op
                };
                let dest = ops.remove(0);
                let mut cfg = OpConfig::default();
                let asynchronous = match options {
                    Some(Expr {
                        kind: ExprKind::StructLit(fields),
                        ..
                    }) => {
                        // `.index`: what operands with `wavelet_index_offset` add or send
                        let (index, rest): (Vec<FieldInit>, Vec<FieldInit>) =
                            fields.iter().cloned().partition(|f| f.name == "index");
                        for f in &index {
                            match self.expr(&f.value, mem)? {
                                RtValue::Int { value, .. } if (0..=0xffff).contains(&value) => {
                                    cfg.index = Some(value as u16);
                                }
                                other => {
                                    return fault(
                                        f.value.span,
                                        format!(
                                            "`.index` takes an integer in 0..=65535, found {} `{other}`",
                                            other.type_name()
                                        ),
                                    );
                                }
                            }
                        }
                        self.async_config(&rest, mem)?
                    }
                    _ => None,
                };
                Ok(Some(Action::Op {
                    op,
                    dest,
                    srcs: ops,
                    cfg,
                    asynchronous,
                }))
            }
        }
    }

    fn async_config(
        &mut self,
        fields: &[FieldInit],
        mem: &mut PeMemory,
    ) -> RResult<Option<AsyncConfig>> {
        let mut is_async = false;
        let mut priority = false;
        let mut cfg = AsyncConfig::default();
        for f in fields {
            if f.name == "priority" {
                let arch = match mem.arch() {
                    SimArch::Wse2 => crate::comptime::Arch::Wse2,
                    SimArch::Wse3 => crate::comptime::Arch::Wse3,
                };
                cfg.priority = Some(
                    check_priority(&f.value, PriorityPlace::Options, arch)
                        .or_else(|e| fault(e.span, e.message))?,
                );
                priority = true;
                continue;
            }
            if f.name == "on_control" {
                cfg.on_control = Some(self.on_control(&f.value, mem)?);
                continue;
            }
            let v = self.expr(&f.value, mem)?;
            let arch = mem.arch();
            match (f.name.as_str(), v) {
                ("async", RtValue::Bool(b)) => is_async = b,
                ("activate", v) => match target_of(&self.bound_id(&v), arch, f.value.span)? {
                    Target::Task(TaskId::Local(t)) => {
                        cfg.on_done = Some(Completion::Activate(t));
                    }
                    _ => {
                        return fault(
                            f.value.span,
                            format!(
                                "`.activate` takes a local task id, found {} `{v}`",
                                v.type_name()
                            ),
                        );
                    }
                },
                ("unblock", v) => match target_of(&self.bound_id(&v), arch, f.value.span)? {
                    Target::Task(id) => cfg.on_done = Some(Completion::Unblock(id)),
                    Target::Channel(c) => cfg.on_done = Some(Completion::UnblockChannel(c)),
                    Target::Microthread(_) => {
                        return fault(
                            f.value.span,
                            "`.unblock` takes a task id or a channel, not a microthread id",
                        );
                    }
                },
                ("ut_id", RtValue::Comptime(Value::MicrothreadId(u))) => {
                    cfg.ut_id = Some(
                        MicrothreadId::new(i64::from(u))
                            .or_else(|e| fault(f.value.span, e.to_string()))?,
                    );
                }
                (field, v) => {
                    return fault(
                        f.value.span,
                        format!(
                            "option `.{field}` = {} `{v}` is not supported yet",
                            v.type_name()
                        ),
                    );
                }
            }
        }
        if !is_async
            && (cfg.on_done.is_some()
                || cfg.ut_id.is_some()
                || cfg.on_control.is_some()
                || priority)
        {
            return fault(
                fields.first().map_or(Span::default(), |f| f.value.span),
                "`.activate` / `.unblock` / `.ut_id` / `.priority` / `.on_control` need `.async = true`",
            );
        }
        Ok(is_async.then_some(cfg))
    }

    /// `.on_control = .{ .terminate = true }`, `.{ .activate = task }` or
    /// `.{ .unblock = x }`: what a control wavelet arriving during the operation does.
    fn on_control(&mut self, value: &Expr, mem: &mut PeMemory) -> RResult<OnControl> {
        let shape = "`.on_control` takes `.{ .terminate = true }`, `.{ .activate = task }` or `.{ .unblock = task }`";
        let ExprKind::StructLit(fields) = &value.kind else {
            return fault(value.span, shape);
        };
        let [f] = fields.as_slice() else {
            return fault(value.span, shape);
        };
        let arch = mem.arch();
        match (f.name.as_str(), &f.value.kind) {
            ("terminate", ExprKind::Bool(true)) => Ok(OnControl::Terminate),
            ("activate", _) => {
                let v = self.expr(&f.value, mem)?;
                match target_of(&self.bound_id(&v), arch, f.value.span)? {
                    Target::Task(TaskId::Local(t)) => Ok(OnControl::Activate(t)),
                    _ => fault(
                        f.value.span,
                        format!(
                            "`.on_control` `.activate` takes a local task id, found {} `{v}`",
                            v.type_name()
                        ),
                    ),
                }
            }
            ("unblock", _) => {
                let v = self.expr(&f.value, mem)?;
                match target_of(&self.bound_id(&v), arch, f.value.span)? {
                    Target::Task(id) => Ok(OnControl::Unblock(id)),
                    Target::Channel(c) => Ok(OnControl::UnblockChannel(c)),
                    Target::Microthread(_) => fault(
                        f.value.span,
                        "`.on_control` `.unblock` takes a task id or a channel, not a microthread id",
                    ),
                }
            }
            _ => fault(value.span, shape),
        }
    }

    /// The value of `e`.
    fn expr(&mut self, e: &Expr, mem: &mut PeMemory) -> RResult<RtValue> {
        let span = e.span;
        match &e.kind {
            ExprKind::Ident(name) => self.name(name, span, mem),
            ExprKind::Int(v) => i128::try_from(*v)
                .map(|value| RtValue::Int {
                    value,
                    ty: IntType::Comptime,
                })
                .or_else(|_| fault(span, format!("integer {v} is too large"))),
            ExprKind::Float(t) => t
                .parse::<f64>()
                .map(RtValue::ComptimeFloat)
                .or_else(|_| fault(span, format!("`{t}` is not a float"))),
            ExprKind::Char(c) => Ok(RtValue::Int {
                value: i128::from(*c),
                ty: IntType::Comptime,
            }),
            ExprKind::Bool(b) => Ok(RtValue::Bool(*b)),
            ExprKind::Str(t) => Ok(RtValue::Comptime(Value::Str(t.clone()))),
            ExprKind::VoidLit => Ok(RtValue::Void),
            ExprKind::Unary(UnOp::AddrOf, inner) => Ok(RtValue::Ptr(self.place(inner, mem)?)),
            ExprKind::Unary(op, inner) => {
                let v = self.expr(inner, mem)?;
                arith::unary(*op, v).or_else(|m| fault(span, m))
            }
            ExprKind::Binary(op @ (BinOp::And | BinOp::Or), a, b) => {
                let x = self.truth(a, mem)?;
                if (*op == BinOp::And) != x {
                    return Ok(RtValue::Bool(x));
                }
                Ok(RtValue::Bool(self.truth(b, mem)?))
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a, mem)?;
                let y = self.expr(b, mem)?;
                arith::binary(*op, x, y).or_else(|m| fault(span, m))
            }
            ExprKind::Index { .. } | ExprKind::Deref(_) => {
                let p = self.place(e, mem)?;
                load(mem, &p, span)
            }
            ExprKind::Call { callee, args } => self.call_value(callee, args, span, mem),
            ExprKind::Builtin { name, args } => self.value_builtin(name, args, span, mem),
            ExprKind::If {
                cond,
                then,
                otherwise,
            } => {
                if self.truth(cond, mem)? {
                    self.expr(then, mem)
                } else {
                    match otherwise {
                        Some(o) => self.expr(o, mem),
                        None => Ok(RtValue::Void),
                    }
                }
            }
            ExprKind::Comptime(x) => self.expr(x, mem),
            _ => fault(
                span,
                "this expression is not supported in run-time code yet",
            ),
        }
    }

    fn name(&mut self, name: &str, span: Span, mem: &mut PeMemory) -> RResult<RtValue> {
        if let Some(l) = self.lookup(name) {
            return Ok(l.value.clone());
        }
        let code = self.code.clone();
        match code.program.globals.get(name) {
            Some(Global::Mem {
                elem, scalar: true, ..
            }) => load(
                mem,
                &Ptr {
                    array: name.to_string(),
                    index: 0,
                    elem: *elem,
                },
                span,
            ),
            Some(Global::Mem { elem, .. }) => Ok(RtValue::Ptr(Ptr {
                array: name.to_string(),
                index: 0,
                elem: *elem,
            })),
            Some(Global::Const(RtValue::Comptime(Value::Undefined))) => fault(
                span,
                format!("`{name}` has no value (a param none was given and with no default)"),
            ),
            Some(Global::Const(v)) => Ok(v.clone()),
            Some(Global::Dsd { .. }) => match code
                .dsds
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(name)
            {
                Some(d) => Ok(RtValue::Dsd(d.clone())),
                None => fault(span, format!("DSD `{name}` was not built")),
            },
            Some(Global::Fifo(i)) => match code.fifos.get(*i) {
                Some(id) => Ok(RtValue::Fifo(*id)),
                None => fault(span, format!("FIFO `{name}` was not allocated")),
            },
            Some(Global::Dsr(_)) => match code
                .dsrs
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .get(name)
            {
                Some(id) => Ok(RtValue::Dsr(*id)),
                None => fault(
                    span,
                    format!("DSR `{name}` is used before a @load_to_dsr loads it"),
                ),
            },
            Some(Global::Fn { .. }) => Ok(RtValue::Comptime(Value::Function(name.to_string()))),
            None => match Type::from_name(name) {
                Some(t) => Ok(RtValue::Comptime(Value::Type(t))),
                None => fault(span, format!("unknown name `{name}`")),
            },
        }
    }

    /// The memory place an lvalue names (`x` of a module scalar, `a[i]`, `p.*`, `p[i]`).
    fn place(&mut self, e: &Expr, mem: &mut PeMemory) -> RResult<Ptr> {
        let span = e.span;
        match &e.kind {
            ExprKind::Ident(name) if self.lookup(name).is_none() => {
                match self.code.program.globals.get(name) {
                    Some(Global::Mem { elem, .. }) => Ok(Ptr {
                        array: name.clone(),
                        index: 0,
                        elem: *elem,
                    }),
                    _ => fault(span, format!("`{name}` is not a variable in PE memory")),
                }
            }
            ExprKind::Ident(name)
                if matches!(
                    self.lookup(name),
                    Some(Local {
                        ty: Some(Type::Array { .. }),
                        ..
                    })
                ) =>
            {
                match self.lookup(name).map(|l| l.value.clone()) {
                    Some(RtValue::Ptr(p)) => Ok(p),
                    _ => fault(span, format!("`{name}` is not a variable in PE memory")),
                }
            }
            ExprKind::Index { base, indices } => {
                // `(p.*)[i]` of a pointer to an array indexes the array it points to
                let b = match &base.kind {
                    ExprKind::Deref(inner) => self.expr(inner, mem)?,
                    _ => self.expr(base, mem)?,
                };
                let RtValue::Ptr(p) = b else {
                    return fault(base.span, format!("cannot index {} `{b}`", b.type_name()));
                };
                let shape = mem
                    .array(&p.array)
                    .map(|a| a.shape.clone())
                    .or_else(|e| fault(span, e.to_string()))?;
                let mut idx = Vec::with_capacity(indices.len());
                for i in indices {
                    match self.expr(i, mem)? {
                        RtValue::Int { value, .. } => idx.push(value),
                        other => {
                            return fault(
                                i.span,
                                format!(
                                    "an index must be an integer, found {} `{other}`",
                                    other.type_name()
                                ),
                            );
                        }
                    }
                }
                let total: u64 = shape.iter().product();
                let flat = if idx.len() == 1 {
                    i128::from(p.index).saturating_add(idx[0])
                } else if idx.len() == shape.len() && p.index == 0 {
                    let mut f = 0i128;
                    for (k, (&i, &d)) in idx.iter().zip(&shape).enumerate() {
                        if i < 0 || i >= i128::from(d) {
                            return fault(
                                indices[k].span,
                                format!(
                                    "index {i} is out of bounds for dimension {k} of `{}` (length {d})",
                                    p.array
                                ),
                            );
                        }
                        f = f * i128::from(d) + i;
                    }
                    f
                } else {
                    return fault(
                        span,
                        format!(
                            "`{}` has {} dimensions, indexed with {}",
                            p.array,
                            shape.len(),
                            idx.len()
                        ),
                    );
                };
                if flat < 0 || flat >= i128::from(total) {
                    return fault(
                        span,
                        format!(
                            "index {flat} is out of bounds for `{}` of {total} elements",
                            p.array
                        ),
                    );
                }
                Ok(Ptr {
                    array: p.array,
                    index: flat as i64,
                    elem: p.elem,
                })
            }
            ExprKind::Deref(inner) => match self.expr(inner, mem)? {
                RtValue::Ptr(p) => Ok(p),
                other => fault(
                    span,
                    format!("cannot dereference {} `{other}`", other.type_name()),
                ),
            },
            _ => fault(span, "expected a variable, an element `a[i]` or `p.*`"),
        }
    }

    fn store(&mut self, target: &Expr, v: RtValue, vspan: Span, mem: &mut PeMemory) -> RResult<()> {
        if let ExprKind::Ident(name) = &target.kind
            && let Some(l) = self.lookup_mut(name)
        {
            if !l.mutable {
                return fault(target.span, format!("cannot assign to constant `{name}`"));
            }
            l.value = match &l.ty {
                Some(t) => coerce(v, t, vspan)?,
                None => v,
            };
            return Ok(());
        }
        if let ExprKind::Ident(name) = &target.kind
            && let Some(Global::Mem { is_const: true, .. }) = self.code.program.globals.get(name)
        {
            return fault(target.span, format!("cannot assign to constant `{name}`"));
        }
        if let ExprKind::Ident(name) = &target.kind
            && let Some(Global::Dsd { is_const, .. }) = self.code.program.globals.get(name)
        {
            if *is_const {
                return fault(target.span, format!("cannot assign to constant `{name}`"));
            }
            let RtValue::Dsd(d) = v else {
                return fault(
                    vspan,
                    format!("expected a DSD, found {} `{v}`", v.type_name()),
                );
            };
            self.code
                .dsds
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .insert(name.clone(), d);
            return Ok(());
        }
        let p = self.place(target, mem)?;
        let bits = to_bits(v, p.elem, vspan)?;
        let word = word_of(mem, &p, target.span)?;
        mem.store(word, p.elem, bits)
            .or_else(|e| fault(target.span, e.to_string()))
    }

    /// Builtins that give a value (no action).
    fn value_builtin(
        &mut self,
        name: &str,
        args: &[Expr],
        span: Span,
        mem: &mut PeMemory,
    ) -> RResult<RtValue> {
        let arity = |n: usize| {
            if args.len() == n {
                Ok(())
            } else {
                fault(
                    span,
                    format!("@{name} takes {n} arguments, found {}", args.len()),
                )
            }
        };
        match name {
            "as" => {
                arity(2)?;
                let t = self.type_expr(&args[0])?;
                let v = self.expr(&args[1], mem)?;
                convert(v, &t, args[1].span)
            }
            "increment_dsd_offset" | "set_dsd_length" | "set_dsd_stride" | "set_dsd_base_addr" => {
                let n = if name == "increment_dsd_offset" { 3 } else { 2 };
                arity(n)?;
                let d = match self.expr(&args[0], mem)? {
                    RtValue::Dsd(d) => d,
                    other => {
                        return fault(
                            args[0].span,
                            format!(
                                "@{name} takes a DSD first, found {} `{other}`",
                                other.type_name()
                            ),
                        );
                    }
                };
                let second = self.expr(&args[1], mem)?;
                let r = match (name, second) {
                    ("set_dsd_base_addr", RtValue::Ptr(p)) => {
                        let base = mem
                            .element(&p.array, u64::try_from(p.index).unwrap_or(0))
                            .or_else(|e| fault(args[1].span, e.to_string()))?;
                        set_dsd_base_addr(&d, base)
                    }
                    (_, RtValue::Int { value, .. }) => {
                        let n = i64::try_from(value).unwrap_or(i64::MAX);
                        match name {
                            "increment_dsd_offset" => {
                                let ty = self.type_expr(&args[2])?;
                                let Some(e) = elem_of(&ty) else {
                                    return fault(
                                        args[2].span,
                                        format!(
                                            "@{name} takes an element type (f16, f32, i16, u16, i32, u32), found {ty}"
                                        ),
                                    );
                                };
                                increment_dsd_offset(&d, n, e)
                            }
                            "set_dsd_length" => set_dsd_length(&d, n),
                            _ => set_dsd_stride(&d, n),
                        }
                    }
                    (_, other) => {
                        return fault(
                            args[1].span,
                            format!("@{name}: unexpected {} `{other}`", other.type_name()),
                        );
                    }
                };
                r.map(RtValue::Dsd).or_else(|e| fault(span, e.to_string()))
            }
            "is_arch" => {
                arity(1)?;
                let a = self.expr(&args[0], mem)?;
                let here = match mem.arch() {
                    SimArch::Wse2 => "wse2",
                    SimArch::Wse3 => "wse3",
                };
                match &a {
                    RtValue::Comptime(Value::Str(s)) if s == "wse2" || s == "wse3" => {
                        Ok(RtValue::Bool(s == here))
                    }
                    other => fault(
                        args[0].span,
                        format!("@is_arch takes \"wse2\" or \"wse3\", found `{other}`"),
                    ),
                }
            }
            "random16" => {
                arity(0)?;
                let v =
                    crate::sdk::random::random16(mem, "@random16").or_else(|m| fault(span, m))?;
                Ok(RtValue::Int {
                    value: i128::from(v),
                    ty: IntType::Sized {
                        signed: false,
                        bits: 16,
                    },
                })
            }
            n if n != "get_dsd" && COMPTIME_BUILTINS.contains(&n) => {
                match self.code.program.body_values.get(&span) {
                    Some(v) => Ok(RtValue::from_comptime(v.clone())),
                    None => fault(span, format!("@{name} was not evaluated at compile time")),
                }
            }
            "get_dsd" => match self.code.built.get(&span) {
                Some(d) => Ok(RtValue::Dsd(d.clone())),
                None => fault(
                    span,
                    "this @get_dsd was not built when the program was loaded",
                ),
            },
            "activate" | "block" | "unblock" | "map" => {
                fault(span, format!("@{name} is a statement, not a value"))
            }
            _ if Op::ALL.iter().any(|o| o.name() == name) => {
                fault(span, format!("@{name} is a statement, not a value"))
            }
            _ => fault(
                span,
                format!("builtin @{name} is not supported in run-time code yet"),
            ),
        }
    }
}

fn word_of(mem: &PeMemory, p: &Ptr, span: Span) -> RResult<i64> {
    let a = mem
        .array(&p.array)
        .or_else(|e| fault(span, e.to_string()))?;
    Ok(a.word_addr + p.index * i64::from(p.elem.words()))
}

fn load(mem: &PeMemory, p: &Ptr, span: Span) -> RResult<RtValue> {
    let word = word_of(mem, p, span)?;
    let bits = mem
        .load(word, p.elem)
        .or_else(|e| fault(span, e.to_string()))?;
    Ok(from_bits(bits, p.elem))
}

/// The value of `bits` of element type `e`.
pub(crate) fn from_bits(bits: u32, e: ElemTy) -> RtValue {
    let int = |value: i128, signed, b| RtValue::Int {
        value,
        ty: IntType::Sized { signed, bits: b },
    };
    match e {
        ElemTy::F32 => RtValue::F32(f32::from_bits(bits)),
        ElemTy::F16 => RtValue::F16(bits as u16),
        ElemTy::I16 => int(i128::from(bits as u16 as i16), true, 16),
        ElemTy::U16 => int(i128::from(bits as u16), false, 16),
        ElemTy::I32 => int(i128::from(bits as i32), true, 32),
        ElemTy::U32 => int(i128::from(bits), false, 32),
    }
}

/// The bits `v` stores as an element of type `e`: the value must already be of the type,
/// or a literal that converts to it (rounded once for floats; integers must fit).
pub(crate) fn to_bits(v: RtValue, e: ElemTy, span: Span) -> RResult<u32> {
    let target = type_of_elem(e);
    match (e, &v) {
        (ElemTy::F32, RtValue::F32(x)) => Ok(x.to_bits()),
        (ElemTy::F32, RtValue::ComptimeFloat(x)) => Ok((*x as f32).to_bits()),
        (
            ElemTy::F32,
            RtValue::Int {
                value,
                ty: IntType::Comptime,
            },
        ) => Ok((*value as f32).to_bits()),
        (ElemTy::F16, RtValue::F16(b)) => Ok(u32::from(*b)),
        (ElemTy::F16, RtValue::ComptimeFloat(x)) => Ok(u32::from(f64_to_f16(*x))),
        (
            ElemTy::F16,
            RtValue::Int {
                value,
                ty: IntType::Comptime,
            },
        ) => Ok(u32::from(f64_to_f16(*value as f64))),
        (_, RtValue::Int { value, ty })
            if matches!(e, ElemTy::I16 | ElemTy::U16 | ElemTy::I32 | ElemTy::U32) =>
        {
            let Type::Int(t) = target else {
                return fault(span, "not an integer type");
            };
            assignable(&target, &Type::Int(*ty)).or_else(|m| fault(span, m))?;
            if !t.contains(*value) {
                return fault(span, format!("value {value} does not fit in {t}"));
            }
            Ok(*value as u32 & if e.words() == 1 { 0xffff } else { u32::MAX })
        }
        _ => fault(
            span,
            format!("expected {target}, found {} `{v}`", v.type_name()),
        ),
    }
}

/// `v` as a value of declared type `t` (a local's or parameter's).
fn coerce(v: RtValue, t: &Type, span: Span) -> RResult<RtValue> {
    if let Some(e) = elem_of(t) {
        return Ok(from_bits(to_bits(v, e, span)?, e));
    }
    match (t, &v) {
        (Type::Int(to), RtValue::Int { value, ty }) => {
            assignable(t, &Type::Int(*ty)).or_else(|m| fault(span, m))?;
            if to.contains(*value) {
                Ok(RtValue::Int {
                    value: *value,
                    ty: *to,
                })
            } else {
                fault(span, format!("value {value} does not fit in {to}"))
            }
        }
        (Type::Bool, RtValue::Bool(_)) => Ok(v),
        (Type::Bool, _) => fault(
            span,
            format!("expected bool, found {} `{v}`", v.type_name()),
        ),
        (Type::Int(_) | Type::F16 | Type::F32, _) => {
            fault(span, format!("expected {t}, found {} `{v}`", v.type_name()))
        }
        _ => Ok(v),
    }
}

/// `@as(T, v)`: numeric conversion (floats rounded once, integers must fit; a float to an
/// integer is refused: CSL spells that `@as` of an integer only).
fn convert(v: RtValue, t: &Type, span: Span) -> RResult<RtValue> {
    let as_f64 = |v: &RtValue| match v {
        RtValue::F32(x) => Some(f64::from(*x)),
        RtValue::F16(b) => Some(f16_to_f64(*b)),
        RtValue::ComptimeFloat(x) => Some(*x),
        RtValue::Int { value, .. } => Some(*value as f64),
        _ => None,
    };
    match t {
        Type::F32 => match as_f64(&v) {
            Some(x) => Ok(RtValue::F32(x as f32)),
            None => fault(
                span,
                format!("cannot convert {} `{v}` to f32", v.type_name()),
            ),
        },
        Type::F16 => match as_f64(&v) {
            Some(x) => Ok(RtValue::F16(f64_to_f16(x))),
            None => fault(
                span,
                format!("cannot convert {} `{v}` to f16", v.type_name()),
            ),
        },
        Type::Int(to) => match v {
            RtValue::Int { value, .. } if to.contains(value) => Ok(RtValue::Int { value, ty: *to }),
            RtValue::Int { value, ty } => fault(
                span,
                format!("@as: value {value} of type {ty} does not fit in {to}"),
            ),
            other => fault(
                span,
                format!("@as cannot convert {} `{other}` to {to}", other.type_name()),
            ),
        },
        _ => Ok(v),
    }
}

/// A value as an operand of DSD operation `op`.
fn operand(v: RtValue, op: Op, span: Span, mem: &PeMemory) -> RResult<Operand> {
    let half = op.name().ends_with('h');
    Ok(match v {
        RtValue::Dsd(d) => Operand::Dsd(d),
        RtValue::Fifo(id) => Operand::Fifo(id),
        RtValue::Dsr(id) => Operand::Dsr(id),
        RtValue::F32(x) => Operand::Scalar(Scalar::f32(x)),
        RtValue::F16(b) => Operand::Scalar(Scalar::from_bits(ElemTy::F16, u32::from(b))),
        RtValue::ComptimeFloat(x) if half => {
            Operand::Scalar(Scalar::from_bits(ElemTy::F16, u32::from(f64_to_f16(x))))
        }
        RtValue::ComptimeFloat(x) => Operand::Scalar(Scalar::f32(x as f32)),
        RtValue::Int { value, ty } => {
            let (ety, what) = match ty {
                IntType::Sized {
                    signed: true,
                    bits: 16,
                } => (ElemTy::I16, ty),
                IntType::Sized {
                    signed: false,
                    bits: 16,
                } => (ElemTy::U16, ty),
                IntType::Sized {
                    signed: true,
                    bits: 32,
                } => (ElemTy::I32, ty),
                IntType::Sized {
                    signed: false,
                    bits: 32,
                } => (ElemTy::U32, ty),
                _ => {
                    return fault(
                        span,
                        format!("@{}: give the integer {value} a type with @as", op.name()),
                    );
                }
            };
            let _ = what;
            Operand::Scalar(Scalar::from_bits(
                ety,
                to_bits(RtValue::Int { value, ty }, ety, span)?,
            ))
        }
        RtValue::Ptr(p) => {
            let base = mem
                .element(&p.array, u64::try_from(p.index).unwrap_or(0))
                .or_else(|e| fault(span, e.to_string()))?;
            Operand::Ptr(base)
        }
        other => {
            return fault(
                span,
                format!(
                    "@{}: {} `{other}` is not an operand",
                    op.name(),
                    other.type_name()
                ),
            );
        }
    })
}
