//! Values of PE code at run time.

use std::fmt;

use npusim_cerebras::ElemTy;
use npusim_cerebras::dsd::Dsd;
use npusim_cerebras::ops::{DsrId, FifoId};

use crate::comptime::{IntType, Value};

/// A pointer to an element of a module array in PE memory (`&x`, `&A[3]`, `[*]f32`).
#[derive(Clone, Debug, PartialEq)]
pub struct Ptr {
    /// The array it points into.
    pub array: String,
    /// The element it points at (row-major).
    pub index: i64,
    /// The element type.
    pub elem: ElemTy,
}

/// A value of PE code.
#[derive(Clone, Debug, PartialEq)]
pub enum RtValue {
    /// An integer and its type (`comptime_int` for literals).
    Int {
        /// The value.
        value: i128,
        /// Its type.
        ty: IntType,
    },
    /// An `f32`.
    F32(f32),
    /// An `f16`, as its bits.
    F16(u16),
    /// A `comptime_float` literal.
    ComptimeFloat(f64),
    /// A `bool`.
    Bool(bool),
    /// A pointer into PE memory.
    Ptr(Ptr),
    /// A DSD.
    Dsd(Dsd),
    /// A FIFO of the PE (`@allocate_fifo`).
    Fifo(FifoId),
    /// A loaded DSR of the PE.
    Dsr(DsrId),
    /// A compile-time value (task ids, colors, types, structs).
    Comptime(Value),
    /// `void`.
    Void,
}

impl RtValue {
    /// The value's type as messages name it.
    pub fn type_name(&self) -> String {
        match self {
            RtValue::Int { ty, .. } => ty.to_string(),
            RtValue::F32(_) => "f32".into(),
            RtValue::F16(_) => "f16".into(),
            RtValue::ComptimeFloat(_) => "comptime_float".into(),
            RtValue::Bool(_) => "bool".into(),
            RtValue::Ptr(p) => format!("*{}", elem_name(p.elem)),
            RtValue::Dsd(d) => d.kind().into(),
            RtValue::Fifo(_) => "fifo_dsd".into(),
            RtValue::Dsr(_) => "dsr".into(),
            RtValue::Comptime(v) => v.type_name(),
            RtValue::Void => "void".into(),
        }
    }

    /// A compile-time value as a run-time one (numbers and bools become run-time values).
    pub fn from_comptime(v: Value) -> RtValue {
        match v {
            Value::Int { value, ty } => RtValue::Int { value, ty },
            Value::Float {
                value,
                ty: crate::comptime::Type::F32,
            } => RtValue::F32(value as f32),
            Value::Float { value, .. } => RtValue::ComptimeFloat(value),
            Value::Bool(b) => RtValue::Bool(b),
            Value::Void => RtValue::Void,
            other => RtValue::Comptime(other),
        }
    }
}

/// The CSL name of an element type.
pub fn elem_name(e: ElemTy) -> &'static str {
    match e {
        ElemTy::U16 => "u16",
        ElemTy::I16 => "i16",
        ElemTy::F16 => "f16",
        ElemTy::U32 => "u32",
        ElemTy::I32 => "i32",
        ElemTy::F32 => "f32",
    }
}

impl fmt::Display for RtValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RtValue::Int { value, .. } => write!(f, "{value}"),
            RtValue::F32(x) => write!(f, "{x:?}"),
            RtValue::F16(b) => write!(f, "{:?}", super::arith::f16_to_f64(*b)),
            RtValue::ComptimeFloat(x) => write!(f, "{x:?}"),
            RtValue::Bool(b) => write!(f, "{b}"),
            RtValue::Ptr(p) => write!(f, "&{}[{}]", p.array, p.index),
            RtValue::Dsd(d) => f.write_str(d.kind()),
            RtValue::Fifo(id) => write!(f, "fifo {}", id.0),
            RtValue::Dsr(id) => write!(f, "dsr {}", id.0),
            RtValue::Comptime(v) => write!(f, "{v}"),
            RtValue::Void => f.write_str("void"),
        }
    }
}
