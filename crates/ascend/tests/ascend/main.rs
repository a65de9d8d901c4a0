//! The integration tests of npusim-ascend, linked into one test program (one link of the
//! crate graph instead of one per file). Each file of this folder is a module; a test's name
//! is its module path, e.g. `call::...`. A new test file becomes a `mod` line here, not a
//! file directly under `tests/` (that would link a second program).

// Test code: an unwrap that fails is a failed test (clippy.toml allows it in #[test] bodies;
// this extends it to the helpers).
#![allow(clippy::unwrap_used)]

mod call;
mod ctrl_local_tensor;
mod goldens;
mod local_tensor;
mod more_samples;
mod reg_api;
