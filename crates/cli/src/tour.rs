//! `npusim tour`: run the worked examples of the vendor documentation and check every bit.
//!
//! Each architecture contributes one section that prints a short summary — counts, a few
//! representative cases and every failure — and, with `--verbose`, every case. The cases are the
//! architecture crate's own golden data (for Ascend, `npusim_ascend::goldens`; for Cerebras,
//! `npusim_cerebras::seed_examples`), so the tour and the crate's tests read the same rows. The exit code is non-zero on any failure.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

/// Options of `npusim tour`.
#[derive(Debug, Args)]
pub struct TourArgs {
    /// Print every case, not just the summary, representative cases and failures.
    #[arg(long, short, conflicts_with = "failures_only")]
    pub verbose: bool,
    /// Print only the failing cases (and the counts).
    #[arg(long)]
    pub failures_only: bool,
}

/// How much of a section to print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Detail {
    /// Counts, a few representative cases, every failure.
    Summary,
    /// Every case.
    Verbose,
    /// Counts and failures.
    FailuresOnly,
}

impl Detail {
    /// Whether to print a case that passed (`pass`) and is or is not `representative`.
    pub const fn shows(self, pass: bool, representative: bool) -> bool {
        match self {
            Detail::Verbose => true,
            Detail::Summary => !pass || representative,
            Detail::FailuresOnly => !pass,
        }
    }
}

/// Runs `npusim tour`.
pub fn run(args: TourArgs) -> Result<ExitCode> {
    let detail = if args.verbose {
        Detail::Verbose
    } else if args.failures_only {
        Detail::FailuresOnly
    } else {
        Detail::Summary
    };
    let mut failed = 0;
    crate::output::with_stdout(|out| {
        writeln!(
            out,
            "npusim tour: the worked examples of the vendor documentation, checked bit for bit"
        )?;
        writeln!(out)?;
        failed = crate::tour_ascend::run(out, detail)?;
        writeln!(out)?;
        failed += crate::tour_cerebras::run(out, detail)?;
        writeln!(out)?;
        failed += crate::tour_furiosa::run(out, detail)?;
        writeln!(out)?;
        if detail == Detail::Summary {
            writeln!(out, "(--verbose prints every case)")?;
        }
        writeln!(
            out,
            "tour: {}",
            if failed == 0 {
                "all cases PASS".to_string()
            } else {
                format!("{failed} FAIL")
            }
        )
    })?;
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
