//! The tour's Ascend section: every golden row of [`crate::ascend::goldens`], run through the
//! API it names, and the two 512-lane LocalTensor examples of the Atlas training series `Cast`
//! page ([`crate::ascend::document_examples`]).

use crate::ascend::document_examples::{lane_examples, run as run_example};
use crate::ascend::goldens::{Golden, GoldenCheck, goldens};
use npusim_ascend::DType;

use std::io::{self, Write};

use super::detail::Detail;

/// Where the rows come from, by document title and section, and what the labels of the lines
/// below mean.
const SOURCES: &str = "\
sources: AscendC API reference, \"Cast\" for the Ascend 950PR/950DT MicroAPI (S1: conversion
tables 3-8 and the constraints) and \"Cast\" for the Atlas training series LocalTensor API (S2:
precision conversion rules, Table 4, More Samples); \"derived\" rows pin what the two leave open.
G001, G002, ...: the rows of npusim's golden table, one element each; [the API that ran it]; (the row's source; \"repo\": CANN asc-devkit's newer AscendC docs).";

/// Rows shown in the summary: one per kind of rule (S2 float->half, training-series saturation,
/// CAST_ODD, the fp4 carry S1 misprints, e8m0, the literal HiF8 hybrid threshold,
/// SetDeqScale).
const REPRESENTATIVE: &[&str] = &["G006", "G046", "G110", "G120", "G151", "G183", "G204"];

/// A code with its value: `0x3800 (0.5)`.
fn show(dtype: DType, code: u64) -> String {
    let format = dtype.format();
    let digits = format.bits().div_ceil(4) as usize;
    let v = format.decode(code).to_f64();
    let value = if v.is_nan() {
        "NaN".to_string()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.to_string()
    } else if v == 0.0 || (1e-4..1e16).contains(&v.abs()) {
        format!("{v}")
    } else {
        format!("{v:e}")
    };
    format!("{code:#0w$x} ({value})", w = digits + 2)
}

/// One check of a row as a line of the tour (plus a note line when the row has one).
fn render(row: &Golden, check: &GoldenCheck) -> String {
    let mut s = format!(
        "{} {:<5} {:<12} {:<24} -> {:<12} {:<11} [{}] expected {} got {}  ({})",
        if check.pass { "PASS" } else { "FAIL" },
        row.id,
        row.src.name(),
        show(row.src, row.src_code.unwrap_or_default()),
        row.dst.name(),
        row.round_name(),
        check.how,
        show(row.dst, row.expected.unwrap_or_default()),
        show(row.dst, check.got),
        row.reference,
    );
    if !row.note.is_empty() {
        s.push_str("\n           note: ");
        s.push_str(&row.note);
    }
    s
}

/// Checks every golden row, printing per `detail`; returns `(checks, failures)`.
fn run_goldens(out: &mut dyn Write, detail: Detail) -> io::Result<(usize, usize)> {
    let rows = match goldens() {
        Ok(rows) => rows,
        Err(e) => {
            writeln!(out, "FAIL the golden data cannot be read: {e}")?;
            return Ok((0, 1));
        }
    };
    let (mut checks, mut failed) = (0, 0);
    for row in &rows {
        let results = match row.check() {
            Ok(r) => r,
            Err(e) => {
                failed += 1;
                writeln!(out, "FAIL {:<5} {}: {e}", row.id, row.reference)?;
                continue;
            }
        };
        if results.is_empty() && detail == Detail::Verbose {
            writeln!(
                out,
                "---- {:<5} {} (no single element: checked by the 512-lane example below)",
                row.id, row.reference
            )?;
        }
        for (i, check) in results.iter().enumerate() {
            checks += 1;
            if !check.pass {
                failed += 1;
            }
            let representative = i == 0 && REPRESENTATIVE.contains(&row.id.as_str());
            if detail.shows(check.pass, representative) {
                writeln!(out, "{}", render(row, check))?;
            }
        }
    }
    writeln!(
        out,
        "golden rows: {} rows, {checks} checks: {} PASS, {failed} FAIL",
        rows.len(),
        checks - failed.min(checks)
    )?;
    Ok((checks, failed))
}

/// Runs S2's two 512-lane result examples (More Samples); prints one line each; returns the failures.
fn run_lane_examples(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    let mut failed = 0;
    let mut lines = Vec::new();
    for ex in lane_examples() {
        match run_example(&ex) {
            Ok((got, report)) => {
                let same = got.iter().zip(&ex.expected).filter(|(a, b)| a == b).count();
                let ok = same == ex.expected.len() && got.len() == ex.expected.len();
                if !ok {
                    failed += 1;
                }
                if detail.shows(ok, true) {
                    lines.push(format!(
                        "{} {:<15} {}: {same}/{} lanes as printed ({} computed, {} kept their prior contents)",
                        if ok { "PASS" } else { "FAIL" },
                        ex.name,
                        ex.call,
                        ex.expected.len(),
                        report.written.len(),
                        got.len() - report.written.len(),
                    ));
                }
            }
            Err(e) => {
                failed += 1;
                lines.push(format!("FAIL {}: {e}", ex.name));
            }
        }
    }
    writeln!(
        out,
        "S2 More Samples: half -> int32 CAST_CEIL over the unified buffer (G206-G208)"
    )?;
    for l in lines {
        writeln!(out, "{l}")?;
    }
    Ok(failed)
}

/// Runs the Ascend section; returns the number of failures.
pub fn run(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    writeln!(out, "== Ascend (npusim-ascend)")?;
    writeln!(out, "{SOURCES}")?;
    writeln!(out)?;
    let (_, failed) = run_goldens(out, detail)?;
    writeln!(out)?;
    Ok(failed + run_lane_examples(out, detail)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_ascend_case_and_example_passes() {
        let rows = goldens().unwrap();
        let failing: Vec<String> = rows
            .iter()
            .flat_map(|row| {
                row.check()
                    .unwrap()
                    .into_iter()
                    .filter(|c| !c.pass)
                    .map(|c| render(row, &c))
                    .collect::<Vec<_>>()
            })
            .collect();
        assert!(failing.is_empty(), "{}", failing.join("\n"));
        assert_eq!(
            run_lane_examples(&mut Vec::new(), Detail::FailuresOnly).unwrap(),
            0
        );
    }

    #[test]
    fn representative_rows_exist() {
        let rows = goldens().unwrap();
        for id in REPRESENTATIVE {
            assert!(rows.iter().any(|r| r.id == *id), "{id}");
        }
        assert_eq!(show(DType::Half, 0x3800), "0x3800 (0.5)");
        assert_eq!(show(DType::Fp4E2M1, 0x2), "0x2 (1)");
    }
}
