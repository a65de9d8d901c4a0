//! Tutorial program E4 of the Cerebras SDK (csl-examples), `gemv-08-routes-3` (4×3 PEs): `y = A x + b`, x multicast, y reduced eastward.
//!
//! The program lives in the library, [`npusim_examples::cerebras::programs::e4_gemv_routes_3`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e4_gemv_routes_3::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", PROGRAM.run(Arch::Wse2, false)?.summary());
    Ok(())
}
