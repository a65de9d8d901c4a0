//! The data movement of a cast at the AVX-512 level ([`touch`](crate::bulk::kernels::touch)):
//! 64-byte loads and stores.

/// The lines of [`touch`](crate::bulk::kernels::touch::touch) by 64-byte AVX-512 loads and
/// stores: reads every line of `inp`, writes zeros over every line of `out` (non-temporally
/// with `stream`), and returns the XOR of the source's 8-byte words.
///
/// # Safety
/// The CPU must support AVX-512 F; with `stream`, the lines of `out` must start on 64-byte
/// boundaries.
#[target_feature(enable = "avx512f")]
pub(crate) unsafe fn lines(
    inp: &mut std::slice::ChunksExact<'_, u8>,
    out: &mut std::slice::ChunksExactMut<'_, u8>,
    stream: bool,
) -> u64 {
    use std::arch::x86_64::_mm512_xor_si512;
    use std::arch::x86_64::{_mm512_loadu_si512, _mm512_setzero_si512, _mm512_storeu_si512};
    let mut acc = _mm512_setzero_si512();
    let load = |line: &[u8]| {
        crate::bulk::kernels::stream::prefetch(line.as_ptr());
        // SAFETY: `line` is 64 readable bytes (an unaligned load).
        acc = _mm512_xor_si512(acc, unsafe { _mm512_loadu_si512(line.as_ptr().cast()) });
    };
    let store = |line: &mut [u8]| {
        // SAFETY: `line` is 64 writable bytes on a 64-byte boundary (the lines start at the
        // destination's first one); the CPU has AVX-512 F (this function's).
        unsafe {
            crate::bulk::kernels::x86_avx512::store::store64(
                line.as_mut_ptr(),
                _mm512_setzero_si512(),
                stream,
            )
        };
    };
    crate::bulk::kernels::touch::interleave(inp, out, load, store);
    let mut words = [0u64; 8];
    // SAFETY: `words` is 64 writable bytes (an unaligned store).
    unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), acc) };
    words.iter().fold(0, |s, w| s ^ w)
}
