//! `npusim cerebras access`: lower one CSL tensor access expression over an array of a given
//! shape, print the DSD in CSL syntax and the element indices it visits, in access order.

use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, ValueEnum};
use npusim_cerebras::access::{BoundsPolicy, DsdKind, ListingError, listing};

use crate::output::emit;

/// The worked examples and notes shown after the options in `--help`.
const EXAMPLES: &str = include_str!("access_examples.txt");

/// The memory DSD kind to lower to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Kind {
    /// `mem1d_dsd`: one induction variable, i8 stride.
    Mem1d,
    /// `mem4d_dsd`: one to four induction variables, i16 strides.
    Mem4d,
}

/// Options of `npusim cerebras access`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES.trim_end())]
pub struct AccessArgs {
    /// The tensor access expression, e.g. `|i,j|{2,2} -> A[i, j]`.
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expr: String,
    /// The array and its shape, outermost dimension first: NAME=D0,D1,...
    #[arg(long, value_name = "NAME=DIMS")]
    pub array: String,
    /// DSD kind (default: mem1d for one induction variable, mem4d otherwise).
    #[arg(long, value_enum)]
    pub kind: Option<Kind>,
    /// Reject accesses outside the array.
    #[arg(long)]
    pub strict: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Parses `NAME=D0,D1,...`.
fn parse_array(spec: &str) -> Result<(String, Vec<u64>)> {
    let Some((name, dims)) = spec.split_once('=') else {
        bail!("--array `{spec}`: expected NAME=D0,D1,... (e.g. A=4,5)");
    };
    let name = name.trim();
    if name.is_empty() {
        bail!("--array `{spec}`: the array name is empty");
    }
    let shape = dims
        .split(',')
        .map(|d| {
            d.trim()
                .parse::<u64>()
                .with_context(|| format!("--array `{spec}`: dimension `{d}` is not a number"))
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((name.to_string(), shape))
}

/// Runs `npusim cerebras access`.
pub fn run(args: &AccessArgs) -> Result<ExitCode> {
    let (name, shape) = parse_array(&args.array)?;
    let policy = if args.strict {
        BoundsPolicy::Strict
    } else {
        BoundsPolicy::Unchecked
    };
    let kind = args.kind.map(|k| match k {
        Kind::Mem1d => DsdKind::Mem1d,
        Kind::Mem4d => DsdKind::Mem4d,
    });
    let listed = listing(&args.expr, &name, &shape, kind, policy).map_err(|e| match e {
        e @ ListingError::Memory { .. } => anyhow!(e).context(format!("--array `{}`", args.array)),
        e => e.into(),
    })?;
    if args.json {
        emit(&format!("{}\n", listed.json()))?;
    } else {
        emit(&listed.text("--strict rejects them"))?;
    }
    Ok(ExitCode::SUCCESS)
}
