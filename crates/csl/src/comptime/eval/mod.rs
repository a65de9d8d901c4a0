//! The evaluator: globals evaluated on first use, scopes of locals, the work quota, and the
//! layout being built. One file per part: `expr` (expressions), `stmt` (statements and
//! control flow), `arith` (operators), `coerce` (types and coercion), `builtins` (general
//! builtins), `layout_builtins` (`@set_rectangle`, `@set_tile_code`, `@set_color_config`,
//! `@export_name`), `library` (the SDK libraries a layout imports), `switch`.

mod arith;
mod builtins;
mod coerce;
mod expr;
mod layout_builtins;
mod library;
mod stmt;
mod switch;

use std::collections::HashMap;

use thiserror::Error;

use super::error::{EResult, EvalError};
use super::layout::Layout;
use super::value::{Type, Value};
use crate::ast::{Decl, DeclKind, Module};
use crate::diagnostic::Diagnostic;
use crate::parse::parse;
use crate::source::SourceFile;
use crate::span::Span;

/// Loop iterations and calls one evaluation may take before it is stopped as endless.
pub const EVAL_QUOTA: u64 = 10_000_000;
/// Deepest nesting of function calls at compile time.
pub const MAX_CALL_DEPTH: usize = 64;
/// Deepest nesting of expressions and blocks, calls included, that evaluation follows: the
/// evaluator recurses once per level, so past this it stops with an error instead of
/// exhausting the stack.
pub const MAX_EVAL_DEPTH: usize = 400;
/// Longest list or string `++` may build.
pub const MAX_CONCAT_LEN: usize = 1 << 20;

/// The target architecture (`@is_arch`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arch {
    /// WSE-2.
    #[default]
    Wse2,
    /// WSE-3.
    Wse3,
}

impl Arch {
    /// The name `@is_arch` compares with.
    pub const fn name(self) -> &'static str {
        match self {
            Arch::Wse2 => "wse2",
            Arch::Wse3 => "wse3",
        }
    }
}

/// What the compiler is told besides the source: the architecture and the param values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ComptimeConfig {
    /// The target.
    pub arch: Arch,
    /// Param values by name (see [`parse_params`](super::parse_params)).
    pub params: Vec<(String, Value)>,
}

/// Why a layout does not evaluate.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// A syntax or compile-time error in the file.
    #[error("{0}")]
    Source(#[from] Diagnostic),
    /// A param value was given for a name the layout does not declare.
    #[error("a value is given for param `{name}`, which {file} does not declare")]
    UnknownParam {
        /// The param.
        name: String,
        /// The layout file.
        file: String,
    },
}

/// Parses and evaluates the layout file `source` into its [`Layout`].
///
/// ```
/// use npusim_csl::SourceFile;
/// use npusim_csl::comptime::{ComptimeConfig, evaluate_layout, parse_params};
/// let src = SourceFile::new("layout.csl", "param w: i16;\nlayout {\n  @set_rectangle(w, 1);\n}\n");
/// let config = ComptimeConfig { params: parse_params("w:3").unwrap(), ..Default::default() };
/// assert_eq!(evaluate_layout(&src, &config).unwrap().rectangle, Some((3, 1)));
/// let err = evaluate_layout(&src, &ComptimeConfig::default()).unwrap_err().to_string();
/// assert!(err.starts_with("layout.csl:3:18: error: param `w` has no value"), "{err}");
/// ```
pub fn evaluate_layout(
    source: &SourceFile,
    config: &ComptimeConfig,
) -> Result<Layout, LayoutError> {
    let module = parse(source)?;
    for (name, _) in &config.params {
        let declared = module
            .decls
            .iter()
            .any(|d| matches!(&d.kind, DeclKind::Param(p) if &p.name == name));
        if !declared {
            return Err(LayoutError::UnknownParam {
                name: name.clone(),
                file: source.name().to_string(),
            });
        }
    }
    evaluate_layout_module(&module, config).map_err(|e| source.diagnostic(e.span, e.message).into())
}

/// Parses and evaluates `text` as a layout file named `layout.csl`.
pub fn evaluate_layout_text(text: &str, config: &ComptimeConfig) -> Result<Layout, LayoutError> {
    evaluate_layout(&SourceFile::new("layout.csl", text), config)
}

fn evaluate_layout_module(module: &Module, config: &ComptimeConfig) -> EResult<Layout> {
    let mut ev = Evaluator::new(module, config);
    // Given params are checked against their types even when nothing uses them.
    for decl in &module.decls {
        if let DeclKind::Param(p) = &decl.kind
            && config.params.iter().any(|(n, _)| n == &p.name)
        {
            ev.global(&p.name, p.name_span)?;
        }
    }
    for decl in &module.decls {
        match &decl.kind {
            DeclKind::Comptime(block) | DeclKind::Layout(block) => {
                ev.scopes.push(HashMap::new());
                let flow = ev.block(block);
                ev.scopes.pop();
                if let stmt::Flow::Return(_) = flow? {
                    return Err(EvalError::new(decl.span, "`return` outside a function"));
                }
            }
            _ => {}
        }
    }
    Ok(ev.layout)
}

/// A top-level declaration's state.
enum Global<'m> {
    /// Not evaluated yet.
    Pending(&'m Decl),
    /// Being evaluated (a use now is a dependency loop).
    InProgress,
    /// Its value, and whether it is a `var`.
    Done { value: Value, mutable: bool },
}

/// A local variable.
struct Local {
    value: Value,
    mutable: bool,
    ty: Option<Type>,
}

/// Evaluation state.
pub(super) struct Evaluator<'m> {
    module: &'m Module,
    config: &'m ComptimeConfig,
    globals: HashMap<String, Global<'m>>,
    scopes: Vec<HashMap<String, Local>>,
    layout: Layout,
    work: u64,
    calls: usize,
    depth: usize,
}

impl<'m> Evaluator<'m> {
    fn new(module: &'m Module, config: &'m ComptimeConfig) -> Evaluator<'m> {
        let mut globals = HashMap::new();
        for decl in &module.decls {
            let name = match &decl.kind {
                DeclKind::Var(v) => &v.name,
                DeclKind::Param(p) => &p.name,
                DeclKind::Fn(f) | DeclKind::Task(f) => &f.name,
                DeclKind::Comptime(_) | DeclKind::Layout(_) => continue,
            };
            globals.insert(name.clone(), Global::Pending(decl));
        }
        Evaluator {
            module,
            config,
            globals,
            scopes: Vec::new(),
            layout: Layout::default(),
            work: 0,
            calls: 0,
            depth: 0,
        }
    }

    /// Counts one loop iteration or call against [`EVAL_QUOTA`].
    fn tick(&mut self, span: Span) -> EResult<()> {
        self.work += 1;
        if self.work > EVAL_QUOTA {
            return Err(EvalError::new(
                span,
                format!(
                    "compile-time evaluation took more than {EVAL_QUOTA} loop iterations and calls"
                ),
            ));
        }
        Ok(())
    }

    /// Runs `f` one evaluation level deeper, refusing to go past [`MAX_EVAL_DEPTH`].
    fn nested<T>(&mut self, span: Span, f: impl FnOnce(&mut Self) -> EResult<T>) -> EResult<T> {
        if self.depth >= MAX_EVAL_DEPTH {
            return Err(EvalError::new(
                span,
                format!("compile-time evaluation nests deeper than {MAX_EVAL_DEPTH} levels"),
            ));
        }
        self.depth += 1;
        let result = f(self);
        self.depth -= 1;
        result
    }

    /// The value of top-level declaration `name`, evaluating it on first use.
    fn global(&mut self, name: &str, span: Span) -> EResult<Option<Value>> {
        let decl = match self.globals.get(name) {
            None => return Ok(None),
            Some(Global::Done { value, .. }) => return Ok(Some(value.clone())),
            Some(Global::InProgress) => {
                return Err(EvalError::new(
                    span,
                    format!("`{name}` depends on its own value"),
                ));
            }
            Some(Global::Pending(decl)) => *decl,
        };
        self.globals.insert(name.to_string(), Global::InProgress);
        // A global's initialiser sees no locals of whoever used it first.
        let saved = std::mem::take(&mut self.scopes);
        let result = self.global_value(decl, span);
        self.scopes = saved;
        match result {
            Ok((value, mutable)) => {
                self.globals.insert(
                    name.to_string(),
                    Global::Done {
                        value: value.clone(),
                        mutable,
                    },
                );
                Ok(Some(value))
            }
            Err(e) => {
                self.globals.insert(name.to_string(), Global::Pending(decl));
                Err(e)
            }
        }
    }

    fn global_value(&mut self, decl: &'m Decl, used_at: Span) -> EResult<(Value, bool)> {
        match &decl.kind {
            DeclKind::Var(v) => {
                let value = self.var_value(v)?;
                Ok((value, !v.is_const))
            }
            DeclKind::Param(p) => {
                let ty = p.ty.as_ref().map(|t| self.eval_type(t)).transpose()?;
                let given = self.config.params.iter().find(|(n, _)| n == &p.name);
                let value = match (given, &p.default) {
                    (Some((_, v)), _) => {
                        let v = v.clone();
                        match &ty {
                            Some(ty) => self.coerce_param(v, ty, &p.name, p.name_span)?,
                            None => v,
                        }
                    }
                    (None, Some(default)) => {
                        let v = self.expr(default)?;
                        match &ty {
                            Some(ty) => self.coerce(v, ty, default.span)?,
                            None => v,
                        }
                    }
                    (None, None) => {
                        return Err(EvalError::new(
                            used_at,
                            format!(
                                "param `{}` has no value: none was given and it has no default",
                                p.name
                            ),
                        ));
                    }
                };
                Ok((value, false))
            }
            DeclKind::Fn(f) | DeclKind::Task(f) => Ok((Value::Function(f.name.clone()), false)),
            DeclKind::Comptime(_) | DeclKind::Layout(_) => Ok((Value::Void, false)),
        }
    }

    /// Assigns a global `var` (a `const`, param or function refuses).
    fn set_global(&mut self, name: &str, value: Value, span: Span) -> EResult<bool> {
        self.global(name, span)?;
        match self.globals.get_mut(name) {
            Some(Global::Done {
                value: slot,
                mutable: true,
            }) => {
                *slot = value;
                Ok(true)
            }
            Some(_) => Err(EvalError::new(
                span,
                format!("cannot assign to constant `{name}`"),
            )),
            None => Ok(false),
        }
    }
}

/// Compile-time evaluation of one PE program's constants, params and types, for the PE
/// compiler (`crate::pe`): the same evaluator as layouts, with the PE's params as its
/// compiler-given values.
pub(crate) struct ConstEval<'m>(Evaluator<'m>);

impl<'m> ConstEval<'m> {
    /// An evaluator of `module` with `config`'s params and architecture.
    pub(crate) fn new(module: &'m Module, config: &'m ComptimeConfig) -> ConstEval<'m> {
        ConstEval(Evaluator::new(module, config))
    }

    /// The value of an expression.
    pub(crate) fn expr(&mut self, e: &crate::ast::Expr) -> EResult<Value> {
        self.0.expr(e)
    }

    /// The type an expression denotes.
    pub(crate) fn eval_type(&mut self, e: &crate::ast::Expr) -> EResult<Type> {
        self.0.eval_type(e)
    }

    /// `v` as a value of `ty`, or why not.
    pub(crate) fn coerce(&mut self, v: Value, ty: &Type, span: Span) -> EResult<Value> {
        self.0.coerce(v, ty, span)
    }

    /// The value of top-level declaration `name` (`None`: no such declaration).
    pub(crate) fn global(&mut self, name: &str, span: Span) -> EResult<Option<Value>> {
        self.0.global(name, span)
    }
}
