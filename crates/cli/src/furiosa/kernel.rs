//! `npusim furiosa run` on a kernel file (`[[dm]]` tensors, DM to DM): the inputs and outputs
//! named on the command line, the rest done by npusim-furiosa and npusim-examples.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Result, bail};
use npusim_examples::furiosa::kernel_examples::verdict;
use npusim_furiosa::pipeline::{Kernel, KernelInput};
use npusim_furiosa::schedule::Schedule;

use super::run::RunArgs;
use crate::output::{emit, is_stdio, write_output};

/// `NAME=PATH`, or a bare path named `default`.
fn named(arg: &str, default: Option<&str>, flag: &str) -> Result<(String, PathBuf)> {
    match (arg.split_once('='), default) {
        (Some((name, path)), _) => Ok((name.to_string(), PathBuf::from(path))),
        (None, Some(name)) => Ok((name.to_string(), PathBuf::from(arg))),
        (None, None) => bail!("{flag} {arg}: name the tensor as NAME={arg}"),
    }
}

/// The schedule's text (with `--schedule`) and the trace written (with `--trace`).
pub(super) fn schedule_text(schedule: &Schedule, args: &RunArgs) -> Result<String> {
    let mut out = String::new();
    if args.schedule {
        out += &format!("{schedule}\n");
    }
    if let Some(path) = &args.trace {
        write_output(path, |w| {
            w.write_all(schedule.chrome_trace_json().as_bytes())
        })?;
        out += &format!("wrote the Chrome trace {}\n", path.display());
    }
    Ok(out)
}

/// Runs a kernel file.
pub(super) fn run(text: &str, kernel: &Kernel, args: &RunArgs) -> Result<ExitCode> {
    let first = kernel.tensors.first().map(|t| t.name.as_str());
    let mut inputs = Vec::new();
    for arg in &args.input {
        let (name, path) = named(arg, first, "--input")?;
        inputs.push((name, KernelInput::Npy(path)));
    }
    let run = kernel.run(&inputs)?;
    let mut report = run.report(false)? + &schedule_text(&run.schedule, args)?;
    if args.schedule {
        report += &run.warnings_text();
    }
    let last = run.last_committed().map(|t| t.name.as_str());
    for arg in &args.output {
        let (name, path) = named(arg, last, "-o")?;
        if is_stdio(&path) {
            bail!("-o {arg}: a kernel's outputs are written to .npy files, not standard output");
        }
        run.save(&name, &path)?;
        report += &format!("wrote `{name}` to {}\n", path.display());
    }
    let (check, pass) = verdict(text, kernel);
    emit(&(report + &check))?;
    Ok(if pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
