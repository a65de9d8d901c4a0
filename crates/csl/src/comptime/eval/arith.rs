//! Operators on compile-time values.

use super::super::error::{EResult, EvalError};
use super::super::int::{IntError, IntType, int_op};
use super::super::value::{Type, Value};
use super::{Evaluator, MAX_CONCAT_LEN};
use crate::ast::{BinOp, UnOp};
use crate::span::Span;

/// Rounds an exact-in-f64 result to the float type `ty` (to nearest, ties to even; f16
/// through npusim-numerics).
pub(super) fn round_to(value: f64, ty: &Type) -> f64 {
    match ty {
        Type::F32 => value as f32 as f64,
        Type::F16 => f16_value(value),
        _ => value,
    }
}

/// `value` rounded once to f16 (to nearest, ties to even), as an f64.
pub(crate) fn f16_value(value: f64) -> f64 {
    use npusim_numerics::{CastPolicy, Exact, Format, RoundMode, round_exact};
    let code = round_exact(
        &Exact::from_f64(value),
        Format::F16,
        &CastPolicy::new(RoundMode::Rint),
        0,
    )
    .code;
    Format::F16.decode(code).to_f64()
}

impl Evaluator<'_> {
    pub(super) fn unary(&mut self, op: UnOp, v: Value, span: Span) -> EResult<Value> {
        match (op, v) {
            (UnOp::Neg, Value::Int { value, ty }) => {
                let r = value.checked_neg().filter(|&r| ty.contains(r));
                r.map(|value| Value::Int { value, ty }).ok_or_else(|| {
                    EvalError::new(
                        span,
                        format!("integer overflow: -({value}) does not fit in {ty}"),
                    )
                })
            }
            (UnOp::Neg, Value::Float { value, ty }) => Ok(Value::Float { value: -value, ty }),
            (UnOp::Not, Value::Bool(b)) => Ok(Value::Bool(!b)),
            (UnOp::BitNot, Value::Int { value, ty }) => match ty {
                IntType::Sized { signed: true, .. } => Ok(Value::Int { value: !value, ty }),
                IntType::Sized { .. } => {
                    let (_, max) = ty.range();
                    Ok(Value::Int {
                        value: max ^ value,
                        ty,
                    })
                }
                IntType::Comptime => Err(EvalError::new(
                    span,
                    "`~` needs a sized integer type, not comptime_int: use @as",
                )),
            },
            (op, v) => Err(EvalError::new(
                span,
                format!(
                    "operator `{}` does not apply to {} at compile time",
                    op.symbol(),
                    v.type_name()
                ),
            )),
        }
    }

    pub(super) fn binary(&mut self, op: BinOp, a: Value, b: Value, span: Span) -> EResult<Value> {
        use Value::{Float, Int};
        let mismatch = |a: &Value, b: &Value| {
            EvalError::new(
                span,
                format!(
                    "operator `{op}` does not apply to {} and {}",
                    a.type_name(),
                    b.type_name()
                ),
            )
        };
        match (&a, &b) {
            (Int { value: x, ty: tx }, Int { value: y, ty: ty_ }) => {
                if op.is_comparison() {
                    return Ok(Value::Bool(compare(op, x.cmp(y))));
                }
                let Some(ty) = tx.peer(*ty_) else {
                    return Err(EvalError::new(
                        span,
                        format!("incompatible integer types {tx} and {ty_} for `{op}`"),
                    ));
                };
                for (v, t) in [(x, tx), (y, ty_)] {
                    if *t == IntType::Comptime && !ty.contains(*v) {
                        return Err(EvalError::new(
                            span,
                            format!("type {ty} cannot hold the value {v}"),
                        ));
                    }
                }
                match int_op(op, *x, *y, ty) {
                    Ok(value) => Ok(Int { value, ty }),
                    Err(IntError::Overflow) => Err(EvalError::new(
                        span,
                        format!("integer overflow: {x} {op} {y} does not fit in {ty}"),
                    )),
                    Err(IntError::DivisionByZero) => Err(EvalError::new(
                        span,
                        format!("division by zero: {x} {op} {y}"),
                    )),
                    Err(IntError::BadShift) => Err(EvalError::new(
                        span,
                        format!("shift amount {y} is out of range for {ty}"),
                    )),
                }
            }
            (Int { .. } | Float { .. }, Int { .. } | Float { .. }) => {
                let (x, tx) = self.float_operand(&a, span)?;
                let (y, ty_) = self.float_operand(&b, span)?;
                if op.is_comparison() {
                    let ord = x.partial_cmp(&y);
                    return Ok(Value::Bool(match ord {
                        Some(o) => compare(op, o),
                        None => op == BinOp::Ne,
                    }));
                }
                let ty = match (tx, ty_) {
                    (Type::ComptimeFloat, t) | (t, Type::ComptimeFloat) => t,
                    (t, u) if t == u => t,
                    (t, u) => {
                        return Err(EvalError::new(
                            span,
                            format!("incompatible float types {t} and {u} for `{op}`"),
                        ));
                    }
                };
                // a comptime_float meeting a sized float is that type first, as Zig
                // coerces it (so `a + 0.2` adds f16 0.2 to an f16 `a`)
                let (x, y) = (round_to(x, &ty), round_to(y, &ty));
                let exact = match op {
                    BinOp::Add => x + y,
                    BinOp::Sub => x - y,
                    BinOp::Mul => x * y,
                    BinOp::Div if y == 0.0 => {
                        return Err(EvalError::new(span, format!("division by zero: {x} / {y}")));
                    }
                    BinOp::Div => x / y,
                    _ => return Err(mismatch(&a, &b)),
                };
                Ok(Float {
                    value: round_to(exact, &ty),
                    ty,
                })
            }
            (Value::Str(x), Value::Str(y)) if op == BinOp::Concat => {
                concat_len(x.len(), y.len(), span)?;
                Ok(Value::Str(format!("{x}{y}")))
            }
            (Value::List(x), Value::List(y)) if op == BinOp::Concat => {
                concat_len(x.len(), y.len(), span)?;
                Ok(Value::List(x.iter().chain(y).cloned().collect()))
            }
            _ if matches!(op, BinOp::Eq | BinOp::Ne) && same_kind(&a, &b) => {
                Ok(Value::Bool((a == b) == (op == BinOp::Eq)))
            }
            _ => Err(mismatch(&a, &b)),
        }
    }

    /// A numeric operand of a float operation: a float, or a `comptime_int` made a
    /// `comptime_float` (a sized integer needs an explicit conversion, as in Zig).
    fn float_operand(&self, v: &Value, span: Span) -> EResult<(f64, Type)> {
        match v {
            Value::Float { value, ty } => Ok((*value, ty.clone())),
            Value::Int {
                value,
                ty: IntType::Comptime,
            } => Ok((*value as f64, Type::ComptimeFloat)),
            other => Err(EvalError::new(
                span,
                format!(
                    "a {} cannot be mixed with a float without a conversion",
                    other.type_name()
                ),
            )),
        }
    }
}

/// Whether two values can be compared with `==`.
fn same_kind(a: &Value, b: &Value) -> bool {
    std::mem::discriminant(a) == std::mem::discriminant(b)
}

fn compare(op: BinOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        BinOp::Eq => o == Equal,
        BinOp::Ne => o != Equal,
        BinOp::Lt => o == Less,
        BinOp::Le => o != Greater,
        BinOp::Gt => o == Greater,
        _ => o != Less,
    }
}

/// Checks that a concatenation stays within [`MAX_CONCAT_LEN`].
fn concat_len(a: usize, b: usize, span: Span) -> EResult<()> {
    if a + b > MAX_CONCAT_LEN {
        return Err(EvalError::new(
            span,
            format!(
                "`++` would build {} elements, more than {MAX_CONCAT_LEN}",
                a + b
            ),
        ));
    }
    Ok(())
}
