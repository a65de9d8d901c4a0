//! Operators of PE code at run time. Integers follow Zig (and CSL): an operation whose exact
//! result does not fit its type is an error naming the operation and the values. `f16` and
//! `f32` arithmetic rounds once to nearest even through the numerics crate (`+ - *` from the
//! exact result; `/` from the f64 quotient, which is exact enough: 53 ≥ 2·24 + 2).

use npusim_cerebras::ops::fp;
use npusim_numerics::{CastPolicy, Exact, Format, RoundMode, round_exact};

use super::value::RtValue;
use crate::ast::{BinOp, UnOp};
use crate::comptime::{IntError, IntType, int_op};

/// The f64 value of f16 bits.
pub fn f16_to_f64(bits: u16) -> f64 {
    Format::F16.decode(u64::from(bits)).to_f64()
}

/// `x` rounded once to the nearest f16 (ties to even), as bits.
pub fn f64_to_f16(x: f64) -> u16 {
    round_exact(
        &Exact::from_f64(x),
        Format::F16,
        &CastPolicy::new(RoundMode::Rint),
        0,
    )
    .code as u16
}

/// The float kind of an operation: f16, f32 or both literals.
#[derive(Clone, Copy, PartialEq, Eq)]
enum FloatTy {
    F16,
    F32,
    Comptime,
}

fn float_parts(v: &RtValue) -> Option<(f64, FloatTy)> {
    match v {
        RtValue::F32(x) => Some((f64::from(*x), FloatTy::F32)),
        RtValue::F16(b) => Some((f16_to_f64(*b), FloatTy::F16)),
        RtValue::ComptimeFloat(x) => Some((*x, FloatTy::Comptime)),
        RtValue::Int {
            value,
            ty: IntType::Comptime,
        } => Some((*value as f64, FloatTy::Comptime)),
        _ => None,
    }
}

fn is_float(v: &RtValue) -> bool {
    matches!(
        v,
        RtValue::F32(_) | RtValue::F16(_) | RtValue::ComptimeFloat(_)
    )
}

/// `-v`, `!v`, `~v` (`&` is the evaluator's).
pub fn unary(op: UnOp, v: RtValue) -> Result<RtValue, String> {
    match (op, v) {
        (UnOp::Neg, RtValue::Int { value, ty }) => int_op(BinOp::Sub, 0, value, ty)
            .map(|value| RtValue::Int { value, ty })
            .map_err(|_| format!("integer overflow: -({value}) does not fit in {ty}")),
        (UnOp::Neg, RtValue::F32(x)) => Ok(RtValue::F32(-x)),
        (UnOp::Neg, RtValue::F16(b)) => Ok(RtValue::F16(b ^ 0x8000)),
        (UnOp::Neg, RtValue::ComptimeFloat(x)) => Ok(RtValue::ComptimeFloat(-x)),
        (UnOp::Not, RtValue::Bool(b)) => Ok(RtValue::Bool(!b)),
        (UnOp::BitNot, RtValue::Int { value, ty }) => match ty {
            IntType::Sized { signed: true, .. } => Ok(RtValue::Int { value: !value, ty }),
            IntType::Sized { bits, .. } => Ok(RtValue::Int {
                value: !value & ((1i128 << bits) - 1),
                ty,
            }),
            IntType::Comptime => Err("`~` needs an integer of a sized type".into()),
        },
        (op, v) => Err(format!(
            "`{}` does not apply to {} `{v}`",
            op.symbol(),
            v.type_name()
        )),
    }
}

/// `a op b` (not `and`/`or`, which the evaluator short-circuits).
pub fn binary(op: BinOp, a: RtValue, b: RtValue) -> Result<RtValue, String> {
    if let (RtValue::Int { value: x, ty: tx }, RtValue::Int { value: y, ty: ty_ }) = (&a, &b) {
        let ty = tx.peer(*ty_).ok_or_else(|| {
            format!(
                "operands of `{op}` have types {tx} and {ty_}, which have no common integer type"
            )
        })?;
        for (v, t) in [(x, tx), (y, ty_)] {
            if !ty.contains(*v) {
                return Err(format!("value {v} of type {t} does not fit in {ty}"));
            }
        }
        if op.is_comparison() {
            return Ok(RtValue::Bool(compare(op, x.cmp(y))));
        }
        return int_op(op, *x, *y, ty)
            .map(|value| RtValue::Int { value, ty })
            .map_err(|e| match e {
                IntError::Overflow => {
                    format!("integer overflow: {x} {op} {y} does not fit in {ty}")
                }
                IntError::DivisionByZero => format!("division by zero: {x} {op} {y}"),
                IntError::BadShift => format!("shift amount {y} is out of range for {ty}"),
            });
    }
    if let (RtValue::Bool(x), RtValue::Bool(y)) = (&a, &b) {
        return match op {
            BinOp::Eq => Ok(RtValue::Bool(x == y)),
            BinOp::Ne => Ok(RtValue::Bool(x != y)),
            _ => Err(format!("`{op}` does not apply to bool values")),
        };
    }
    if is_float(&a) || is_float(&b) {
        return float_binary(op, &a, &b);
    }
    Err(format!(
        "`{op}` does not apply to {} `{a}` and {} `{b}`",
        a.type_name(),
        b.type_name()
    ))
}

fn float_binary(op: BinOp, a: &RtValue, b: &RtValue) -> Result<RtValue, String> {
    let refuse = || {
        format!(
            "`{op}` does not apply to {} `{a}` and {} `{b}`",
            a.type_name(),
            b.type_name()
        )
    };
    let (x, fx) = float_parts(a).ok_or_else(refuse)?;
    let (y, fy) = float_parts(b).ok_or_else(refuse)?;
    let ty = match (fx, fy) {
        (FloatTy::Comptime, t) | (t, FloatTy::Comptime) => t,
        (s, t) if s == t => s,
        _ => {
            return Err(format!(
                "operands of `{op}` are {} and {}: convert one with @as",
                a.type_name(),
                b.type_name()
            ));
        }
    };
    if op.is_comparison() {
        return x
            .partial_cmp(&y)
            .map(|o| RtValue::Bool(compare(op, o)))
            .or(match op {
                BinOp::Ne => Some(RtValue::Bool(true)),
                BinOp::Eq | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                    Some(RtValue::Bool(false))
                }
                _ => None,
            })
            .ok_or_else(refuse);
    }
    let format = match ty {
        FloatTy::F16 => Format::F16,
        FloatTy::F32 => Format::F32,
        FloatTy::Comptime => {
            let r = match op {
                BinOp::Add => x + y,
                BinOp::Sub => x - y,
                BinOp::Mul => x * y,
                BinOp::Div => x / y,
                _ => return Err(refuse()),
            };
            return Ok(RtValue::ComptimeFloat(r));
        }
    };
    let code = |v: f64| match format {
        Format::F16 => u32::from(f64_to_f16(v)),
        _ => (v as f32).to_bits(),
    };
    // The operands are exact in the format (literals are rounded to it first, as Zig
    // coerces them).
    let (ca, cb) = (code(x), code(y));
    let r = match op {
        BinOp::Add => fp::add(ca, cb, format),
        BinOp::Sub => fp::sub(ca, cb, format),
        BinOp::Mul => fp::mul(ca, cb, format),
        BinOp::Div => {
            let q = fp::decode(ca, format).to_f64() / fp::decode(cb, format).to_f64();
            code(q)
        }
        _ => return Err(refuse()),
    };
    Ok(match format {
        Format::F16 => RtValue::F16(r as u16),
        _ => RtValue::F32(f32::from_bits(r)),
    })
}

fn compare(op: BinOp, o: std::cmp::Ordering) -> bool {
    use std::cmp::Ordering::{Equal, Greater, Less};
    match op {
        BinOp::Eq => o == Equal,
        BinOp::Ne => o != Equal,
        BinOp::Lt => o == Less,
        BinOp::Le => o != Greater,
        BinOp::Gt => o == Greater,
        BinOp::Ge => o != Less,
        _ => false,
    }
}
