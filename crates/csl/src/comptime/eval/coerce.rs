//! Coercion of a value to a declared type.

use super::super::error::{EResult, EvalError};
use super::super::int::IntType;
use super::super::value::{Type, Value};
use super::Evaluator;
use crate::span::Span;

impl Evaluator<'_> {
    /// `v` as a value of `ty`: integers that fit, `comptime_int` to floats, `comptime_float`
    /// to `f32` (rounded), lists to arrays of the right length; anything else must already
    /// be of the type.
    pub(super) fn coerce(&mut self, v: Value, ty: &Type, span: Span) -> EResult<Value> {
        let refuse = |v: &Value| {
            EvalError::new(
                span,
                format!("expected {ty}, found {} `{v}`", v.type_name()),
            )
        };
        match (ty, v) {
            (_, Value::Undefined) => Ok(Value::Undefined),
            (Type::Int(to), Value::Int { value, ty: from }) => {
                if to.contains(value) {
                    Ok(Value::Int { value, ty: *to })
                } else {
                    Err(EvalError::new(
                        span,
                        format!("value {value} of type {from} does not fit in {to}"),
                    ))
                }
            }
            (
                Type::F32 | Type::ComptimeFloat,
                Value::Int {
                    value,
                    ty: IntType::Comptime,
                },
            ) => Ok(Value::Float {
                value: if *ty == Type::F32 {
                    value as f32 as f64
                } else {
                    value as f64
                },
                ty: ty.clone(),
            }),
            (
                Type::F32,
                Value::Float {
                    value,
                    ty: Type::F32 | Type::ComptimeFloat,
                },
            ) => Ok(Value::Float {
                value: value as f32 as f64,
                ty: Type::F32,
            }),
            (Type::ComptimeFloat, v @ Value::Float { .. }) => Ok(v),
            // a literal (or an f16) becomes an f16 rounded once; f32 needs a conversion
            (
                Type::F16,
                Value::Float {
                    value,
                    ty: Type::F16 | Type::ComptimeFloat,
                },
            ) => Ok(Value::Float {
                value: super::arith::round_to(value, &Type::F16),
                ty: Type::F16,
            }),
            (
                Type::F16,
                Value::Int {
                    value,
                    ty: IntType::Comptime,
                },
            ) => Ok(Value::Float {
                value: super::arith::round_to(value as f64, &Type::F16),
                ty: Type::F16,
            }),
            (Type::Array { dims, elem }, Value::List(items)) => {
                let total: u64 = dims.iter().product();
                if items.len() as u64 != total {
                    return Err(EvalError::new(
                        span,
                        format!("expected {total} elements for {ty}, found {}", items.len()),
                    ));
                }
                let items = items
                    .into_iter()
                    .map(|x| self.coerce(x, elem, span))
                    .collect::<EResult<_>>()?;
                Ok(Value::List(items))
            }
            (Type::Bool, v @ Value::Bool(_))
            | (Type::Type, v @ Value::Type(_))
            | (Type::Void, v @ Value::Void)
            | (Type::Color, v @ Value::Color(_))
            | (Type::DataTaskId, v @ Value::DataTaskId(_))
            | (Type::LocalTaskId, v @ Value::LocalTaskId(_))
            | (Type::ControlTaskId, v @ Value::ControlTaskId(_))
            | (Type::InputQueue, v @ Value::InputQueue(_))
            | (Type::OutputQueue, v @ Value::OutputQueue(_))
            | (Type::MicrothreadId, v @ Value::MicrothreadId(_))
            | (Type::ComptimeStruct, v @ Value::Struct(_)) => Ok(v),
            (_, v) => Err(refuse(&v)),
        }
    }

    /// A value given to the compiler for param `name` of type `ty`: as [`Self::coerce`],
    /// and a number given for a `color` param is that color.
    pub(super) fn coerce_param(
        &mut self,
        v: Value,
        ty: &Type,
        name: &str,
        span: Span,
    ) -> EResult<Value> {
        if let (Type::Color, Value::Int { value, .. }) = (ty, &v) {
            return self.color(*value, span);
        }
        self.coerce(v, ty, span)
            .map_err(|e| EvalError::new(e.span, format!("param `{name}`: {}", e.message)))
    }
}
