//! `npusim info`: what a `.npy` or `.safetensors` file holds, read from its header alone.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_io::report::info::{write_json, write_table};
use npusim_io::{Container, InspectError, inspect_file};

/// Options of `npusim info`.
#[derive(Debug, Args)]
pub struct InfoArgs {
    /// A .npy or .safetensors file (only its header is read).
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    /// Print one JSON document instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Runs `npusim info`: one line (or JSON object) per tensor, written as it is produced (no
/// whole-output copy, so a header of a million tensors costs no more than its own size).
pub fn run(args: InfoArgs) -> Result<ExitCode> {
    let info = inspect_file(&args.file).map_err(|e| explain(e, &args))?;
    crate::output::with_stdout(|out| {
        if args.json {
            write_json(out, &args.file.display().to_string(), &info)
        } else {
            write_table(out, &info, "? (give --from)")
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The library's error; for a raw file (which has no header to show), where its format and
/// shape are given instead: `npusim cast`'s `--from` and `--shape`.
fn explain(e: InspectError, args: &InfoArgs) -> anyhow::Error {
    let raw = matches!(Container::of(&args.file), Ok(Container::Raw));
    match e {
        InspectError::BadHeader { .. } if raw => {
            anyhow::anyhow!("{e}; `npusim cast` reads it given --from FMT --shape DIMS")
        }
        e => e.into(),
    }
}
