//! `npusim bench`: bulk-cast throughput against memcpy and the `half` crate, in one process.
//!
//! The harness is `npusim_bench`; this module holds the options, shows progress on standard
//! error (one line rewritten in place on a terminal, a line per measurement in a log) and
//! writes the report to standard output.

use std::io::IsTerminal;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_bench::BenchOptions;

/// Options of `npusim bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Print the rows as one JSON array instead of a table.
    #[arg(long)]
    pub json: bool,
    /// A short run (fewer and shorter samples, 16 Mi instead of 64 Mi elements for the
    /// parallel size, no one-buffer-alone baseline).
    #[arg(long)]
    pub quick: bool,
    /// Only the cases whose name contains this text (e.g. `f16->f8e4m3fn`); repeatable.
    #[arg(long = "case", value_name = "TEXT")]
    pub cases: Vec<String>,
    /// Samples per measurement (default 7, 3 with --quick); each sample times a batch of calls
    /// lasting at least 20 ms (10 ms with --quick).
    #[arg(long, value_name = "N")]
    pub repeats: Option<usize>,
    /// Instead of the table: time each case on 2^12 to 2^22 elements on one thread and split
    /// over all threads, and print from which size splitting pays.
    #[arg(long)]
    pub crossover: bool,
}

/// Runs `npusim bench`.
pub fn run(args: BenchArgs) -> Result<ExitCode> {
    let options = BenchOptions {
        json: args.json,
        quick: args.quick,
        cases: args.cases,
        repeats: args.repeats,
        crossover: args.crossover,
    };
    let tty = std::io::stderr().is_terminal();
    let mut progress = |what: &str| {
        if tty {
            eprint!("\r{what}   ");
        } else {
            eprintln!("measuring {what}");
        }
    };
    let report = npusim_bench::run(&options, &mut progress)?;
    if tty && !options.json {
        eprintln!();
    }
    crate::output::with_stdout(|out| report.write(out))?;
    Ok(ExitCode::SUCCESS)
}
