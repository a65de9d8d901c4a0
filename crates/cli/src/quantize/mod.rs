//! `npusim quantize` and `npusim dequantize`: block-scaled quantisation (OCP MX, NVFP4) of a
//! `.safetensors` file (or a sharded checkpoint directory) in the published checkpoint
//! layouts, and reading it back. The work is
//! `npusim_io::quantize`'s; this folder parses the options and prints the report.

mod args;

use std::process::ExitCode;

use anyhow::{Context, Result};
use npusim_io::quantize::{dequantize_dir, quantize_dir};
use npusim_io::report::quantize as report;
use npusim_io::{dequantize_bytes, quantize_bytes};

pub use args::{DequantizeArgs, QuantizeArgs};

use crate::output::{is_stdio, report as print_report, with_stdout, write_output};

/// Refuses an output that is the input file (it would replace the checkpoint it was made
/// from); a directory's own check is the library's.
fn check_not_in_place(input: &std::path::Path, output: &std::path::Path) -> Result<()> {
    if let (Ok(a), Ok(b)) = (input.canonicalize(), output.canonicalize())
        && a == b
        && a.is_file()
    {
        anyhow::bail!(
            "the output `{}` is the input: write to another file",
            output.display()
        );
    }
    Ok(())
}

/// Reads the input file whole.
fn read(path: &std::path::Path) -> Result<Vec<u8>> {
    if path.is_dir() {
        anyhow::bail!(
            "cannot read `{}`: it is a directory, not a .safetensors file",
            path.display()
        );
    }
    std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))
}

/// Runs `npusim quantize`.
pub fn run(args: QuantizeArgs) -> Result<ExitCode> {
    let job = args.job()?;
    if args.json && is_stdio(&args.output) {
        anyhow::bail!("--json prints on standard output, which `-o -` already uses for the data");
    }
    check_not_in_place(&args.input, &args.output)?;
    let rep = if args.input.is_dir() {
        quantize_dir(&job, &args.input, &args.output)
            .with_context(|| format!("quantizing `{}`", args.input.display()))?
    } else {
        let input = read(&args.input)?;
        let (bytes, rep) = quantize_bytes(&job, &input)
            .with_context(|| format!("quantizing `{}`", args.input.display()))?;
        write_output(&args.output, |w| w.write_all(&bytes))?;
        rep
    };
    if args.json {
        let doc = report::json(&args.input, &args.output, &job, &rep);
        return with_stdout(|w| writeln!(w, "{doc}")).map(|()| ExitCode::SUCCESS);
    }
    let on_stdout = is_stdio(&args.output);
    let mut text = String::new();
    if !args.quiet {
        text.push_str(&report::lines(&rep));
    }
    if args.stats {
        text.push_str(&report::table(&rep));
    }
    print_report(&text, on_stdout)?;
    Ok(ExitCode::SUCCESS)
}

/// Runs `npusim dequantize`.
pub fn run_dequantize(args: DequantizeArgs) -> Result<ExitCode> {
    check_not_in_place(&args.input, &args.output)?;
    let rep = if args.input.is_dir() {
        dequantize_dir(&args.input, &args.output, args.to)
            .with_context(|| format!("dequantizing `{}`", args.input.display()))?
    } else {
        let input = read(&args.input)?;
        let (bytes, rep) = dequantize_bytes(&input, args.to)
            .with_context(|| format!("dequantizing `{}`", args.input.display()))?;
        write_output(&args.output, |w| w.write_all(&bytes))?;
        rep
    };
    if !args.quiet {
        print_report(
            &report::dequantized_lines(&rep, args.to),
            is_stdio(&args.output),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
