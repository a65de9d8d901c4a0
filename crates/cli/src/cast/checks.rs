//! What `npusim cast` checks before it casts (an output that is the input) and the warnings it
//! gives after (options without effect, values that became NaN or Inf or flushed to zero,
//! nothing cast).

use std::path::{Path, PathBuf};

use anyhow::Result;
use npusim_io::TensorReport;
use npusim_numerics::RoundMode;

use super::args::CastArgs;
use crate::output::is_stdio;

/// A warning if no tensor was cast: the output is a copy of the input.
pub fn empty_warning(reports: &[TensorReport]) -> Option<String> {
    let cast_any = reports.iter().any(|r| matches!(r, TensorReport::Cast(_)));
    (!cast_any).then(|| {
        format!(
            "no tensor was cast: all {} tensor(s) were copied unchanged, so the output is a copy of the input; --fail-on-empty makes this an error",
            reports.len()
        )
    })
}

/// Warnings about options that do nothing as given.
pub fn option_warnings(args: &CastArgs) -> Vec<String> {
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
pub fn nonfinite_warning(reports: &[TensorReport]) -> Option<String> {
    let bad: Vec<(&str, u64)> = reports
        .iter()
        .filter_map(|r| match r {
            TensorReport::Cast(c) if c.stats.nonfinite_from_finite > 0 => {
                Some((c.name.as_str(), c.stats.nonfinite_from_finite))
            }
            _ => None,
        })
        .collect();
    let total: u64 = bad.iter().map(|(_, n)| n).sum();
    let each: Vec<String> = bad.iter().map(|(name, n)| format!("{name}: {n}")).collect();
    (total > 0).then(|| {
        format!(
            "{total} finite input value(s) became NaN or Inf ({}); --saturate clamps overflow to ±max, --fail-on-nan makes this an error",
            each.join(", ")
        )
    })
}

/// A warning naming the tensors most of whose elements flushed to zero (the format's range
/// is far below their values' scale), pointing to the block-scaled formats of `npusim
/// quantize`, which scale each block into range.
pub fn flush_warning(reports: &[TensorReport], args: &CastArgs) -> Option<String> {
    let most: Vec<String> = reports
        .iter()
        .filter_map(|r| match r {
            TensorReport::Cast(c)
                if c.count > 0 && 2 * c.stats.flushed_to_zero > c.count as u64 =>
            {
                let pct = 100.0 * c.stats.flushed_to_zero as f64 / c.count as f64;
                Some(format!("{} ({pct:.0} % of {})", c.name, c.count))
            }
            _ => None,
        })
        .collect();
    (!most.is_empty()).then(|| {
        let named = match most.len() {
            n if n > 4 => format!("{}, and {} more", most[..3].join(", "), n - 3),
            _ => most.join(", "),
        };
        format!(
            "most elements flushed to zero in {} tensor(s): {named}; a block-scaled format keeps them, e.g. `npusim quantize {} -o OUT --scheme mxfp4` (--stats shows the error)",
            most.len(),
            args.input.display()
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
pub fn check_not_in_place(args: &CastArgs) -> Result<()> {
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
