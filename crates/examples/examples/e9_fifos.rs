//! Tutorial program E9 of the Cerebras SDK (csl-examples), `topic-09-fifos` (one PE): `out = (-(in + 10))^3` through a FIFO and a data task.
//!
//! The program lives in the library, [`npusim_examples::cerebras::programs::e9_fifos`], so the tests,
//! `npusim cerebras run` and the tour run the same code; this example runs it on WSE-2 and
//! prints what it reads back.

use npusim_cerebras::Arch;
use npusim_examples::cerebras::programs::e9_fifos::PROGRAM;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    print!("{}", PROGRAM.run(Arch::Wse2, false)?.summary());
    Ok(())
}
