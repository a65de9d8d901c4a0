//! `npusim info`: what a `.npy` or `.safetensors` file holds, read from its header alone.

use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_io::{Container, FileInfo, InspectError, TensorInfo, inspect_file};
use serde_json::json;

use npusim_io::report::table::row_text;

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
            write_json(out, &args, &info)
        } else {
            write_table(out, &info)
        }
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The npusim format column: the format's name, or why there is none.
fn format_name(t: &TensorInfo) -> String {
    match t.format {
        Some(f) => f.to_string(),
        None if t.dtype.contains('V') || t.dtype.contains("f1") => "? (give --from)".into(),
        None => "-".into(),
    }
}

/// The cells of a tensor's row.
fn cells(t: &TensorInfo) -> [String; 6] {
    [
        t.name.clone(),
        t.dtype.to_string(),
        format_name(t),
        format!("{:?}", t.shape),
        t.elements.to_string(),
        t.bytes.to_string(),
    ]
}

/// The table's heading row.
const HEADING: [&str; 6] = ["tensor", "dtype", "format", "shape", "elements", "bytes"];

/// Writes the table: a header row, one row per tensor (columns as wide as their widest
/// cell, numbers right-aligned), then the totals and the metadata. Rows are built one at a
/// time, in two passes (widths, then text).
fn write_table(out: &mut dyn Write, info: &FileInfo) -> io::Result<()> {
    let mut widths = HEADING.map(|h| h.chars().count());
    for t in &info.tensors {
        for (w, cell) in widths.iter_mut().zip(cells(t)) {
            *w = (*w).max(cell.chars().count());
        }
    }
    writeln!(out, "{}", row_text(&HEADING, &widths, |c| c >= 4))?;
    for t in &info.tensors {
        writeln!(out, "{}", row_text(&cells(t), &widths, |c| c >= 4))?;
    }
    let elements: u64 = info.tensors.iter().map(|t| t.elements).sum();
    let bytes: u64 = info.tensors.iter().map(|t| t.bytes).sum();
    writeln!(
        out,
        "{} tensor(s), {elements} elements, {bytes} bytes of data",
        info.tensors.len()
    )?;
    for (k, v) in &info.metadata {
        writeln!(out, "metadata {k} = {v}")?;
    }
    Ok(())
}

/// Writes the JSON document (one line): file, container, tensors and metadata, keys in
/// alphabetical order, one tensor at a time.
fn write_json(out: &mut dyn Write, args: &InfoArgs, info: &FileInfo) -> io::Result<()> {
    let text = |v: &serde_json::Value| v.to_string();
    write!(
        out,
        "{{\"container\":{},\"file\":{},\"metadata\":",
        text(&json!(info.container.name())),
        text(&json!(args.file.display().to_string())),
    )?;
    let metadata: serde_json::Map<String, serde_json::Value> = info
        .metadata
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    serde_json::to_writer(&mut *out, &metadata)?;
    out.write_all(b",\"tensors\":[")?;
    for (i, t) in info.tensors.iter().enumerate() {
        if i > 0 {
            out.write_all(b",")?;
        }
        let tensor = json!({
            "name": t.name,
            "dtype": t.dtype,
            "format": t.format.map(|f| f.to_string()),
            "shape": t.shape,
            "elements": t.elements,
            "bytes": t.bytes,
        });
        serde_json::to_writer(&mut *out, &tensor)?;
    }
    out.write_all(b"]}\n")
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
