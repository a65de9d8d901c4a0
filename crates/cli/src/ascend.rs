//! `npusim ascend cast`: run one AscendC `Cast` call, described on the command line or in a
//! small TOML file, over an input .npy, write the destination tensor as .npy and say which
//! destination lanes the call wrote.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use npusim_ascend::call::{Api, CallOutcome, CastCall, run_call};
use npusim_ascend::{CastRoundMode, DType, HybridKind, Product, RegLayout, SatMode};
use npusim_numerics::{BulkOptions, CastPolicy, Format, Layout, Storage, cast_elements};

use npusim_io::{Elements, IoError, npy};

const EXAMPLES: &str = "\
Examples:
  # Seed 002: half -> int32, CAST_CEIL, contiguous mask 32, 8 repeats, {1, 1, 8, 4}
  npusim ascend cast examples/ascend/seed002_src.npy -o out.npy \\
      --product training --dst int32_t --round CAST_CEIL --mask 32 --repeat 8 --params 1,1,8,4

  # The same call from a file (command-line flags override its fields)
  npusim ascend cast examples/ascend/seed002_src.npy -o out.npy --call examples/ascend/seed002_mask32.toml

  # Ascend 950 Reg API: float -> hifloat8_t, CAST_ROUND, layout ZERO, per-instruction NO_SAT
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

/// `npusim ascend ...`
#[derive(Debug, Args)]
pub struct AscendArgs {
    /// What to run.
    #[command(subcommand)]
    pub command: AscendCommand,
}

/// Subcommands of `npusim ascend`.
#[derive(Debug, Subcommand)]
pub enum AscendCommand {
    /// Run one AscendC Cast call (LocalTensor API or Ascend 950 Reg API) over a .npy input.
    Cast(Box<AscendCastArgs>),
}

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

/// Runs `npusim ascend ...`.
pub fn run(args: AscendArgs) -> Result<ExitCode> {
    match args.command {
        AscendCommand::Cast(a) => cast(&a),
    }
}

fn parse_u64(s: &str) -> Result<u64> {
    let t = s.trim();
    match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(h, 16),
        None => t.parse(),
    }
    .with_context(|| format!("`{s}` is not a number"))
}

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
fn build_call(a: &AscendCastArgs) -> Result<CastCall> {
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

/// Reads an .npy tensor as AscendC stores it (4-bit types packed two per byte). `dtype` is the
/// type to read it as, if one was given, with the option or field that gave it (named in the
/// message when the file's element size disagrees).
fn read_tensor(path: &Path, dtype: Option<(DType, &str)>) -> Result<(DType, Vec<u8>)> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    let array = npy::parse(&bytes).with_context(|| format!("reading `{}`", path.display()))?;
    let read_as = npy::element_format(&array, dtype.map(|(t, _)| t.format()));
    let format = match (read_as, dtype) {
        (Ok(f), _) => f,
        (
            Err(IoError::NpyFromSize {
                from_bytes,
                descr,
                file_bytes,
                ..
            }),
            Some((t, given_by)),
        ) => {
            bail!(
                "reading `{}`: {given_by} {t} has {from_bytes}-byte elements but the file's dtype '{descr}' has {file_bytes}-byte elements",
                path.display()
            );
        }
        (Err(e), _) => {
            return Err(anyhow::Error::from(e).context(format!("reading `{}`", path.display())));
        }
    };
    // A standard dtype says what the elements are: another type of the same width is refused,
    // never read bit for bit (an f32 1.0 is not the int32 1065353216). Only a dtype that does
    // not say (`<V2`, `<V1`) takes the type the call names.
    if let (Some((t, given_by)), npy::NpyDtype::Standard(f)) = (dtype, &array.dtype)
        && format != *f
    {
        let held = DType::from_format(*f).map_or_else(|| f.to_string(), |d| d.to_string());
        bail!(
            "reading `{}`: {given_by} {t}, but the file's dtype '{}' holds {held} elements (npusim does not reinterpret another type's bits)",
            path.display(),
            array.descr
        );
    }
    let dtype = DType::from_format(format).with_context(|| {
        format!(
            "`{}` holds {format} elements, which AscendC has no type for",
            path.display()
        )
    })?;
    let elements = npy::elements(&array, format, &array.shape, false)
        .with_context(|| format!("reading `{}`", path.display()))?;
    Ok((dtype, to_storage(&elements, Storage::native(format))?))
}

/// Re-lays elements out in `storage` (packs or unpacks 4-bit elements).
fn to_storage(e: &Elements<'_>, storage: Storage) -> Result<Vec<u8>> {
    if e.storage == storage {
        return Ok(e.bytes.to_vec());
    }
    let mut out = vec![0u8; storage.bytes_for(e.count)];
    cast_elements(
        &e.bytes,
        e.storage,
        &mut out,
        storage,
        e.count,
        &CastPolicy::default(),
        &BulkOptions::default(),
    )?;
    Ok(out)
}

/// `0-31, 64-95, ...`
fn ranges(idx: &[usize]) -> String {
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < idx.len() {
        let start = idx[i];
        let mut end = start;
        while i + 1 < idx.len() && idx[i + 1] == end + 1 {
            i += 1;
            end = idx[i];
        }
        out.push(if start == end {
            format!("{start}")
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    out.join(", ")
}

fn cast(a: &AscendCastArgs) -> Result<ExitCode> {
    let mut call = build_call(a)?;
    let Some(dst) = call.dst else {
        bail!("no destination type: give --dst (or dst = \"...\" in the call file)");
    };
    let src_given_by = if a.src.is_some() {
        "--src"
    } else {
        "`src =` in the call file"
    };
    let (src, input) = read_tensor(&a.input, call.src.map(|t| (t, src_given_by)))?;
    call.src = Some(src);
    let prior = match &a.prior {
        Some(p) => {
            let dst_given_by = if a.dst.is_some() {
                "--prior must hold the --dst type:"
            } else {
                "--prior must hold the type of `dst =` in the call file:"
            };
            let (t, bytes) = read_tensor(p, Some((dst, dst_given_by)))?;
            if t != dst {
                bail!("--prior holds {t} elements but the destination type is {dst}");
            }
            Some(bytes)
        }
        None => None,
    };
    let out: CallOutcome =
        run_call(&call, &input, prior.as_deref()).map_err(anyhow::Error::from)?;
    let format: Format = out.dst_dtype.format();
    let elements = Elements {
        storage: Storage::native(format),
        count: out.dst_len,
        bytes: out.dst.as_slice().into(),
    };
    // .npy output: 4-bit types one element per byte, as ml_dtypes stores them.
    let file_storage = Storage::new(format, Layout::Unpacked).unwrap_or(Storage::native(format));
    let bytes = to_storage(&elements, file_storage)?;
    let file_elements = Elements {
        storage: file_storage,
        count: out.dst_len,
        bytes: bytes.into(),
    };
    let mut bytes = Vec::new();
    npy::write(&mut bytes, &file_elements, &[out.dst_len], false, false)?;
    crate::output::write_output(&a.output, |w| w.write_all(&bytes))?;
    let written = if a.show_lanes {
        format!("{:?}", out.written)
    } else {
        ranges(&out.written)
    };
    let report = format!(
        "{}written: {written}\noutput: {}\n",
        summary(&out, src),
        a.output.display()
    );
    if a.output.as_os_str() == "-" {
        // Standard output holds the .npy alone; the report goes to standard error.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), report.as_bytes());
    } else {
        crate::output::emit(&report)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The first line of the report: product, API (as the call ran it), types, steps, lanes.
fn summary(out: &CallOutcome, src: DType) -> String {
    format!(
        "{} {} Cast {} -> {}: {} {}, wrote {} of {} destination elements\n",
        out.product,
        out.api.title(),
        src,
        out.dst_dtype,
        out.steps,
        out.api.step_unit(),
        out.written.len(),
        out.dst_len,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_compress_runs() {
        assert_eq!(ranges(&[0, 1, 2, 5, 7, 8]), "0-2, 5, 7-8");
        assert_eq!(ranges(&[]), "");
    }

    #[test]
    fn lists_parse_hex_and_decimal() {
        assert_eq!(parse_list::<2, u64>("0xff,3", "x").unwrap(), [255, 3]);
        assert!(parse_list::<4, u32>("1,2,3", "--params").is_err());
        assert!(parse_list::<4, u32>("1,2,3,99999999999", "--params").is_err());
    }
}
