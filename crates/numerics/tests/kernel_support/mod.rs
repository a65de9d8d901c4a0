//! What the kernel test files share: one bulk cast with its status counts, the fast kernels
//! at every instruction-set level this machine has, and pseudo-random f32 codes.

#![allow(dead_code)]

use npusim_numerics::bulk::SimdLevel;
use npusim_numerics::{
    BulkOptions, CastPolicy, KernelChoice, StatusCounts, Storage, cast_elements_with_status,
};

/// Casts `n` elements of `src` (storage `s`) to storage `d` under `policy` and `options`,
/// into an output prefilled with a marker byte (so unwritten bytes show), with the counts.
pub fn cast(
    src: &[u8],
    s: Storage,
    d: Storage,
    n: usize,
    policy: &CastPolicy,
    options: &BulkOptions,
) -> (Vec<u8>, StatusCounts) {
    let mut out = vec![0x5Au8; d.bytes_for(n)];
    let counts = cast_elements_with_status(src, s, &mut out, d, n, policy, options)
        .expect("buffers are sized for n");
    (out, counts)
}

/// Options that run `kernels`, in parallel or not.
pub fn options(kernels: KernelChoice, parallel: bool) -> BulkOptions {
    BulkOptions {
        kernels,
        parallel,
        ..BulkOptions::default()
    }
}

/// The fast kernels at every instruction-set level this machine has (the portable one first).
pub fn fast_choices() -> Vec<KernelChoice> {
    SimdLevel::available()
        .into_iter()
        .map(KernelChoice::Level)
        .collect()
}

/// `n` pseudo-random f32 codes (full 32-bit patterns: every class occurs).
pub fn random_f32(n: usize, seed: u64) -> Vec<u32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 17) as u32
        })
        .collect()
}
