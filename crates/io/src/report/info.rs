//! What a `.npy` or `.safetensors` file holds (its [`FileInfo`]) as a text table or one JSON
//! document, written as it is produced.

use std::io::{self, Write};

use serde_json::json;

use super::table::row_text;
use crate::{FileInfo, TensorInfo};

/// The npusim format column: the format's name, `unknown` for raw-byte dtypes whose format
/// the caller must name, `-` otherwise.
fn format_name(t: &TensorInfo, unknown: &str) -> String {
    match t.format {
        Some(f) => f.to_string(),
        None if t.dtype.contains('V') || t.dtype.contains("f1") => unknown.into(),
        None => "-".into(),
    }
}

/// The cells of a tensor's row.
fn cells(t: &TensorInfo, unknown: &str) -> [String; 6] {
    [
        t.name.clone(),
        t.dtype.to_string(),
        format_name(t, unknown),
        format!("{:?}", t.shape),
        t.elements.to_string(),
        t.bytes.to_string(),
    ]
}

/// The table's heading row.
const HEADING: [&str; 6] = ["tensor", "dtype", "format", "shape", "elements", "bytes"];

/// Writes the table: a header row, one row per tensor (columns as wide as their widest
/// cell, numbers right-aligned; `unknown` in the format column of a raw-byte dtype), then
/// the totals and the metadata. Rows are built one at a time, in two passes (widths, then
/// text), so a header of a million tensors costs no more than its own size.
pub fn write_table(out: &mut dyn Write, info: &FileInfo, unknown: &str) -> io::Result<()> {
    let mut widths = HEADING.map(|h| h.chars().count());
    for t in &info.tensors {
        for (w, cell) in widths.iter_mut().zip(cells(t, unknown)) {
            *w = (*w).max(cell.chars().count());
        }
    }
    writeln!(out, "{}", row_text(&HEADING, &widths, |c| c >= 4))?;
    for t in &info.tensors {
        writeln!(out, "{}", row_text(&cells(t, unknown), &widths, |c| c >= 4))?;
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

/// Writes the JSON document (one line): file (as `file` names it), container, tensors and
/// metadata, keys in alphabetical order, one tensor at a time.
pub fn write_json(out: &mut dyn Write, file: &str, info: &FileInfo) -> io::Result<()> {
    let text = |v: &serde_json::Value| v.to_string();
    write!(
        out,
        "{{\"container\":{},\"file\":{},\"metadata\":",
        text(&json!(info.container.name())),
        text(&json!(file)),
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
