//! The options of `npusim cast` (clap derive, with the worked examples of `--help`) and the
//! library job they describe.

use std::path::PathBuf;

use anyhow::Result;
use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Args, ValueEnum};
use npusim_io::{CastJob, Container, Durability, WriteOptions};
use npusim_numerics::{CastPolicy, Format, RoundMode};

use crate::output::is_stdio;

/// The worked examples and notes shown after the options in `--help`.
const EXAMPLES: &str = include_str!("examples.txt");

/// Options of `npusim cast`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES.trim_end())]
pub struct CastArgs {
    /// Input file: .npy, .safetensors or raw .bin; `-` reads standard input (a .npy unless
    /// --format says otherwise).
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// Output file: .npy or .bin for a .npy/.bin input, .safetensors for a .safetensors input;
    /// `-` writes standard output (the per-tensor lines then go to standard error).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,

    /// File type of `-` and of paths whose extension is not .npy, .safetensors, .bin or .raw
    /// (a path's extension says its own type; a --format that no path uses and that another
    /// path's extension contradicts is refused).
    #[arg(long, value_name = "TYPE", value_enum)]
    pub format: Option<FileType>,

    /// Destination format: a canonical name (see `npusim formats`) or an alias
    /// (bfloat16, float8_e4m3fn, hifloat8_t, int4b_t, torch.float16, ...).
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    pub to: Format,

    /// Source element format: required for raw .bin files and for .npy files whose dtype does
    /// not say it ('<V2', '<V1', '<f1'); must match the file's element size.
    #[arg(long, value_name = "FMT", value_parser = parse_format)]
    pub from: Option<Format>,

    /// Rounding mode (the AscendC CAST_* spellings are accepted too: CAST_RINT, ...).
    #[arg(long, value_name = "MODE", default_value = "rint", value_parser = RoundParser)]
    pub round: RoundMode,

    /// Saturate: overflow and ±Inf clamp to ±max finite, integers clamp. NaN stays NaN where
    /// the format has a NaN; formats without one (fp4, fp6, integers) get 0.
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

/// The file types `--format` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FileType {
    /// numpy .npy.
    Npy,
    /// .safetensors.
    Safetensors,
    /// Raw little-endian elements (give --from and --shape for an input).
    Raw,
}

impl From<FileType> for Container {
    fn from(t: FileType) -> Container {
        match t {
            FileType::Npy => Container::Npy,
            FileType::Safetensors => Container::Safetensors,
            FileType::Raw => Container::Raw,
        }
    }
}

/// A tensor shape given on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shape(
    /// The dimension sizes, outermost first.
    pub Vec<usize>,
);

/// Parses a format name through the library (canonical names and aliases).
pub(crate) fn parse_format(s: &str) -> Result<Format, String> {
    Format::parse_name(s).map_err(|e| e.to_string())
}

/// `--round`'s parser: the library's (canonical names, `CAST_*` and IEEE spellings, any
/// case), with the canonical names as the possible values that `--help` lists.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RoundParser;

impl TypedValueParser for RoundParser {
    type Value = RoundMode;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<RoundMode, clap::Error> {
        let parse = |s: &str| RoundMode::parse_name(s).map_err(|e| e.to_string());
        parse.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            RoundMode::ALL.iter().map(|m| PossibleValue::new(m.name())),
        ))
    }
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

impl CastArgs {
    /// The atomic writer's options: `--sync`, and `--force` replaces a read-only output.
    pub fn write_options(&self) -> WriteOptions {
        WriteOptions {
            durability: if self.sync {
                Durability::Synced
            } else {
                Durability::Lazy
            },
            replace_read_only: self.force,
        }
    }

    /// The library job the options describe.
    pub fn job(&self) -> Result<CastJob> {
        let policy = if self.saturate {
            CastPolicy::saturating(self.round)
        } else if self.no_saturate {
            CastPolicy::non_saturating(self.round)
        } else {
            CastPolicy::new(self.round)
        };
        let [input, output] = self.containers()?;
        Ok(CastJob {
            input,
            output,
            to: self.to,
            from: self.from,
            policy,
            seed: self.seed,
            packed: self.packed,
            tensors: self.tensors.clone(),
            exclude: self.exclude.clone(),
            fail_on_nan: self.fail_on_nan,
            fail_on_empty: self.fail_on_empty,
            error_stats: self.stats || self.json,
            shape: self.shape.as_ref().map(|s| s.0.clone()),
        })
    }

    /// The containers of the input and the output. A path's extension says its type;
    /// `--format` says the type of `-` and of paths with another extension (`-` is a .npy
    /// without it). A `--format` that no path uses is refused when an extension says
    /// otherwise, rather than ignored.
    fn containers(&self) -> Result<[Container; 2]> {
        let paths = [&self.output, &self.input];
        let by_extension = paths.map(|p| (!is_stdio(p)).then(|| Container::of(p)));
        if let Some(flag) = self.format {
            let used = by_extension.iter().any(|c| !matches!(c, Some(Ok(_))));
            let contradicted = paths
                .iter()
                .zip(&by_extension)
                .find(|(_, c)| matches!(c, Some(Ok(c)) if *c != Container::from(flag)));
            if let (false, Some((path, Some(Ok(by_name))))) = (used, contradicted) {
                let flag = flag.to_possible_value().map(|v| v.get_name().to_string());
                anyhow::bail!(
                    "--format {} contradicts `{}`, a {} file by its extension: --format names the type of `-` and of files without a .npy, .safetensors, .bin or .raw extension; drop --format or give the file an extension of the type it holds",
                    flag.unwrap_or_default(),
                    path.display(),
                    by_name.name()
                );
            }
        }
        let [output, input] = by_extension.map(|c| match (c, self.format) {
            (Some(Ok(c)), _) => Ok(c),
            (_, Some(flag)) => Ok(flag.into()),
            (None, None) => Ok(Container::Npy),
            (Some(Err(e)), None) => Err(anyhow::Error::new(e)
                .context("give the file type with --format npy|safetensors|raw")),
        });
        Ok([input?, output?])
    }
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
