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
    CastJob, CastProgress, Container, Durability, IoError, NoProgress, TensorReport, WriteOptions,
    cast_file_opts, cast_reader, check_destination, is_streamed, write_atomic_opts,
};
use npusim_numerics::{CastPolicy, Format, RoundMode};

use crate::cast_errors::explain;
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
into memory first) into a file that gets the output's name only when it is complete, so a failed
or interrupted run (Ctrl-C, SIGTERM, any terminating signal) leaves nothing behind. Standard
output is written chunk by chunk as the cast goes (with --fail-on-nan it is held back until the
cast has passed).

Outputs: an existing output keeps its permission bits and owner; a read-only one is refused
unless --force (as cp -f). A symbolic link is followed: the file it points to is replaced and the
link stays. A device or named pipe (FIFO) is written into directly, never replaced by a file.

Quiet: -q silences what the command says on its own (per-tensor lines, warnings, progress bar),
never what an option asks for: --stats, --json and --dry-run still print.";

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

    /// Allow the output path to be the input path (the input is replaced when the cast ends),
    /// and replace a read-only output (as `cp -f`).
    #[arg(long)]
    pub force: bool,

    /// Fail, writing nothing, if no tensor would be cast (every tensor excluded by
    /// --tensor/--exclude or kept; default: warn and write a copy).
    #[arg(long)]
    pub fail_on_empty: bool,

    /// Fail, writing nothing, if a finite input becomes NaN or Inf (default: warn). With `-o -`
    /// or a device or FIFO output, the output is held in memory until the cast has passed.
    #[arg(long)]
    pub fail_on_nan: bool,

    /// Compute error statistics per tensor and in total during the cast (max absolute and
    /// relative error, RMSE, SQNR, exact / flushed-to-zero / saturated / NaN / Inf counts)
    /// and print them as a table.
    #[arg(long)]
    pub stats: bool,

    /// Print one JSON document on standard output (tensors, counts, error statistics) instead
    /// of text; implies --stats. With --dry-run: the preview as JSON.
    #[arg(long)]
    pub json: bool,

    /// Print no per-tensor lines, warnings or progress bar; errors, and what --stats, --json
    /// or --dry-run ask for, are still printed.
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
    check_not_in_place(&args)?;
    if args.dry_run {
        return dry_run(&job, &args);
    }
    if args.json && is_stdio(&args.output) {
        anyhow::bail!("--json prints on standard output, which `-o -` already uses for the data");
    }
    let mut warnings = option_warnings(&args);
    let mut bar = Progress::default();
    let progress: &mut dyn CastProgress = if args.quiet {
        &mut NoProgress
    } else {
        &mut bar
    };
    let opts = write_options(&args);
    let reports = if is_stdio(&args.input) {
        let bytes = read_stdin()?;
        let len = bytes.len() as u64;
        let source = Source {
            name: PathBuf::from("<stdin>"),
            reader: std::io::Cursor::new(bytes),
            len,
        };
        cast_source(&job, source, &args, &opts, progress)?
    } else if is_stdio(&args.output) {
        let (file, len) = open_input(&args.input)?;
        let source = Source {
            name: args.input.clone(),
            reader: file,
            len,
        };
        cast_source(&job, source, &args, &opts, progress)?
    } else {
        cast_file_opts(&job, &args.input, &args.output, &opts, progress).map_err(explain)?
    };
    drop(bar);
    warnings.extend(nonfinite_warning(&reports));
    warnings.extend(empty_warning(&reports));
    if args.json {
        crate::output::with_stdout(|w| {
            crate::cast_stats::write_json(w, &args.input, &args.output, &reports)
        })?;
    } else {
        print_summary(&job, &args, &reports)?;
    }
    if !args.quiet {
        for w in warnings {
            to_stderr(&format!("warning: {w}\n"));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The text summary: one line per tensor and the file written (unless `-q`), then the
/// `--stats` table. With the data on standard output, it goes to standard error.
fn print_summary(job: &CastJob, args: &CastArgs, reports: &[TensorReport]) -> Result<()> {
    // Written line by line: a million tensors make no whole-summary string.
    let write = |w: &mut dyn std::io::Write| -> std::io::Result<()> {
        if !args.quiet {
            for report in reports {
                writeln!(w, "{}", crate::cast_stats::report_line(report))?;
            }
            let target = if is_stdio(&args.output) {
                "standard output".to_string()
            } else {
                args.output.display().to_string()
            };
            if job.input.is_single_tensor() {
                writeln!(w, "wrote {target}")?;
            } else {
                let (cast_n, kept_n) = tally(reports);
                writeln!(
                    w,
                    "wrote {target} ({cast_n} tensor(s) cast, {kept_n} left unchanged)"
                )?;
            }
        }
        if args.stats {
            w.write_all(crate::cast_stats::table(reports).as_bytes())?;
        }
        Ok(())
    };
    if is_stdio(&args.output) {
        // If standard error itself fails there is no one left to tell (never a panic).
        let mut err = std::io::BufWriter::new(std::io::stderr().lock());
        let _ = write(&mut err).and_then(|()| std::io::Write::flush(&mut err));
        Ok(())
    } else {
        crate::output::with_stdout(write)
    }
}

/// Writes `text` to standard error; if standard error itself fails there is no one left to
/// tell, so the failure is ignored (never a panic).
fn to_stderr(text: &str) {
    use std::io::Write;
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// The atomic writer's options: `--sync`, and `--force` replaces a read-only output.
fn write_options(args: &CastArgs) -> WriteOptions {
    WriteOptions {
        durability: if args.sync {
            Durability::Synced
        } else {
            Durability::Lazy
        },
        replace_read_only: args.force,
    }
}

/// A warning if no tensor was cast: the output is a copy of the input.
fn empty_warning(reports: &[TensorReport]) -> Option<String> {
    let cast_any = reports.iter().any(|r| matches!(r, TensorReport::Cast(_)));
    (!cast_any).then(|| {
        format!(
            "no tensor was cast: all {} tensor(s) were copied unchanged, so the output is a copy of the input; --fail-on-empty makes this an error",
            reports.len()
        )
    })
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
        fail_on_empty: args.fail_on_empty,
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
    opts: &WriteOptions,
    progress: &mut dyn CastProgress,
) -> Result<Vec<TensorReport>> {
    use std::io::Write;
    let Source { name, reader, len } = source;
    if !is_stdio(&args.output) {
        if job.fail_on_nan && is_streamed(&args.output, opts).map_err(explain)? {
            // A device or FIFO is written as the cast goes: hold the output back until the
            // cast has passed.
            let mut held = Vec::new();
            let reports =
                cast_reader(job, &name, reader, len, &mut held, progress).map_err(explain)?;
            write_atomic_opts(&args.output, opts, |w| {
                w.write_all(&held)?;
                Ok(())
            })
            .map_err(explain)?;
            return Ok(reports);
        }
        let mut reports = Vec::new();
        write_atomic_opts(&args.output, opts, |w| {
            reports = cast_reader(job, &name, reader, len, w, progress)?;
            Ok(())
        })
        .map_err(explain)?;
        return Ok(reports);
    }
    let mut stdout = std::io::stdout();
    let reports = if job.fail_on_nan {
        let mut held = Vec::new();
        let reports = cast_reader(job, &name, reader, len, &mut held, progress).map_err(explain)?;
        stdout
            .write_all(&held)
            .map_err(crate::output::stdout_error)?;
        reports
    } else {
        cast_reader(job, &name, reader, len, &mut stdout, progress).map_err(|e| match e {
            // The only operating-system errors of a cast are its writer's.
            IoError::Os(e) => crate::output::stdout_error(e),
            e => explain(e),
        })?
    };
    stdout.flush().map_err(crate::output::stdout_error)?;
    Ok(reports)
}

/// `--dry-run`: checks what the run would check before casting (the output path, as the run
/// does), then prints the cast's preview as a table (one row per tensor, and the byte totals)
/// or, with `--json`, as one JSON document.
fn dry_run(job: &CastJob, args: &CastArgs) -> Result<ExitCode> {
    if is_stdio(&args.input) {
        anyhow::bail!(
            "--dry-run reads the input's header from a file; it cannot read `-` (standard input)"
        );
    }
    let rows = preview(job, &args.input).map_err(explain)?;
    if !is_stdio(&args.output) {
        check_destination(&args.output, &write_options(args)).map_err(explain)?;
    }
    let cast_n = rows.iter().filter(|r| r.action.is_ok()).count();
    let bytes_in: u64 = rows.iter().map(|r| r.bytes_in).sum();
    let bytes_out: u64 = rows.iter().map(|r| r.bytes_out).sum();
    let mut notes = Vec::new();
    if args.fail_on_nan {
        notes.push(
            "--fail-on-nan is checked while the data is cast; the dry run reads no data, so the run may still fail it"
                .to_string(),
        );
    }
    if cast_n == 0 {
        notes.push(format!(
            "no tensor would be cast: all {} tensor(s) would be copied unchanged; --fail-on-empty makes this an error",
            rows.len()
        ));
    }
    if args.json {
        let doc = crate::cast_stats::dry_run_json(
            &args.input,
            &args.output,
            &rows,
            [bytes_in, bytes_out],
            &notes,
        );
        crate::output::emit(&format!("{doc}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut table = vec![[
        "tensor".to_string(),
        "dtype".into(),
        "action".into(),
        "shape".into(),
        "bytes in".into(),
        "bytes out".into(),
    ]];
    for r in &rows {
        let dims: Vec<String> = r.shape.iter().map(usize::to_string).collect();
        table.push([
            r.name.clone(),
            r.dtype.clone(),
            crate::cast_stats::preview_action(r),
            format!("[{}]", dims.join(", ")),
            r.bytes_in.to_string(),
            r.bytes_out.to_string(),
        ]);
    }
    let mut text = crate::info::align(&table, 4);
    text.push_str(&format!(
        "dry run: would cast {cast_n} of {} tensor(s), {bytes_in} -> {bytes_out} bytes of data; nothing written to {}\n",
        rows.len(),
        args.output.display()
    ));
    for note in &notes {
        text.push_str(&format!("note: {note}\n"));
    }
    crate::output::emit(&text)?;
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
