//! `npusim info`: what a `.npy` or `.safetensors` file holds, read from its header alone.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use clap::Args;
use npusim_io::{FileInfo, TensorInfo, inspect_file};
use serde_json::json;

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

/// Runs `npusim info`: one line (or JSON object) per tensor.
pub fn run(args: InfoArgs) -> Result<ExitCode> {
    let info = inspect_file(&args.file)?;
    if args.json {
        println!("{}", to_json(&args, &info));
    } else {
        print!("{}", table(&info));
    }
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

/// The shape as `[2, 3]`.
fn shape_text(shape: &[u64]) -> String {
    let dims: Vec<String> = shape.iter().map(u64::to_string).collect();
    format!("[{}]", dims.join(", "))
}

/// The table: a header row, one row per tensor, then the totals and the metadata.
fn table(info: &FileInfo) -> String {
    let mut rows = vec![[
        "tensor".to_string(),
        "dtype".into(),
        "format".into(),
        "shape".into(),
        "elements".into(),
        "bytes".into(),
    ]];
    for t in &info.tensors {
        rows.push([
            t.name.clone(),
            t.dtype.clone(),
            format_name(t),
            shape_text(&t.shape),
            t.elements.to_string(),
            t.bytes.to_string(),
        ]);
    }
    let mut out = align(&rows, 4);
    let elements: u64 = info.tensors.iter().map(|t| t.elements).sum();
    let bytes: u64 = info.tensors.iter().map(|t| t.bytes).sum();
    out.push_str(&format!(
        "{} tensor(s), {elements} elements, {bytes} bytes of data\n",
        info.tensors.len()
    ));
    for (k, v) in &info.metadata {
        out.push_str(&format!("metadata {k} = {v}\n"));
    }
    out
}

/// The rows of a table as aligned text: columns padded to their widest cell, columns from
/// `right_from` on right-aligned (numbers).
pub fn align<const N: usize>(rows: &[[String; N]], right_from: usize) -> String {
    let widths: Vec<usize> = (0..N)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            let pad = " ".repeat(widths[c] - cell.chars().count());
            if c >= right_from {
                line.push_str(&pad);
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&pad);
            }
            line.push_str("  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// The JSON document: file, container, tensors and metadata.
fn to_json(args: &InfoArgs, info: &FileInfo) -> serde_json::Value {
    let tensors: Vec<_> = info
        .tensors
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "dtype": t.dtype,
                "format": t.format.map(|f| f.to_string()),
                "shape": t.shape,
                "elements": t.elements,
                "bytes": t.bytes,
            })
        })
        .collect();
    let metadata: serde_json::Map<String, serde_json::Value> = info
        .metadata
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    json!({
        "file": args.file.display().to_string(),
        "container": info.container.name(),
        "tensors": tensors,
        "metadata": metadata,
    })
}
