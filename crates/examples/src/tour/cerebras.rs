//! The Cerebras section of the tour: the tensor-access lowering examples of the CSL "Data
//! Structure Descriptors" document (`crate::cerebras::document_examples`), lowered and compared,
//! then every shipped example program (`crate::cerebras::programs`, the list
//! `npusim cerebras run` uses) run on both architectures against its expected output, then
//! the shipped CSL program `examples/csl/gemv_2x2` compiled as `npusim cslc` compiles it and
//! run by the SDK runtime as its host script runs it, on both architectures. The
//! summary prints one line for the programs (and every failure); [`Detail::Verbose`]
//! prints one line per program and architecture.

use crate::cerebras::document_examples::DOCUMENT_LOWERINGS;
use crate::cerebras::programs::{PROGRAMS, Program, Values};
use npusim_cerebras::Arch;
use npusim_csl::compiled::{CompiledProgram, command::cslc_options};
use npusim_csl::sdk::{MemcpyDataType, MemcpyOrder, MemcpyRect, SdkRuntime};

use std::collections::BTreeMap;

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
        // representative: the four-variable case (the others with --verbose)
        let representative = i + 1 == DOCUMENT_LOWERINGS.len();
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
    failed += programs(out, detail)?;
    Ok(failed + csl_program(out, detail)?)
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

/// The shipped CSL program the tour compiles and runs: its directory and files.
const CSL_DIR: &str = "examples/csl/gemv_2x2";
const CSL_LAYOUT: &str = include_str!("../../../../examples/csl/gemv_2x2/layout.csl");
const CSL_PE: &str = include_str!("../../../../examples/csl/gemv_2x2/pe_program.csl");
/// The grid and the `--params` of the tour's run (its `run.py` header gives the same).
const CSL_GRID: (u32, u32) = (2, 2);
const CSL_M: u32 = 3;
const CSL_N: u32 = 4;

/// Compiles `examples/csl/gemv_2x2` for `arch` as `npusim cslc --arch=<arch> layout.csl
/// --fabric-dims=9,4 --fabric-offsets=4,1 --params=M:3,N:4 --memcpy --channels=1` does and
/// runs what its `run.py` runs (copy A, x, b in; launch `gemv`; copy y out); gives
/// `(expected, got, cycles)`.
fn run_csl_program(arch: &str) -> Result<(Vec<f32>, Vec<f32>, u64), String> {
    let options = cslc_options(
        arch,
        Some("9,4"),
        Some("4,1"),
        &[format!("M:{CSL_M},N:{CSL_N}")],
        true,
        Some(1),
        (0, 0),
    )
    .map_err(|e| e.to_string())?;
    let sources = BTreeMap::from([
        ("layout.csl".to_string(), CSL_LAYOUT.to_string()),
        ("pe_program.csl".to_string(), CSL_PE.to_string()),
    ]);
    let program =
        CompiledProgram::compile("layout.csl", sources, options).map_err(|e| e.to_string())?;
    let (w, h) = CSL_GRID;
    let (m, n, pes) = (CSL_M as usize, CSL_N as usize, (w * h) as usize);
    // the values of run.py: small enough that every product and sum is exact in f32
    let a: Vec<f32> = (0..pes * m * n).map(|k| (k % 7) as f32 - 3.0).collect();
    let x: Vec<f32> = (0..n).map(|j| j as f32 * 0.5 + 1.0).collect();
    let b: Vec<f32> = (0..pes * m).map(|k| k as f32).collect();
    let want: Vec<f32> = (0..pes * m)
        .map(|r| (0..n).fold(b[r], |acc, j| acc + a[r * n + j] * x[j]))
        .collect();
    let bits = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<u32>>();
    let rect = |elements: u32| MemcpyRect {
        x: 0,
        y: 0,
        w,
        h,
        elements,
    };
    let (row, b32) = (MemcpyOrder::RowMajor, MemcpyDataType::Bits32);
    let mut rt = SdkRuntime::from_program(program);
    let e = |e: npusim_csl::sdk::SdkError| e.to_string();
    rt.load().map_err(e)?;
    rt.run().map_err(e)?;
    let xs: Vec<f32> = x.iter().copied().cycle().take(pes * n).collect();
    rt.memcpy_h2d("A", &bits(&a), rect(CSL_M * CSL_N), false, row, b32, false)
        .map_err(e)?;
    rt.memcpy_h2d("x", &bits(&xs), rect(CSL_N), false, row, b32, false)
        .map_err(e)?;
    rt.memcpy_h2d("b", &bits(&b), rect(CSL_M), false, row, b32, false)
        .map_err(e)?;
    rt.launch("gemv", false).map_err(e)?;
    let mut y = vec![0u32; pes * m];
    rt.memcpy_d2h(&mut y, "y", rect(CSL_M), false, row, b32, false)
        .map_err(e)?;
    let cycles = rt.stop().map_err(e)?.map_or(0, |r| r.cycles);
    Ok((want, y.into_iter().map(f32::from_bits).collect(), cycles))
}

/// `[1.0, 2.5, ...]`.
fn floats(v: &[f32]) -> String {
    let s: Vec<String> = v.iter().map(|f| format!("{f:?}")).collect();
    format!("[{}]", s.join(", "))
}

/// Compiles and runs the shipped CSL program on both architectures; returns the number of
/// failures.
fn csl_program(out: &mut dyn Write, detail: Detail) -> io::Result<usize> {
    let mut failed = 0;
    for arch in ["wse2", "wse3"] {
        let head = format!(
            "CSL {CSL_DIR} (y = A x + b, {}x{} PEs, {arch})",
            CSL_GRID.0, CSL_GRID.1
        );
        let (pass, lines) = match run_csl_program(arch) {
            Ok((want, got, cycles)) if want == got => (
                true,
                vec![format!(
                    "PASS {head}: y = {}; {cycles} cycles",
                    floats(&got)
                )],
            ),
            Ok((want, got, _)) => (
                false,
                vec![
                    format!("FAIL {head}"),
                    format!("     y: expected {}, got {}", floats(&want), floats(&got)),
                ],
            ),
            Err(e) => (false, vec![format!("FAIL {head}: {e}")]),
        };
        if !pass {
            failed += 1;
        }
        if detail.shows(pass, false) {
            for l in lines {
                writeln!(out, "{l}")?;
            }
        }
    }
    writeln!(
        out,
        "compiled CSL program: {CSL_DIR} (y = A x + b on {}x{} PEs) compiled as npusim cslc does and run by the SDK runtime as its run.py does, on wse2 and wse3: {} PASS, {failed} FAIL",
        CSL_GRID.0,
        CSL_GRID.1,
        2 - failed
    )?;
    Ok(failed)
}
