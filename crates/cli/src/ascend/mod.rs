//! `npusim ascend ...`: the Huawei Ascend commands.

mod call_args;
mod cast;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

use call_args::AscendCastArgs;

/// `npusim ascend ...`
#[derive(Debug, Args)]
pub struct AscendArgs {
    /// What to run.
    #[command(subcommand)]
    pub command: AscendCommand,
}

/// Subcommands of `npusim ascend`.
#[derive(Debug, Subcommand)]
pub enum AscendCommand {
    /// Run one AscendC Cast call (LocalTensor API or Ascend 950 Reg API) over a .npy input.
    Cast(Box<AscendCastArgs>),
}

/// Runs `npusim ascend ...`.
pub fn run(args: AscendArgs) -> Result<ExitCode> {
    match args.command {
        AscendCommand::Cast(a) => cast::run(&a),
    }
}
