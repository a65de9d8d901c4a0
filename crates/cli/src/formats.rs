//! `npusim formats`: a table of every number format and its constants.

use std::process::ExitCode;

use anyhow::Result;
use clap::Args;

/// Options of `npusim formats`.
#[derive(Debug, Args)]
pub struct FormatsArgs {
    /// Also print each format's one-line description.
    #[arg(long)]
    pub long: bool,
}

/// Runs `npusim formats`.
pub fn run(args: FormatsArgs) -> Result<ExitCode> {
    crate::output::emit(&npusim_io::report::formats::formats_text(args.long))?;
    Ok(ExitCode::SUCCESS)
}
