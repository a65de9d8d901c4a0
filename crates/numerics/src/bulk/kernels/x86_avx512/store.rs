//! The 64-byte store of the AVX-512 loops: non-temporal when the slice is streamed
//! ([`stream`](crate::bulk::kernels::stream)), else unaligned.

/// Stores the 64 bytes `v` at `p`: non-temporally with `stream`, else unaligned.
///
/// # Safety
/// The CPU must support AVX-512 F; `p` must be valid for 64 bytes of writes, and 64-byte
/// aligned with `stream`.
#[target_feature(enable = "avx512f")]
#[inline]
pub(crate) unsafe fn store64(p: *mut u8, v: std::arch::x86_64::__m512i, stream: bool) {
    use std::arch::x86_64::{_mm512_storeu_si512, _mm512_stream_si512};
    // SAFETY: the caller's guarantees.
    unsafe {
        if stream {
            _mm512_stream_si512(p.cast(), v)
        } else {
            _mm512_storeu_si512(p.cast(), v)
        }
    }
}
