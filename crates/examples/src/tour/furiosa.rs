//! The Furiosa section of the tour: every example of the "Cast Engine" and "Inter-Slice Block"
//! pages run on concrete data with every output cell checked
//! ([`crate::furiosa::document_examples`]) and replayed from its pipeline file under
//! `crates/furiosa/examples/pipelines/`, the DM-to-DM kernel files with their schedules
//! ([`crate::furiosa::kernel_examples`]), and the mapping worked examples
//! ([`crate::furiosa::worked_mappings`]).

use crate::furiosa::document_examples::DOCUMENT_EXAMPLES;
use crate::furiosa::kernel_examples::KERNEL_EXAMPLES;
use crate::furiosa::worked_mappings::WORKED_MAPPINGS;
use npusim_furiosa::pipeline::Pipeline;

use std::io::{self, Write};

use super::detail::Detail;

/// Runs a seed example's pipeline file on the example's input; `Ok` when it gives the same
/// output codes as the API run.
fn replay(pipeline: &str, input: &[u64], codes: &[u64]) -> Result<(), String> {
    let p = Pipeline::parse(pipeline).map_err(|e| e.to_string())?;
    let (out, _) = p.run(input.to_vec()).map_err(|e| e.to_string())?;
    match out.codes().iter().zip(codes).position(|(a, &b)| a != b) {
        None if out.codes().len() == codes.len() => Ok(()),
        None => Err(format!(
            "{} codes instead of {}",
            out.codes().len(),
            codes.len()
        )),
        Some(i) => Err(format!("code {i} differs")),
    }
}

/// Runs the section; returns the number of failures.
pub fn run(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    writeln!(out, "== Furiosa RNGD (npusim-furiosa)")?;
    writeln!(
        out,
        "sources: Furiosa documentation, pages \"Cast Engine\" and \"Inter-Slice Block\" (named on each line below), each example replayed
from its pipeline file in crates/furiosa/examples/pipelines/; mapping worked examples: m![...] cells as Furiosa's furiosa-opt types give them."
    )?;
    let seed_failed = document_examples(out, detail)?;
    let kernels_failed = kernels(out, detail)?;
    let (mapping_failed, cells) = worked_mappings(out, detail)?;
    writeln!(
        out,
        "document examples: {} cases: {} PASS, {seed_failed} FAIL; DM-to-DM kernels: {} kernels: {} PASS, {kernels_failed} FAIL; mapping worked examples: {} mappings, {cells} cells: {} PASS, {mapping_failed} FAIL",
        DOCUMENT_EXAMPLES.len(),
        DOCUMENT_EXAMPLES.len() - seed_failed,
        KERNEL_EXAMPLES.len(),
        KERNEL_EXAMPLES.len() - kernels_failed,
        WORKED_MAPPINGS.len(),
        WORKED_MAPPINGS.len() - mapping_failed,
    )?;
    Ok(seed_failed + kernels_failed + mapping_failed)
}

/// Runs every shipped DM-to-DM kernel file on its documented input, checks its output against
/// the documented sums and prints its schedule on one line (the full table with
/// [`Detail::Verbose`]); returns how many failed.
fn kernels(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    let mut failed = 0;
    for (i, ex) in KERNEL_EXAMPLES.iter().enumerate() {
        let representative = i == 0;
        let result = ex.kernel().and_then(|k| {
            let run = ex.run(&k)?;
            Ok((ex.compare(&run)?, run))
        });
        match result {
            Ok((what, run)) => {
                if detail.shows(true, representative) {
                    let schedule = run
                        .schedule
                        .invocations
                        .iter()
                        .map(|s| s.invocation.summary())
                        .collect::<Vec<_>>()
                        .join("; ");
                    writeln!(
                        out,
                        "PASS kernel {} ({} of docs/furiosa-engines.md), DM to DM from crates/furiosa/examples/pipelines/{}: {what}; schedule per slice: {schedule}",
                        ex.title, ex.name, ex.file
                    )?;
                    if detail == Detail::Verbose {
                        writeln!(out, "{}", run.schedule)?;
                    }
                }
            }
            Err(e) => {
                failed += 1;
                writeln!(out, "FAIL kernel {} ({}): {e}", ex.name, ex.file)?;
            }
        }
    }
    Ok(failed)
}

/// Runs every document example and replays it from its pipeline file, printing the lines
/// `detail` asks for; returns how many failed.
fn document_examples(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    let mut failed = 0;
    for ex in DOCUMENT_EXAMPLES.iter() {
        // No representative: the summary shows the DM-to-DM kernel K6 instead, which runs the
        // same inter-slice reduction (the dummy replacement) from DM to DM.
        let representative = false;
        match (ex.run)() {
            Ok(run) => {
                let replay = replay(ex.pipeline, &run.input, &run.codes);
                let pass = run.pass() && replay.is_ok();
                if !pass {
                    failed += 1;
                }
                if detail.shows(pass, representative) {
                    writeln!(
                        out,
                        "{} {:<17} {:<16} {}: {}/{} cells as computed; {}; {}; {}",
                        if pass { "PASS" } else { "FAIL" },
                        ex.page,
                        ex.name,
                        ex.chain,
                        run.checked - run.mismatches,
                        run.checked,
                        run.sample,
                        match &replay {
                            Ok(()) => format!("pipeline {} gives the same codes", ex.pipeline_file),
                            Err(e) => format!("pipeline {}: {e}", ex.pipeline_file),
                        },
                        run.estimate,
                    )?;
                    if let Some(m) = &run.first_mismatch {
                        writeln!(out, "     first difference: {m}")?;
                    }
                    if detail == Detail::Verbose {
                        writeln!(out, "     output: {}", run.output)?;
                    }
                }
            }
            Err(e) => {
                failed += 1;
                writeln!(out, "FAIL {} {}: {e}", ex.page, ex.name)?;
            }
        }
    }
    Ok(failed)
}

/// Checks every worked mapping cell by cell, printing the lines `detail` asks for; returns
/// how many mappings failed and how many cells were checked.
fn worked_mappings(out: &mut dyn Write, detail: Detail) -> io::Result<(usize, usize)> {
    let mut failed = 0;
    let mut cells = 0;
    for (i, w) in WORKED_MAPPINGS.iter().enumerate() {
        let representative = i == 11;
        let check = match w.check() {
            Ok(c) => c,
            Err(e) => {
                failed += 1;
                writeln!(out, "FAIL map {:?} over [{}]: {e}", w.expr, w.axes)?;
                continue;
            }
        };
        let pass = check.pass(w.size);
        if !pass {
            failed += 1;
        }
        cells += check.cells.len();
        if detail.shows(pass, representative) {
            let listed: Vec<String> = check
                .cells
                .iter()
                .map(|(p, want, got)| {
                    if want == got {
                        format!("{p} -> {got}")
                    } else {
                        format!("{p} -> expected {want} got {got}")
                    }
                })
                .collect();
            writeln!(
                out,
                "{} map {:?} over [{}]: size {} (expected {}); {}",
                if pass { "PASS" } else { "FAIL" },
                w.expr,
                w.axes,
                check.size,
                w.size,
                listed.join(", ")
            )?;
        }
    }
    Ok((failed, cells))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pipeline_that_computes_something_else_is_caught() {
        let ex = DOCUMENT_EXAMPLES
            .iter()
            .find(|e| e.name == "inter_slice_add")
            .expect("the dummy example");
        let run = (ex.run)().expect("runs");
        assert_eq!(replay(ex.pipeline, &run.input, &run.codes), Ok(()));
        // Wrapping Add instead of AddSat: the saturated sums differ.
        let wrapping = ex.pipeline.replace("\"AddSat\"", "\"Add\"");
        let e = replay(&wrapping, &run.input, &run.codes).expect_err("differs");
        assert!(e.contains("differs"), "{e}");
    }
}
