//! Tutorial program E5 of the Cerebras SDK (csl-examples), `gemv-09-streaming` (4×3 PEs): `x`, `b` streamed in, `y` streamed out.
//!
//! The program lives in the library, [`npusim_examples::cerebras::programs::e5_gemv_streaming`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e5_gemv_streaming::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", PROGRAM.run(Arch::Wse2, false)?.summary());
    Ok(())
}
