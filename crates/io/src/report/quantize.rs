//! A whole-file quantisation's reports as text and JSON: one line per tensor, the error and
//! block statistics table, the JSON document.

use std::path::Path;

use crate::cast::ErrorStats;
use crate::quantize::{DequantizeReport, QuantizeReport, QuantizedTensor};
use crate::{QuantizeJob, shape_str};
use npusim_numerics::Format;
use npusim_numerics::block::BlockStats;
use serde_json::json;

use super::cast::{error_cells, error_stats_json};
use super::table::align;

/// The scheme and rule of a tensor: `mxfp4/floor`, `nvfp4`.
fn scheme_text(t: &QuantizedTensor) -> String {
    match t.scale_rule {
        Some(r) => format!("{}/{r}", t.scheme),
        None => t.scheme.to_string(),
    }
}

/// One line per tensor: what it became, or why it was kept.
pub fn lines(rep: &QuantizeReport) -> String {
    let mut s = String::new();
    for t in &rep.quantized {
        s.push_str(&format!(
            "{}: {:?} {} -> {} along axis {}: {}\n",
            t.name,
            t.dtype,
            shape_str(&t.shape),
            scheme_text(t),
            t.axis,
            t.parts.join(", ")
        ));
    }
    for k in &rep.kept {
        s.push_str(&format!("{}: kept ({})\n", k.name, k.reason));
    }
    s
}

/// One line per dequantised tensor.
pub fn dequantized_lines(rep: &DequantizeReport, to: Format) -> String {
    let mut s = String::new();
    for t in &rep.dequantized {
        s.push_str(&format!(
            "{}: {} {} ({}) -> {to}\n",
            t.name,
            t.scheme,
            shape_str(&t.shape),
            t.parts.join(", ")
        ));
    }
    for k in &rep.kept {
        s.push_str(&format!("{k}: kept\n"));
    }
    s
}

/// `part` of `whole` blocks as a percentage.
fn share(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        100.0 * part as f64 / whole as f64
    }
}

/// One row of the table.
fn row(name: &str, scheme: &str, e: &ErrorStats, b: &BlockStats) -> [String; 13] {
    let [n, abs, rel, rmse, sqnr, exact, flushed, sat, nan] = error_cells(e);
    [
        name.to_string(),
        scheme.to_string(),
        n,
        abs,
        rel,
        rmse,
        sqnr,
        exact,
        flushed,
        sat,
        nan,
        format!("{:.2}", share(b.scale_underflow, b.blocks)),
        format!("{:.2}", share(b.scale_saturated, b.blocks)),
    ]
}

/// The statistics table: one row per quantised tensor (error figures and the shares of
/// blocks whose scale clamped low or high), then the total.
pub fn table(rep: &QuantizeReport) -> String {
    let header = [
        "tensor",
        "scheme",
        "elements",
        "max abs err",
        "max rel err",
        "RMSE",
        "SQNR dB",
        "exact",
        "flushed",
        "saturated",
        "NaN",
        "scale low %",
        "scale high %",
    ]
    .map(String::from);
    let mut rows = vec![header];
    for t in &rep.quantized {
        if let Some(e) = &t.error {
            rows.push(row(&t.name, &scheme_text(t), e, &t.blocks));
        }
    }
    if let Some(total) = rep.total_error() {
        rows.push(row("total", "", &total, &rep.total_blocks()));
    }
    align(&rows, 2)
}

/// The JSON of block counts, with the shares of clamped scales.
fn blocks_json(b: &BlockStats) -> serde_json::Value {
    json!({
        "blocks": b.blocks,
        "nan_blocks": b.nan_blocks,
        "zero_blocks": b.zero_blocks,
        "scale_underflow": b.scale_underflow,
        "scale_saturated": b.scale_saturated,
        "scale_underflow_share": share(b.scale_underflow, b.blocks) / 100.0,
        "scale_saturated_share": share(b.scale_saturated, b.blocks) / 100.0,
        "blocks_with_saturated_elements": b.blocks_with_saturated_elements,
    })
}

/// The JSON document: the job, every tensor (quantised or kept), the total.
pub fn json(
    input: &Path,
    output: &Path,
    job: &QuantizeJob,
    rep: &QuantizeReport,
) -> serde_json::Value {
    let mut tensors: Vec<serde_json::Value> = rep
        .quantized
        .iter()
        .map(|t| {
            json!({
                "name": t.name,
                "action": "quantized",
                "dtype": format!("{:?}", t.dtype),
                "shape": t.shape,
                "axis": t.axis,
                "scheme": t.scheme.to_string(),
                "scale_rule": t.scale_rule.map(|r| r.to_string()),
                "parts": t.parts,
                "blocks": blocks_json(&t.blocks),
                "error": t.error.as_ref().map(error_stats_json),
            })
        })
        .collect();
    tensors.extend(
        rep.kept
            .iter()
            .map(|k| json!({ "name": k.name, "action": "kept", "reason": k.reason.to_string() })),
    );
    json!({
        "input": input.display().to_string(),
        "output": output.display().to_string(),
        "scheme": job.scheme.to_string(),
        "scale_rule": job.scheme.is_mx().then(|| job.scale_rule.unwrap_or_default().to_string()),
        "axis": job.axis,
        "tensors": tensors,
        "total": {
            "error": rep.total_error().as_ref().map(error_stats_json),
            "blocks": blocks_json(&rep.total_blocks()),
        },
    })
}
