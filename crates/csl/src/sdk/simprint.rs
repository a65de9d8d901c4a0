//! `<simprint>`: printing to the simulator's log. Each call appends its text to the PE's
//! print buffer, an array the loader declares after the program's memory on PEs whose
//! program imports `<simprint>`; the host reads the complete lines back
//! ([`super::SdkRuntime::simprint_lines`]) and `cs-python` prints them on standard error.
//! As the SDK documents, text after a PE's last newline is not printed, and an import with
//! `.enable = false` prints nothing.
//!
//! Decided where the SDK does not say: hexadecimal digits are upper case (as `fmt`'s `{X}`);
//! `print_f16` / `print_f32` print the shortest decimal that reads back as the value, with
//! at least one digit after the point (`42.0`); the buffer holds [`SIMPRINT_CHARS`]
//! characters of a PE's whole run, and printing past it is a run-time error rather than
//! lost output; lines are given PE by PE (row by row), each PE's in order.

use npusim_cerebras::{ElemTy, PeMemory};

use crate::comptime::{IntType, Value};
use crate::pe::RtValue;

/// The memory array holding a PE's printed characters (`u16`: the count, then one
/// character per word).
pub const SIMPRINT_ARRAY: &str = "@simprint.buffer";
/// The characters one PE may print in a run.
pub const SIMPRINT_CHARS: usize = 4096;
/// The `u16` words of [`SIMPRINT_ARRAY`].
pub const SIMPRINT_WORDS: usize = 2 + SIMPRINT_CHARS;

/// The modelled functions of `<simprint>` and their arity.
pub(crate) fn arity(name: &str) -> Option<usize> {
    match name {
        "print_string" | "print_u16_binary" | "print_u16_decimal" | "print_u16_hex"
        | "print_f16" | "print_u32_binary" | "print_u32_decimal" | "print_u32_hex"
        | "print_f32" => Some(1),
        _ => None,
    }
}

/// The text `name` prints for `arg`.
fn text(name: &str, arg: &RtValue) -> Result<String, String> {
    let int = |bits: u8| match arg {
        RtValue::Int {
            value,
            ty:
                IntType::Sized {
                    signed: false,
                    bits: b,
                },
        } if *b == bits => Some(*value as u64),
        RtValue::Int {
            value,
            ty: IntType::Comptime,
        } if *value >= 0 && *value < (1i128 << bits) => Some(*value as u64),
        _ => None,
    };
    let want = |t: &str| format!("`{name}` takes a {t}, found {}", arg.type_name());
    Ok(match name {
        "print_string" => match arg {
            RtValue::Comptime(Value::Str(s)) => s.split('\0').next().unwrap_or("").to_string(),
            _ => return Err(want("compile-time string")),
        },
        "print_u16_binary" => format!("{:016b}", int(16).ok_or_else(|| want("u16"))?),
        "print_u16_decimal" => format!("{}", int(16).ok_or_else(|| want("u16"))?),
        "print_u16_hex" => format!("{:04X}", int(16).ok_or_else(|| want("u16"))?),
        "print_u32_binary" => format!("{:032b}", int(32).ok_or_else(|| want("u32"))?),
        "print_u32_decimal" => format!("{}", int(32).ok_or_else(|| want("u32"))?),
        "print_u32_hex" => format!("{:08X}", int(32).ok_or_else(|| want("u32"))?),
        "print_f16" => match arg {
            RtValue::F16(b) => {
                let x = npusim_numerics::Format::F16.decode(u64::from(*b)).to_f64();
                format!("{:?}", half_shortest(x))
            }
            _ => return Err(want("f16")),
        },
        _ => match arg {
            RtValue::F32(x) => format!("{x:?}"),
            _ => return Err(want("f32")),
        },
    })
}

/// An f16 value as the f32 that prints it shortest (every f16 is an f32).
fn half_shortest(x: f64) -> f32 {
    x as f32
}

/// Runs `name` of the `<simprint>` instance imported with `params` on the PE whose memory
/// is `mem`.
pub(crate) fn print(
    name: &str,
    params: &[(String, Value)],
    args: &[RtValue],
    mem: &mut PeMemory,
) -> Result<RtValue, String> {
    let text = text(name, args.first().unwrap_or(&RtValue::Void))?;
    let enabled = !params
        .iter()
        .any(|(n, v)| n == "enable" && *v == Value::Bool(false));
    if !enabled || text.is_empty() {
        return Ok(RtValue::Void);
    }
    let word = mem
        .array(SIMPRINT_ARRAY)
        .map_err(|_| format!("`{name}` needs the program loaded as a whole program"))?
        .word_addr;
    let count = mem.load(word, ElemTy::U32).map_err(|e| e.to_string())? as usize;
    let chars: Vec<char> = text.chars().collect();
    if count + chars.len() > SIMPRINT_CHARS {
        return Err(format!(
            "the <simprint> buffer of this PE holds {SIMPRINT_CHARS} characters of a run; `{name}` would print character {}",
            SIMPRINT_CHARS + 1
        ));
    }
    for (k, c) in chars.iter().enumerate() {
        let code = u32::from(*c).min(0xffff);
        mem.store(word + 2 + (count + k) as i64, ElemTy::U16, code)
            .map_err(|e| e.to_string())?;
    }
    mem.store(word, ElemTy::U32, (count + chars.len()) as u32)
        .map_err(|e| e.to_string())?;
    Ok(RtValue::Void)
}

/// The complete lines (without their newline) in a PE's buffer `words` (as
/// [`SIMPRINT_ARRAY`] holds them as `u16`s).
pub fn lines(words: &[u16]) -> Vec<String> {
    let count = words
        .first()
        .zip(words.get(1))
        .map_or(0, |(lo, hi)| usize::from(*lo) | (usize::from(*hi) << 16))
        .min(SIMPRINT_CHARS);
    let text: String = words
        .get(2..2 + count)
        .unwrap_or_default()
        .iter()
        .map(|w| char::from_u32(u32::from(*w)).unwrap_or('\u{fffd}'))
        .collect();
    let mut out: Vec<String> = text.split('\n').map(str::to_string).collect();
    // what follows the last newline was never flushed
    out.pop();
    out
}
