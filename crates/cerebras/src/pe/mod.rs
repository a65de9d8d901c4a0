//! One processing element's compute engine (spec §4, §11): the machine (memory, FIFOs, DSRs,
//! the fabric queues), the engine that runs a DSD operation element by element as a state
//! machine ([`RunningOp`], advanced by [`Pe::advance`]), the ports through which it reads and
//! writes its operands, and the DSD builtins as methods.
//!
//! * [`machine`]: the [`Pe`], its FIFOs and DSRs, operand validation and lengths.
//! * [`engine`]: starting, advancing and completing an operation; the cycle model.
//! * [`map`]: the `@map` builtin.
//! * [`port`]: how each operand produces or takes elements, and what a waiting port waits on;
//!   `port_io` the port interface the engine and `@map` call (may an element go, read it,
//!   write it, end).
//! * `offsets`: the element offsets a memory port walks, held in the port.
//! * [`fabric_io`]: fabric operands: popping fabin wavelets, pushing fabout wavelets.
//! * [`builtins`]: `pe.fmovh(dest, src)` and the other builtins.

pub mod builtins;
pub mod engine;
pub mod fabric_io;
mod line_run;
pub mod machine;
pub mod map;
mod offsets;
pub mod port;
mod port_io;

pub(crate) use engine::OpMark;
pub use engine::{CYCLE_MODEL, Progress, RunningOp, stride_width};
pub use machine::{Dsr, DsrFile, LengthPolicy, OpConfig, Outcome, Pe};
pub use port::{CONTROL_MARKER, FabInPort, FabOutPort, INFINITE_EXTENT, Wait};
