//! Spec §13 E2, `gemv-05-multiple-pes` (4×1 PEs): `y = A x + b` computed on each PE of a row.
//!
//! The program lives in the library, [`npusim_cerebras::programs::e2_gemv_multiple_pes`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_cerebras::programs::e2_gemv_multiple_pes::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let run = PROGRAM.run(Arch::Wse2, false)?;
    for o in &run.got {
        println!("{} = {}", o.name, o.values);
    }
    println!(
        "cycles = {}, trace hash = {:016x}",
        run.report.cycles, run.report.trace_hash
    );
    println!(
        "matches the expected output: {}",
        run.mismatches().is_empty()
    );
    Ok(())
}
