//! The options of `npusim ascend cast` and the AscendC `Cast` call they describe (a TOML call
//! file's fields, then the flags).

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use npusim_ascend::call::{Api, CastCall};
use npusim_ascend::{CastRoundMode, DType, HybridKind, Product, RegLayout, SatMode};

const EXAMPLES: &str = "\
Examples:
  # The \"More Samples\" example of AscendC's Cast (API reference, Atlas training series):
  # half -> int32, CAST_CEIL, contiguous mask 32, 8 repeats, UnaryRepeatParams {1, 1, 8, 4}
  npusim ascend cast examples/ascend/seed002_src.npy -o out.npy \\
      --product training --dst int32_t --round CAST_CEIL --mask 32 --repeat 8 --params 1,1,8,4

  # The same call from a file (command-line flags override its fields)
  npusim ascend cast examples/ascend/seed002_src.npy -o out.npy --call examples/ascend/seed002_mask32.toml

  # Ascend 950 Reg API (MicroAPI): float -> hifloat8_t, CAST_ROUND, layout ZERO, per-instruction NO_SAT
  npusim ascend cast x.npy -o y.npy --product 950 --api reg --src float --dst hifloat8_t \\
      --round CAST_ROUND --layout ZERO --sat NO_SAT --ctrl 0

A call file holds the same fields as TOML keys: product, api, src, dst, round, count, mask,
mask_bits = [lo, hi], repeat, params = [dstBlk, srcBlk, dstRep, srcRep], deq_scale, sat, layout,
ctrl, src_addr, dst_addr, dst_len, ub_bytes, hybrid, seed, widening_mask, training_inf_nan,
e8m0_inf_to_nan.

The input .npy holds the source tensor (its dtype gives --src unless the dtype is opaque, as
ml_dtypes' bf16/fp8/fp4/int4 files are). --prior gives the destination's contents before the
call: lanes the call does not write keep them (zeros without --prior). The output .npy holds the
destination tensor (4-bit types one element per byte, as ml_dtypes stores them).";

/// Options of `npusim ascend cast`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
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
    #[arg(long, value_name = "LO,HI")]
    pub mask_bits: Option<String>,
    /// repeatTimes (0..=255).
    #[arg(long)]
    pub repeat: Option<u32>,
    /// UnaryRepeatParams dstBlkStride,srcBlkStride,dstRepStride,srcRepStride.
    #[arg(long, value_name = "DB,SB,DR,SR")]
    pub params: Option<String>,
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
    #[arg(long)]
    pub ctrl: Option<String>,
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
fn parse_u64(s: &str) -> Result<u64> {
    let t = s.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    }
    .with_context(|| format!("`{s}` is not a number"))
}

/// `N` comma-separated numbers (decimal or 0x hex), each fitting `T`.
fn parse_list<const N: usize, T: TryFrom<u64>>(s: &str, what: &str) -> Result<[T; N]> {
    let v: Vec<u64> = s.split(',').map(parse_u64).collect::<Result<_>>()?;
    let v: Vec<T> = v
        .into_iter()
        .map(|x| T::try_from(x).map_err(|_| anyhow::anyhow!("{what}: {x} is too large")))
        .collect::<Result<_>>()?;
    v.try_into().map_err(|v: Vec<T>| {
        anyhow::anyhow!("{what} takes {N} comma-separated numbers, got {}", v.len())
    })
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
    set(&mut call.product, a.product);
    set(&mut call.api, a.api);
    set(&mut call.round, a.round);
    set(&mut call.sat, a.sat);
    set(&mut call.layout, a.layout);
    set(&mut call.hybrid, a.hybrid);
    if a.src.is_some() {
        call.src = a.src;
    }
    if a.dst.is_some() {
        call.dst = a.dst;
    }
    if a.count.is_some() {
        call.count = a.count;
    }
    if a.mask.is_some() {
        call.mask = a.mask;
    }
    if let Some(b) = &a.mask_bits {
        call.mask_bits = Some(parse_list::<2, u64>(b, "--mask-bits")?);
    }
    if a.repeat.is_some() {
        call.repeat = a.repeat;
    }
    if let Some(p) = &a.params {
        call.params = Some(parse_list::<4, u32>(p, "--params")?);
    }
    if a.deq_scale.is_some() {
        call.deq_scale = a.deq_scale;
    }
    if let Some(c) = &a.ctrl {
        call.ctrl = Some(parse_u64(c)?);
    }
    if a.seed.is_some() {
        call.seed = a.seed;
    }
    Ok(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_parse_hex_and_decimal() {
        assert_eq!(parse_list::<2, u64>("0xff,3", "x").unwrap(), [255, 3]);
        assert!(parse_list::<4, u32>("1,2,3", "--params").is_err());
        assert!(parse_list::<4, u32>("1,2,3,99999999999", "--params").is_err());
    }
}
