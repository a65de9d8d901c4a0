//! The SDK libraries a PE program calls at run time, modelled natively: what
//! `module.function(...)` does when `module` is an `@import_module("<...>")`.
//!
//! * `<memcpy/memcpy>` (and the older `<memcpy_multi/memcpy>`): `unblock_cmd_stream()` marks
//!   the PE's command stream unblocked, which the host's next command waits for
//!   ([`super::SdkRuntime`]).
//! * `<layout>`: `get_x_coord()` and `get_y_coord()`, the PE's place in the program's
//!   rectangle (`u16`).
//! * `<time>`: the timestamp counter is the simulator's cycle counter. `get_timestamp(p)`
//!   writes the cycle the call runs in to the [`TSC_SIZE_WORDS`] `u16` words at `p`, low 16
//!   bits first (48 bits, as the SDK's three-word buffers hold); `enable_tsc()` and
//!   `disable_tsc()` are accepted and change nothing (the counter always runs: decided so
//!   that a program reading it without enabling it sees cycles rather than zeros). At
//!   compile time, `tsc_size_words` is 3.
//! * `<math>`: `sqrt_f32(x)` and `sqrt_f16(x)`, the square root rounded once (to nearest,
//!   ties to even) through npusim-numerics from its f64 value, which is exact enough for a
//!   square root (53 ≥ 2·24 + 2).
//! * `<debug>`: `trace_timestamp()` and `trace_bool/i16/u16/i32/u32/f16/f32(v)` append an
//!   entry to the PE's trace buffer (see `debug`).
//! * `<simprint>`: `print_string` and the `print_u16/u32_*`, `print_f16`, `print_f32`
//!   functions append to the PE's print buffer (see `simprint`).
//! * `<control>`: `encode_control_task_payload(id)`, the payload of a control wavelet that
//!   starts control task `id` where it arrives: `id << 16`, the simulator's control-wavelet
//!   layout (the SDK does not publish the hardware's; its switch commands are not modelled).
//! * At compile time, a field of an imported library is one of the params it was imported
//!   with (`sys_mod.LAUNCH` of an import given `.LAUNCH = ...`, `sys_mod.width`), as a CSL
//!   module's params are its fields; `<time>`'s `tsc_size_words` is 3.
//! * `<random>`: `set_global_prng_seed`, `random_f16`, `random_f32`, `random_pow_u32` and
//!   `random_normal_f32` over the PE's `@random16` generator (see `random`).
//!
//! The per-PE state lives in small arrays the whole-program loader declares after the
//! program's own (so they move none of its addresses): [`CMD_STREAM_ARRAY`],
//! [`COORD_ARRAY`], `random::RANDOM_ARRAY`. A program loaded without them (a single PE run by hand) still runs:
//! `unblock_cmd_stream` then does nothing, and the coordinates are an error.

use npusim_cerebras::{ElemTy, PeMemory};
use npusim_numerics::{CastPolicy, Exact, Format, RoundMode, round_exact};

use crate::comptime::{EvalError, IntType, ModuleRef, Type, Value};
use crate::pe::RtValue;
use crate::span::Span;

/// The memory array holding a PE's command-stream state (`u32`: 1 when unblocked).
pub const CMD_STREAM_ARRAY: &str = "@memcpy.cmd_stream";
/// The memory array holding a PE's `(x, y)` in the rectangle (`[2]u16`).
pub const COORD_ARRAY: &str = "@layout.coords";
/// The `u16` words of a `<time>` timestamp (`tsc_size_words`).
pub const TSC_SIZE_WORDS: i64 = 3;

/// A compile-time field `name` of library `module` (`timestamp.tsc_size_words`), or the
/// error naming it.
pub(crate) fn library_field(module: &ModuleRef, name: &str) -> Result<Value, String> {
    match (module.path.as_str(), name) {
        ("<time>", "tsc_size_words") => Ok(Value::comptime_int(i128::from(TSC_SIZE_WORDS))),
        // a library's params are its fields (`sys_mod.LAUNCH` of an import given `.LAUNCH`)
        (path, _) => module
            .params
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .ok_or_else(|| {
                format!("library `{path}` has no compile-time field `{name}` modelled (nor a param of that name given to its import)")
            }),
    }
}

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
        ("<time>", "enable_tsc" | "disable_tsc") => Some((0, Type::Void)),
        ("<time>", "get_timestamp") => Some((1, Type::Void)),
        ("<math>", "sqrt_f32") => Some((1, Type::F32)),
        ("<math>", "sqrt_f16") => Some((1, Type::F16)),
        ("<random>", name) => super::random::arity(name).map(|n| {
            let ty = match name {
                "set_global_prng_seed" => Type::Void,
                "random_f16" => Type::F16,
                "random_pow_u32" => Type::Int(IntType::Sized {
                    signed: false,
                    bits: 32,
                }),
                _ => Type::F32,
            };
            (n, ty)
        }),
        ("<debug>", name) => super::debug::arity(name).map(|n| (n, Type::Void)),
        ("<simprint>", name) => super::simprint::arity(name).map(|n| (n, Type::Void)),
        ("<control>", "encode_control_task_payload") => Some((
            1,
            Type::Int(IntType::Sized {
                signed: false,
                bits: 32,
            }),
        )),
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

/// `x` rounded once to nearest (ties to even) in `format`, as its bits.
pub(crate) fn round_to(x: f64, format: Format) -> u64 {
    round_exact(
        &Exact::from_f64(x),
        format,
        &CastPolicy::new(RoundMode::Rint),
        0,
    )
    .code
}

/// `sqrt_f32` / `sqrt_f16` of `arg`.
fn sqrt(name: &str, arg: &RtValue) -> Result<RtValue, String> {
    match (name, arg) {
        ("sqrt_f32", RtValue::F32(x)) => Ok(RtValue::F32(f32::from_bits(round_to(
            f64::from(*x).sqrt(),
            Format::F32,
        ) as u32))),
        ("sqrt_f32", RtValue::ComptimeFloat(x)) => {
            // a literal argument is an f32 first, as Zig coerces it
            let x = f32::from_bits(round_to(*x, Format::F32) as u32);
            sqrt(name, &RtValue::F32(x))
        }
        ("sqrt_f16", RtValue::F16(b)) => {
            let x = Format::F16.decode(u64::from(*b)).to_f64();
            Ok(RtValue::F16(round_to(x.sqrt(), Format::F16) as u16))
        }
        (_, other) => Err(format!(
            "`{name}` takes a {} argument, found {}",
            if name == "sqrt_f32" { "f32" } else { "f16" },
            other.type_name()
        )),
    }
}

/// `get_timestamp(p)`: the 48-bit cycle `cycle` into the three `u16` words at `p`.
fn get_timestamp(arg: &RtValue, mem: &mut PeMemory, cycle: u64) -> Result<RtValue, String> {
    let RtValue::Ptr(p) = arg else {
        return Err(format!(
            "`get_timestamp` takes a pointer to [{TSC_SIZE_WORDS}]u16, found {}",
            arg.type_name()
        ));
    };
    if p.elem != ElemTy::U16 {
        return Err(format!(
            "`get_timestamp` takes a pointer to [{TSC_SIZE_WORDS}]u16, found a pointer into `{}` of another element type",
            p.array
        ));
    }
    let a = mem.array(&p.array).map_err(|e| e.to_string())?;
    let (word, len) = (a.word_addr, a.elements());
    if p.index < 0 || p.index as u64 + TSC_SIZE_WORDS as u64 > len {
        return Err(format!(
            "`get_timestamp` writes {TSC_SIZE_WORDS} u16 words at element {} of `{}`, which has {len}",
            p.index, p.array
        ));
    }
    for k in 0..TSC_SIZE_WORDS {
        let bits = ((cycle >> (16 * k)) & 0xffff) as u32;
        mem.store(word + p.index + k, ElemTy::U16, bits)
            .map_err(|e| e.to_string())?;
    }
    Ok(RtValue::Void)
}

/// Runs library function `name` of `module` on the PE whose memory is `mem`, in simulator
/// cycle `cycle`.
pub(crate) fn library_call(
    module: &ModuleRef,
    name: &str,
    args: &[RtValue],
    mem: &mut PeMemory,
    cycle: u64,
) -> Result<RtValue, String> {
    let Some((arity, _)) = signature(&module.path, name) else {
        return Err(format!(
            "`{name}` of library `{}` is not modelled at run time yet",
            module.path
        ));
    };
    if args.len() != arity {
        return Err(format!(
            "`{name}` takes {arity} arguments, found {}",
            args.len()
        ));
    }
    match name {
        "enable_tsc" | "disable_tsc" => Ok(RtValue::Void),
        "get_timestamp" => get_timestamp(&args[0], mem, cycle),
        "sqrt_f32" | "sqrt_f16" => sqrt(name, &args[0]),
        _ if module.path == "<random>" => super::random::call(name, args, mem),
        "encode_control_task_payload" => match &args[0] {
            // the simulator's control wavelet names its task in bits 16..=21
            RtValue::Comptime(crate::comptime::Value::ControlTaskId(n)) => Ok(RtValue::Int {
                value: i128::from(*n) << 16,
                ty: IntType::Sized {
                    signed: false,
                    bits: 32,
                },
            }),
            other => Err(format!(
                "`encode_control_task_payload` takes a control_task_id, found {}",
                other.type_name()
            )),
        },
        _ if module.path == "<simprint>" => super::simprint::print(name, &module.params, args, mem),
        _ if module.path == "<debug>" => {
            super::debug::trace(name, &module.params, args, mem, cycle)
        }
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
