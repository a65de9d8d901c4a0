//! f64 and i32 codes → round-to-odd f32 codes at the AVX2 level, the first step of
//! [`F64Float`](crate::bulk::kernels::portable::f64_src::F64Float) (f64 / i32 → the binary
//! floats of at most 16 bits): four lanes per step. `vcvtpd2ps` rounds to nearest-even (the
//! default rounding of the process, correctly rounded, f32 subnormals included); its exact
//! widening `vcvtps2pd` compared with the source (as magnitudes, by 64-bit integer compares
//! on the bits) says whether the nearest value lies above the source's magnitude (then the
//! truncation is the code one below) and whether the conversion was exact; the result is the
//! truncation with its last bit set where inexact. A finite value above the largest f32 but
//! below 2^128 gives +Inf from the conversion, so one below is the largest finite f32, with
//! its last bit already set: the rule's result. NaN, ±Inf and values of at least 2^128 are
//! flagged (their block takes the reference). An i32 is widened to its exact f64 first
//! (`vcvtdq2pd`).

use std::arch::x86_64::{
    __m256i, _mm_castps_si128, _mm_loadu_si128, _mm_storeu_si128, _mm256_add_epi64,
    _mm256_andnot_si256, _mm256_castpd_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi64,
    _mm256_cmpgt_epi64, _mm256_cvtepi32_pd, _mm256_cvtepu32_epi64, _mm256_cvtpd_ps,
    _mm256_cvtps_pd, _mm256_loadu_pd, _mm256_or_si256, _mm256_permutevar8x32_epi32,
    _mm256_set1_epi64x, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_testz_si256,
};

use crate::bulk::kernels::portable::f64_src::WideSource;

/// Writes the round-to-odd f32 codes of the `out.len()` little-endian `source` codes in `src`
/// into `out` (little-endian), and returns whether any is NaN, ±Inf or of magnitude at least
/// 2^128 (then those codes are meaningless); `None` when the machine lacks AVX2.
pub(crate) fn round_to_odd(source: WideSource, src: &[u8], out: &mut [u32]) -> Option<bool> {
    if !crate::bulk::kernels::simd::avx2_present() || src.len() < source.bytes() * out.len() {
        return None;
    }
    // SAFETY: the CPU has AVX2 (checked just above), and `src` holds `out.len()` codes.
    Some(unsafe { round_to_odd_unchecked(source, src, out) })
}

/// [`round_to_odd`] on a CPU with AVX2.
///
/// # Safety
/// The CPU must support AVX2, and `src` must hold at least `source.bytes() * out.len()` bytes.
#[target_feature(enable = "avx2")]
unsafe fn round_to_odd_unchecked(source: WideSource, src: &[u8], out: &mut [u32]) -> bool {
    let n = out.len();
    let w = source.bytes();
    let groups = n / 4;
    let beyond_any = {
        let mut beyond = _mm256_setzero_si256();
        for (k, y) in out[..4 * groups].chunks_exact_mut(4).enumerate() {
            let x = &src[w * 4 * k..w * 4 * (k + 1)];
            // SAFETY: `x` holds four codes of `w` bytes, the size of the load; AVX2 is on.
            let (code, bad) = unsafe { step(source, x.as_ptr()) };
            beyond = _mm256_or_si256(beyond, bad);
            // SAFETY: `y` is four u32, 16 bytes, the size of the unaligned store.
            unsafe { _mm_storeu_si128(y.as_mut_ptr().cast(), code) };
        }
        _mm256_testz_si256(beyond, beyond) == 0
    };
    let rest = n - 4 * groups;
    if rest == 0 {
        return beyond_any;
    }
    // the last codes through a zero-padded copy (zero is exact and not flagged)
    let mut pad = [0u8; 32];
    pad[..w * rest].copy_from_slice(&src[w * 4 * groups..w * n]);
    // SAFETY: `pad` holds four codes of at most 8 bytes; AVX2 is on.
    let (code, bad) = unsafe { step(source, pad.as_ptr()) };
    let mut last = [0u32; 4];
    // SAFETY: `last` is 16 bytes, the size of the unaligned store.
    unsafe { _mm_storeu_si128(last.as_mut_ptr().cast(), code) };
    out[4 * groups..].copy_from_slice(&last[..rest]);
    beyond_any | (_mm256_testz_si256(bad, bad) == 0)
}

/// The round-to-odd f32 codes of the four codes at `p` (f64, or i32 widened exactly) and a
/// mask of the lanes that are NaN, ±Inf or of magnitude at least 2^128.
///
/// # Safety
/// The CPU must support AVX2; `p` must point to four codes (`source.bytes()` each).
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn step(source: WideSource, p: *const u8) -> (std::arch::x86_64::__m128i, __m256i) {
    let x = match source {
        // SAFETY: `p` points to four f64 codes (32 bytes), read unaligned.
        WideSource::F64 => unsafe { _mm256_loadu_pd(p.cast()) },
        // SAFETY: `p` points to four i32 codes (16 bytes), read unaligned.
        WideSource::I32 => _mm256_cvtepi32_pd(unsafe { _mm_loadu_si128(p.cast()) }),
    };
    let sign = _mm256_set1_epi64x(i64::MIN);
    let r = _mm256_cvtpd_ps(x);
    let back = _mm256_castpd_si256(_mm256_cvtps_pd(r));
    let ax = _mm256_andnot_si256(sign, _mm256_castpd_si256(x));
    let ab = _mm256_andnot_si256(sign, back);
    // nearest above the source's magnitude: the truncation is one code below
    let above = _mm256_cmpgt_epi64(ab, ax);
    let exact = _mm256_cmpeq_epi64(ab, ax);
    let r64 = _mm256_cvtepu32_epi64(_mm_castps_si128(r));
    let odd = _mm256_andnot_si256(exact, _mm256_set1_epi64x(1));
    let code = _mm256_or_si256(_mm256_add_epi64(r64, above), odd);
    let low = _mm256_permutevar8x32_epi32(code, _mm256_setr_epi32(0, 2, 4, 6, 1, 3, 5, 7));
    // 2^128 and above, ±Inf and NaN (the magnitudes' bits as signed integers)
    let bad = _mm256_cmpgt_epi64(ax, _mm256_set1_epi64x(0x47EF_FFFF_FFFF_FFFF));
    (_mm256_castsi256_si128(low), bad)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::kernels::simd::{SimdLevel, level_here};

    /// Round-to-odd by the definition: toward zero in f64 arithmetic, then the last bit set
    /// where inexact; `None` for NaN, ±Inf and magnitudes of at least 2^128.
    fn by_definition(x: f64) -> Option<u32> {
        if x.is_nan() || x.abs() >= 2f64.powi(128) {
            return None;
        }
        if x.abs() > f64::from(f32::MAX) {
            return Some(((x.to_bits() >> 63) as u32) << 31 | 0x7F7F_FFFF);
        }
        let t = x as f32; // nearest
        let toward_zero = if f64::from(t).abs() > x.abs() {
            f32::from_bits(t.to_bits() - 1)
        } else {
            t
        };
        let exact = f64::from(toward_zero) == x;
        Some(toward_zero.to_bits() | u32::from(!exact))
    }

    /// f64 codes on every class boundary of the rule and random ones around the f32 range.
    fn codes() -> Vec<u64> {
        let mut v = vec![0u64, 1, 0x000F_FFFF_FFFF_FFFF, 0x0010_0000_0000_0000];
        for f in [
            1.0f64,
            1.5,
            3.4e38,
            f64::from(f32::MAX),
            1e-40,
            1e-45,
            2f64.powi(-126),
            2f64.powi(-149),
            2f64.powi(-150),
            2f64.powi(-151),
            2f64.powi(128),
            f64::INFINITY,
            f64::NAN,
        ] {
            for c in [f.to_bits(), f.to_bits() + 1, f.to_bits() - 1] {
                v.push(c);
                v.push(c | 1 << 63);
            }
        }
        // ties and near-ties of f32 (bit 28 of the f64 mantissa), in every binade class
        for e in [
            1023 - 150u64,
            1023 - 149,
            1023 - 127,
            1023 - 126,
            1023,
            1023 + 127,
        ] {
            for m in [
                0x1000_0000u64,
                0x1000_0001,
                0x0FFF_FFFF,
                0x3000_0000,
                0x2000_0000,
            ] {
                v.push(e << 52 | m);
                v.push(e << 52 | m | 0x8_0000_0000_0000);
            }
        }
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        for _ in 0..200_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let e = 1023 - 160 + (x >> 53) % 300;
            v.push((x & 0x800F_FFFF_FFFF_FFFF) | (e << 52));
            v.push(x.rotate_left(17)); // any pattern
        }
        v
    }

    #[test]
    fn f64_round_to_odd_equals_the_definition_at_every_offset() {
        if !level_here(SimdLevel::Avx2) {
            return;
        }
        let codes = codes();
        // blocks of every length up to 9 (the padded tail) and one long one
        let mut start = 0;
        for len in (0..=9).chain([4096]).cycle() {
            if start >= codes.len() {
                break;
            }
            let block = &codes[start..(start + len).min(codes.len())];
            start += block.len().max(1);
            let bytes: Vec<u8> = block.iter().flat_map(|c| c.to_le_bytes()).collect();
            let mut out = vec![0u32; block.len()];
            let flagged = round_to_odd(WideSource::F64, &bytes, &mut out);
            let mut any = false;
            for (&c, &got) in block.iter().zip(&out) {
                match by_definition(f64::from_bits(c)) {
                    Some(want) => assert_eq!(got, want, "{c:#018x}"),
                    None => any = true,
                }
            }
            assert_eq!(flagged, Some(any), "block at {start}");
        }
    }

    #[test]
    fn i32_round_to_odd_equals_the_definition() {
        if !level_here(SimdLevel::Avx2) {
            return;
        }
        let mut v: Vec<i32> = vec![0, 1, -1, i32::MIN, i32::MAX, 1 << 24, (1 << 24) + 1];
        v.extend([(1 << 25) + 1, (1 << 25) + 2, (1 << 25) + 3, -(1 << 25) - 3]);
        let mut x = 0x9E37_79B9u32;
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            v.push(x as i32);
            v.push((x >> (x % 31)) as i32);
        }
        let bytes: Vec<u8> = v.iter().flat_map(|c| c.to_le_bytes()).collect();
        for len in [v.len(), v.len() - 3] {
            let mut out = vec![0u32; len];
            assert_eq!(round_to_odd(WideSource::I32, &bytes, &mut out), Some(false));
            for (&i, &got) in v.iter().zip(&out) {
                assert_eq!(Some(got), by_definition(f64::from(i)), "{i}");
            }
        }
    }
}
