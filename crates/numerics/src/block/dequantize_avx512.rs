//! The fused dequantisation's full blocks at the AVX-512 level: 16 codes at a time decoded in
//! registers (e2m1's 16 values by one `vpermps`, the 8-bit and 6-bit floats by arithmetic,
//! [`ByteDecode`], MXINT8 by a gather from the table) and multiplied by the block's
//! multiplier, the non-finite products flagged from a compare mask.

use std::arch::x86_64::*;

use super::byte_decode::ByteDecode;

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

/// The `B` values of the one-byte codes `codes` decoded by `d`'s arithmetic
/// ([`ByteDecode`]) times `m`, into `out`; whether a product is not finite (the codes that
/// are not finite decode to a NaN). `B` is a multiple of 16, `out` holds `B` values.
///
/// # Safety
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn arith_block<const B: usize>(
    d: &ByteDecode,
    codes: &[u8; B],
    m: f32,
    out: &mut [f32],
) -> bool {
    let mv = _mm512_set1_ps(m);
    let pow = _mm512_set1_ps(d.pow);
    let mag_mask = _mm512_set1_epi32((1 << d.sign_bit) - 1);
    let special = _mm512_set1_epi32(d.special_from as i32);
    let nan = _mm512_set1_ps(f32::NAN);
    let sign = _mm512_set1_epi32(i32::MIN);
    let to_f32 = _mm_cvtsi32_si128(d.to_f32 as i32);
    let to_sign = _mm_cvtsi32_si128(31 - d.sign_bit as i32);
    let mut bad = false;
    for (c, o) in codes.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
        // SAFETY: `c` holds the 16 bytes loaded.
        let b = _mm512_cvtepu8_epi32(unsafe { _mm_loadu_si128(c.as_ptr().cast()) });
        let mag = _mm512_and_si512(b, mag_mask);
        let v = _mm512_mul_ps(_mm512_castsi512_ps(_mm512_sll_epi32(mag, to_f32)), pow);
        let v = _mm512_mask_mov_ps(v, _mm512_cmpge_epu32_mask(mag, special), nan);
        let s = _mm512_and_si512(_mm512_sll_epi32(b, to_sign), sign);
        let v = _mm512_castsi512_ps(_mm512_or_si512(_mm512_castps_si512(v), s));
        let y = _mm512_mul_ps(v, mv);
        bad |= non_finite(y);
        // SAFETY: `o` holds the 16 values stored.
        unsafe { _mm512_storeu_ps(o.as_mut_ptr(), y) };
    }
    bad
}
