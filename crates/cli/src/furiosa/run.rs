//! `npusim furiosa run`: read a pipeline file (`Pipeline::parse` of npusim-furiosa), run it on
//! an input `.npy` (or a ramp), print the output values and a cycle estimate, write the
//! output stream, and check a shipped worked example against its expected output.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use clap::Args;
use npusim_examples::furiosa::pipeline_check::{check, worked_example};
use npusim_furiosa::pipeline::{PipelineKind, total_estimate};
use npusim_furiosa::schedule::Schedule;
use npusim_furiosa::{DType, StreamTensor};
use npusim_io::{IoError, npy};

use super::stream_file::{out_kind, output_bytes};
use crate::output::{is_stdio, report as report_to, write_output};

/// The worked examples and notes shown after the options in `--help`.
const RUN_EXAMPLES: &str = include_str!("run_examples.txt");

/// Options of `npusim furiosa run`.
#[derive(Debug, Args)]
#[command(after_help = RUN_EXAMPLES.trim_end())]
pub struct RunArgs {
    /// The pipeline file (TOML).
    #[arg(value_name = "PIPELINE")]
    pub pipeline: PathBuf,
    /// Input .npy: one (i32 or f32, one element per physical input position) for a stream
    /// pipeline; NAME=IN per DM tensor for a kernel file (a bare IN names the first).
    #[arg(long, value_name = "[NAME=]IN")]
    pub input: Vec<String>,
    /// Output file of the output stream: .npy, .safetensors (tensor `output`), or - for .npy on
    /// standard output (the report then goes to standard error); NAME=OUT (.npy) per DM tensor
    /// for a kernel file (a bare OUT names the last committed).
    #[arg(short, long, value_name = "[NAME=]OUT")]
    pub output: Vec<String>,
    /// Print the schedule: per engine units, busy, fill, start, finish and stall cycles.
    #[arg(long)]
    pub schedule: bool,
    /// Write the schedule as a Chrome trace (chrome://tracing, Perfetto) to this file.
    #[arg(long, value_name = "TRACE")]
    pub trace: Option<PathBuf>,
}

/// Reads and parses the pipeline file; returns its text and the pipeline.
fn read_pipeline(path: &Path) -> Result<(String, PipelineKind)> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    let kind = PipelineKind::parse(&text).with_context(|| format!("in `{}`", path.display()))?;
    Ok((text, kind))
}

/// The one path a stream pipeline takes for `flag` (none, or one without a name).
fn single(values: &[String], flag: &str) -> Result<Option<PathBuf>> {
    match values {
        [] => Ok(None),
        [one] => Ok(Some(PathBuf::from(one))),
        _ => bail!("a stream pipeline takes one {flag} (NAME= pairs are for kernel files)"),
    }
}

/// Reads the input `.npy`: its elements must be of the pipeline's input type (no
/// reinterpretation) and there must be one per physical input position.
fn read_codes(path: &Path, dtype: DType, positions: usize) -> Result<Vec<u64>> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read `{}`", path.display()))?;
    let array = match npy::parse(&bytes) {
        Ok(array) => array,
        Err(IoError::NpyUnsupportedDtype { descr }) => bail!(
            "`{}` holds elements of numpy dtype `{descr}` but the pipeline's input dtype is {dtype}",
            path.display()
        ),
        Err(e) => return Err(anyhow!(e).context(format!("reading `{}`", path.display()))),
    };
    let format = match npy::element_format(&array, None) {
        Ok(format) if format == dtype.format() => format,
        Ok(format) => bail!(
            "`{}` holds {format} elements but the pipeline's input dtype is {dtype}",
            path.display()
        ),
        Err(_) => bail!(
            "`{}` holds elements of numpy dtype `{}` but the pipeline's input dtype is {dtype}",
            path.display(),
            array.descr
        ),
    };
    let e = npy::elements(&array, format, &array.shape, false)
        .with_context(|| format!("reading `{}`", path.display()))?;
    if e.count != positions {
        bail!(
            "`{}` holds {} elements but the input stream has {positions} physical positions (padding included)",
            path.display(),
            e.count
        );
    }
    Ok(e.bytes
        .chunks_exact(4)
        .map(|c| u64::from(u32::from_le_bytes([c[0], c[1], c[2], c[3]])))
        .collect())
}

/// Runs `npusim furiosa run`.
pub fn run(args: RunArgs) -> Result<ExitCode> {
    let (text, pipeline) = match read_pipeline(&args.pipeline)? {
        (text, PipelineKind::Kernel(k)) => return super::kernel::run(&text, &k, &args),
        (text, PipelineKind::Stream(p)) => (text, p),
    };
    let (input, output) = (single(&args.input, "--input")?, single(&args.output, "-o")?);
    let kind = output.as_deref().map(out_kind).transpose()?;
    let count = pipeline.input_positions()?;
    let codes = match &input {
        Some(path) => read_codes(path, pipeline.dtype, count)?,
        None => (0..count)
            .map(|i| match pipeline.dtype {
                DType::F32 => u64::from((i as f32).to_bits()),
                _ => u64::from(i as u32),
            })
            .collect(),
    };
    let (out, reports) = pipeline.run(codes)?;
    let mut report = String::new();
    for (i, r) in reports.iter().enumerate() {
        report += &format!("{:>2} {:<19} {}\n", i + 1, r.name, r.layout);
        if let Some(e) = &r.estimate {
            report += &format!("   {:<19} {e}\n", "");
        }
        if let Some(first) = r.first_output {
            report += &format!(
                "   {:<19} first reduced output after ~{first} cycles (one ring traversal)\n",
                ""
            );
        }
    }
    report += &format!("output: {out}\n");
    report += &format!("values: {}\n", values_text(&out));
    let total = total_estimate(&reports);
    let parts: Vec<String> = total
        .stages()
        .iter()
        .map(|st| format!("{} {}", st.name, st.cycles))
        .collect();
    report += &format!(
        "total: ~{} cycles = {} (model {}; the engines stream concurrently, so the total is the slowest engine's stream plus the ring tail plus every latency)\n",
        total.total(),
        parts.join(" + "),
        total.model()
    );
    let mut schedule = Schedule::new();
    schedule.push(pipeline.schedule(&reports)?);
    report += &super::kernel::schedule_text(&schedule, &args)?;
    let to_stdout = output.as_deref().is_some_and(is_stdio);
    if let (Some(path), Some(kind)) = (&output, kind) {
        let bytes = output_bytes(kind, &out)?;
        write_output(path, |w| w.write_all(&bytes))?;
        let place = if to_stdout {
            "the .npy to standard output".to_string()
        } else {
            path.display().to_string()
        };
        report += &format!("wrote {place} ({} elements)\n", out.codes().len());
    }
    let pass = match worked_example(&text) {
        Some(ex) => {
            let verdict = check(ex, &pipeline);
            report += &format!("check: {}\n", verdict.as_ref().unwrap_or_else(|e| e));
            report += if verdict.is_ok() {
                "result: PASS\n"
            } else {
                "result: FAIL\n"
            };
            verdict.is_ok()
        }
        None => {
            report +=
                "check: none (not one of the shipped worked examples, so no expected values)\n";
            true
        }
    };
    // With `-o -` standard output holds the .npy bytes: the report goes to standard error.
    report_to(&report, to_stdout)?;
    Ok(if pass {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// How many output values the report shows.
const SHOWN_VALUES: usize = 32;

/// The first [`SHOWN_VALUES`] output values in physical order, as `i8[0, 1, ...]`.
fn values_text(t: &StreamTensor) -> String {
    let format = t.dtype().format();
    let shown: Vec<String> = t
        .codes()
        .iter()
        .take(SHOWN_VALUES)
        .map(|c| format.decode(c).to_f64().to_string())
        .collect();
    let more = t.codes().len().saturating_sub(SHOWN_VALUES);
    let rest = if more > 0 {
        format!(", ... {more} more")
    } else {
        String::new()
    };
    format!("{}[{}{rest}]", t.dtype(), shown.join(", "))
}
