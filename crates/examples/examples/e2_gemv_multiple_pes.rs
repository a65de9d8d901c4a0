//! Tutorial program E2 of the Cerebras SDK (csl-examples), `gemv-05-multiple-pes` (4×1 PEs): `y = A x + b` computed on each PE of a row.
//!
//! The program lives in the library, [`npusim_examples::cerebras::programs::e2_gemv_multiple_pes`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e2_gemv_multiple_pes::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", PROGRAM.run(Arch::Wse2, false)?.summary());
    Ok(())
}
