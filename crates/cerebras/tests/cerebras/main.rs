//! The integration tests of npusim-cerebras, linked into one test program (one link of the
//! crate graph instead of one per file). Each file of this folder is a module; a test's name is
//! its module path, e.g. `sim_rules::...`. `common` holds the simulator set-ups several modules
//! share (`use crate::common::*`). A new test file becomes a `mod` line here, not a file
//! directly under `tests/` (that would link a second program).

mod access_lexing;
mod access_proptest;
mod common;
mod dsd_kinds;
mod fabric_operands;
mod fabric_proptest;
mod fabric_queues;
mod fabric_routing;
mod fifo_simd;
mod fixed_and_mixed_ops;
mod fp_proptest;
mod memory_held;
mod no_panic;
mod npy_arrays;
mod ops_goldens;
mod ops_no_panic;
mod pinned_runs;
mod programs;
mod scale_profile;
mod scale_speed;
mod seed_lowering;
mod sim_control;
mod sim_examples;
mod sim_fabric_dsd_as_written;
mod sim_fifo_events;
mod sim_proptest;
mod sim_queue_flush;
mod sim_router_modes;
mod sim_rules;
mod sim_run_ahead;
mod sim_scheduler;
mod sim_seed_fragments;
mod sim_simd;
mod sim_task_kinds;
mod sim_task_tables;
mod sim_topics;
mod sim_windows;
mod threaded_cycles;
mod threaded_run_ends;
