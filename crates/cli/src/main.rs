//! The `npusim` command-line tool: the thin face of the npusim golden model.
//!
//! Each command group lives in its own module (a folder for the groups with several files:
//! `cast/`, `ascend/`, `furiosa/`, `cerebras/`) with an `Args` struct (clap derive) and a
//! `run(args) -> anyhow::Result<ExitCode>` function; `output`, `interrupt`, `progress`,
//! `table` and `npy_file` are shared by all. Adding a command means adding a module, one
//! variant to [`Command`] and one arm to [`dispatch`].

mod ascend;
mod bench;
mod cast;
mod cerebras;
mod formats;
mod furiosa;
mod info;
mod interrupt;
mod npy_file;
mod output;
mod progress;
mod quantize;
mod tour;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The command line; its summary (`about`) is the package description in Cargo.toml.
#[derive(Debug, Parser)]
#[command(name = "npusim", version, about, propagate_version = true)]
struct Cli {
    /// What to do.
    #[command(subcommand)]
    command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
enum Command {
    /// Cast the tensors of a .npy, .safetensors or raw .bin file to another format.
    Cast(cast::CastArgs),
    /// List every number format with its constants and accepted aliases.
    Formats(formats::FormatsArgs),
    /// Cast the worked examples of the vendor documentation and check the results.
    Tour(tour::TourArgs),
    /// Measure bulk-cast throughput against memcpy and the `half` crate, in one process.
    Bench(bench::BenchArgs),
    /// Huawei Ascend: run AscendC Cast calls (cast; LocalTensor API, Ascend 950 Reg API).
    Ascend(ascend::AscendArgs),
    /// Cerebras WSE: lower CSL tensor access expressions to DSDs (access); run the SDK
    /// tutorials' example programs on the simulator (run).
    Cerebras(cerebras::CerebrasArgs),
    /// Compile a CSL program (layout.csl and its PE programs) as the SDK's cslc does.
    Cslc(cerebras::cslc::CslcArgs),
    /// Run an SDK host script (run.py) against a program compiled by `npusim cslc`.
    CsPython(cerebras::cs_python::CsPythonArgs),
    /// Furiosa RNGD: evaluate mapping expressions, the text of Furiosa's `m![...]` (map); run
    /// Tensor Unit pipeline files (run); show the DM sequencer of a fetch or commit (sequence).
    Furiosa(furiosa::FuriosaArgs),
    /// Print every tensor's name, dtype, shape, element count and bytes (.npy, .safetensors).
    Info(info::InfoArgs),
    /// Quantize the tensors of a .safetensors file to a block-scaled format (MXFP4/6/8, MXINT8,
    /// NVFP4) in the layouts published checkpoints use.
    Quantize(quantize::QuantizeArgs),
    /// Read the tensors `quantize` (or a published MXFP4/NVFP4 checkpoint) stores back as
    /// f32, bf16, f16 or f64.
    Dequantize(quantize::DequantizeArgs),
}

/// Runs one subcommand.
fn dispatch(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::Cast(args) => cast::run(args),
        Command::Formats(args) => formats::run(args),
        Command::Tour(args) => tour::run(args),
        Command::Ascend(args) => ascend::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Cerebras(args) => cerebras::run(args),
        Command::Cslc(args) => cerebras::cslc::run(&args),
        Command::CsPython(args) => cerebras::cs_python::run(&args),
        Command::Furiosa(args) => furiosa::run(args),
        Command::Info(args) => info::run(args),
        Command::Quantize(args) => quantize::run(args),
        Command::Dequantize(args) => quantize::run_dequantize(args),
    }
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    // Every command's outputs go through the atomic writer: a terminating signal removes an
    // unfinished one before the process exits.
    if let Err(err) = interrupt::remove_output_on_signal() {
        eprintln!("error: cannot install the signal handler: {err:#}");
        return ExitCode::FAILURE;
    }
    match dispatch(cli.command) {
        Ok(code) => code,
        Err(err) if err.is::<output::ClosedPipe>() => ExitCode::from(output::CLOSED_PIPE_STATUS),
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}
