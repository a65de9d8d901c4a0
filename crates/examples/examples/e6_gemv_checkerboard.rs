//! Tutorial program E6 of the Cerebras SDK (csl-examples), `gemv-checkerboard-pattern` (4×4 PEs): `y = A x + b` in f16.
//!
//! The program lives in the library, [`npusim_examples::cerebras::programs::e6_gemv_checkerboard`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e6_gemv_checkerboard::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", PROGRAM.run(Arch::Wse2, false)?.summary());
    Ok(())
}
