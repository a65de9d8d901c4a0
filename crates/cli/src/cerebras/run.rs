//! `npusim cerebras run`: run one of the shipped Cerebras example programs
//! (`npusim_examples::cerebras::programs`) on the multi-PE simulator, print the arrays it reads back,
//! the cycle count and per-PE statistics, check them against the expected output and
//! optionally write an event trace.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use npusim_cerebras::Arch;
use npusim_cerebras::sched::PeStats;
use npusim_examples::cerebras::programs::{Output, PROGRAMS, Program, ProgramRun, Values, find};
use serde_json::{Value, json};

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
pub enum TraceFormat {
    /// One event a line: `cycle PE (x, y) thread kind: text`.
    Lines,
    /// Chrome trace-event JSON (open it in a trace viewer such as Perfetto).
    Chrome,
}

/// Options of `npusim cerebras run`.
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES.trim_end())]
pub struct RunArgs {
    /// The program: its SDK example name (e.g. gemv-06-routes-1) or its label E1..E10 (e.g.
    /// E3; `--list` shows both).
    #[arg(value_name = "EXAMPLE", required_unless_present = "list")]
    pub example: Option<String>,
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
    pub trace_format: Option<TraceFormat>,
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
        .run(arch, args.trace.is_some())
        .with_context(|| format!("running {} on {arch}", program.name))?;
    let trace = match &args.trace {
        Some(path) => Some(write_trace(&run, path, args.trace_format)?),
        None => None,
    };
    let pass = run.mismatches().is_empty();
    let report = if args.json {
        format!("{}\n", run_json(program, arch, &run, pass))
    } else {
        run_text(program, arch, &run, pass, trace.as_ref())?
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
        let items: Vec<Value> = PROGRAMS
            .iter()
            .map(|p| {
                json!({
                    "name": p.name,
                    "label": p.label,
                    "grid": p.grid,
                    "description": p.description,
                })
            })
            .collect();
        emit(&format!("{}\n", Value::Array(items)))?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut out = String::new();
    for p in PROGRAMS {
        writeln!(
            out,
            "{:<3} {:<26} {:<4} {}",
            p.label, p.name, p.grid, p.description
        )?;
    }
    emit(&out)?;
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
    format: Option<TraceFormat>,
) -> Result<TraceWritten> {
    let format = format.unwrap_or(
        if path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"))
        {
            TraceFormat::Chrome
        } else {
            TraceFormat::Lines
        },
    );
    let text = match format {
        TraceFormat::Chrome => run.sim.chrome_trace(),
        TraceFormat::Lines => run.sim.events().iter().map(|e| format!("{e}\n")).collect(),
    };
    write_output(path, |out| out.write_all(text.as_bytes()))
        .with_context(|| format!("cannot write the trace to {}", path.display()))?;
    Ok(TraceWritten {
        path: path.to_path_buf(),
        to_stdout: path == std::path::Path::new("-"),
        format,
        events: run.sim.events().len(),
    })
}

fn values_json(v: &Values) -> Result<Value> {
    Ok(serde_json::from_str(&format!(
        "[{}]",
        v.to_json_items().join(",")
    ))?)
}

fn pe_json(s: &PeStats) -> Value {
    json!({
        "x": s.x,
        "y": s.y,
        "busy_cycles": s.busy_cycles,
        "stalls": s.stalls,
        "elements": s.elements,
        "tasks_started": s.tasks_started,
        "input_high_water": s.input_high_water,
        "output_high_water": s.output_high_water,
    })
}

fn run_json(program: &Program, arch: Arch, run: &ProgramRun, pass: bool) -> Value {
    let output = |want: &Output| -> Value {
        let got = run.got.iter().find(|g| g.name == want.name);
        json!({
            "name": want.name,
            "type": want.values.type_name(),
            "got": got.and_then(|g| values_json(&g.values).ok()),
            "expected": values_json(&want.values).ok(),
            "pass": got.is_some_and(|g| g.values.same_bits(&want.values)),
        })
    };
    json!({
        "program": program.name,
        "label": program.label,
        "arch": arch.to_string(),
        "grid": program.grid,
        "cycles": run.report.cycles,
        "trace_hash": format!("{:016x}", run.report.trace_hash),
        "outputs": run.expected.iter().map(output).collect::<Vec<_>>(),
        "pes": run.report.pes.iter().map(pe_json).collect::<Vec<_>>(),
        "idle": run.report.idle,
        "pass": pass,
    })
}

/// Queue high-water marks as `q1:3 q2:1`, skipping empty queues (`-` when all are).
fn high_water(marks: &[u32]) -> String {
    let used: Vec<String> = marks
        .iter()
        .enumerate()
        .filter(|&(_, &m)| m > 0)
        .map(|(q, m)| format!("q{q}:{m}"))
        .collect();
    if used.is_empty() {
        "-".into()
    } else {
        used.join(" ")
    }
}

fn run_text(
    program: &Program,
    arch: Arch,
    run: &ProgramRun,
    pass: bool,
    trace: Option<&TraceWritten>,
) -> Result<String> {
    let mut out = String::new();
    writeln!(
        out,
        "{} ({}, {} PEs, {arch}): {}",
        program.name, program.label, program.grid, program.description
    )?;
    for want in &run.expected {
        let got = run.got.iter().find(|g| g.name == want.name);
        let ok = got.is_some_and(|g| g.values.same_bits(&want.values));
        match got {
            Some(g) => writeln!(
                out,
                "{} {} = {}",
                if ok { "PASS" } else { "FAIL" },
                want.name,
                g.values
            )?,
            None => writeln!(out, "FAIL {} was not read back", want.name)?,
        }
        if !ok {
            writeln!(out, "     expected {}", want.values)?;
        }
    }
    writeln!(
        out,
        "cycles {}, trace hash {:016x}",
        run.report.cycles, run.report.trace_hash
    )?;
    writeln!(
        out,
        "{:<10} {:>6} {:>6} {:>8} {:>5}  queue high water (input | output)",
        "PE", "busy", "stalls", "elements", "tasks"
    )?;
    for s in &run.report.pes {
        writeln!(
            out,
            "{:<10} {:>6} {:>6} {:>8} {:>5}  {} | {}",
            format!("({}, {})", s.x, s.y),
            s.busy_cycles,
            s.stalls,
            s.elements,
            s.tasks_started,
            high_water(&s.input_high_water),
            high_water(&s.output_high_water)
        )?;
    }
    for line in &run.report.idle {
        writeln!(out, "idle at the end (unbounded extent): {line}")?;
    }
    if let Some(t) = trace {
        writeln!(
            out,
            "trace: {} events written to {} ({})",
            t.events,
            if t.to_stdout {
                "standard output".to_string()
            } else {
                t.path.display().to_string()
            },
            match t.format {
                TraceFormat::Lines => "one event a line",
                TraceFormat::Chrome => "Chrome trace-event JSON",
            }
        )?;
    }
    writeln!(
        out,
        "{}",
        if pass {
            "result: PASS (every output matches bit for bit)"
        } else {
            "result: FAIL"
        }
    )?;
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrong_output_prints_fail_with_the_expected_values() -> Result<()> {
        let p = find("E3")?;
        let mut run = p.run(Arch::Wse2, false)?;
        if let Some(Values::F32(v)) = run.got.first_mut().map(|o| &mut o.values) {
            v[1] += 1.0;
        }
        assert!(!run.mismatches().is_empty());
        let text = run_text(p, Arch::Wse2, &run, false, None)?;
        assert!(
            text.contains("FAIL y (PE (1, 0)) = f32[17.0, 54.0"),
            "{text}"
        );
        assert!(text.contains("     expected f32[17.0, 53.0"), "{text}");
        assert!(text.trim_end().ends_with("result: FAIL"), "{text}");
        let json = run_json(p, Arch::Wse2, &run, false);
        assert_eq!(json["pass"], false);
        assert_eq!(json["outputs"][0]["pass"], false);
        assert_eq!(json["outputs"][1]["pass"], true);
        run.got.clear();
        let text = run_text(p, Arch::Wse2, &run, false, None)?;
        assert!(text.contains("was not read back"), "{text}");
        Ok(())
    }
}
