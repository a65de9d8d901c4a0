//! `npusim cast --stats` / `--json`: the error statistics of a cast as a table or JSON, and
//! the `--dry-run` preview as JSON.

use std::path::Path;

use npusim_io::cast::{CastSummary, ErrorStats, KeepReason, TensorPreview};
use npusim_io::{TensorReport, shape_str};
use serde_json::json;

use crate::table::align;

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
pub(crate) fn error_cells(e: &ErrorStats) -> [String; 9] {
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

/// The table: one row per cast tensor, then the total.
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
pub(crate) fn stats_json(e: &ErrorStats) -> serde_json::Value {
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
fn report_json(r: &TensorReport) -> serde_json::Value {
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
            "error": c.stats.error.as_deref().map(stats_json),
        }),
        TensorReport::Kept(k) => json!({
            "name": k.name,
            "action": "kept",
            "dtype": k.dtype.to_string(),
            "shape": k.shape,
            "reason": keep_reason(k.reason),
        }),
    }
}

/// Writes the whole cast as one JSON document and a newline to `w`: files, every tensor (cast
/// or kept), the total. Written tensor by tensor (a million tensors make no document tree in
/// memory); the bytes are those of the document as one `serde_json::Value` (keys sorted).
pub fn write_json(
    w: &mut dyn std::io::Write,
    input: &Path,
    output: &Path,
    reports: &[TensorReport],
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
        text(w, &report_json(r))?;
    }
    w.write_all(b"],\"total\":")?;
    text(w, &stats_json(&totals(reports)))?;
    w.write_all(b"}\n")
}

/// Why a tensor is kept, naming the option that would cast it where there is one.
pub fn keep_reason(reason: KeepReason) -> String {
    match reason {
        KeepReason::ScaleTensor => "f8e8m0 scale tensor; name it with --tensor to cast it".into(),
        other => other.to_string(),
    }
}

/// A report's summary line, with the reason a tensor is kept in the options' words.
pub fn report_line(report: &TensorReport) -> String {
    match report {
        TensorReport::Kept(k) => format!(
            "{}: {} {} left unchanged ({})",
            k.name,
            k.dtype,
            shape_str(&k.shape),
            keep_reason(k.reason)
        ),
        cast => cast.to_string(),
    }
}

/// What the dry run says a tensor becomes: `f32 -> bf16`, or `keep (reason)`.
pub fn preview_action(r: &TensorPreview) -> String {
    let from = r.from.map_or(r.dtype.clone(), |f| f.to_string());
    match r.action {
        Ok(to) => format!("{from} -> {to}"),
        Err(reason) => format!("keep ({})", keep_reason(reason)),
    }
}

/// The dry run as one JSON document: files, every tensor's planned action and bytes, the
/// totals (`[bytes in, bytes out]`) and the notes.
pub fn dry_run_json(
    input: &Path,
    output: &Path,
    rows: &[TensorPreview],
    bytes: [u64; 2],
    notes: &[String],
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
                Err(reason) => {
                    t["action"] = json!("keep");
                    t["reason"] = json!(keep_reason(reason));
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
