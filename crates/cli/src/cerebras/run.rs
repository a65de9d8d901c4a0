//! `npusim cerebras run`: run one of the shipped Cerebras example programs
//! (`npusim_examples::cerebras::programs`) on the multi-PE simulator, print the arrays it reads back,
//! the cycle count and per-PE statistics, check them against the expected output and
//! optionally write an event trace.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use npusim_cerebras::Arch;
use npusim_cerebras::sched::TraceFormat;
use npusim_examples::cerebras::programs::{
    Program, ProgramRun, find, programs_json, programs_text,
};

use crate::output::{emit, report as report_to, write_output};

/// The worked examples and notes shown after the options in `--help`.
const EXAMPLES: &str = include_str!("run_examples.txt");

/// The architecture to simulate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ArchArg {
    /// WSE-2.
    Wse2,
    /// WSE-3.
    Wse3,
}

impl From<ArchArg> for Arch {
    fn from(a: ArchArg) -> Arch {
        match a {
            ArchArg::Wse2 => Arch::Wse2,
            ArchArg::Wse3 => Arch::Wse3,
        }
    }
}

/// How to write the event trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TraceFormatArg {
    /// One event a line: `cycle PE (x, y) thread kind: text`.
    Lines,
    /// Chrome trace-event JSON (open it in a trace viewer such as Perfetto).
    Chrome,
}

/// Options of `npusim cerebras run`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES.trim_end())]
pub struct RunArgs {
    /// The program: its SDK example name (e.g. gemv-06-routes-1) or its label E1..E11 (e.g.
    /// E3; `--list` shows both).
    #[arg(value_name = "EXAMPLE", required_unless_present = "list")]
    pub example: Option<String>,
    /// Threads that step the PEs (the results, cycles and trace hash are the same at any
    /// count).
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub threads: usize,
    /// List the shipped programs and exit.
    #[arg(long, conflicts_with = "example")]
    pub list: bool,
    /// The architecture to simulate.
    #[arg(long, value_enum, default_value = "wse2")]
    pub arch: ArchArg,
    /// Write the run's events (hops, task starts, operation ends) to this file; `-` writes
    /// them to standard output, and the report (text or --json) then goes to standard error
    /// so that standard output holds only the trace.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Format of the trace file (default: chrome for a .json file, lines otherwise).
    #[arg(long, value_enum, requires = "trace")]
    pub trace_format: Option<TraceFormatArg>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
}

/// Runs `npusim cerebras run`.
pub fn run(args: &RunArgs) -> Result<ExitCode> {
    if args.list {
        return list(args.json);
    }
    let Some(name) = &args.example else {
        anyhow::bail!("name a program (see `npusim cerebras run --list`)");
    };
    let program = find(name)?;
    let arch = Arch::from(args.arch);
    let run = program
        .run_on_threads(arch, args.trace.is_some(), args.threads)
        .with_context(|| format!("running {} on {arch}", program.name))?;
    let trace = match &args.trace {
        Some(path) => Some(write_trace(&run, path, args.trace_format)?),
        None => None,
    };
    let pass = run.passes();
    let report = if args.json {
        format!("{}\n", run.report_json(program, arch))
    } else {
        run_text(&run, program, arch, trace.as_ref())
    };
    // With `--trace -` standard output holds the trace; the report goes to standard error.
    report_to(&report, trace.as_ref().is_some_and(|t| t.to_stdout))?;
    Ok(if pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

fn list(as_json: bool) -> Result<ExitCode> {
    if as_json {
        emit(&format!("{}\n", programs_json()))?;
    } else {
        emit(&programs_text())?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Where the trace went: the path, the format and the number of events.
struct TraceWritten {
    path: PathBuf,
    to_stdout: bool,
    format: TraceFormat,
    events: usize,
}

fn write_trace(
    run: &ProgramRun,
    path: &std::path::Path,
    format: Option<TraceFormatArg>,
) -> Result<TraceWritten> {
    let format = format.map_or(TraceFormat::for_path(path), |f| match f {
        TraceFormatArg::Lines => TraceFormat::Lines,
        TraceFormatArg::Chrome => TraceFormat::Chrome,
    });
    write_output(path, |out| {
        out.write_all(run.sim.trace_text(format).as_bytes())
    })
    .with_context(|| format!("cannot write the trace to {}", path.display()))?;
    Ok(TraceWritten {
        path: path.to_path_buf(),
        to_stdout: path == std::path::Path::new("-"),
        format,
        events: run.sim.events().len(),
    })
}

/// The text report: the run's own, then where the trace went, then the verdict.
fn run_text(
    run: &ProgramRun,
    program: &Program,
    arch: Arch,
    trace: Option<&TraceWritten>,
) -> String {
    let mut out = run.report_text(program, arch);
    if let Some(t) = trace {
        let target = if t.to_stdout {
            "standard output".to_string()
        } else {
            t.path.display().to_string()
        };
        out.push_str(&format!(
            "trace: {} events written to {target} ({})\n",
            t.events,
            t.format.description()
        ));
    }
    out.push_str(run.verdict());
    out.push('\n');
    out
}
