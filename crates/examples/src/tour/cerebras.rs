//! The Cerebras section of the tour: the tensor-access lowering examples of the CSL "Data
//! Structure Descriptors" document (`crate::cerebras::document_examples`), lowered and compared,
//! then every shipped example program (`crate::cerebras::programs`, the list
//! `npusim cerebras run` uses) run on both architectures against its expected output. The
//! summary prints one line for the programs (and every failure); [`Detail::Verbose`]
//! prints one line per program and architecture.

use crate::cerebras::document_examples::DOCUMENT_LOWERINGS;
use crate::cerebras::programs::{PROGRAMS, Program, Values};
use npusim_cerebras::Arch;

use std::io::{self, Write};

use super::detail::Detail;

/// Runs the section; returns the number of failures.
pub fn run(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    writeln!(out, "== Cerebras (npusim-cerebras)")?;
    writeln!(
        out,
        "sources: CSL documentation, \"Data Structure Descriptors\" (tensor access lowering); the Cerebras SDK's tutorial programs E1-E10, ported by hand, and E11 (E4's pattern on 8x8 PEs) (multi-PE simulator)."
    )?;
    let mut failed = 0;
    for (i, ex) in DOCUMENT_LOWERINGS.iter().enumerate() {
        let result = ex.check();
        let pass = result.is_ok();
        if !pass {
            failed += 1;
        }
        // representative: the first 1-D case and the four-variable case
        let representative = i == 0 || i + 1 == DOCUMENT_LOWERINGS.len();
        if detail.shows(pass, representative) {
            let shape: Vec<String> = ex.shape.iter().map(u64::to_string).collect();
            writeln!(
                out,
                "{} {:<48} over [{}]: offset {}, stride .{{{}}}, {} accesses ({})",
                if pass { "PASS" } else { "FAIL" },
                ex.expr,
                shape.join(", "),
                ex.offset,
                ex.stride
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(","),
                ex.count,
                ex.title
            )?;
            if let Err(e) = result {
                writeln!(out, "     {e}")?;
            }
        }
    }
    writeln!(
        out,
        "lowering examples: {} cases: {} PASS, {failed} FAIL",
        DOCUMENT_LOWERINGS.len(),
        DOCUMENT_LOWERINGS.len() - failed
    )?;
    Ok(failed + programs(out, detail)?)
}

/// At most this many values of an output on a passing line.
const SHOWN: usize = 6;

/// `f32[1.0, 2.0, ...]` cut after [`SHOWN`] values.
fn short(v: &Values) -> String {
    let full = v.to_string();
    if v.len() <= SHOWN {
        return full;
    }
    let cut = full
        .match_indices(", ")
        .nth(SHOWN - 1)
        .map_or(full.len(), |(i, _)| i);
    format!("{}, ... ({} values)]", &full[..cut], v.len())
}

/// Runs one program on `arch`; the line to print and whether it passed.
fn program_line(p: &Program, arch: Arch) -> (bool, Vec<String>) {
    let head = format!("{} {} ({} PEs, {arch})", p.label, p.name, p.grid);
    let run = match p.run(arch, false) {
        Ok(run) => run,
        Err(e) => return (false, vec![format!("FAIL {head}: {e}")]),
    };
    let bad = run.mismatches();
    let pass = bad.is_empty();
    let got: Vec<String> = run
        .got
        .iter()
        .map(|o| format!("{} = {}", o.name, short(&o.values)))
        .collect();
    let mut lines = vec![format!(
        "{} {head}: {}; {} cycles",
        if pass { "PASS" } else { "FAIL" },
        got.join("; "),
        run.report.cycles
    )];
    for (want, got) in bad {
        lines.push(format!(
            "     {}: expected {}, got {}",
            want.name,
            want.values,
            got.map_or("nothing".to_string(), |g| g.values.to_string())
        ));
    }
    (pass, lines)
}

/// Runs every shipped program on both architectures; returns the number of failures.
fn programs(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    let (mut runs, mut failed) = (0, 0);
    for p in PROGRAMS {
        for arch in [Arch::Wse2, Arch::Wse3] {
            runs += 1;
            let (pass, lines) = program_line(p, arch);
            if !pass {
                failed += 1;
            }
            if detail.shows(pass, false) {
                for l in lines {
                    writeln!(out, "{l}")?;
                }
            }
        }
    }
    writeln!(
        out,
        "example programs: {} ({}-{}) on wse2 and wse3: {} PASS, {failed} FAIL (npusim cerebras run --list)",
        PROGRAMS.len(),
        PROGRAMS.first().map_or("", |p| p.label),
        PROGRAMS.last().map_or("", |p| p.label),
        runs - failed
    )?;
    Ok(failed)
}
