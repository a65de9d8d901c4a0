//! The Cerebras section of the tour: the tensor-access lowering examples of the CSL "Data
//! Structure Descriptors" document (`npusim_cerebras::seed_examples`), lowered and compared.

use npusim_cerebras::seed_examples::SEED_LOWERINGS;

use crate::tour::Detail;

/// Runs the section; returns the number of failures.
pub fn run(detail: Detail) -> usize {
    println!("== Cerebras (npusim-cerebras)");
    println!(
        "source: CSL documentation, \"Data Structure Descriptors\" (tensor access expressions and their lowering)."
    );
    println!();
    let mut failed = 0;
    for (i, ex) in SEED_LOWERINGS.iter().enumerate() {
        let result = ex.check();
        let pass = result.is_ok();
        if !pass {
            failed += 1;
        }
        // representative: the first 1-D case and the four-variable case
        let representative = i == 0 || i + 1 == SEED_LOWERINGS.len();
        if detail.shows(pass, representative) {
            let shape: Vec<String> = ex.shape.iter().map(u64::to_string).collect();
            println!(
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
            );
            if let Err(e) = result {
                println!("     {e}");
            }
        }
    }
    println!(
        "lowering examples: {} cases: {} PASS, {failed} FAIL",
        SEED_LOWERINGS.len(),
        SEED_LOWERINGS.len() - failed
    );
    failed
}
