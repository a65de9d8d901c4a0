//! The AVX2 loop of a table whose 4-byte codes follow a [`Rule`]: eight source bytes widened
//! to 32 bits, shifted, masked and (for a scaled rule) scaled by a power of two without a
//! subnormal operand (`table::rule::scaled`), the exception codes
//! replaced by a compare and a blend each; no table is read. The statuses are counted as the
//! shuffle lookup counts them: by byte compares of each block's source codes with the cubes of
//! their classes.

use super::{COUNTED_STEPS, STEP, count_cubes};
use crate::bulk::kernels::stream;
use crate::bulk::kernels::table::planes::{Cube, MAX_MARKS, Planes};
use crate::bulk::kernels::table::rule::Rule;
use crate::status::StatusCounts;
use std::arch::x86_64::{
    __m128i, __m256i, _mm_cvtsi32_si128, _mm_loadl_epi64, _mm256_add_epi32, _mm256_and_si256,
    _mm256_blendv_epi8, _mm256_castps_si256, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32,
    _mm256_cvtepi8_epi32, _mm256_cvtepi32_ps, _mm256_cvtepu8_epi32, _mm256_mul_ps, _mm256_or_si256,
    _mm256_set1_epi32, _mm256_set1_ps, _mm256_sll_epi32, _mm256_storeu_si256, _mm256_stream_si256,
};

/// Whether the floating-point control lets a scaled rule's products be the ones
/// [`Rule::apply`] checked: no flush-to-zero (MXCSR bit 15) and no denormals-are-zero (bit 6).
fn default_control() -> bool {
    // SAFETY: reading MXCSR has no precondition on x86_64 (SSE is in the baseline).
    #[allow(deprecated)]
    let csr = unsafe { std::arch::x86_64::_mm_getcsr() };
    csr & 0x8040 == 0
}

impl Planes {
    /// Casts `n` one-byte source codes of `src` into the 4-byte codes of `dst` by the planes'
    /// [`Rule`]; `None` when there is none, when the statuses are not counted by cubes, or
    /// when a scaled rule meets a floating-point control that flushes denormals. The caller
    /// has checked AVX2 and POPCNT and the buffers' sizes; with `stream`, `dst` is 64-byte
    /// aligned.
    pub(super) fn run_rule(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> Option<StatusCounts> {
        let rule = self.rule.as_ref()?;
        let cubes = if self.classes.is_empty() {
            &[][..]
        } else {
            self.cubes.as_deref()?
        };
        if self.code.len() != 4 || src.len() < n || dst.len() < 4 * n {
            return None;
        }
        if rule.scale.is_some() && !default_control() {
            return None;
        }
        // SAFETY: the caller checked AVX2 and POPCNT, the sizes are checked above, and a
        // streamed destination is 64-byte aligned (the caller's guarantee).
        Some(unsafe {
            match (rule.signed, rule.scale.is_some()) {
                (true, true) => cast::<true, true>(self, rule, cubes, src, dst, n, stream),
                (true, false) => cast::<true, false>(self, rule, cubes, src, dst, n, stream),
                (false, true) => cast::<false, true>(self, rule, cubes, src, dst, n, stream),
                (false, false) => cast::<false, false>(self, rule, cubes, src, dst, n, stream),
            }
        })
    }
}

/// The loop of [`Planes::run_rule`]: `SIGNED` sign-extends the bytes, `SCALED` multiplies;
/// 32 elements per step, the statuses counted by `cubes` after each block of
/// [`COUNTED_STEPS`] steps, the last `n % 32` elements one by one from the planes.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT; `src` must hold `n` bytes and `dst` `4 n`; with
/// `stream`, `dst` must be 64-byte aligned.
#[target_feature(enable = "avx2,popcnt")]
#[allow(clippy::too_many_arguments)]
unsafe fn cast<const SIGNED: bool, const SCALED: bool>(
    p: &Planes,
    rule: &Rule,
    cubes: &[Cube],
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> StatusCounts {
    let shift = _mm_cvtsi32_si128(rule.shift as i32);
    let keep = _mm256_set1_epi32(rule.keep as i32);
    let k = rule.scale.unwrap_or(127);
    let bias = _mm256_set1_epi32(k << 23);
    let factor = _mm256_set1_ps(f32::from_bits(((k - 149 + 127).max(1) as u32) << 23));
    let (sign, magnitude) = (
        _mm256_set1_epi32(0x8000_0000u32 as i32),
        _mm256_set1_epi32(0x7FFF_FFFF),
    );
    let normal = _mm256_set1_epi32(0x0080_0000);
    let widen = |c: u8| {
        if SIGNED { c as i8 as i32 } else { i32::from(c) }
    };
    let [(c0, v0), (c1, v1)] = rule.exceptions;
    let (c0, v0) = (_mm256_set1_epi32(widen(c0)), _mm256_set1_epi32(v0 as i32));
    let (c1, v1) = (_mm256_set1_epi32(widen(c1)), _mm256_set1_epi32(v1 as i32));
    let mut seen = [0u64; MAX_MARKS];
    let dp = dst.as_mut_ptr();
    let full = n - n % STEP;
    let mut i = 0;
    while i < full {
        let start = i;
        let end = full.min(i + STEP * COUNTED_STEPS);
        while i < end {
            stream::prefetch(src.as_ptr().wrapping_add(i));
            for g in 0..4 {
                // SAFETY: bytes i + 8g..+8 lie within the n of `src` (i + 32 <= n).
                let b = unsafe { _mm_loadl_epi64(src.as_ptr().add(i + 8 * g).cast::<__m128i>()) };
                let x = if SIGNED {
                    _mm256_cvtepi8_epi32(b)
                } else {
                    _mm256_cvtepu8_epi32(b)
                };
                let mut y = _mm256_and_si256(_mm256_sll_epi32(x, shift), keep);
                if SCALED {
                    // `table::rule::scaled`: the exponent raised by k where the magnitude is
                    // normal, else the integer converted and multiplied by 2^(k - 149).
                    let m = _mm256_and_si256(y, magnitude);
                    let raised = _mm256_add_epi32(m, bias);
                    let small = _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(m), factor));
                    let r = _mm256_blendv_epi8(raised, small, _mm256_cmpgt_epi32(normal, m));
                    y = _mm256_or_si256(r, _mm256_and_si256(y, sign));
                }
                y = _mm256_blendv_epi8(y, v0, _mm256_cmpeq_epi32(x, c0));
                y = _mm256_blendv_epi8(y, v1, _mm256_cmpeq_epi32(x, c1));
                // SAFETY: bytes 4(i + 8g)..+32 of the destination, within its 4n bytes; with
                // `stream` the destination is 64-byte aligned and 4(i + 8g) a multiple of 32.
                unsafe {
                    let at = dp.add(4 * (i + 8 * g)).cast::<__m256i>();
                    if stream {
                        _mm256_stream_si256(at, y);
                    } else {
                        _mm256_storeu_si256(at, y);
                    }
                }
            }
            i += STEP;
        }
        if !cubes.is_empty() {
            count_cubes(&src[start..end], cubes, &mut seen);
        }
    }
    // The last n % 32 elements, one by one.
    for k in full..n {
        let c = usize::from(src[k]);
        for (b, plane) in p.code.iter().enumerate().take(4) {
            dst[4 * k + b] = plane[c];
        }
        p.count_by_cubes(cubes, &[src[k]], &mut seen);
    }
    p.counts(&seen, n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::status::Status;

    /// e4m3fn's f32 codes (sign, 4 exponent bits of bias 7, 3 mantissa bits; 0x7F / 0xFF
    /// NaN, marked as a status), subnormals included.
    fn e4m3fn(c: usize) -> (u64, u16) {
        let sign = ((c >> 7) as u32) << 31;
        if c & 0x7F == 0x7F {
            return (u64::from(sign | 0x7FC0_0000), Status::INVALID.bits());
        }
        let (e, m) = (((c >> 3) & 0xF) as i32, (c & 7) as f32);
        let v = if e == 0 {
            m / 8.0 * 2f32.powi(-6)
        } else {
            (1.0 + m / 8.0) * 2f32.powi(e - 7)
        };
        (u64::from(sign | v.to_bits()), 0)
    }

    #[test]
    fn a_scaled_rule_gives_way_when_denormals_are_flushed() {
        if !crate::bulk::kernels::simd::avx2_present() || !is_x86_feature_detected!("popcnt") {
            return;
        }
        let Some(p) = Planes::new(8, 4, e4m3fn) else {
            panic!("planes")
        };
        assert!(p.rule.is_some_and(|r| r.scale.is_some()));
        // every code, twice over three blocks of steps and a tail
        let n = 3 * 255 * 32 + 5;
        let src: Vec<u8> = (0..n).map(|i| (i * 7 % 256) as u8).collect();
        let want: Vec<u8> = src
            .iter()
            .flat_map(|&c| (e4m3fn(usize::from(c)).0 as u32).to_le_bytes())
            .collect();
        let nans = src.iter().filter(|&&c| c & 0x7F == 0x7F).count() as u64;
        let mut dst = vec![0u8; 4 * n];
        let Some(counts) = p.run_rule(&src, &mut dst, n, false) else {
            panic!("rule refused")
        };
        assert!(dst == want);
        assert_eq!((counts.total, counts.exact), (n as u64, n as u64 - nans));
        // Under flush-to-zero and denormals-are-zero the products of subnormal codes would
        // be zero: the rule is not used.
        #[allow(deprecated)]
        // SAFETY: MXCSR is set for this thread and restored before any assertion.
        let refused = unsafe {
            let csr = std::arch::x86_64::_mm_getcsr();
            std::arch::x86_64::_mm_setcsr(csr | 0x8040);
            let r = p.run_rule(&src, &mut dst, n, false).is_none();
            std::arch::x86_64::_mm_setcsr(csr);
            r
        };
        assert!(refused);
    }
}
