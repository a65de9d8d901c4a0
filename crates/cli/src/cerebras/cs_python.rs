//! `npusim cs-python`: runs an SDK host script against a program compiled by `npusim cslc`
//! (`npusim_csl::sdk::cs_python`).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Args;
use npusim_csl::sdk::cs_python::{CsPython, split_options, summary};

use crate::output::write_output;

/// Options of `npusim cs-python`.
#[derive(Debug, Args)]
pub struct CsPythonArgs {
    /// The Python interpreter (it needs numpy).
    #[arg(long, env = "NPUSIM_PYTHON", default_value = "python3")]
    pub python: OsString,
    /// The host script (`run.py`).
    pub script: PathBuf,
    /// The script's arguments (`--name out`); `--trace FILE` (the Chrome trace of the
    /// script's last runtime) and `--stats` (each PE's statistics) among them are npusim's.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub args: Vec<OsString>,
}

/// Runs `npusim cs-python`; exits with the script's status.
pub fn run(a: &CsPythonArgs) -> Result<ExitCode> {
    let o = split_options(&a.args).map_err(anyhow::Error::msg)?;
    let outcome = CsPython {
        python: a.python.clone(),
        script: a.script.clone(),
        args: o.rest,
        trace: o.trace.is_some(),
    }
    .run()?;
    eprint!("{}", summary(&outcome.runs, o.stats));
    if let (Some(path), Some(t)) = (&o.trace, outcome.runs.last().and_then(|r| r.trace.clone())) {
        write_output(path, |w| w.write_all(t.as_bytes()))
            .with_context(|| format!("cannot write the trace to {}", path.display()))?;
    }
    Ok(ExitCode::from(outcome.exit_code()))
}
