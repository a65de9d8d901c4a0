//! The fused dequantisation's full blocks at the AVX-512 level: 16 codes at a time decoded by
//! a table lookup in registers (e2m1's 16 values by one `vpermps`, the 8-bit and 6-bit
//! elements' 256 by a gather from the table) and multiplied by the block's multiplier, the
//! non-finite products flagged from a compare mask.

use std::arch::x86_64::*;

/// Whether any lane of `y` is ±Inf or NaN.
#[inline]
#[target_feature(enable = "avx512f")]
fn non_finite(y: __m512) -> bool {
    let e = _mm512_set1_epi32(0x7F80_0000);
    let bits = _mm512_and_si512(_mm512_castps_si512(y), e);
    _mm512_cmpeq_epi32_mask(bits, e) != 0
}

/// The `2 × H` values of the packed e2m1 codes `codes` (element 2i in the low nibble of byte
/// i) from `table` (16 entries) times `m`, into `out`; whether a product is not finite.
/// `H` is a multiple of 8, `out` holds `2 × H` values.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn packed_block<const H: usize>(
    table: &[f32; 16],
    codes: &[u8; H],
    m: f32,
    out: &mut [f32],
) -> bool {
    // SAFETY: `table` holds the 16 values loaded.
    let t = unsafe { _mm512_loadu_ps(table.as_ptr()) };
    let mv = _mm512_set1_ps(m);
    let low = _mm512_set1_epi64(0x0F);
    let mut bad = false;
    for (c, o) in codes.chunks_exact(8).zip(out.chunks_exact_mut(16)) {
        // SAFETY: `c` holds the 8 bytes loaded.
        let b = _mm512_cvtepu8_epi64(unsafe { _mm_loadl_epi64(c.as_ptr().cast()) });
        // each 64-bit lane: the low nibble's code, and 32 bits up the high nibble's
        let idx = _mm512_or_si512(
            _mm512_and_si512(b, low),
            _mm512_slli_epi64::<32>(_mm512_srli_epi64::<4>(b)),
        );
        let y = _mm512_mul_ps(_mm512_permutexvar_ps(idx, t), mv);
        bad |= non_finite(y);
        // SAFETY: `o` holds the 16 values stored.
        unsafe { _mm512_storeu_ps(o.as_mut_ptr(), y) };
    }
    bad
}

/// The `B` values of the one-byte codes `codes` from `table` times `m`, into `out`; whether
/// a product is not finite. `B` is a multiple of 16, `out` holds `B` values.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn byte_block<const B: usize>(
    table: &[f32; 256],
    codes: &[u8; B],
    m: f32,
    out: &mut [f32],
) -> bool {
    let mv = _mm512_set1_ps(m);
    let mut bad = false;
    for (c, o) in codes.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
        // SAFETY: `c` holds the 16 bytes loaded; every index is a byte, inside the table.
        let y = unsafe {
            let idx = _mm512_cvtepu8_epi32(_mm_loadu_si128(c.as_ptr().cast()));
            _mm512_i32gather_ps::<4>(idx, table.as_ptr())
        };
        let y = _mm512_mul_ps(y, mv);
        bad |= non_finite(y);
        // SAFETY: `o` holds the 16 values stored.
        unsafe { _mm512_storeu_ps(o.as_mut_ptr(), y) };
    }
    bad
}
