//! Integer types and checked arithmetic: CSL follows Zig, where an integer operation whose
//! result does not fit its type is a compile error when evaluated at compile time.

use std::fmt;

use crate::ast::BinOp;

/// `comptime_int`, or a sized integer type `iN` / `uN`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntType {
    /// `comptime_int`: no fixed width; this evaluator holds it in 128 bits.
    Comptime,
    /// `iN` or `uN`.
    Sized {
        /// Whether negative values exist.
        signed: bool,
        /// Width: 8, 16, 32 or 64.
        bits: u8,
    },
}

impl IntType {
    /// The integer type a name denotes (`i16`, `u32`, `comptime_int`).
    pub fn from_name(name: &str) -> Option<IntType> {
        if name == "comptime_int" {
            return Some(IntType::Comptime);
        }
        let signed = match name.as_bytes().first() {
            Some(b'i') => true,
            Some(b'u') => false,
            _ => return None,
        };
        let bits = match &name[1..] {
            "8" => 8,
            "16" => 16,
            "32" => 32,
            "64" => 64,
            _ => return None,
        };
        Some(IntType::Sized { signed, bits })
    }

    /// The smallest and largest values of the type.
    pub fn range(self) -> (i128, i128) {
        match self {
            IntType::Comptime => (i128::MIN, i128::MAX),
            IntType::Sized { signed: true, bits } => {
                let half = 1i128 << (bits - 1);
                (-half, half - 1)
            }
            IntType::Sized {
                signed: false,
                bits,
            } => (0, (1i128 << bits) - 1),
        }
    }

    /// Whether `v` is a value of the type.
    pub fn contains(self, v: i128) -> bool {
        let (lo, hi) = self.range();
        (lo..=hi).contains(&v)
    }

    /// The type both operands of a binary operation take (Zig's peer type resolution for
    /// integers): a `comptime_int` takes the other's type; two sized types take the wider
    /// one when it holds every value of the other, else there is none.
    pub fn peer(self, other: IntType) -> Option<IntType> {
        use IntType::{Comptime, Sized};
        match (self, other) {
            (Comptime, t) | (t, Comptime) => Some(t),
            (a, b) if a == b => Some(a),
            (
                Sized {
                    signed: sa,
                    bits: ba,
                },
                Sized {
                    signed: sb,
                    bits: bb,
                },
            ) => {
                let holds = |s1: bool, b1: u8, s2: bool, b2: u8| {
                    (s1 == s2 && b1 >= b2) || (s1 && !s2 && b1 > b2)
                };
                if holds(sa, ba, sb, bb) {
                    Some(self)
                } else if holds(sb, bb, sa, ba) {
                    Some(other)
                } else {
                    None
                }
            }
        }
    }
}

impl fmt::Display for IntType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IntType::Comptime => f.write_str("comptime_int"),
            IntType::Sized { signed, bits } => {
                write!(f, "{}{bits}", if *signed { 'i' } else { 'u' })
            }
        }
    }
}

/// Why an integer operation has no result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IntError {
    /// The exact result does not fit the type.
    Overflow,
    /// Division or remainder by zero.
    DivisionByZero,
    /// A shift by a negative amount or by the type's width or more.
    BadShift,
}

/// `a op b` in type `ty`, exactly, or why not. Division and remainder truncate toward zero
/// (Zig's `@divTrunc` / `@rem`); `<<` fails when a bit that is not a copy of the sign is
/// shifted out, `>>` is arithmetic.
pub fn int_op(op: BinOp, a: i128, b: i128, ty: IntType) -> Result<i128, IntError> {
    let shift_ok = |b: i128| match ty {
        IntType::Comptime => (0..128).contains(&b),
        IntType::Sized { bits, .. } => (0..i128::from(bits)).contains(&b),
    };
    let exact = match op {
        BinOp::Add => a.checked_add(b),
        BinOp::Sub => a.checked_sub(b),
        BinOp::Mul => a.checked_mul(b),
        BinOp::Div | BinOp::Rem if b == 0 => return Err(IntError::DivisionByZero),
        BinOp::Div => a.checked_div(b),
        BinOp::Rem => a.checked_rem(b),
        BinOp::BitAnd => Some(a & b),
        BinOp::BitOr => Some(a | b),
        BinOp::BitXor => Some(a ^ b),
        BinOp::Shl | BinOp::Shr if !shift_ok(b) => return Err(IntError::BadShift),
        BinOp::Shl => {
            let r = a << b;
            (r >> b == a).then_some(r)
        }
        BinOp::Shr => Some(a >> b),
        _ => None,
    };
    match exact {
        Some(v) if ty.contains(v) => Ok(v),
        _ => Err(IntError::Overflow),
    }
}
