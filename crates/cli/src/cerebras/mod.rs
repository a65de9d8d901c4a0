//! `npusim cerebras ...`: the Cerebras WSE commands.

mod access;
pub mod cs_python;
pub mod cslc;
mod run;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

/// `npusim cerebras ...`
#[derive(Debug, Args)]
pub struct CerebrasArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: CerebrasCommand,
}

/// Subcommands of `npusim cerebras`.
#[derive(Debug, Subcommand)]
pub enum CerebrasCommand {
    /// Lower a tensor access expression to a mem1d/mem4d DSD and list what it addresses.
    Access(access::AccessArgs),
    /// Run a shipped example program on the multi-PE simulator (`--list` lists them).
    Run(run::RunArgs),
}

/// Runs `npusim cerebras ...`.
pub fn run(args: CerebrasArgs) -> Result<ExitCode> {
    match args.command {
        CerebrasCommand::Access(a) => access::run(&a),
        CerebrasCommand::Run(a) => run::run(&a),
    }
}
