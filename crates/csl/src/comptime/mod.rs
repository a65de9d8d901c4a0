//! Compile-time evaluation of a `layout.csl`: params from the compiler and defaults,
//! integer, float and bool constants and arithmetic (integer overflow is an error, as Zig
//! and CSL define it at compile time), loops and branches of the `layout { }` block, and the
//! layout builtins. The result is a [`Layout`].
//!
//! Integers: a literal is a `comptime_int` (held in 128 bits here; beyond that is an
//! error); an operation on a sized type checks its result against the type's range. `/`
//! and `%` truncate toward zero. Floats: `comptime_float` is held as an f64 and `f32`
//! arithmetic rounds the exact f64 result once to f32 (innocuous for + - * /, as 53 ≥
//! 2·24 + 2); `f16` arithmetic is refused until it goes through the numerics crate.

mod error;
mod eval;
mod int;
mod layout;
mod params;
mod value;

pub use error::EvalError;
pub(crate) use eval::ConstEval;
pub use eval::{
    Arch, ComptimeConfig, EVAL_QUOTA, LayoutError, MAX_CALL_DEPTH, MAX_CONCAT_LEN, MAX_EVAL_DEPTH,
    evaluate_layout, evaluate_layout_text,
};
pub use int::{IntError, IntType, int_op};
pub use layout::{ColorRoute, ExportedName, Layout, RangeFilter, SwitchPosition, TileCode};
pub use params::{ParamsError, parse_params};
pub use value::{Dir, ModuleRef, Type, Value};
