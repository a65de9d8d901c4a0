//! The integration tests of npusim-csl, linked into one test program (one link of the crate
//! graph instead of one per file). Each file of this folder is a module; a test's name is its
//! module path, e.g. `comptime::...`. The CSL programs they read are in `programs/`.

// Test code: an unwrap that fails is a failed test (clippy.toml allows it in #[test] bodies;
// this extends it to the helpers).
#![allow(clippy::unwrap_used)]

mod compiled;
mod comptime;
mod lex;
mod modules;
mod parse;
mod pe_check;
mod pe_dsd;
mod pe_fabric;
mod pe_fabric_errors;
mod pe_fabric_flags;
mod pe_fabric_tutorials;
mod pe_fifo_actions;
mod pe_local_arrays;
mod pe_on_control;
mod pe_priority;
mod pe_scalar;
mod print_roundtrip;
mod sdk;
mod sdk_libraries;
mod tutorials;
