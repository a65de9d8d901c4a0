//! The integration tests of npusim-furiosa, linked into one test program (one link of the
//! crate graph instead of one per file). Each file of this folder is a module; a test's name is
//! its module path, e.g. `mapping_goldens::...`. A new test file becomes a `mod` line here, not
//! a file directly under `tests/` (that would link a second program).
//!
//! proptest keeps the failing cases of a module beside the folder that holds `main.rs`:
//! `mapping_props.rs` reads and writes `tests/proptest-regressions/mapping_props.txt`.

mod branch;
mod cast_engine;
mod collect;
mod commit;
mod device;
mod dm;
mod dm_kernels;

mod fetch;
mod fetch_adapter;
mod fetch_cast;
mod fetch_lift;
mod inter_slice;
mod intra_slice;
mod kernel_file;
mod kernel_lift;
mod kernel_prefix;
mod kernel_size;
mod kernel_views;
mod mapping_goldens;
mod mapping_lexing;
mod mapping_notation;
mod mapping_props;
mod narrow_trim;
mod pipeline_file;
mod reduce_kernels;
mod schedule;
mod sequence_goldens;
mod sequencer;
mod sub_context;
mod switch;
mod switch_custom;
mod timing;
mod transitions;
mod vector_goldens;
mod zero_point;
