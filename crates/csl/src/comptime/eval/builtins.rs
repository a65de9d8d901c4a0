//! General builtins at compile time: ids and colors (`@get_ut_id` too), `@as`, `@range`, `@comptime_assert`,
//! `@is_arch`, `@concat_structs`, `@import_module`, `@get_rectangle`.

use super::super::error::{EResult, EvalError};
use super::super::int::IntType;
use super::super::value::{ModuleRef, Type, Value};
use super::Evaluator;
use crate::ast::Expr;
use crate::span::Span;

/// Routable colors (0..=23), local task ids (0..=30), control task ids (0..=63) and queues
/// (0..=7) as the simulator numbers them; the architecture's own narrower ranges are
/// checked where ids are bound.
const COLORS: i128 = 23;
const LOCAL_TASK_IDS: i128 = 30;
const CONTROL_TASK_IDS: i128 = 63;
const QUEUES: i128 = 7;
/// Microthread ids (`@get_ut_id`, WSE-3 only): 0..=7.
const MICROTHREADS: i128 = 7;

impl Evaluator<'_> {
    /// Checks that a builtin got `n` arguments.
    pub(super) fn arity(&self, name: &str, args: &[Value], n: &[usize], span: Span) -> EResult<()> {
        if n.contains(&args.len()) {
            return Ok(());
        }
        let want: Vec<String> = n.iter().map(usize::to_string).collect();
        Err(EvalError::new(
            span,
            format!(
                "@{name} takes {} arguments, found {}",
                want.join(" or "),
                args.len()
            ),
        ))
    }

    /// Color `n`, checked.
    pub(super) fn color(&self, n: i128, span: Span) -> EResult<Value> {
        if (0..=COLORS).contains(&n) {
            Ok(Value::Color(n as u8))
        } else {
            Err(EvalError::new(
                span,
                format!("color {n} is out of range 0..={COLORS}"),
            ))
        }
    }

    fn id(&self, what: &str, n: i128, max: i128, span: Span) -> EResult<u8> {
        if (0..=max).contains(&n) {
            Ok(n as u8)
        } else {
            Err(EvalError::new(
                span,
                format!("{what} {n} is out of range 0..={max}"),
            ))
        }
    }

    /// `@name(args)`.
    pub(super) fn builtin(&mut self, name: &str, args: &[Expr], span: Span) -> EResult<Value> {
        // `@as` takes its type first; every other builtin evaluates all arguments up front.
        let values = args
            .iter()
            .map(|a| self.expr(a))
            .collect::<EResult<Vec<_>>>()?;
        let arg_span = |i: usize| args.get(i).map_or(span, |a| a.span);
        let int = |ev: &Self, i: usize, what: &str| ev.int_of(&values[i], what, arg_span(i));
        match name {
            "get_color" => {
                self.arity(name, &values, &[1], span)?;
                self.color(int(self, 0, "a color")?, arg_span(0))
            }
            "get_local_task_id" => {
                self.arity(name, &values, &[1], span)?;
                let n = int(self, 0, "a local task id")?;
                Ok(Value::LocalTaskId(self.id(
                    "local task id",
                    n,
                    LOCAL_TASK_IDS,
                    arg_span(0),
                )?))
            }
            "get_control_task_id" => {
                self.arity(name, &values, &[1], span)?;
                let n = int(self, 0, "a control task id")?;
                Ok(Value::ControlTaskId(self.id(
                    "control task id",
                    n,
                    CONTROL_TASK_IDS,
                    arg_span(0),
                )?))
            }
            "get_input_queue" | "get_output_queue" => {
                self.arity(name, &values, &[1], span)?;
                let n = self.id("queue", int(self, 0, "a queue")?, QUEUES, arg_span(0))?;
                Ok(if name == "get_input_queue" {
                    Value::InputQueue(n)
                } else {
                    Value::OutputQueue(n)
                })
            }
            "get_ut_id" => {
                self.arity(name, &values, &[1], span)?;
                if self.config.arch != super::super::Arch::Wse3 {
                    return Err(EvalError::new(
                        span,
                        format!(
                            "@get_ut_id: microthread ids are a WSE-3 feature, not on {}",
                            self.config.arch.name()
                        ),
                    ));
                }
                let n = int(self, 0, "a microthread id")?;
                Ok(Value::MicrothreadId(self.id(
                    "microthread id",
                    n,
                    MICROTHREADS,
                    arg_span(0),
                )?))
            }
            "get_data_task_id" => {
                self.arity(name, &values, &[1], span)?;
                match &values[0] {
                    Value::Color(c) | Value::InputQueue(c) => Ok(Value::DataTaskId(*c)),
                    other => Err(EvalError::new(
                        arg_span(0),
                        format!(
                            "@get_data_task_id takes a color or an input queue, found {}",
                            other.type_name()
                        ),
                    )),
                }
            }
            "as" => {
                self.arity(name, &values, &[2], span)?;
                let Value::Type(ty) = &values[0] else {
                    return Err(EvalError::new(arg_span(0), "@as takes a type first"));
                };
                self.coerce(values[1].clone(), ty, arg_span(1))
            }
            "bitcast" => {
                self.arity(name, &values, &[2], span)?;
                let Value::Type(ty) = &values[0] else {
                    return Err(EvalError::new(arg_span(0), "@bitcast takes a type first"));
                };
                bitcast(ty, &values[1]).ok_or_else(|| {
                    EvalError::new(
                        span,
                        format!(
                            "@bitcast to {ty} takes a value of the same size, found {} `{}`",
                            values[1].type_name(),
                            values[1]
                        ),
                    )
                })
            }
            "range" => self.range(&values, span, &arg_span),
            "comptime_assert" => {
                self.arity(name, &values, &[1, 2], span)?;
                match (&values[0], values.get(1)) {
                    (Value::Bool(true), _) => Ok(Value::Void),
                    (Value::Bool(false), Some(Value::Str(msg))) => Err(EvalError::new(
                        span,
                        format!("compile-time assertion failed: {msg}"),
                    )),
                    (Value::Bool(false), _) => {
                        Err(EvalError::new(span, "compile-time assertion failed"))
                    }
                    (other, _) => Err(EvalError::new(
                        arg_span(0),
                        format!("@comptime_assert takes a bool, found {}", other.type_name()),
                    )),
                }
            }
            "is_arch" => {
                self.arity(name, &values, &[1], span)?;
                match &values[0] {
                    Value::Str(s) if s == "wse2" || s == "wse3" => {
                        Ok(Value::Bool(s == self.config.arch.name()))
                    }
                    other => Err(EvalError::new(
                        arg_span(0),
                        format!("@is_arch takes \"wse2\" or \"wse3\", found `{other}`"),
                    )),
                }
            }
            "concat_structs" => {
                self.arity(name, &values, &[2], span)?;
                match (&values[0], &values[1]) {
                    (Value::Struct(a), Value::Struct(b)) => {
                        if let Some((dup, _)) =
                            b.iter().find(|(n, _)| a.iter().any(|(m, _)| m == n))
                        {
                            return Err(EvalError::new(
                                span,
                                format!("@concat_structs: both structs have a field `{dup}`"),
                            ));
                        }
                        Ok(Value::Struct(a.iter().chain(b).cloned().collect()))
                    }
                    _ => Err(EvalError::new(span, "@concat_structs takes two structs")),
                }
            }
            "import_module" => {
                self.arity(name, &values, &[1, 2], span)?;
                let Value::Str(path) = &values[0] else {
                    return Err(EvalError::new(
                        arg_span(0),
                        "@import_module takes a file name",
                    ));
                };
                let params = match values.get(1) {
                    None => Vec::new(),
                    Some(Value::Struct(fields)) => fields.clone(),
                    Some(other) => {
                        return Err(EvalError::new(
                            arg_span(1),
                            format!(
                                "module params must be a struct, found {}",
                                other.type_name()
                            ),
                        ));
                    }
                };
                self.import(path, params, arg_span(0))
            }
            "get_rectangle" => {
                self.arity(name, &values, &[0], span)?;
                let Some((w, h)) = self.layout.rectangle else {
                    return Err(EvalError::new(span, "@get_rectangle before @set_rectangle"));
                };
                Ok(Value::Struct(vec![
                    ("width".into(), Value::comptime_int(i128::from(w))),
                    ("height".into(), Value::comptime_int(i128::from(h))),
                ]))
            }
            "set_rectangle" | "set_tile_code" | "set_color_config" | "export_name" => {
                self.layout_builtin(name, &values, span, &arg_span)
            }
            _ => Err(EvalError::new(
                span,
                format!("@{name} is not evaluated at compile time in a layout yet"),
            )),
        }
    }

    /// `@range(T, end)`, `@range(T, start, end)`, `@range(T, start, end, step)`.
    fn range(
        &self,
        values: &[Value],
        span: Span,
        arg_span: &dyn Fn(usize) -> Span,
    ) -> EResult<Value> {
        self.arity("range", values, &[2, 3, 4], span)?;
        let ty = match &values[0] {
            Value::Type(Type::Int(t)) => *t,
            _ => {
                return Err(EvalError::new(
                    arg_span(0),
                    "@range takes an integer type first",
                ));
            }
        };
        let mut n = Vec::new();
        for (i, v) in values.iter().enumerate().skip(1) {
            let x = self.int_of(v, "a range bound", arg_span(i))?;
            if ty != IntType::Comptime && !ty.contains(x) {
                return Err(EvalError::new(
                    arg_span(i),
                    format!("range bound {x} does not fit in {ty}"),
                ));
            }
            n.push(x);
        }
        let (start, end, step) = match n[..] {
            [end] => (0, end, 1),
            [start, end] => (start, end, 1),
            [start, end, step] => (start, end, step),
            _ => (0, 0, 1),
        };
        if step == 0 {
            return Err(EvalError::new(arg_span(3), "a range step must not be zero"));
        }
        Ok(Value::Range {
            start,
            end,
            step,
            ty,
        })
    }

    fn import(&mut self, path: &str, params: Vec<(String, Value)>, span: Span) -> EResult<Value> {
        if path.starts_with('<') && path.ends_with('>') {
            return Ok(Value::Module(ModuleRef {
                path: path.to_string(),
                params,
            }));
        }
        Err(EvalError::new(
            span,
            format!("importing `{path}` at compile time in a layout is not supported yet"),
        ))
    }
}

/// `@bitcast(ty, v)`: the bits of `v` read as `ty` (same size: f16 and 16-bit integers,
/// f32 and 32-bit integers, integers of one width), or `None`.
fn bitcast(ty: &Type, v: &Value) -> Option<Value> {
    use npusim_numerics::Format;
    let float_bits = |value: f64, t: &Type| -> Option<(u64, u32)> {
        match t {
            Type::F16 => Some((
                npusim_numerics::round_exact(
                    &npusim_numerics::Exact::from_f64(value),
                    Format::F16,
                    &npusim_numerics::CastPolicy::new(npusim_numerics::RoundMode::Rint),
                    0,
                )
                .code,
                16,
            )),
            Type::F32 => Some((u64::from((value as f32).to_bits()), 32)),
            _ => None,
        }
    };
    let (bits, width) = match v {
        Value::Float { value, ty: t } => float_bits(*value, t)?,
        Value::Int {
            value,
            ty: IntType::Sized { bits, .. },
        } => ((*value as u64) & ((1u64 << *bits) - 1), u32::from(*bits)),
        _ => return None,
    };
    match ty {
        Type::Int(to @ IntType::Sized { signed, bits: b }) if u32::from(*b) == width => {
            let value = if *signed {
                let shift = 64 - width;
                i128::from(((bits << shift) as i64) >> shift)
            } else {
                i128::from(bits)
            };
            Some(Value::Int { value, ty: *to })
        }
        Type::F16 if width == 16 => Some(Value::Float {
            value: Format::F16.decode(bits).to_f64(),
            ty: Type::F16,
        }),
        Type::F32 if width == 32 => Some(Value::Float {
            value: f64::from(f32::from_bits(bits as u32)),
            ty: Type::F32,
        }),
        _ => None,
    }
}
