//! `npusim furiosa ...`: the Furiosa RNGD commands.

mod kernel;
mod map;
mod run;
mod sequence;
mod stream_file;

use std::process::ExitCode;

use anyhow::Result;
use clap::{Args, Subcommand};

/// `npusim furiosa ...`
#[derive(Debug, Args)]
pub struct FuriosaArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: FuriosaCommand,
}

/// Subcommands of `npusim furiosa`.
#[derive(Debug, Subcommand)]
pub enum FuriosaCommand {
    /// Evaluate a mapping expression (the text of Furiosa's `m![...]`): normal form, size and
    /// the cell of every position.
    Map(map::MapArgs),
    /// Run a Tensor Unit pipeline file (Cast Engine, Vector Engine stages, inter-slice reduce;
    /// with [[dm]] tensors, from DM to DM) and print its output values, cycles and, for the
    /// shipped worked examples, PASS or FAIL.
    Run(run::RunArgs),
    /// Show the DM sequencer of a fetch or commit: the nested loops `[size : stride]` a
    /// tensor's mapping and a stream's Time/Packet split give, with run and access sizes.
    Sequence(sequence::SequenceArgs),
}

/// Runs `npusim furiosa ...`.
pub fn run(args: FuriosaArgs) -> Result<ExitCode> {
    match args.command {
        FuriosaCommand::Map(a) => map::run(a),
        FuriosaCommand::Run(a) => run::run(a),
        FuriosaCommand::Sequence(a) => sequence::run(a),
    }
}
