//! f16 / bf16 codes → exact f32 codes at the AVX2 level, the first step of
//! [`HalfFloat`](crate::bulk::kernels::portable::half_src::HalfFloat): 8 codes per step, f16
//! by the F16C instruction `vcvtph2ps` (exact for every finite value, subnormals included)
//! with the NaN and ±Inf lanes replaced by their exact bits (`vcvtph2ps` quiets signalling
//! NaNs; the widening keeps every payload bit), bf16 by a 16-bit shift.

use std::arch::x86_64::{
    __m128i, __m256i, _mm_loadu_si128, _mm256_add_epi32, _mm256_and_si256, _mm256_blendv_epi8,
    _mm256_castps_si256, _mm256_cmpeq_epi32, _mm256_cvtepu16_epi32, _mm256_cvtph_ps,
    _mm256_or_si256, _mm256_set1_epi32, _mm256_slli_epi32, _mm256_storeu_si256,
};

use crate::bulk::kernels::portable::widen::Half;

/// Writes the exact f32 codes of the `out.len()` little-endian `half` codes of `src` into
/// `out` (little-endian); false (nothing written) when the machine lacks AVX2 and F16C or
/// `src` is short.
pub(crate) fn widen_exact(half: Half, src: &[u8], out: &mut [u32]) -> bool {
    if !crate::bulk::kernels::simd::avx2_present() || src.len() < 2 * out.len() {
        return false;
    }
    // SAFETY: the CPU has AVX2 and F16C (checked just above), and `src` holds the codes.
    unsafe { widen_unchecked(half, src, out) };
    true
}

/// [`widen_exact`] on a CPU with AVX2 and F16C.
///
/// # Safety
/// The CPU must support AVX2 and F16C; `src` must hold `2 * out.len()` bytes.
#[target_feature(enable = "avx2,f16c")]
unsafe fn widen_unchecked(half: Half, src: &[u8], out: &mut [u32]) {
    let n = out.len();
    let groups = n / 8;
    for (x, y) in src[..16 * groups]
        .chunks_exact(16)
        .zip(out[..8 * groups].chunks_exact_mut(8))
    {
        // SAFETY: `x` is 16 bytes, the size of the unaligned load; AVX2 is on.
        let h = unsafe { _mm_loadu_si128(x.as_ptr().cast()) };
        let w = step(half, h);
        // SAFETY: `y` is 8 u32, 32 bytes, the size of the unaligned store.
        unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), w) };
    }
    let rest = n - 8 * groups;
    if rest > 0 {
        let mut pad = [0u8; 16];
        pad[..2 * rest].copy_from_slice(&src[16 * groups..2 * n]);
        // SAFETY: `pad` is 16 bytes, the size of the unaligned load.
        let h = unsafe { _mm_loadu_si128(pad.as_ptr().cast()) };
        let mut last = [0u32; 8];
        // SAFETY: `last` is 32 bytes, the size of the unaligned store.
        unsafe { _mm256_storeu_si256(last.as_mut_ptr().cast(), step(half, h)) };
        out[8 * groups..].copy_from_slice(&last[..rest]);
    }
}

/// The exact f32 codes of the 8 codes in `h`.
#[target_feature(enable = "avx2,f16c")]
#[inline]
fn step(half: Half, h: __m128i) -> __m256i {
    let wide = _mm256_cvtepu16_epi32(h);
    match half {
        Half::BF16 => _mm256_slli_epi32::<16>(wide),
        Half::F16 => {
            let w = _mm256_castps_si256(_mm256_cvtph_ps(h));
            // exponent field all ones: sign, the f32 exponent all ones, the payload as is
            let exp = _mm256_set1_epi32(0x7C00);
            let special = _mm256_cmpeq_epi32(_mm256_and_si256(wide, exp), exp);
            let sign = _mm256_slli_epi32::<16>(_mm256_and_si256(wide, _mm256_set1_epi32(0x8000)));
            let abs = _mm256_slli_epi32::<13>(_mm256_and_si256(wide, _mm256_set1_epi32(0x7FFF)));
            let exact =
                _mm256_or_si256(sign, _mm256_add_epi32(abs, _mm256_set1_epi32(0x7000_0000)));
            _mm256_blendv_epi8(w, exact, special)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::kernels::portable::half_src::widen_code;
    use crate::bulk::kernels::simd::{SimdLevel, level_here};

    #[test]
    fn widening_equals_the_exact_rule_on_every_code_and_length() {
        if !level_here(SimdLevel::Avx2) {
            return;
        }
        let all: Vec<u8> = (0..=u16::MAX).flat_map(u16::to_le_bytes).collect();
        for half in [Half::F16, Half::BF16] {
            for len in [65536, 65535, 9, 8, 7, 1, 0] {
                let start = 65536 - len;
                let mut out = vec![0u32; len];
                assert!(widen_exact(half, &all[2 * start..], &mut out));
                for (i, &got) in out.iter().enumerate() {
                    let c = (start + i) as u16;
                    assert_eq!(got, widen_code(half, c), "{half:?} {c:#06x}");
                }
            }
        }
    }
}
