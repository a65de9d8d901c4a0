//! `npusim cast`: cast the tensors of a file to another format.
//!
//! The options become an [`npusim_io::CastJob`]; reading, selecting, casting and writing are
//! `npusim_io::cast_file_with`'s. This module parses the options, shows progress and prints the
//! per-tensor summaries.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_io::cast::tally;
use npusim_io::{CastJob, Container, Durability, cast_file_with};
use npusim_numerics::{CastPolicy, Format, RoundMode};

use crate::progress::Progress;

const EXAMPLES: &str = "\
Examples:
  # f32 weights in a .npy to OCP fp8 e4m3fn (round to nearest even, overflow clamps to ±448)
  npusim cast w.npy -o w_e4m3.npy --to f8e4m3fn --saturate
  # load the result in Python:  np.load('w_e4m3.npy').view(ml_dtypes.float8_e4m3fn)

  # an ml_dtypes bfloat16 .npy (dtype '<V2') back to float32
  npusim cast act_bf16.npy -o act.npy --from bf16 --to f32

  # every floating-point tensor of a checkpoint to bf16 with round-to-odd, then one back
  npusim cast model.safetensors -o model_bf16.safetensors --to bf16 --round odd
  npusim cast model_bf16.safetensors -o fixed.safetensors --tensor lm_head.weight --to f32

  # raw bytes: 2x3x4 half values to int4 packed two per byte, stochastic rounding
  npusim cast x.bin --from f16 --shape 2,3,4 -o x_i4.bin --to i4 --packed --round hybrid --seed 7

Files:
  .npy          standard dtypes <f8 <f4 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4 map to formats, and so do
                their big-endian forms ('>f4', '>i2', '>f8', ...), swapped on read (outputs are
                always little-endian). ml_dtypes' narrow types are saved as '<V2' (bfloat16),
                '<V1' or '<f1' (float8_e5m2) and need --from. Narrow outputs are written as
                ml_dtypes writes them ('<V2', '<V1'; e5m2 as '<V1'), 4-bit one element per byte.
                With --packed a 4-bit array is a '|u1' array whose last dimension is ceil(d/2):
                each row packed two per byte, element 0 in the low nibble (a packed input's
                last dimension is read as 2k elements; give --shape if it is odd).
  .safetensors  every floating-point tensor is cast (f8e8m0 scale tensors and integer tensors are
                kept), or only the --tensor ones; other tensors and __metadata__ are kept. hif8,
                f4e1m2 and i4 are stored as U8 plus a metadata entry npusim.dtype.<tensor>.
  .bin          raw little-endian elements; needs --from and --shape. --packed: two 4-bit
                elements per byte over the whole buffer.

Policies: the default is IEEE (overflow to Inf, or NaN where the format has no Inf; integers
clamp); --saturate clamps floats to ±max too; --no-saturate also wraps integers.
The input is streamed in chunks (memory stays bounded whatever its size) into a temporary file
that is renamed at the end, so a failed or interrupted run (Ctrl-C, SIGTERM) leaves nothing
behind.";

/// Options of `npusim cast`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct CastArgs {
    /// Input file: .npy, .safetensors or raw .bin.
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// Output file: .npy or .bin for a .npy/.bin input, .safetensors for a .safetensors input.
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,

    /// Destination format: a canonical name (see `npusim formats`) or an alias
    /// (bfloat16, float8_e4m3fn, hifloat8_t, int4b_t, torch.float16, ...).
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    pub to: Format,

    /// Source element format: required for raw .bin files and for .npy files whose dtype does
    /// not say it ('<V2', '<V1', '<f1'); must match the file's element size.
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    pub from: Option<Format>,

    /// Rounding mode: rint round floor ceil trunc odd hybrid none (CAST_* spellings too).
    #[arg(long, value_name = "MODE", default_value = "rint", value_parser = parse_round)]
    pub round: RoundMode,

    /// Saturate: overflow and ±Inf clamp to ±max finite, integers clamp (NaN stays NaN).
    #[arg(long, conflicts_with = "no_saturate")]
    pub saturate: bool,

    /// Never saturate: IEEE overflow for floats, integers wrap (keep the low bits).
    #[arg(long)]
    pub no_saturate: bool,

    /// Store 4-bit formats two elements per byte, element 0 in the low nibble (on both sides).
    #[arg(long)]
    pub packed: bool,

    /// With .safetensors: cast only this tensor (repeatable). Default: every floating-point
    /// tensor.
    #[arg(long = "tensor", value_name = "NAME")]
    pub tensors: Vec<String>,

    /// Shape of a raw .bin input, e.g. 2,3,4 (or the logical shape of a packed 4-bit .npy input
    /// whose last dimension is odd).
    #[arg(long, value_name = "DIMS", value_parser = parse_shape)]
    pub shape: Option<Shape>,

    /// Seed of the per-element random thresholds of `--round hybrid` (stochastic rounding).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// fsync the output before renaming it into place, so it survives a power loss as soon as
    /// it appears (slower for big files; by default the kernel writes it back, as np.save).
    #[arg(long)]
    pub sync: bool,
}

/// A tensor shape given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape(
    /// The dimension sizes, outermost first.
    pub Vec<usize>,
);

/// Parses a format name through the library (canonical names and aliases).
fn parse_format(s: &str) -> Result<Format, String> {
    Format::parse_name(s).map_err(|e| e.to_string())
}

/// Parses a rounding-mode name through the library.
fn parse_round(s: &str) -> Result<RoundMode, String> {
    RoundMode::parse_name(s).map_err(|e| e.to_string())
}

/// Parses `2,3,4` (or `2x3x4`; empty for a scalar).
fn parse_shape(s: &str) -> Result<Shape, String> {
    let s = s.trim();
    if s.is_empty() {
        return Ok(Shape(Vec::new()));
    }
    s.split([',', 'x'])
        .map(|d| {
            d.trim()
                .parse::<usize>()
                .map_err(|_| format!("`{s}` is not a shape: expected sizes like 2,3,4"))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Shape)
}

/// Runs `npusim cast`: maps the options to a [`CastJob`], runs it with a progress bar and
/// prints one line per tensor.
pub fn run(args: CastArgs) -> Result<ExitCode> {
    let job = job_of(&args)?;
    crate::interrupt::remove_output_on_signal()?;
    let mut progress = Progress::default();
    let durability = if args.sync {
        Durability::Synced
    } else {
        Durability::Lazy
    };
    let reports = cast_file_with(&job, &args.input, &args.output, durability, &mut progress)?;
    for report in &reports {
        println!("{report}");
    }
    if job.input.is_single_tensor() {
        println!("wrote {}", args.output.display());
    } else {
        let (cast_n, kept_n) = tally(&reports);
        println!(
            "wrote {} ({cast_n} tensor(s) cast, {kept_n} left unchanged)",
            args.output.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The library job the options describe.
fn job_of(args: &CastArgs) -> Result<CastJob> {
    let policy = if args.saturate {
        CastPolicy::saturating(args.round)
    } else if args.no_saturate {
        CastPolicy::non_saturating(args.round)
    } else {
        CastPolicy::new(args.round)
    };
    Ok(CastJob {
        input: Container::of(&args.input)?,
        output: Container::of(&args.output)?,
        to: args.to,
        from: args.from,
        policy,
        seed: args.seed,
        packed: args.packed,
        tensors: args.tensors.clone(),
        shape: args.shape.as_ref().map(|s| s.0.clone()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_parse() {
        assert_eq!(parse_shape("2,3,4").unwrap(), Shape(vec![2, 3, 4]));
        assert_eq!(parse_shape("2x3").unwrap(), Shape(vec![2, 3]));
        assert_eq!(parse_shape("").unwrap(), Shape(vec![]));
        assert!(parse_shape("2,a").is_err());
    }
}
