//! Whole programs: a `layout.csl` and the PE programs it places, compiled together
//! ([`CompiledProgram::compile`]), placed on the fabric as the SDK's `--fabric-dims` and
//! `--fabric-offsets` place them ([`Placement`]), written to and read from an `out/`
//! directory ([`out_dir`]), and loaded onto one simulator with every route lowered to the
//! router's configuration ([`CompiledProgram::load`]).

pub mod command;
mod error;
pub mod out_dir;
mod placement;
mod program;
pub mod routes;

pub use error::CompileError;
pub use placement::{MEMCPY_EAST, MEMCPY_ROWS, MEMCPY_WEST, Placement};
pub use program::{CompileOptions, CompiledProgram, LoadedProgram, sim_arch};
