//! Arguments of `launch(name, *args)`: the host writes them to a small per-PE array before
//! it starts the exported function, which takes each as its parameter.
//!
//! The SDK's host API passes a launched function's arguments by value, in order, as the
//! function declares its parameters (`runner.launch("f", np.int16(3), np.float32(0.5))`).
//! Decided here: a typed argument (a numpy scalar: int16, uint16, int32, uint32, float16,
//! float32, bool) must be of its parameter's type; a plain Python int or float is converted
//! to the parameter's type as a literal is (an int that does not fit, or a float for an
//! integer parameter, is an error at the function, naming the argument). At most
//! [`MAX_LAUNCH_ARGS`] arguments; their count must be the function's parameter count.
//!
//! The array holds the count, then three `u32` words per argument: its kind, then the low
//! and high halves of its 64 bits.

use crate::comptime::IntType;
use crate::pe::RtValue;

/// The memory array holding the arguments of the function being launched.
pub const LAUNCH_ARGS_ARRAY: &str = "@memcpy.launch_args";
/// The most arguments one launch passes.
pub const MAX_LAUNCH_ARGS: usize = 16;
/// The `u32` words of [`LAUNCH_ARGS_ARRAY`].
pub const LAUNCH_ARGS_WORDS: usize = 1 + 3 * MAX_LAUNCH_ARGS;

/// One argument of `launch`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum LaunchArg {
    /// A plain integer (converted to the parameter's type).
    Int(i64),
    /// A plain float (converted to the parameter's type).
    Float(f64),
    /// An `i16`.
    I16(i16),
    /// A `u16`.
    U16(u16),
    /// An `i32`.
    I32(i32),
    /// A `u32`.
    U32(u32),
    /// An `f16`, as its bits.
    F16(u16),
    /// An `f32`.
    F32(f32),
    /// A `bool`.
    Bool(bool),
}

impl LaunchArg {
    /// The kind word and the 64 bits of the argument.
    fn encode(self) -> (u32, u64) {
        match self {
            LaunchArg::Int(v) => (1, v as u64),
            LaunchArg::Float(v) => (2, v.to_bits()),
            LaunchArg::I16(v) => (3, v as u64),
            LaunchArg::U16(v) => (4, u64::from(v)),
            LaunchArg::I32(v) => (5, v as u64),
            LaunchArg::U32(v) => (6, u64::from(v)),
            LaunchArg::F16(v) => (7, u64::from(v)),
            LaunchArg::F32(v) => (8, u64::from(v.to_bits())),
            LaunchArg::Bool(v) => (9, u64::from(v)),
        }
    }

    /// Parses the bridge's text of an argument: `i:<int>`, `f:<float>`, `i16:<n>`,
    /// `u16:<n>`, `i32:<n>`, `u32:<n>`, `f16:<bits>`, `f32:<bits>`, `b:0|1`.
    pub fn parse(s: &str) -> Option<LaunchArg> {
        let (kind, v) = s.split_once(':')?;
        Some(match kind {
            "i" => LaunchArg::Int(v.parse().ok()?),
            "f" => LaunchArg::Float(v.parse().ok()?),
            "i16" => LaunchArg::I16(v.parse().ok()?),
            "u16" => LaunchArg::U16(v.parse().ok()?),
            "i32" => LaunchArg::I32(v.parse().ok()?),
            "u32" => LaunchArg::U32(v.parse().ok()?),
            "f16" => LaunchArg::F16(v.parse().ok()?),
            "f32" => LaunchArg::F32(f32::from_bits(v.parse().ok()?)),
            "b" => LaunchArg::Bool(v == "1"),
            _ => return None,
        })
    }
}

/// The words of [`LAUNCH_ARGS_ARRAY`] holding `args`.
pub fn launch_words(args: &[LaunchArg]) -> Vec<u32> {
    let mut w = vec![0u32; LAUNCH_ARGS_WORDS];
    w[0] = args.len() as u32;
    for (i, a) in args.iter().take(MAX_LAUNCH_ARGS).enumerate() {
        let (kind, bits) = a.encode();
        w[1 + 3 * i] = kind;
        w[2 + 3 * i] = bits as u32;
        w[3 + 3 * i] = (bits >> 32) as u32;
    }
    w
}

/// The arguments `words` hold, as values (`None` if the words are not arguments).
pub(crate) fn launch_values(words: &[u32]) -> Option<Vec<RtValue>> {
    let n = (*words.first()? as usize).min(MAX_LAUNCH_ARGS);
    let sized = |signed: bool, bits: u8, value: i128| RtValue::Int {
        value,
        ty: IntType::Sized { signed, bits },
    };
    (0..n)
        .map(|i| {
            let kind = *words.get(1 + 3 * i)?;
            let bits =
                u64::from(*words.get(2 + 3 * i)?) | (u64::from(*words.get(3 + 3 * i)?) << 32);
            Some(match kind {
                1 => RtValue::Int {
                    value: i128::from(bits as i64),
                    ty: IntType::Comptime,
                },
                2 => RtValue::ComptimeFloat(f64::from_bits(bits)),
                3 => sized(true, 16, i128::from(bits as u16 as i16)),
                4 => sized(false, 16, i128::from(bits as u16)),
                5 => sized(true, 32, i128::from(bits as u32 as i32)),
                6 => sized(false, 32, i128::from(bits as u32)),
                7 => RtValue::F16(bits as u16),
                8 => RtValue::F32(f32::from_bits(bits as u32)),
                9 => RtValue::Bool(bits != 0),
                _ => return None,
            })
        })
        .collect()
}
