//! The explicit SIMD loops of the AVX2 level (AVX2, FMA and F16C on x86_64). The whole
//! folder is compiled on x86_64 only (the gate is on its `mod` line); each loop runs only
//! after the level is detected ([`avx2_present`](super::simd::avx2_present)).

pub(crate) mod bare;
pub(crate) mod f16c;
pub(crate) mod f32_bf16;
pub(crate) mod f32_e8m0;
pub(crate) mod f32_half;
pub(crate) mod f32_hif8;
pub(crate) mod f32_i8;
pub(crate) mod f32_key;
pub(crate) mod f32_small_float;
pub(crate) mod f32_small_float_lean;
pub(crate) mod f32_small_float_scaled;
pub(crate) mod f32_to_int;
pub(crate) mod f64_odd;
pub(crate) mod half_small_float;
pub(crate) mod half_small_float_lean;
pub(crate) mod half_src;
pub(crate) mod int_to_f32;
pub(crate) mod planes;
pub(crate) mod table;
pub(crate) mod widen;

use super::simd::Job;

/// `job.run()`, compiled with AVX2, FMA and F16C enabled.
///
/// # Safety
/// The CPU must support AVX2, FMA and F16C.
#[target_feature(enable = "avx2,fma,f16c")]
#[inline(never)]
pub(crate) unsafe fn run<J: Job>(job: J) -> J::Output {
    job.run()
}
