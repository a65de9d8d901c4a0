//! Tutorial program E7 of the Cerebras SDK (csl-examples), `pipeline-01-basic` (one PE): `out = in + 1` with one async `@add16`.
//!
//! The program lives in the library, [`npusim_examples::cerebras::programs::e7_pipeline_basic`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e7_pipeline_basic::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", PROGRAM.run(Arch::Wse2, false)?.summary());
    Ok(())
}
