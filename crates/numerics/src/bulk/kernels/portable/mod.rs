//! The kernels written in plain Rust, for every target: [`simd::run_at`](super::simd::run_at)
//! compiles their loops at each instruction-set level, and on x86_64 some of them hand the
//! bulk of a slice to the explicit loops of [`x86_avx2`](super) and [`x86_avx512`](super).

pub(crate) mod f32_float;
pub(crate) mod f32_half;
pub(crate) mod f32_small_float;
pub(crate) mod f32_to_int;
pub(crate) mod f64_src;
pub(crate) mod half_src;
pub(crate) mod i32_to_int;
pub(crate) mod int_to_f32;
pub(crate) mod reference;
pub(crate) mod to_f32;
pub(crate) mod widen;
