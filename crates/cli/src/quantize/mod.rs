//! `npusim quantize` and `npusim dequantize`: block-scaled quantisation (OCP MX, NVFP4) of a
//! `.safetensors` file (or a sharded checkpoint directory) in the published checkpoint
//! layouts, and reading it back. The work is `npusim_io::quantize`'s (one tensor in memory at a
//! time); this folder parses the options, shows progress and prints the report.

mod args;

use std::process::ExitCode;

use anyhow::{Context, Result};
use std::io::Write;

use npusim_io::quantize::{
    dequantize_dir_with_progress, dequantize_to, quantize_dir_with_progress, quantize_to,
};
use npusim_io::report::quantize as report;

pub use args::{DequantizeArgs, QuantizeArgs};

use crate::cast::read_stdin;
use crate::output::{is_stdio, report as print_report, with_stdout, write_output};
use crate::progress::BytesProgress;

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

/// The input as something to seek in: the file itself, or standard input read whole (`-`).
enum Input {
    /// A file, read tensor by tensor.
    File(std::fs::File),
    /// Standard input, held in memory.
    Stdin(std::io::Cursor<Vec<u8>>),
}

impl Input {
    /// Opens `path` (`-`: standard input).
    fn open(path: &std::path::Path) -> Result<Input> {
        if is_stdio(path) {
            return Ok(Input::Stdin(std::io::Cursor::new(read_stdin()?)));
        }
        if path.is_dir() {
            anyhow::bail!(
                "cannot read `{}`: it is a directory, not a .safetensors file",
                path.display()
            );
        }
        let file = std::fs::File::open(path)
            .with_context(|| format!("cannot read `{}`", path.display()))?;
        Ok(Input::File(file))
    }
}

/// Runs `job` (a quantisation or a dequantisation of `input`, given as a reader, an output
/// writer and a progress callback) with a byte progress bar, its output through the
/// command line's output rules (atomic file, device, FIFO or standard output); `what` names
/// the job in errors. The job's own error is returned as it is.
fn run_streamed<T, E>(
    input: &std::path::Path,
    output: &std::path::Path,
    what: &str,
    job: impl FnOnce(&mut dyn ReadSeek, &mut dyn Write, &mut dyn FnMut(u64, u64)) -> Result<T, E>,
) -> Result<T>
where
    E: std::error::Error + Send + Sync + 'static,
{
    let mut reader = Input::open(input)?;
    let mut bar = BytesProgress::default();
    let mut done = None;
    let mut failed = None;
    let written = write_output(output, |w| {
        let r: &mut dyn ReadSeek = match &mut reader {
            Input::File(f) => f,
            Input::Stdin(c) => c,
        };
        match job(r, w, &mut |d, t| bar.update(d, t)) {
            Ok(v) => {
                done = Some(v);
                Ok(())
            }
            Err(e) => {
                failed = Some(e);
                Err(std::io::Error::other("the job failed"))
            }
        }
    });
    drop(bar);
    let context = || format!("{what} `{}`", input.display());
    if let Some(e) = failed {
        return Err(anyhow::Error::new(e).context(context()));
    }
    written?;
    done.ok_or_else(|| anyhow::anyhow!("{}: no result", context()))
}

/// What a job reads its input through.
trait ReadSeek: std::io::Read + std::io::Seek {}
impl<T: std::io::Read + std::io::Seek> ReadSeek for T {}

/// Runs `npusim quantize`.
pub fn run(args: QuantizeArgs) -> Result<ExitCode> {
    let job = args.job()?;
    if args.json && is_stdio(&args.output) {
        anyhow::bail!("--json prints on standard output, which `-o -` already uses for the data");
    }
    check_not_in_place(&args.input, &args.output)?;
    let rep = if args.input.is_dir() {
        let mut bar = BytesProgress::default();
        quantize_dir_with_progress(&job, &args.input, &args.output, &mut |d, t| {
            bar.update(d, t)
        })
        .with_context(|| format!("quantizing `{}`", args.input.display()))?
    } else {
        run_streamed(&args.input, &args.output, "quantizing", |r, w, p| {
            quantize_to(&job, r, w, p)
        })?
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
        let mut bar = BytesProgress::default();
        dequantize_dir_with_progress(&args.input, &args.output, args.to, &mut |d, t| {
            bar.update(d, t)
        })
        .with_context(|| format!("dequantizing `{}`", args.input.display()))?
    } else {
        run_streamed(&args.input, &args.output, "dequantizing", |r, w, p| {
            dequantize_to(r, args.to, w, p)
        })?
    };
    if !args.quiet {
        print_report(
            &report::dequantized_lines(&rep, args.to),
            is_stdio(&args.output),
        )?;
    }
    Ok(ExitCode::SUCCESS)
}
