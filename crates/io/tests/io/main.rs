//! The integration tests of npusim-io, linked into one test program (one link of the crate
//! graph instead of one per file). Each file of this folder is a module; a test's name is its
//! module path, e.g. `atomic_output::...`. A new test file becomes a `mod` line here, not a
//! file directly under `tests/` (that would link a second program).

mod atomic_output;
mod big_endian;
mod cast_api;
mod cast_memory;
mod cast_nothing;
mod child_memory;
mod error_words;
mod quantize;
mod quantize_dir;
mod quantize_dir_pipeline;
mod quantize_memory;
mod quantize_torchao;
