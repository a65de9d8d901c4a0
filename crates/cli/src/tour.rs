//! `npusim tour`: run the worked examples of the vendor documentation and check every bit.
//!
//! The tour itself is `npusim_examples::tour`; this module maps the options to its
//! [`Detail`], adds the closing verdict and turns failures into the exit code.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_examples::tour::Detail;

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
        failed = npusim_examples::tour::run(out, detail)?;
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
