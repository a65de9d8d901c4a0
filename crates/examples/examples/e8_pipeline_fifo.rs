//! Tutorial program E8 of the Cerebras SDK (csl-examples), `pipeline-02-fifo` (one PE): `out = in + 1` through a FIFO and three microthreads.
//!
//! The program lives in the library, [`npusim_examples::cerebras::programs::e8_pipeline_fifo`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e8_pipeline_fifo::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", PROGRAM.run(Arch::Wse2, false)?.summary());
    Ok(())
}
