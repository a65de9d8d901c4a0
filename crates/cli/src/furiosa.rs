//! `npusim furiosa map`: evaluate a Furiosa mapping expression (m-notation) and print its normal
//! form, its size and the cell at every position, as text or as one JSON object.
//! `npusim furiosa run`: read a pipeline file (`Pipeline::parse` of npusim-furiosa), run it on an
//! input `.npy` and write the output stream and a report.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, anyhow, bail};
use clap::{Args, Subcommand};
use npusim_furiosa::mapping::{Axes, Final, Mapping};
use npusim_furiosa::pipeline::{Pipeline, total_estimate};
use npusim_furiosa::{DType, StreamTensor};
use npusim_io::{Elements, IoError, npy, safetensors};
use npusim_numerics::{BulkOptions, CastPolicy, Layout, Storage, cast_elements};
use serde_json::{Map, Value, json};

use crate::output::{emit, with_stdout, write_output};

const RUN_EXAMPLES: &str = "\
Examples:
  npusim furiosa run crates/furiosa/examples/pipelines/seed003_reduce_then_add.toml
  npusim furiosa run crates/furiosa/examples/pipelines/seed000_cast_i32_to_i8.toml --input x.npy -o y.npy

A pipeline file (TOML) declares the input stream and its stages:
  axes = \"R=4, A=512\"          dtype = \"i32\" (or \"f32\")
  chip = \"1\"  cluster = \"1 # 2\"  slice = \"A / 8, R\"  time = \"1\"  packet = \"A % 8\"
  upstream_cycles_per_flit = 1   (optional)
  [[stage]] op = \"vector_init\" | \"branch\" | \"vector_final\"
  [[stage]] op = \"inter_slice_reduce\"  name = \"AddSat\"  out_slice = \"A / 8, 1 # 4\"  out_time = \"1\"
  [[stage]] op = \"fxp\" | \"logic\" | \"fp\" | \"clip\"  name = \"AddFxp\"  operand = 100
  [[stage]] op = \"fxp_to_fp\" | \"fp_to_fxp\"  int_width = 31
  [[stage]] op = \"narrow_split\" | \"widen_concat\"  time2 = \"T, G\"  packet2 = \"L\"
  [[stage]] op = \"intra_slice_reduce\"  axis = \"R\"  name = \"AddSat\"  out_time = \"G\"  out_packet = \"L\"
  [[stage]] op = \"widen_pad\"  packet2 = \"1 # 8\"     [[stage]] op = \"fp_div\"  operand = 4.0
  [[stage]] op = \"cast\"  dtype = \"i8\"  out_packet = \"A # 32\"

The input .npy holds one element per physical position of m![chip, cluster, slice, time, packet]
(padding positions included); without --input the stream holds the ramp 0, 1, 2, ...
The output (.npy, or .safetensors with one tensor `output`; - writes the .npy to standard
output and the report to standard error) has shape [chip, cluster, slice, time, packet] of
the output stream. Unknown keys are refused. The total: the engines stream concurrently, so it
is the slowest engine's stream + the inter-slice ring tail + the ALU latency.";

const MAP_EXAMPLES: &str = "\
Examples:
  npusim furiosa map 'A, B' --axes A=8,B=512
  npusim furiosa map 'B / 64, B % 32, B / 32 % 2' --axes B=512 --json
  npusim furiosa map 'A #{0} 4, B #{!} 4' --axes A=3,B=3

Cells are finalised: axis coordinates with zeros left out ({} is the live cell at the origin),
or the padding kind top, zero or bottom; a cell whose coordinate overshoots its axis (a split
of a padded axis) is top.";

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
    /// Evaluate a mapping expression: normal form, size and the cell of every position.
    Map(MapArgs),
    /// Run a Tensor Unit pipeline file (cast, Vector Engine stages, inter-slice reduce).
    Run(RunArgs),
}

/// Options of `npusim furiosa run`.
#[derive(Debug, Args)]
#[command(after_help = RUN_EXAMPLES)]
pub struct RunArgs {
    /// The pipeline file (TOML).
    #[arg(value_name = "PIPELINE")]
    pub pipeline: PathBuf,
    /// Input .npy (i32 or f32, one element per physical input position).
    #[arg(long, value_name = "IN")]
    pub input: Option<PathBuf>,
    /// Output file of the output stream: .npy, .safetensors (tensor `output`), or - for .npy on
    /// standard output (the report then goes to standard error).
    #[arg(short, long, value_name = "OUT")]
    pub output: Option<PathBuf>,
}

/// Options of `npusim furiosa map`.
#[derive(Debug, Args)]
#[command(after_help = MAP_EXAMPLES)]
pub struct MapArgs {
    /// The mapping in m-notation, e.g. `A / 8, R # 4`.
    #[arg(value_name = "EXPR", allow_hyphen_values = true)]
    pub expr: String,
    /// Axis declarations `NAME=SIZE,...` (like `axes![A = 8, B = 512]`).
    #[arg(long, value_name = "A=8,B=512", default_value = "")]
    pub axes: String,
    /// Print one JSON object {"size", "display", "cells"} instead of text.
    #[arg(long)]
    pub json: bool,
    /// Refuse mappings with more positions than this (the output lists every position).
    #[arg(long, value_name = "N", default_value_t = 1 << 20)]
    pub max_cells: usize,
}

/// Runs `npusim furiosa ...`.
pub fn run(args: FuriosaArgs) -> Result<ExitCode> {
    match args.command {
        FuriosaCommand::Map(a) => map(a),
        FuriosaCommand::Run(a) => run_pipeline(a),
    }
}

fn read_pipeline(path: &Path) -> Result<Pipeline> {
    let src = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read `{}`", path.display()))?;
    Pipeline::parse(&src).with_context(|| format!("in `{}`", path.display()))
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

/// The output stream's codes as elements of its dtype, one per byte for 4-bit types.
fn stream_elements(t: &StreamTensor) -> Result<Elements<'static>> {
    let format = t.dtype().format();
    let native = Storage::native(format);
    let count = t.codes().len();
    let mut bytes = vec![0u8; native.bytes_for(count)];
    let bits = t.dtype().bits();
    for (i, &code) in t.codes().iter().enumerate() {
        if bits == 4 {
            bytes[i / 2] |= ((code & 0xf) as u8) << (4 * (i % 2));
        } else {
            let w = bits / 8;
            bytes[i * w..(i + 1) * w].copy_from_slice(&code.to_le_bytes()[..w]);
        }
    }
    let file = Storage::new(format, Layout::Unpacked).unwrap_or(native);
    let out = if file == native {
        bytes
    } else {
        let mut out = vec![0u8; file.bytes_for(count)];
        cast_elements(
            &bytes,
            native,
            &mut out,
            file,
            count,
            &CastPolicy::default(),
            &BulkOptions::default(),
        )?;
        out
    };
    Ok(Elements {
        storage: file,
        count,
        bytes: out.into(),
    })
}

/// The container `furiosa run -o` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutKind {
    Npy,
    Safetensors,
}

/// The container of `-o PATH`: `.npy` (or `-`, standard output) or `.safetensors`.
fn out_kind(path: &Path) -> Result<OutKind> {
    if path.as_os_str() == "-" {
        return Ok(OutKind::Npy);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("npy") => Ok(OutKind::Npy),
        Some("safetensors") => Ok(OutKind::Safetensors),
        _ => bail!(
            "cannot write `{}`: furiosa run writes .npy or .safetensors files (or - for .npy on standard output)",
            path.display()
        ),
    }
}

/// The bytes of the output file: a `.npy` of shape [chip, cluster, slice, time, packet], or a
/// `.safetensors` holding that array as the tensor `output`.
fn output_bytes(kind: OutKind, t: &StreamTensor) -> Result<Vec<u8>> {
    let elements = stream_elements(t)?;
    let shape = t.shape().to_vec();
    let mut bytes = Vec::new();
    match kind {
        OutKind::Npy => npy::write(&mut bytes, &elements, &shape, false, false)?,
        OutKind::Safetensors => {
            let enc = safetensors::encode(elements.storage.format(), &shape, false)?;
            let tensor = safetensors::OutTensor {
                dtype: enc.dtype,
                shape: enc.file_shape,
                data: elements.bytes,
            };
            let meta = enc.meta.map(|m| {
                HashMap::from([(format!("{}{OUTPUT_TENSOR}", safetensors::META_PREFIX), m)])
            });
            bytes = safetensors::to_bytes(&[(OUTPUT_TENSOR.to_string(), tensor)], meta.as_ref())?;
        }
    }
    Ok(bytes)
}

/// The name of the tensor in a `.safetensors` output.
const OUTPUT_TENSOR: &str = "output";

fn run_pipeline(args: RunArgs) -> Result<ExitCode> {
    let pipeline = read_pipeline(&args.pipeline)?;
    let kind = args.output.as_deref().map(out_kind).transpose()?;
    let count = pipeline.input_positions()?;
    let codes = match &args.input {
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
    let to_stdout = args.output.as_deref().is_some_and(|p| p.as_os_str() == "-");
    if let (Some(path), Some(kind)) = (&args.output, kind) {
        let bytes = output_bytes(kind, &out)?;
        write_output(path, |w| w.write_all(&bytes))?;
        report += &if to_stdout {
            format!(
                "wrote the .npy to standard output ({} elements)\n",
                out.codes().len()
            )
        } else {
            format!(
                "wrote {} ({} elements)\n",
                path.display(),
                out.codes().len()
            )
        };
    }
    if to_stdout {
        // Standard output holds the .npy bytes: the report goes to standard error.
        eprint!("{report}");
        Ok(ExitCode::SUCCESS)
    } else {
        emit(&report)?;
        Ok(ExitCode::SUCCESS)
    }
}

fn cell_json(cell: &Final) -> Value {
    match cell {
        Final::Live(coords) => {
            let obj: Map<String, Value> = coords
                .iter()
                .map(|(axis, c)| (axis.clone(), json!(c)))
                .collect();
            Value::Object(obj)
        }
        Final::Padding(kind) => json!(kind.name()),
        Final::OutOfBounds => json!("out of bounds"),
    }
}

fn map(args: MapArgs) -> Result<ExitCode> {
    let axes = if args.axes.trim().is_empty() {
        Axes::new()
    } else {
        Axes::parse(&args.axes)?
    };
    let mapping = Mapping::parse(&args.expr, &axes)?;
    let size = mapping.size();
    if size > args.max_cells {
        bail!(
            "`{mapping}` has {size} positions, more than --max-cells {}; raise it to list them all",
            args.max_cells
        );
    }
    // Cells are written as they are produced: memory does not grow with the cell count.
    let mut cells = mapping.evaluator();
    with_stdout(|w| {
        if args.json {
            // Keys in sorted order, as serde_json writes an object.
            w.write_all(b"{\"cells\":[")?;
            for p in 0..size {
                if p > 0 {
                    w.write_all(b",")?;
                }
                serde_json::to_writer(&mut *w, &cell_json(&cells.cell(p)))?;
            }
            w.write_all(b"],\"display\":")?;
            serde_json::to_writer(&mut *w, &mapping.to_string())?;
            writeln!(w, ",\"size\":{size}}}")
        } else {
            writeln!(w, "mapping:    {mapping}")?;
            writeln!(w, "normalised: {}", mapping.normalize())?;
            writeln!(w, "size:       {size}")?;
            let width = size.saturating_sub(1).to_string().len();
            for p in 0..size {
                writeln!(w, "{p:>width$}: {}", cells.cell(p))?;
            }
            Ok(())
        }
    })?;
    Ok(ExitCode::SUCCESS)
}
