//! The integration tests of the `npusim` binary, linked into one test program (one link of
//! the crate graph instead of one per file). Each file of this folder is a module; a test's
//! name is its module path, e.g. `cast_pipes::...`. A new test file becomes a `mod` line
//! here, not a file directly under `tests/` (that would link a second program).

// Test code: an unwrap that fails is a failed test (clippy.toml allows it in #[test] bodies;
// this extends it to the helpers).
#![allow(clippy::unwrap_used)]

mod ascend_cli;
mod bench_cli;
mod cast_dry_run;
mod cast_info;
mod cast_option_errors;
#[cfg(unix)]
mod cast_outputs;
mod cast_pipes;
mod cast_select;
mod cast_stats;
mod cast_warnings;
mod cerebras_cli;
#[cfg(unix)]
mod csl_programs;
#[cfg(unix)]
mod cslc;
mod files_round_trip;
mod furiosa_cli;
mod furiosa_run_checks;
mod help_texts;
mod info_memory;
#[cfg(unix)]
mod interrupt;
mod npy_header_limits;
mod quantize_cli;
#[cfg(unix)]
mod readme;
mod stdout_errors;
mod support;
