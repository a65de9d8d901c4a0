//! The options of `npusim ascend cast` and the AscendC `Cast` call they describe (a TOML call
//! file's fields, then the flags).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use npusim_ascend::call::{Api, CastCall};
use npusim_ascend::{CastRoundMode, DType, HybridKind, Product, RegLayout, SatMode};

/// The worked examples and notes shown after the options in `--help`.
const EXAMPLES: &str = include_str!("cast_examples.txt");

/// Options of `npusim ascend cast`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES.trim_end())]
pub struct AscendCastArgs {
    /// Input .npy: the source tensor.
    #[arg(value_name = "IN")]
    pub input: PathBuf,
    /// Output .npy: the destination tensor (`-`: standard output, with the report on standard
    /// error).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
    /// TOML file describing the call; flags given here override its fields.
    #[arg(long, value_name = "FILE")]
    pub call: Option<PathBuf>,
    /// The destination's prior contents (.npy of the destination type).
    #[arg(long, value_name = "FILE")]
    pub prior: Option<PathBuf>,
    /// Product: training (Atlas training series) or 950.
    #[arg(long, value_name = "PRODUCT")]
    pub product: Option<Product>,
    /// API: local (LocalTensor, default) or reg (Ascend 950 MicroAPI; alias microapi).
    #[arg(long, value_name = "API")]
    pub api: Option<Api>,
    /// Source type (half, float, bfloat16_t, int4b_t, ...); default: the input's dtype.
    #[arg(long, value_name = "TYPE")]
    pub src: Option<DType>,
    /// Destination type.
    #[arg(long, value_name = "TYPE")]
    pub dst: Option<DType>,
    /// Round mode: CAST_NONE CAST_RINT CAST_FLOOR CAST_CEIL CAST_ROUND CAST_TRUNC CAST_ODD CAST_HYBRID
    /// (UNKNOWN for Reg API conversions that never round).
    #[arg(long, value_name = "MODE")]
    pub round: Option<CastRoundMode>,
    /// First-n API: calCount (LocalTensor); element count for the Reg API's UpdateMask.
    #[arg(long)]
    pub count: Option<u64>,
    /// Contiguous mask (LocalTensor).
    #[arg(long)]
    pub mask: Option<u64>,
    /// Bitwise mask `mask[0],mask[1]` (decimal or 0x hex; `mask[0]` holds lanes 0..63).
    #[arg(long, value_name = "LO,HI", value_parser = parse_list::<2, u64>)]
    pub mask_bits: Option<[u64; 2]>,
    /// repeatTimes (0..=255).
    #[arg(long)]
    pub repeat: Option<u32>,
    /// UnaryRepeatParams dstBlkStride,srcBlkStride,dstRepStride,srcRepStride.
    #[arg(long, value_name = "DB,SB,DR,SR", value_parser = parse_list::<4, u32>)]
    pub params: Option<[u32; 4]>,
    /// SetDeqScale value for int32_t -> half.
    #[arg(long)]
    pub deq_scale: Option<f32>,
    /// Reg API SatMode: SAT, NO_SAT or UNKNOWN.
    #[arg(long, value_name = "SAT")]
    pub sat: Option<SatMode>,
    /// Reg API RegLayout: ZERO, ONE, TWO, THREE or UNKNOWN.
    #[arg(long, value_name = "LAYOUT")]
    pub layout: Option<RegLayout>,
    /// Ascend 950 CTRL register value, both APIs (decimal or 0x hex; reset value 0x1000000000000000).
    #[arg(long, value_parser = parse_u64)]
    pub ctrl: Option<u64>,
    /// CAST_HYBRID threshold source: random or input-low-bits.
    #[arg(long, value_name = "KIND")]
    pub hybrid: Option<HybridKind>,
    /// Seed of the random CAST_HYBRID threshold.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Print every written destination index, not just ranges.
    #[arg(long)]
    pub show_lanes: bool,
}

/// A number in decimal or 0x hex.
fn parse_u64(s: &str) -> Result<u64, String> {
    let t = s.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    }
    .map_err(|_| format!("`{s}` is not a number"))
}

/// `N` comma-separated numbers (decimal or 0x hex), each fitting `T`.
fn parse_list<const N: usize, T: TryFrom<u64>>(s: &str) -> Result<[T; N], String> {
    let v = s
        .split(',')
        .map(|x| {
            let x = parse_u64(x)?;
            T::try_from(x).map_err(|_| format!("{x} is too large"))
        })
        .collect::<Result<Vec<T>, String>>()?;
    v.try_into()
        .map_err(|v: Vec<T>| format!("takes {N} comma-separated numbers, got {}", v.len()))
}

/// The call: the TOML file's fields, then the flags.
pub fn build_call(a: &AscendCastArgs) -> Result<CastCall> {
    let mut call = match &a.call {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read `{}`", path.display()))?;
            toml::from_str::<CastCall>(&text)
                .with_context(|| format!("`{}` is not a valid call description", path.display()))?
        }
        None => CastCall::default(),
    };
    fn set<T: Copy>(field: &mut T, flag: Option<T>) {
        if let Some(v) = flag {
            *field = v;
        }
    }
    fn over<T: Copy>(field: &mut Option<T>, flag: Option<T>) {
        if flag.is_some() {
            *field = flag;
        }
    }
    set(&mut call.product, a.product);
    set(&mut call.api, a.api);
    set(&mut call.round, a.round);
    set(&mut call.sat, a.sat);
    set(&mut call.layout, a.layout);
    set(&mut call.hybrid, a.hybrid);
    over(&mut call.src, a.src);
    over(&mut call.dst, a.dst);
    over(&mut call.count, a.count);
    over(&mut call.mask, a.mask);
    over(&mut call.mask_bits, a.mask_bits);
    over(&mut call.repeat, a.repeat);
    over(&mut call.params, a.params);
    over(&mut call.deq_scale, a.deq_scale);
    over(&mut call.ctrl, a.ctrl);
    over(&mut call.seed, a.seed);
    Ok(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_hex_and_decimal() {
        assert_eq!(parse_list::<2, u64>("0xff,3").unwrap(), [255, 3]);
        assert!(parse_list::<4, u32>("1,2,3").is_err());
        assert!(parse_list::<4, u32>("1,2,3,99999999999").is_err());
    }
}
