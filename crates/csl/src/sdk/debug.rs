//! `<debug>` at run time: each `trace_*` call appends an entry (the cycle, what was traced)
//! to the PE's trace buffer, an array the loader declares after the program's own memory
//! on PEs whose program imports `<debug>`; the host reads the entries back
//! ([`super::SdkRuntime::debug_trace`]) and they join the run's Chrome trace.
//!
//! An entry is five `u32` words: the cycle's low and high halves, the kind, the value's bits
//! and the instance's key. Each `@import_module("<debug>", .{ .key = "k", .buffer_size = n })`
//! is an instance whose entries the host reads back by its key
//! (`debug_util(dir).read_trace(x, y, "k")` in the shim); an instance without a key has the
//! key `""`. A string of `trace_string` and a key are kept as the FNV-1a hash of their
//! UTF-8 bytes, which the host maps back through the string literals of the PE's program.
//! A PE holds [`DEBUG_ENTRIES`] entries in all and an instance its `buffer_size` (when
//! given); tracing one more is a run-time error rather than a silently lost entry.

use npusim_cerebras::{ElemTy, PeMemory};

use crate::comptime::IntType;
use crate::pe::RtValue;

/// The memory array holding a PE's `<debug>` entries (`u32`: the count, then the entries).
pub const DEBUG_ARRAY: &str = "@debug.trace";
/// The entries one PE's trace buffer holds.
pub const DEBUG_ENTRIES: u32 = 1024;
/// The `u32` words of one entry.
const ENTRY_WORDS: usize = 5;
/// The `u32` words of the trace buffer.
pub const DEBUG_WORDS: usize = 1 + ENTRY_WORDS * DEBUG_ENTRIES as usize;

/// The `trace_*` functions of `<debug>` and the kind each records.
const KINDS: [&str; 11] = [
    "trace_timestamp",
    "trace_bool",
    "trace_i16",
    "trace_u16",
    "trace_i32",
    "trace_u32",
    "trace_f16",
    "trace_f32",
    "trace_string",
    "trace_i8",
    "trace_u8",
];

/// Whether `name` is a modelled function of `<debug>`, and its number of arguments.
pub(crate) fn arity(name: &str) -> Option<usize> {
    if name == "trace" {
        return Some(1);
    }
    KINDS
        .iter()
        .position(|k| *k == name)
        .map(|k| usize::from(k != 0))
}

/// The FNV-1a hash of `s`'s UTF-8 bytes: how entries hold strings and keys.
pub fn string_hash(s: &str) -> u32 {
    s.bytes().fold(0x811c_9dc5u32, |h, b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
}

/// Every string literal of `text` (a PE program's source) by its [`string_hash`].
pub fn strings_of(text: &str) -> std::collections::HashMap<u32, String> {
    let mut out = std::collections::HashMap::new();
    out.insert(string_hash(""), String::new());
    for t in crate::lex::lex(text).unwrap_or_default() {
        if t.tok == crate::lex::Tok::Str
            && let Some(body) = text.get(t.span.start + 1..t.span.end.saturating_sub(1))
            && let Ok(s) = crate::parse::literal::unescape(body, t.span)
        {
            out.insert(string_hash(&s), s);
        }
    }
    out
}

/// The kind `trace(x)` records for `x`'s type.
fn generic_kind(x: &RtValue) -> Result<usize, String> {
    Ok(match x {
        RtValue::Bool(_) => 1,
        RtValue::F16(_) => 6,
        RtValue::F32(_) => 7,
        RtValue::Comptime(crate::comptime::Value::Str(_)) => 8,
        RtValue::Int {
            ty: IntType::Sized { signed, bits },
            ..
        } => match (signed, bits) {
            (true, 8) => 9,
            (false, 8) => 10,
            (true, 16) => 2,
            (false, 16) => 3,
            (true, 32) => 4,
            (false, 32) => 5,
            _ => return Err(format!("`trace` takes no {}", x.type_name())),
        },
        other => {
            return Err(format!(
                "`trace` takes a bool, an integer of 8, 16 or 32 bits, f16, f32 or a string, found {}",
                other.type_name()
            ));
        }
    })
}

/// One traced value of a PE.
#[derive(Clone, Debug, PartialEq)]
pub struct DebugEntry {
    /// The PE's column in the rectangle.
    pub x: u32,
    /// The PE's row.
    pub y: u32,
    /// The simulator's cycle of the call.
    pub cycle: u64,
    /// The key of the `<debug>` instance that traced it (`""` without one).
    pub key: String,
    /// What was traced: `timestamp`, the value with its type (`f32 1.5`, `i16 -3`), or
    /// `string <text>`.
    pub text: String,
    /// The value as the host reads it back: the cycle of a timestamp, the number, or the
    /// string.
    pub value: DebugValue,
}

/// A traced value as the host reads it back.
#[derive(Clone, Debug, PartialEq)]
pub enum DebugValue {
    /// An integer (a timestamp's cycle, a bool as 0 or 1, any integer type).
    Int(i64),
    /// A float (f16 or f32, exactly).
    Float(f64),
    /// A string of `trace_string`.
    Str(String),
}

/// The bits of `arg` for `trace_*` function `name` (kind `kind`), or the error.
fn bits(name: &str, kind: usize, arg: &RtValue) -> Result<u32, String> {
    let int = |signed: bool, bits: u32| -> Option<u32> {
        match arg {
            RtValue::Int { value, ty } => {
                let ok = match ty {
                    IntType::Comptime => true,
                    IntType::Sized { signed: s, bits: b } => *s == signed && u32::from(*b) == bits,
                };
                let (lo, hi) = if signed {
                    (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
                } else {
                    (0, (1i128 << bits) - 1)
                };
                (ok && (lo..=hi).contains(value)).then_some(*value as u32)
            }
            _ => None,
        }
    };
    let got = match kind {
        1 => match arg {
            RtValue::Bool(b) => Some(u32::from(*b)),
            _ => None,
        },
        2 => int(true, 16),
        3 => int(false, 16),
        4 => int(true, 32),
        5 => int(false, 32),
        6 => match arg {
            RtValue::F16(b) => Some(u32::from(*b)),
            _ => None,
        },
        8 => match arg {
            RtValue::Comptime(crate::comptime::Value::Str(s)) => Some(string_hash(s)),
            _ => None,
        },
        9 => int(true, 8),
        10 => int(false, 8),
        _ => match arg {
            RtValue::F32(x) => Some(x.to_bits()),
            _ => None,
        },
    };
    got.ok_or_else(|| {
        format!(
            "`{name}` takes a {} value, found {}",
            name.strip_prefix("trace_").unwrap_or(name),
            arg.type_name()
        )
    })
}

/// Runs `trace_*` function `name` (or `trace`) of the instance imported with `params`,
/// with `args`, in cycle `cycle`, on the PE whose memory is `mem`.
pub(crate) fn trace(
    name: &str,
    params: &[(String, crate::comptime::Value)],
    args: &[RtValue],
    mem: &mut PeMemory,
    cycle: u64,
) -> Result<RtValue, String> {
    let kind = match (name, args.first()) {
        ("trace", Some(a)) => generic_kind(a)?,
        _ => KINDS.iter().position(|k| *k == name).ok_or_else(|| {
            format!("`{name}` of library `<debug>` is not modelled at run time yet")
        })?,
    };
    let value = match args.first() {
        Some(a) => bits(name, kind, a)?,
        None => 0,
    };
    let param = |n: &str| params.iter().find(|(p, _)| p == n).map(|(_, v)| v);
    let key = match param("key") {
        Some(crate::comptime::Value::Str(s)) => string_hash(s),
        _ => string_hash(""),
    };
    let size = match param("buffer_size") {
        Some(crate::comptime::Value::Int { value, .. }) => Some(*value),
        _ => None,
    };
    let word = mem
        .array(DEBUG_ARRAY)
        .map_err(|_| format!("`{name}` needs the program loaded as a whole program"))?
        .word_addr;
    let count = mem.load(word, ElemTy::U32).map_err(|e| e.to_string())?;
    if count >= DEBUG_ENTRIES {
        return Err(format!(
            "the <debug> trace of this PE holds {DEBUG_ENTRIES} entries; `{name}` would be entry {}",
            count + 1
        ));
    }
    // a u32 is two 16-bit memory words
    let at = |entry: u32, k: usize| word + 2 * (1 + (ENTRY_WORDS * entry as usize + k) as i64);
    if let Some(size) = size {
        let mut mine = 0i128;
        for e in 0..count {
            if mem.load(at(e, 4), ElemTy::U32).map_err(|e| e.to_string())? == key {
                mine += 1;
            }
        }
        if mine >= size {
            return Err(format!(
                "the <debug> instance `{}` was imported with buffer_size {size}; `{name}` would be entry {}",
                match param("key") {
                    Some(crate::comptime::Value::Str(s)) => s.as_str(),
                    _ => "",
                },
                mine + 1
            ));
        }
    }
    for (k, w) in [cycle as u32, (cycle >> 32) as u32, kind as u32, value, key]
        .into_iter()
        .enumerate()
    {
        mem.store(at(count, k), ElemTy::U32, w)
            .map_err(|e| e.to_string())?;
    }
    mem.store(word, ElemTy::U32, count + 1)
        .map_err(|e| e.to_string())?;
    Ok(RtValue::Void)
}

/// The entries in PE `(x, y)`'s buffer `words` (as [`DEBUG_ARRAY`] holds them), in order,
/// with strings and keys looked up in `strings` (see [`strings_of`]).
pub fn entries(
    x: u32,
    y: u32,
    words: &[u32],
    strings: &std::collections::HashMap<u32, String>,
) -> Vec<DebugEntry> {
    let count = words
        .first()
        .map_or(0, |c| *c as usize)
        .min(DEBUG_ENTRIES as usize);
    let lookup = |h: u32| {
        strings
            .get(&h)
            .cloned()
            .unwrap_or_else(|| format!("<string {h:#010x}>"))
    };
    words
        .get(1..)
        .unwrap_or_default()
        .chunks_exact(ENTRY_WORDS)
        .take(count)
        .map(|e| {
            let v = e[3];
            let cycle = u64::from(e[0]) | (u64::from(e[1]) << 32);
            let (text, value) = match e[2] {
                0 => ("timestamp".to_string(), DebugValue::Int(cycle as i64)),
                1 => (
                    format!("bool {}", v != 0),
                    DebugValue::Int(i64::from(v != 0)),
                ),
                2 => (
                    format!("i16 {}", v as u16 as i16),
                    DebugValue::Int(i64::from(v as u16 as i16)),
                ),
                3 => (
                    format!("u16 {}", v as u16),
                    DebugValue::Int(i64::from(v as u16)),
                ),
                4 => (
                    format!("i32 {}", v as i32),
                    DebugValue::Int(i64::from(v as i32)),
                ),
                5 => (format!("u32 {v}"), DebugValue::Int(i64::from(v))),
                6 => {
                    let f = npusim_numerics::Format::F16
                        .decode(u64::from(v as u16))
                        .to_f64();
                    (format!("f16 {f}"), DebugValue::Float(f))
                }
                8 => {
                    let s = lookup(v);
                    (format!("string {s}"), DebugValue::Str(s))
                }
                9 => (
                    format!("i8 {}", v as u8 as i8),
                    DebugValue::Int(i64::from(v as u8 as i8)),
                ),
                10 => (
                    format!("u8 {}", v as u8),
                    DebugValue::Int(i64::from(v as u8)),
                ),
                _ => {
                    let f = f32::from_bits(v);
                    (format!("f32 {f:?}"), DebugValue::Float(f64::from(f)))
                }
            };
            DebugEntry {
                x,
                y,
                cycle,
                key: lookup(e[4]),
                text,
                value,
            }
        })
        .collect()
}
