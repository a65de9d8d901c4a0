//! `npusim cast`: cast the tensors of a file to another format.
//!
//! The options become an [`npusim_io::CastJob`]; reading, selecting, casting and writing are
//! `npusim_io::cast_file_with`'s (`cast_reader`'s for pipes, `cast::preview`'s for
//! `--dry-run`). This folder parses the options, shows progress and prints the per-tensor
//! summaries, warnings and statistics.

pub(crate) mod args;
mod checks;
mod dry_run;
mod errors;
mod pipe;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use npusim_io::cast::{KeepReason, tally};
use npusim_io::report::cast as stats;
use npusim_io::{CastJob, CastProgress, NoProgress, TensorReport, cast_file_opts};

pub use args::CastArgs;
use checks::{
    check_not_in_place, empty_warning, flush_warning, nonfinite_warning, option_warnings,
};
use errors::explain;
pub(crate) use pipe::read_stdin;
use pipe::{Source, cast_source, open_input};

use crate::output::{is_stdio, report, report_with, with_stdout};
use crate::progress::Progress;

/// Runs `npusim cast`: maps the options to a [`CastJob`], runs it with a progress bar and
/// prints one line per tensor.
pub fn run(args: CastArgs) -> Result<ExitCode> {
    let job = args.job()?;
    check_not_in_place(&args)?;
    if args.dry_run {
        return dry_run::dry_run(&job, &args);
    }
    if args.json && is_stdio(&args.output) {
        anyhow::bail!("--json prints on standard output, which `-o -` already uses for the data");
    }
    let mut warnings = option_warnings(&args);
    let mut bar = Progress::default();
    let progress: &mut dyn CastProgress = if args.quiet {
        &mut NoProgress
    } else {
        &mut bar
    };
    let opts = args.write_options();
    let reports = if is_stdio(&args.input) {
        let bytes = read_stdin()?;
        let len = bytes.len() as u64;
        let source = Source {
            name: PathBuf::from("<stdin>"),
            reader: std::io::Cursor::new(bytes),
            len,
        };
        cast_source(&job, source, &args.output, &opts, progress)?
    } else if is_stdio(&args.output) {
        let (file, len) = open_input(&args.input)?;
        let source = Source {
            name: args.input.clone(),
            reader: file,
            len,
        };
        cast_source(&job, source, &args.output, &opts, progress)?
    } else {
        cast_file_opts(&job, &args.input, &args.output, &opts, progress).map_err(explain)?
    };
    drop(bar);
    warnings.extend(nonfinite_warning(&reports));
    warnings.extend(flush_warning(&reports, &args));
    warnings.extend(empty_warning(&reports));
    if args.json {
        with_stdout(|w| stats::write_json(w, &args.input, &args.output, &reports, &keep_reason))?;
    } else {
        print_summary(&job, &args, &reports)?;
    }
    if !args.quiet {
        let text: String = warnings.iter().map(|w| format!("warning: {w}\n")).collect();
        report(&text, true)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The text summary: one line per tensor and the file written (unless `-q`), then the
/// `--stats` table. With the data on standard output, it goes to standard error.
fn print_summary(job: &CastJob, args: &CastArgs, reports: &[TensorReport]) -> Result<()> {
    // Written line by line: a million tensors make no whole-summary string.
    report_with(is_stdio(&args.output), |w| {
        if !args.quiet {
            for report in reports {
                writeln!(w, "{}", stats::report_line(report, &keep_reason))?;
            }
            let target = if is_stdio(&args.output) {
                "standard output".to_string()
            } else {
                args.output.display().to_string()
            };
            if job.input.is_single_tensor() {
                writeln!(w, "wrote {target}")?;
            } else {
                let (cast_n, kept_n) = tally(reports);
                writeln!(
                    w,
                    "wrote {target} ({cast_n} tensor(s) cast, {kept_n} left unchanged)"
                )?;
            }
        }
        if args.stats {
            w.write_all(stats::table(reports).as_bytes())?;
        }
        Ok(())
    })
}

/// Why a tensor is kept, naming the option that would cast it where there is one.
pub(crate) fn keep_reason(reason: KeepReason) -> String {
    match reason {
        KeepReason::ScaleTensor => "f8e8m0 scale tensor; name it with --tensor to cast it".into(),
        other => other.to_string(),
    }
}
