//! `<debug>` at run time: each `trace_*` call appends an entry (the cycle, what was traced)
//! to the PE's trace buffer, an array the loader declares after the program's own memory
//! on PEs whose program imports `<debug>`; the host reads the entries back
//! ([`super::SdkRuntime::debug_trace`]) and they join the run's Chrome trace.
//!
//! An entry is four `u32` words: the cycle's low and high halves, the kind, the value's bits.
//! A PE holds [`DEBUG_ENTRIES`] entries; tracing one more is a run-time error rather than a
//! silently lost entry.

use npusim_cerebras::{ElemTy, PeMemory};

use crate::comptime::IntType;
use crate::pe::RtValue;

/// The memory array holding a PE's `<debug>` entries (`u32`: the count, then the entries).
pub const DEBUG_ARRAY: &str = "@debug.trace";
/// The entries one PE's trace buffer holds.
pub const DEBUG_ENTRIES: u32 = 64;
/// The `u32` words of the trace buffer.
pub const DEBUG_WORDS: usize = 1 + 4 * DEBUG_ENTRIES as usize;

/// The `trace_*` functions of `<debug>` and the kind each records.
const KINDS: [&str; 8] = [
    "trace_timestamp",
    "trace_bool",
    "trace_i16",
    "trace_u16",
    "trace_i32",
    "trace_u32",
    "trace_f16",
    "trace_f32",
];

/// Whether `name` is a modelled function of `<debug>`, and its number of arguments.
pub(crate) fn arity(name: &str) -> Option<usize> {
    KINDS
        .iter()
        .position(|k| *k == name)
        .map(|k| usize::from(k != 0))
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
    /// What was traced: `timestamp`, or the value with its type (`f32 1.5`, `i16 -3`).
    pub text: String,
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
        _ => match arg {
            RtValue::F32(x) => Some(x.to_bits()),
            _ => None,
        },
    };
    got.ok_or_else(|| {
        format!(
            "`{name}` takes a {} value, found {}",
            &name["trace_".len()..],
            arg.type_name()
        )
    })
}

/// Runs `trace_*` function `name` with `args` in cycle `cycle` on the PE whose memory is
/// `mem`.
pub(crate) fn trace(
    name: &str,
    args: &[RtValue],
    mem: &mut PeMemory,
    cycle: u64,
) -> Result<RtValue, String> {
    let kind = KINDS
        .iter()
        .position(|k| *k == name)
        .ok_or_else(|| format!("`{name}` of library `<debug>` is not modelled at run time yet"))?;
    let value = match args.first() {
        Some(a) => bits(name, kind, a)?,
        None => 0,
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
    let at = word + 2 * (1 + 4 * i64::from(count));
    for (k, w) in [cycle as u32, (cycle >> 32) as u32, kind as u32, value]
        .into_iter()
        .enumerate()
    {
        mem.store(at + 2 * k as i64, ElemTy::U32, w)
            .map_err(|e| e.to_string())?;
    }
    mem.store(word, ElemTy::U32, count + 1)
        .map_err(|e| e.to_string())?;
    Ok(RtValue::Void)
}

/// The entries in PE `(x, y)`'s buffer `words` (as [`DEBUG_ARRAY`] holds them), in order.
pub fn entries(x: u32, y: u32, words: &[u32]) -> Vec<DebugEntry> {
    let count = words
        .first()
        .map_or(0, |c| *c as usize)
        .min(DEBUG_ENTRIES as usize);
    words
        .get(1..)
        .unwrap_or_default()
        .chunks_exact(4)
        .take(count)
        .map(|e| {
            let v = e[3];
            let text = match e[2] {
                0 => "timestamp".to_string(),
                1 => format!("bool {}", v != 0),
                2 => format!("i16 {}", v as u16 as i16),
                3 => format!("u16 {}", v as u16),
                4 => format!("i32 {}", v as i32),
                5 => format!("u32 {v}"),
                6 => format!(
                    "f16 {}",
                    npusim_numerics::Format::F16
                        .decode(u64::from(v as u16))
                        .to_f64()
                ),
                _ => format!("f32 {:?}", f32::from_bits(v)),
            };
            DebugEntry {
                x,
                y,
                cycle: u64::from(e[0]) | (u64::from(e[1]) << 32),
                text,
            }
        })
        .collect()
}
