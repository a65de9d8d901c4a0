//! `npusim cerebras access`: lower one CSL tensor access expression over an array of a given
//! shape, print the DSD in CSL syntax and the element indices it visits, in access order.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, ValueEnum};
use npusim_cerebras::ElemTy;
use npusim_cerebras::access::{AccessError, BoundsPolicy, lower, parse};
use npusim_cerebras::arch::Arch;
use npusim_cerebras::dsd::{Mem1d, Mem4d};
use npusim_cerebras::memory::PeMemory;

use crate::output::emit;

/// The worked examples and notes shown after the options in `--help`.
const EXAMPLES: &str = include_str!("access_examples.txt");

/// Most addresses the command lists (a 4-D access can name 2^64 elements).
const MAX_ADDRESSES: u64 = 1 << 24;

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
    let expr = parse(&args.expr)?;
    if expr.array != name {
        return Err(AccessError::ArrayName {
            expected: name,
            found: expr.array,
        }
        .into());
    }
    let policy = if args.strict {
        BoundsPolicy::Strict
    } else {
        BoundsPolicy::Unchecked
    };
    let lowered = lower(&expr, &shape, policy)?;
    let elements = shape.iter().try_fold(1u64, |a, &d| a.checked_mul(d));
    // the array is a u16 array of one PE's memory (48 KiB on both generations), declared as
    // the library declares it, so an array that cannot exist is refused here too
    let base = PeMemory::new(Arch::Wse2)
        .declare(&name, ElemTy::U16, &shape)
        .with_context(|| {
            format!(
                "--array `{}`: a u16 array must fit in one PE's memory ({} bytes)",
                args.array,
                Arch::Wse2.memory_bytes()
            )
        })?;
    let kind = args.kind.unwrap_or(if expr.variables.len() == 1 {
        Kind::Mem1d
    } else {
        Kind::Mem4d
    });
    let (dsd, stride): (String, Vec<i64>) = match kind {
        Kind::Mem1d => {
            let d = Mem1d::from_lowered(base, &lowered)?;
            (d.to_string(), vec![i64::from(d.stride)])
        }
        Kind::Mem4d => {
            let d = Mem4d::from_lowered(base, &lowered)?;
            let s = d.stride.iter().map(|&s| i64::from(s)).collect();
            (d.to_string(), s)
        }
    };
    if lowered.len() > MAX_ADDRESSES {
        bail!(
            "the access names {} elements; this command lists at most {MAX_ADDRESSES}",
            lowered.len()
        );
    }
    let addresses: Vec<i64> = lowered.addresses().collect();
    let kind_name = match kind {
        Kind::Mem1d => "mem1d",
        Kind::Mem4d => "mem4d",
    };
    if args.json {
        let obj = serde_json::json!({
            "kind": kind_name,
            "offset": lowered.offset,
            "extent": lowered.extent,
            "stride": stride,
            "addresses": addresses,
        });
        emit(&format!("{obj}\n"))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    writeln!(out, "access   {expr}")?;
    writeln!(out, "dsd      {dsd}")?;
    writeln!(
        out,
        "struct   .{{.base_address = &{name}, .offset = {}, .stride = .{{{}}}, .extent = .{{{}}}}}",
        lowered.offset,
        join(&stride),
        join(&lowered.extent)
    )?;
    let outside = elements.map_or(0, |e| {
        addresses
            .iter()
            .filter(|&&a| a < 0 || u64::try_from(a).is_ok_and(|a| a >= e))
            .count()
    });
    writeln!(
        out,
        "{} addresses (row-major element indices of {name}{shape:?}, access order):",
        addresses.len()
    )?;
    for chunk in addresses.chunks(20) {
        let line: Vec<String> = chunk.iter().map(i64::to_string).collect();
        writeln!(out, "  {}", line.join(" "))?;
    }
    if outside > 0 {
        writeln!(
            out,
            "note: {outside} of them fall outside {name} (allowed; --strict rejects them)"
        )?;
    }
    emit(&out)?;
    Ok(ExitCode::SUCCESS)
}

/// The items joined by commas.
fn join<T: ToString>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}
