//! A whole-file cast's reports as text and JSON: the error statistics table, the JSON
//! document of every tensor, the preview (dry run) as JSON.

use std::path::Path;

use crate::cast::{CastSummary, ErrorStats, KeepReason, TensorPreview};
use crate::{TensorReport, shape_str};
use serde_json::json;

use super::table::align;

/// The error statistics of every cast tensor and their merge.
fn totals(reports: &[TensorReport]) -> ErrorStats {
    let mut total = ErrorStats::default();
    for c in cast_summaries(reports) {
        if let Some(e) = &c.stats.error {
            total.merge(e);
        }
    }
    total
}

/// The reports of cast tensors.
fn cast_summaries(reports: &[TensorReport]) -> impl Iterator<Item = &CastSummary> {
    reports.iter().filter_map(|r| match r {
        TensorReport::Cast(c) => Some(c),
        TensorReport::Kept(_) => None,
    })
}

/// A figure in 4 significant digits (`inf`, `-` for NaN).
fn figure(x: f64) -> String {
    if x.is_nan() {
        "-".into()
    } else if x.is_infinite() {
        "inf".into()
    } else if x == 0.0 {
        "0".into()
    } else {
        format!("{x:.4e}")
    }
}

/// The error columns shared by the `cast` and `quantize` tables: elements, max abs / rel
/// error, RMSE, SQNR, exact, flushed, saturated, NaN.
pub fn error_cells(e: &ErrorStats) -> [String; 9] {
    let sqnr = e.sqnr_db();
    [
        e.total.to_string(),
        figure(e.max_abs_error),
        figure(e.max_rel_error),
        figure(e.rmse()),
        if sqnr.is_finite() {
            format!("{sqnr:.2}")
        } else {
            figure(sqnr)
        },
        e.exact.to_string(),
        e.flushed_to_zero.to_string(),
        e.saturated.to_string(),
        e.nan.to_string(),
    ]
}

/// One row of the table.
fn row(name: &str, cast: &str, e: &ErrorStats) -> [String; 12] {
    let [n, abs, rel, rmse, sqnr, exact, flushed, sat, nan] = error_cells(e);
    [
        name.to_string(),
        cast.to_string(),
        n,
        abs,
        rel,
        rmse,
        sqnr,
        exact,
        flushed,
        sat,
        nan,
        e.inf.to_string(),
    ]
}

/// The error statistics table: one row per cast tensor, then the total.
pub fn table(reports: &[TensorReport]) -> String {
    let header = [
        "tensor",
        "cast",
        "elements",
        "max abs err",
        "max rel err",
        "RMSE",
        "SQNR dB",
        "exact",
        "flushed",
        "saturated",
        "NaN",
        "Inf",
    ]
    .map(String::from);
    let mut rows = vec![header];
    for c in cast_summaries(reports) {
        if let Some(e) = &c.stats.error {
            rows.push(row(&c.name, &format!("{} -> {}", c.from, c.to), e));
        }
    }
    rows.push(row("total", "", &totals(reports)));
    align(&rows, 2)
}

/// The JSON of one tensor's error statistics (`null` for infinite or undefined figures).
pub fn error_stats_json(e: &ErrorStats) -> serde_json::Value {
    let num = |x: f64| if x.is_finite() { json!(x) } else { json!(null) };
    json!({
        "elements": e.total,
        "measured": e.measured,
        "max_abs_error": num(e.max_abs_error),
        "max_rel_error": num(e.max_rel_error),
        "rmse": num(e.rmse()),
        "sqnr_db": num(e.sqnr_db()),
        "exact": e.exact,
        "flushed_to_zero": e.flushed_to_zero,
        "saturated": e.saturated,
        "nan": e.nan,
        "inf": e.inf,
        "nan_inputs": e.nan_inputs,
        "inf_inputs": e.inf_inputs,
    })
}

/// The JSON of one tensor's report.
fn report_json(r: &TensorReport, reason: &dyn Fn(KeepReason) -> String) -> serde_json::Value {
    match r {
        TensorReport::Cast(c) => json!({
            "name": c.name,
            "action": "cast",
            "from": c.from.to_string(),
            "to": c.to.to_string(),
            "shape": c.shape,
            "elements": c.count,
            "nan": c.stats.nan,
            "inf": c.stats.inf,
            "saturated": c.stats.saturated,
            "nonfinite_from_finite": c.stats.nonfinite_from_finite,
            "flushed_to_zero": c.stats.flushed_to_zero,
            "error": c.stats.error.as_deref().map(error_stats_json),
        }),
        TensorReport::Kept(k) => json!({
            "name": k.name,
            "action": "kept",
            "dtype": k.dtype.to_string(),
            "shape": k.shape,
            "reason": reason(k.reason),
        }),
    }
}

/// Writes the whole cast as one JSON document and a newline to `w`: files, every tensor (cast
/// or kept, with the reason in the words of `reason`), the total. Written tensor by tensor (a million tensors make no document tree in
/// memory); the bytes are those of the document as one `serde_json::Value` (keys sorted).
pub fn write_json(
    w: &mut dyn std::io::Write,
    input: &Path,
    output: &Path,
    reports: &[TensorReport],
    reason: &dyn Fn(KeepReason) -> String,
) -> std::io::Result<()> {
    let text = |w: &mut dyn std::io::Write, v: &serde_json::Value| {
        serde_json::to_writer(w, v).map_err(std::io::Error::from)
    };
    w.write_all(b"{\"input\":")?;
    text(w, &json!(input.display().to_string()))?;
    w.write_all(b",\"output\":")?;
    text(w, &json!(output.display().to_string()))?;
    w.write_all(b",\"tensors\":[")?;
    for (i, r) in reports.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        text(w, &report_json(r, reason))?;
    }
    w.write_all(b"],\"total\":")?;
    text(w, &error_stats_json(&totals(reports)))?;
    w.write_all(b"}\n")
}

/// A report's summary line, with the reason a tensor is kept in the words of `reason`.
pub fn report_line(report: &TensorReport, reason: &dyn Fn(KeepReason) -> String) -> String {
    match report {
        TensorReport::Kept(k) => format!(
            "{}: {} {} left unchanged ({})",
            k.name,
            k.dtype,
            shape_str(&k.shape),
            reason(k.reason)
        ),
        cast => cast.to_string(),
    }
}

/// What the dry run says a tensor becomes: `f32 -> bf16`, or `keep (reason)` in the words
/// of `reason`.
pub fn preview_action(r: &TensorPreview, reason: &dyn Fn(KeepReason) -> String) -> String {
    let from = r.from.map_or(r.dtype.clone(), |f| f.to_string());
    match r.action {
        Ok(to) => format!("{from} -> {to}"),
        Err(why) => format!("keep ({})", reason(why)),
    }
}

/// The dry run as one JSON document: files, every tensor's planned action and bytes (the
/// reason a tensor is kept in the words of `reason`), the totals (`[bytes in, bytes out]`)
/// and the notes.
pub fn dry_run_json(
    input: &Path,
    output: &Path,
    rows: &[TensorPreview],
    bytes: [u64; 2],
    notes: &[String],
    reason: &dyn Fn(KeepReason) -> String,
) -> serde_json::Value {
    let tensors: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let mut t = json!({
                "name": r.name,
                "dtype": r.dtype,
                "from": r.from.map(|f| f.to_string()),
                "shape": r.shape,
                "bytes_in": r.bytes_in,
                "bytes_out": r.bytes_out,
            });
            match r.action {
                Ok(to) => {
                    t["action"] = json!("cast");
                    t["to"] = json!(to.to_string());
                }
                Err(why) => {
                    t["action"] = json!("keep");
                    t["reason"] = json!(reason(why));
                }
            }
            t
        })
        .collect();
    json!({
        "dry_run": true,
        "input": input.display().to_string(),
        "output": output.display().to_string(),
        "tensors": tensors,
        "cast": rows.iter().filter(|r| r.action.is_ok()).count(),
        "bytes_in": bytes[0],
        "bytes_out": bytes[1],
        "notes": notes,
    })
}
