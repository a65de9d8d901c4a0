//! The fused dequantisation's full blocks at the AVX2 level: 8 codes at a time decoded in
//! registers (e2m1's 8 magnitudes by one `vpermps` with the sign bit moved to f32's, the
//! 8-bit and 6-bit floats by arithmetic, [`ByteDecode`]) and multiplied by the block's
//! multiplier, the non-finite products flagged from a compare.

use std::arch::x86_64::*;

use super::byte_decode::ByteDecode;

/// Whether any lane of `y` is ±Inf or NaN.
#[inline]
#[target_feature(enable = "avx2")]
fn non_finite(y: __m256) -> bool {
    let e = _mm256_set1_epi32(0x7F80_0000);
    let bits = _mm256_and_si256(_mm256_castps_si256(y), e);
    _mm256_movemask_epi8(_mm256_cmpeq_epi32(bits, e)) != 0
}

/// The `2 × H` values of the packed e2m1 codes `codes` (element 2i in the low nibble of byte
/// i) from `mags` (the values of the 8 magnitude codes; code `c | 8` is `-mags[c]`) times
/// `m`, into `out`; whether a product is not finite. `H` is a multiple of 4, `out` holds
/// `2 × H` values.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn packed_block<const H: usize>(
    mags: &[f32; 8],
    codes: &[u8; H],
    m: f32,
    out: &mut [f32],
) -> bool {
    // SAFETY: `mags` holds the 8 values loaded.
    let t = unsafe { _mm256_loadu_ps(mags.as_ptr()) };
    let mv = _mm256_set1_ps(m);
    let shifts = _mm256_setr_epi32(0, 4, 8, 12, 16, 20, 24, 28);
    let sign = _mm256_set1_epi32(i32::MIN);
    let mut bad = false;
    for (c, o) in codes.chunks_exact(4).zip(out.chunks_exact_mut(8)) {
        let word = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        // lane k: nibble k, element k's code
        let idx = _mm256_srlv_epi32(_mm256_set1_epi32(word as i32), shifts);
        let v = _mm256_permutevar8x32_ps(t, idx);
        let s = _mm256_and_si256(_mm256_slli_epi32::<28>(idx), sign);
        let v = _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(v), s));
        let y = _mm256_mul_ps(v, mv);
        bad |= non_finite(y);
        // SAFETY: `o` holds the 8 values stored.
        unsafe { _mm256_storeu_ps(o.as_mut_ptr(), y) };
    }
    bad
}

/// The `B` values of the one-byte codes `codes` decoded by `d`'s arithmetic times `m`, into
/// `out`; whether a product is not finite. `B` is a multiple of 8, `out` holds `B` values.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn arith_block<const B: usize>(
    d: &ByteDecode,
    codes: &[u8; B],
    m: f32,
    out: &mut [f32],
) -> bool {
    let mv = _mm256_set1_ps(m);
    let pow = _mm256_set1_ps(d.pow);
    let mag_mask = _mm256_set1_epi32((1 << d.sign_bit) - 1);
    // magnitudes are below 2^31: a signed compare against special_from - 1
    let last_finite = _mm256_set1_epi32(d.special_from as i32 - 1);
    let nan = _mm256_set1_ps(f32::NAN);
    let sign = _mm256_set1_epi32(i32::MIN);
    let to_f32 = _mm_cvtsi32_si128(d.to_f32 as i32);
    let to_sign = _mm_cvtsi32_si128(31 - d.sign_bit as i32);
    let mut bad = false;
    for (c, o) in codes.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
        // SAFETY: `c` holds the 8 bytes loaded.
        let b = _mm256_cvtepu8_epi32(unsafe { _mm_loadl_epi64(c.as_ptr().cast()) });
        let mag = _mm256_and_si256(b, mag_mask);
        let v = _mm256_mul_ps(_mm256_castsi256_ps(_mm256_sll_epi32(mag, to_f32)), pow);
        let special = _mm256_castsi256_ps(_mm256_cmpgt_epi32(mag, last_finite));
        let v = _mm256_blendv_ps(v, nan, special);
        let s = _mm256_and_si256(_mm256_sll_epi32(b, to_sign), sign);
        let v = _mm256_castsi256_ps(_mm256_or_si256(_mm256_castps_si256(v), s));
        let y = _mm256_mul_ps(v, mv);
        bad |= non_finite(y);
        // SAFETY: `o` holds the 8 values stored.
        unsafe { _mm256_storeu_ps(o.as_mut_ptr(), y) };
    }
    bad
}
