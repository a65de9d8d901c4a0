//! The SDK libraries a PE program calls at run time, modelled natively: what
//! `module.function(...)` does when `module` is an `@import_module("<...>")`.
//!
//! * `<memcpy/memcpy>` (and the older `<memcpy_multi/memcpy>`): `unblock_cmd_stream()` marks
//!   the PE's command stream unblocked, which the host's next command waits for
//!   ([`super::SdkRuntime`]).
//! * `<layout>`: `get_x_coord()` and `get_y_coord()`, the PE's place in the program's
//!   rectangle (`u16`).
//!
//! The per-PE state lives in small arrays the whole-program loader declares after the
//! program's own (so they move none of its addresses): [`CMD_STREAM_ARRAY`],
//! [`COORD_ARRAY`]. A program loaded without them (a single PE run by hand) still runs:
//! `unblock_cmd_stream` then does nothing, and the coordinates are an error.

use npusim_cerebras::{ElemTy, PeMemory};

use crate::comptime::{EvalError, IntType, ModuleRef, Type};
use crate::pe::RtValue;
use crate::span::Span;

/// The memory array holding a PE's command-stream state (`u32`: 1 when unblocked).
pub const CMD_STREAM_ARRAY: &str = "@memcpy.cmd_stream";
/// The memory array holding a PE's `(x, y)` in the rectangle (`[2]u16`).
pub const COORD_ARRAY: &str = "@layout.coords";

/// The libraries whose run-time functions are modelled, and each function's arity and
/// result type.
fn signature(path: &str, name: &str) -> Option<(usize, Type)> {
    let u16_t = Type::Int(IntType::Sized {
        signed: false,
        bits: 16,
    });
    match (path, name) {
        ("<memcpy/memcpy>" | "<memcpy_multi/memcpy>", "unblock_cmd_stream") => {
            Some((0, Type::Void))
        }
        ("<layout>", "get_x_coord" | "get_y_coord") => Some((0, u16_t)),
        _ => None,
    }
}

/// Type-checks a call of library function `name` of `module` with `args` arguments.
pub(crate) fn check_library_call(
    module: &ModuleRef,
    name: &str,
    args: usize,
    span: Span,
) -> Result<Option<Type>, EvalError> {
    let Some((arity, ty)) = signature(&module.path, name) else {
        return Err(EvalError::new(
            span,
            format!(
                "`{name}` of library `{}` is not modelled at run time yet",
                module.path
            ),
        ));
    };
    if args != arity {
        return Err(EvalError::new(
            span,
            format!("`{name}` takes {arity} arguments, found {args}"),
        ));
    }
    Ok(Some(ty))
}

/// Runs library function `name` of `module` on the PE whose memory is `mem`.
pub(crate) fn library_call(
    module: &ModuleRef,
    name: &str,
    args: &[RtValue],
    mem: &mut PeMemory,
) -> Result<RtValue, String> {
    if signature(&module.path, name).is_none() {
        return Err(format!(
            "`{name}` of library `{}` is not modelled at run time yet",
            module.path
        ));
    }
    if !args.is_empty() {
        return Err(format!("`{name}` takes 0 arguments, found {}", args.len()));
    }
    match name {
        "unblock_cmd_stream" => {
            if let Ok(a) = mem.array(CMD_STREAM_ARRAY) {
                let word = a.word_addr;
                mem.store(word, ElemTy::U32, 1).map_err(|e| e.to_string())?;
            }
            Ok(RtValue::Void)
        }
        _ => {
            let word = mem
                .array(COORD_ARRAY)
                .map_err(|_| {
                    format!("`{name}` needs the program loaded as a whole program (its layout)")
                })?
                .word_addr;
            let k = i64::from(name == "get_y_coord");
            let bits = mem.load(word + k, ElemTy::U16).map_err(|e| e.to_string())?;
            Ok(RtValue::Int {
                value: i128::from(bits),
                ty: IntType::Sized {
                    signed: false,
                    bits: 16,
                },
            })
        }
    }
}
