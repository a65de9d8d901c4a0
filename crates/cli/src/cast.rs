//! `npusim cast`: cast the tensors of a file to another format.
//!
//! The options become an [`npusim_io::CastJob`]; reading, selecting, casting and writing are
//! `npusim_io::cast_file_with`'s (`cast_reader`'s for pipes, `cast::preview`'s for
//! `--dry-run`). This module parses the options, shows progress and prints the per-tensor
//! summaries, warnings and statistics.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_io::cast::{preview, tally};
use npusim_io::{
    CastJob, CastProgress, Container, Durability, IoError, NoProgress, TensorReport,
    cast_file_with, cast_reader, write_atomic_with,
};
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

  # the MLP weights of every layer but the down projections to fp4: first see what would
  # happen, then cast and print the error statistics (max abs/rel error, RMSE, SQNR, counts)
  npusim cast model.safetensors -o m.safetensors --to f4e2m1 \
      --tensor 'model.layers.*.mlp.*' --exclude '*.down_proj.*' --dry-run
  npusim cast model.safetensors -o m.safetensors --to f4e2m1 \
      --tensor 'model.layers.*.mlp.*' --exclude '*.down_proj.*' --stats

  # pipes: '-' is standard input / output (a .npy unless --format says otherwise)
  cat w.npy | npusim cast - -o - --to bf16 -q > w_bf16.npy

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
                kept), or only those --tensor names or globs pick ('model.layers.*.mlp.*'),
                minus --exclude ones; other tensors and __metadata__ are kept. --dry-run lists
                what would become what, reading only the header. hif8,
                f4e1m2 and i4 are stored as U8 plus a metadata entry npusim.dtype.<tensor>.
  .bin          raw little-endian elements; needs --from and --shape. --packed: two 4-bit
                elements per byte over the whole buffer.

Policies: the default is IEEE (overflow to Inf, or NaN where the format has no Inf, or ±max
where it has neither, as fp4 and fp6; integers clamp); --saturate clamps floats to ±max too;
--no-saturate also wraps integers.
The input is streamed in chunks (memory stays bounded whatever its size; standard input is read
into memory first) into a temporary file that is renamed at the end, so a failed or interrupted
run (Ctrl-C, SIGTERM) leaves nothing behind. Standard output is written chunk by chunk as the
cast goes (with --fail-on-nan it is held back until the cast has passed).";

/// Options of `npusim cast`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct CastArgs {
    /// Input file: .npy, .safetensors or raw .bin; `-` reads standard input (a .npy unless
    /// --format says otherwise).
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// Output file: .npy or .bin for a .npy/.bin input, .safetensors for a .safetensors input;
    /// `-` writes standard output (the per-tensor lines then go to standard error).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,

    /// File type of `-` and of paths whose extension is not .npy, .safetensors, .bin or .raw.
    #[arg(long, value_name = "TYPE", value_parser = ["npy", "safetensors", "raw"])]
    pub format: Option<String>,

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

    /// With .safetensors: cast only the tensors this name or glob matches (repeatable; quote
    /// globs: 'model.layers.*.mlp.*'). Default: every floating-point tensor.
    #[arg(long = "tensor", value_name = "GLOB")]
    pub tensors: Vec<String>,

    /// With .safetensors: never cast the tensors this name or glob matches (repeatable; wins
    /// over --tensor).
    #[arg(long = "exclude", value_name = "GLOB")]
    pub exclude: Vec<String>,

    /// List what would be cast to what (dtype, shape, bytes in and out), reading only the
    /// header; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Allow the output path to be the input path (the input is replaced when the cast ends).
    #[arg(long)]
    pub force: bool,

    /// Fail, writing nothing, if a finite input becomes NaN or Inf (default: warn). With `-o -`
    /// the output is held in memory until the cast has passed.
    #[arg(long)]
    pub fail_on_nan: bool,

    /// Compute error statistics per tensor and in total during the cast (max absolute and
    /// relative error, RMSE, SQNR, exact / flushed-to-zero / saturated / NaN / Inf counts)
    /// and print them as a table.
    #[arg(long)]
    pub stats: bool,

    /// Print one JSON document on standard output (tensors, counts, error statistics) instead
    /// of text; implies --stats.
    #[arg(long, conflicts_with = "quiet")]
    pub json: bool,

    /// Print nothing but errors (no per-tensor lines, warnings or progress bar).
    #[arg(short, long)]
    pub quiet: bool,

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
    if args.dry_run {
        return dry_run(&job, &args);
    }
    check_not_in_place(&args)?;
    if args.json && is_stdio(&args.output) {
        anyhow::bail!("--json prints on standard output, which `-o -` already uses for the data");
    }
    let mut warnings = option_warnings(&args);
    crate::interrupt::remove_output_on_signal()?;
    let mut bar = Progress::default();
    let progress: &mut dyn CastProgress = if args.quiet {
        &mut NoProgress
    } else {
        &mut bar
    };
    let durability = if args.sync {
        Durability::Synced
    } else {
        Durability::Lazy
    };
    let reports = if is_stdio(&args.input) {
        let bytes = read_stdin()?;
        let len = bytes.len() as u64;
        let source = Source {
            name: PathBuf::from("<stdin>"),
            reader: std::io::Cursor::new(bytes),
            len,
        };
        cast_source(&job, source, &args, durability, progress)?
    } else if is_stdio(&args.output) {
        let (file, len) = open_input(&args.input)?;
        let source = Source {
            name: args.input.clone(),
            reader: file,
            len,
        };
        cast_source(&job, source, &args, durability, progress)?
    } else {
        cast_file_with(&job, &args.input, &args.output, durability, progress)?
    };
    warnings.extend(nonfinite_warning(&reports));
    if args.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    if args.json {
        println!(
            "{}",
            crate::cast_stats::json(&args.input, &args.output, &reports)
        );
        for w in warnings {
            eprintln!("warning: {w}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    // With the data on standard output, the summary goes to standard error.
    let say = |line: String| {
        if is_stdio(&args.output) {
            eprintln!("{line}");
        } else {
            println!("{line}");
        }
    };
    for report in &reports {
        say(report.to_string());
    }
    let target = if is_stdio(&args.output) {
        "standard output".to_string()
    } else {
        args.output.display().to_string()
    };
    if job.input.is_single_tensor() {
        say(format!("wrote {target}"));
    } else {
        let (cast_n, kept_n) = tally(&reports);
        say(format!(
            "wrote {target} ({cast_n} tensor(s) cast, {kept_n} left unchanged)"
        ));
    }
    if args.stats {
        let table = crate::cast_stats::table(&reports);
        if is_stdio(&args.output) {
            eprint!("{table}");
        } else {
            print!("{table}");
        }
    }
    for w in warnings {
        eprintln!("warning: {w}");
    }
    Ok(ExitCode::SUCCESS)
}

/// Warnings about options that do nothing as given.
fn option_warnings(args: &CastArgs) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(seed) = args.seed
        && args.round != RoundMode::Hybrid
    {
        out.push(format!(
                "--seed {seed} has no effect: only --round hybrid (stochastic rounding) uses a seed, and this cast rounds with --round {}",
                args.round
            ));
    }
    out
}

/// A warning if finite inputs became NaN or Inf, with the count per tensor.
fn nonfinite_warning(reports: &[TensorReport]) -> Option<String> {
    let bad: Vec<String> = reports
        .iter()
        .filter_map(|r| match r {
            TensorReport::Cast(c) if c.stats.nonfinite_from_finite > 0 => {
                Some(format!("{}: {}", c.name, c.stats.nonfinite_from_finite))
            }
            _ => None,
        })
        .collect();
    let total: u64 = reports
        .iter()
        .map(|r| match r {
            TensorReport::Cast(c) => c.stats.nonfinite_from_finite,
            TensorReport::Kept(_) => 0,
        })
        .sum();
    (total > 0).then(|| {
        format!(
            "{total} finite input value(s) became NaN or Inf ({}); --saturate clamps overflow to ±max, --fail-on-nan makes this an error",
            bad.join(", ")
        )
    })
}

/// The path a file would have once written: the canonical path of the file if it exists, or of
/// its directory joined with its name.
fn resolved(path: &Path) -> Option<PathBuf> {
    if let Ok(p) = std::fs::canonicalize(path) {
        return Some(p);
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(std::fs::canonicalize(dir).ok()?.join(path.file_name()?))
}

/// Refuses an output path that is the input file, unless `--force`.
fn check_not_in_place(args: &CastArgs) -> Result<()> {
    if args.force || is_stdio(&args.input) || is_stdio(&args.output) {
        return Ok(());
    }
    let (Some(input), Some(output)) = (resolved(&args.input), resolved(&args.output)) else {
        return Ok(());
    };
    if input == output {
        anyhow::bail!(
            "the output `{}` is the input file `{}`: the cast would replace it; give another -o, or --force to replace the input",
            args.output.display(),
            input.display()
        );
    }
    Ok(())
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
        input: container_of(&args.input, args.format.as_deref())?,
        output: container_of(&args.output, args.format.as_deref())?,
        to: args.to,
        from: args.from,
        policy,
        seed: args.seed,
        packed: args.packed,
        tensors: args.tensors.clone(),
        exclude: args.exclude.clone(),
        fail_on_nan: args.fail_on_nan,
        error_stats: args.stats || args.json,
        shape: args.shape.as_ref().map(|s| s.0.clone()),
    })
}

/// Whether `path` is `-` (standard input or output).
fn is_stdio(path: &Path) -> bool {
    path.as_os_str() == "-"
}

/// The container of `path`: its extension's, else `--format`'s; `-` is a .npy by default.
fn container_of(path: &Path, format: Option<&str>) -> Result<Container> {
    let by_extension = (!is_stdio(path)).then(|| Container::of(path));
    Ok(match (by_extension, format) {
        (Some(Ok(c)), _) => c,
        (_, Some("safetensors")) => Container::Safetensors,
        (_, Some("raw")) => Container::Raw,
        (_, Some(_)) | (None, None) => Container::Npy,
        (Some(Err(e)), None) => {
            return Err(anyhow::Error::new(e)
                .context("give the file type with --format npy|safetensors|raw"));
        }
    })
}

/// A cast's input other than a file given by path: its name in messages, a reader and its
/// length.
struct Source<R> {
    name: PathBuf,
    reader: R,
    len: u64,
}

/// Reads standard input whole (a cast seeks in its input).
fn read_stdin() -> Result<Vec<u8>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    std::io::stdin()
        .lock()
        .read_to_end(&mut bytes)
        .map_err(|e| anyhow::anyhow!("cannot read standard input: {e}"))?;
    Ok(bytes)
}

/// Opens the input file `path` for a cast to standard output; returns it and its length.
fn open_input(path: &Path) -> Result<(std::fs::File, u64), IoError> {
    let cannot_read = |source| IoError::CannotRead {
        path: path.to_path_buf(),
        source,
    };
    let file = std::fs::File::open(path).map_err(cannot_read)?;
    let meta = file.metadata().map_err(cannot_read)?;
    if meta.is_dir() {
        return Err(IoError::InputIsDirectory {
            path: path.to_path_buf(),
        });
    }
    Ok((file, meta.len()))
}

/// A cast with `-` on either side: streams `source` into standard output (chunk by chunk; with
/// `--fail-on-nan` held in memory until the cast has passed, so a refused cast writes
/// nothing) or into the output file (atomically). Returns the reports.
fn cast_source<R: std::io::Read + std::io::Seek>(
    job: &CastJob,
    source: Source<R>,
    args: &CastArgs,
    durability: Durability,
    progress: &mut dyn CastProgress,
) -> Result<Vec<TensorReport>> {
    use std::io::Write;
    let Source { name, reader, len } = source;
    if !is_stdio(&args.output) {
        let mut reports = Vec::new();
        write_atomic_with(&args.output, durability, |w| {
            reports = cast_reader(job, &name, reader, len, w, progress)?;
            Ok(())
        })?;
        return Ok(reports);
    }
    let cannot_write = |e: std::io::Error| anyhow::anyhow!("cannot write standard output: {e}");
    let mut stdout = std::io::stdout();
    let reports = if job.fail_on_nan {
        let mut held = Vec::new();
        let reports = cast_reader(job, &name, reader, len, &mut held, progress)?;
        stdout.write_all(&held).map_err(cannot_write)?;
        reports
    } else {
        cast_reader(job, &name, reader, len, &mut stdout, progress).map_err(|e| match e {
            // The only operating-system errors of a cast are its writer's.
            IoError::Os(e) => cannot_write(e),
            e => e.into(),
        })?
    };
    stdout.flush().map_err(cannot_write)?;
    Ok(reports)
}

/// `--dry-run`: prints the cast's preview as a table, one row per tensor, and the byte totals.
fn dry_run(job: &CastJob, args: &CastArgs) -> Result<ExitCode> {
    if is_stdio(&args.input) {
        anyhow::bail!(
            "--dry-run reads the input's header from a file; it cannot read `-` (standard input)"
        );
    }
    let rows = preview(job, &args.input)?;
    let mut table = vec![[
        "tensor".to_string(),
        "dtype".into(),
        "action".into(),
        "shape".into(),
        "bytes in".into(),
        "bytes out".into(),
    ]];
    for r in &rows {
        let from = r.from.map_or(r.dtype.clone(), |f| f.to_string());
        let action = match r.action {
            Ok(to) => format!("{from} -> {to}"),
            Err(reason) => format!("keep ({reason})"),
        };
        let dims: Vec<String> = r.shape.iter().map(usize::to_string).collect();
        table.push([
            r.name.clone(),
            r.dtype.clone(),
            action,
            format!("[{}]", dims.join(", ")),
            r.bytes_in.to_string(),
            r.bytes_out.to_string(),
        ]);
    }
    print!("{}", crate::info::align(&table, 4));
    let cast_n = rows.iter().filter(|r| r.action.is_ok()).count();
    let bytes_in: u64 = rows.iter().map(|r| r.bytes_in).sum();
    let bytes_out: u64 = rows.iter().map(|r| r.bytes_out).sum();
    println!(
        "dry run: would cast {cast_n} of {} tensor(s), {bytes_in} -> {bytes_out} bytes of data; nothing written to {}",
        rows.len(),
        args.output.display()
    );
    Ok(ExitCode::SUCCESS)
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
