//! Tutorial program E3 of the Cerebras SDK (csl-examples), `gemv-06-routes-1` (2×1 PEs): `y = A x + b` split by columns.
//!
//! The program lives in the library, [`npusim_examples::cerebras::programs::e3_gemv_routes_1`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e3_gemv_routes_1::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", PROGRAM.run(Arch::Wse2, false)?.summary());
    Ok(())
}
