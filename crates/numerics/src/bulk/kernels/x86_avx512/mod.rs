//! The explicit SIMD loops of the AVX-512 level (AVX-512 F, BW, VL, DQ and VBMI on x86_64).
//! The whole folder is compiled on x86_64 only (the gate is on its `mod` line); each loop
//! runs only after the level is detected ([`avx512_present`](super::simd::avx512_present)).

pub(crate) mod bare;
pub(crate) mod f32_byte;
pub(crate) mod f32_e8m0;
pub(crate) mod f32_fnuz;
pub(crate) mod f32_half;
pub(crate) mod f32_hif8;
pub(crate) mod f32_key;
pub(crate) mod f32_small_float;
pub(crate) mod f32_to_int;
pub(crate) mod int_to_f32;
pub(crate) mod store;
pub(crate) mod table;
pub(crate) mod to_f32;
pub(crate) mod touch;
pub(crate) mod widen;

use super::simd::Job;

/// `job.run()`, compiled with AVX2, FMA, F16C and AVX-512 F, BW, VL, DQ and VBMI enabled.
///
/// # Safety
/// The CPU must support every feature [`avx512_present`](super::simd::avx512_present) checks.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline(never)]
pub(crate) unsafe fn run<J: Job>(job: J) -> J::Output {
    job.run()
}
