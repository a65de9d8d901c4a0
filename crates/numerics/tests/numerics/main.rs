//! The integration tests of npusim-numerics, linked into one test program (one link of the
//! crate graph instead of one per file). Each file of this folder is a module; a test's name
//! is its module path, e.g. `wide_sources::f32_sources`, so
//! `cargo test -p npusim-numerics --test numerics -- kernels` runs the kernel modules.
//! `oracle` and `kernel_support` are shared helpers; `sweep` sizes the random sweeps (see
//! `README.md` next to this folder). A new test file becomes a `mod` line here, not a new
//! file directly under `tests/` (that would link a second program).

mod apfloat;
mod block_dequantize_into;
mod block_element_step;
mod block_fast;
mod block_into;
mod block_sweep;
mod block_vector;
mod block_vectors;
mod bulk;
mod bulk_cast_plan;
mod exhaustive_small;
mod hif8_reference;
mod kernel_levels;
mod kernel_support;
mod kernel_switch;
mod kernels;
mod kernels_avx2_key;
mod kernels_bare;
mod kernels_e8m0_hif8;
mod kernels_f16_bf16;
mod kernels_f16_inf_groups;
mod kernels_f16_lean_blocks;
mod kernels_f16_one_special;
mod kernels_f16_special_loop;
mod kernels_f16_special_runs;
mod kernels_f16_src_offsets;
mod kernels_f64;
mod kernels_fast_counts;
mod kernels_fnuz_avx512;
mod kernels_half_fp8_avx2;
mod kernels_half_fp8_lean;
mod kernels_half_fp8_steps;
mod kernels_half_pairs;
mod kernels_half_quads;
mod kernels_half_special_blocks;
mod kernels_half_src;
mod kernels_hif8_avx2;
mod kernels_i32;
mod kernels_i8_avx2_steps;
mod kernels_i8_blocks;
mod kernels_i8_classes;
mod kernels_i8_nan_blocks;
mod kernels_i8_nan_loop;
mod kernels_i8_widen_steps;
mod kernels_int_avx512;
mod kernels_int_f32_avx2;
mod kernels_int_fp8;
mod kernels_int_lean_steps;
mod kernels_int_special_data;
mod kernels_key_avx512;
mod kernels_lean_fp8_avx2;
mod kernels_lean_fp8_int;
mod kernels_parallel;
mod kernels_scaled_fp8_avx2;
mod kernels_small_float_avx512;
mod kernels_special_data;
mod kernels_stream_small;
mod kernels_table_avx2;
mod kernels_table_avx512;
mod kernels_table_counts;
mod kernels_to_f32;
mod kernels_widen_avx512;
mod kernels_widen_fetch;
mod ml_dtypes_vectors;
mod oracle;
mod status;
mod sweep;
mod table_support;
mod wide_sources;
