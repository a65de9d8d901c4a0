//! The Furiosa section of the tour: every example of seed 000 (Cast Engine) and seed 003
//! (Inter-Slice Block) run on concrete data with every output cell checked
//! (`npusim_furiosa::seed_examples`), and the mapping worked examples
//! (`npusim_furiosa::worked_mappings`).

use npusim_furiosa::seed_examples::SEED_EXAMPLES;
use npusim_furiosa::worked_mappings::WORKED_MAPPINGS;

use crate::tour::Detail;

/// Runs the section; returns the number of failures.
pub fn run(detail: Detail) -> usize {
    println!("== Furiosa RNGD (npusim-furiosa)");
    println!(
        "sources: Furiosa documentation, \"Cast Engine\" and \"Inter-Slice Block\"; mapping worked examples."
    );
    let mut failed = 0;
    for (i, ex) in SEED_EXAMPLES.iter().enumerate() {
        // representative: the dummy replacement (the first reduction)
        let representative = i == 2;
        match (ex.run)() {
            Ok(run) => {
                let pass = run.pass();
                if !pass {
                    failed += 1;
                }
                if detail.shows(pass, representative) {
                    println!(
                        "{} seed {} {:<16} {}: {}/{} cells as computed; {}; {}",
                        if pass { "PASS" } else { "FAIL" },
                        ex.seed,
                        ex.name,
                        ex.chain,
                        run.checked - run.mismatches,
                        run.checked,
                        run.sample,
                        run.estimate,
                    );
                    if let Some(m) = &run.first_mismatch {
                        println!("     first difference: {m}");
                    }
                    if detail == Detail::Verbose {
                        println!("     output: {}", run.output);
                    }
                }
            }
            Err(e) => {
                failed += 1;
                println!("FAIL seed {} {}: {e}", ex.seed, ex.name);
            }
        }
    }
    let seed_failed = failed;
    let mut cells = 0;
    for (i, w) in WORKED_MAPPINGS.iter().enumerate() {
        let representative = i == 11;
        let check = match w.check() {
            Ok(c) => c,
            Err(e) => {
                failed += 1;
                println!("FAIL map {:?} over [{}]: {e}", w.expr, w.axes);
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
            println!(
                "{} map {:?} over [{}]: size {} (expected {}); {}",
                if pass { "PASS" } else { "FAIL" },
                w.expr,
                w.axes,
                check.size,
                w.size,
                listed.join(", ")
            );
        }
    }
    println!(
        "seed examples: {} cases: {} PASS, {seed_failed} FAIL; mapping worked examples: {} mappings, {cells} cells: {} PASS, {} FAIL",
        SEED_EXAMPLES.len(),
        SEED_EXAMPLES.len() - seed_failed,
        WORKED_MAPPINGS.len(),
        WORKED_MAPPINGS.len() - (failed - seed_failed),
        failed - seed_failed
    );
    failed
}
