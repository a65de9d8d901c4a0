//! PE programs (`pe_program.csl`): compiled with the params a layout's `@set_tile_code`
//! gives a PE ([`PeProgram::compile`]), then loaded onto a PE of the Cerebras simulator
//! ([`load`]): module arrays and `var`s declared in the PE's memory, DSDs from `@get_dsd`
//! built over them, tasks bound with their bodies run by a tree-walking interpreter inside
//! the simulator's scheduler, DSD builtins run as the simulator's operations. One
//! simulator: nothing here models the hardware itself.

mod arith;
mod check;
mod dsr;
mod error;
mod exec;
mod fabric_dsd;
mod flags;
mod load;
mod map_math;
mod priority;
mod program;
mod target;
mod tensor_access;
mod value;

pub use dsr::DsrLoad;
pub use error::PeError;
pub use exec::{FaultSlot, MAX_RUN_CALL_DEPTH, MAX_SCALAR_STEPS};
pub use fabric_dsd::FabricSpec;
pub use load::{LoadedPe, load, run};
pub use program::{
    ArrayDecl, BoundTask, ExportedSymbol, FifoDecl, PeProgram, QueueInit, TaskBinding,
};
pub use tensor_access::DsdSpec;
pub use value::{Ptr, RtValue};
