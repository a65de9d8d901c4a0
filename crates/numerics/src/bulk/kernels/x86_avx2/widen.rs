//! f16 → f32 and bf16 → f32 ([`Widen`]) at the AVX2 level: f16 by the F16C instruction
//! `vcvtph2ps` (where the cast quiets NaNs as it does), bf16 by an 8-lane shift; NaN and Inf
//! codes counted in vector lane counters in the same pass.

use crate::bulk::kernels::flags;
use crate::bulk::kernels::portable::widen::{Half, Widen};
use crate::status::StatusCounts;

impl Widen {
    /// The AVX2 loop, when the machine has AVX2 and F16C and, for f16, the cast quiets NaNs
    /// as `vcvtph2ps` does; `None` otherwise.
    pub(crate) fn run_avx2(&self, src: &[u8], dst: &mut [u8], n: usize) -> Option<StatusCounts> {
        if crate::bulk::kernels::simd::avx2_present() {
            return match self.half {
                // SAFETY: the CPU has AVX2 and F16C (checked just above).
                Half::BF16 => Some(unsafe { self.run_avx2_unchecked::<true>(src, dst, n) }),
                // SAFETY: as above.
                Half::F16 if self.nan_quiet == 0x0040_0000 => {
                    Some(unsafe { self.run_avx2_unchecked::<false>(src, dst, n) })
                }
                Half::F16 => None,
            };
        }
        let _ = (src, dst, n);
        None
    }

    /// [`Widen::run_avx2`] on a CPU with AVX2 and F16C: in place, 8 codes per step (f16: the
    /// F16C instruction `vcvtph2ps`; bf16: zero-extend, shift left 16, the policy's quiet bit
    /// OR-ed into NaN lanes); NaN and Inf codes counted in 16-bit lane accumulators in the
    /// same pass.
    ///
    /// # Safety
    /// The CPU must support AVX2 and F16C.
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn run_avx2_unchecked<const BF16: bool>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
    ) -> StatusCounts {
        use std::arch::x86_64::{
            __m128i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi16, _mm_loadu_si128,
            _mm_set1_epi16, _mm_setzero_si128, _mm_storeu_si128, _mm_sub_epi16, _mm256_and_si256,
            _mm256_castps_si256, _mm256_cmpgt_epi32, _mm256_cvtepu16_epi32, _mm256_cvtph_ps,
            _mm256_or_si256, _mm256_set1_epi32, _mm256_slli_epi32, _mm256_storeu_si256,
        };
        /// Groups of 8 between two flushes of the 16-bit lane counters.
        const RUN: usize = 4096;
        let mut counts = StatusCounts::default();
        let groups = n / 8;
        let (e, m) = if BF16 {
            (0x7F80u16, 0x007Fu16)
        } else {
            (0x7C00, 0x03FF)
        };
        let exp = _mm_set1_epi16(e as i16);
        let man = _mm_set1_epi16(m as i16);
        let zero = _mm_setzero_si128();
        let abs = _mm256_set1_epi32(0x7FFF_FFFF);
        let inf32 = _mm256_set1_epi32(0x7F80_0000);
        let quiet = _mm256_set1_epi32(self.nan_quiet as i32);
        let sum = |v: __m128i| -> u64 {
            let mut lanes = [0u16; 8];
            // SAFETY: `lanes` is 16 bytes, the size of the unaligned store.
            unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), v) };
            lanes.iter().map(|&c| u64::from(c)).sum()
        };
        for (s_run, d_run) in src[..16 * groups]
            .chunks(16 * RUN)
            .zip(dst[..32 * groups].chunks_mut(32 * RUN))
        {
            let (mut nan, mut inf) = (zero, zero);
            for (x, y) in s_run.chunks_exact(16).zip(d_run.chunks_exact_mut(32)) {
                // SAFETY: `x` is 16 bytes, the size of the unaligned load; AVX2 is enabled.
                let h = unsafe { _mm_loadu_si128(x.as_ptr().cast()) };
                let w = if BF16 {
                    let w = _mm256_slli_epi32::<16>(_mm256_cvtepu16_epi32(h));
                    let is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(w, abs), inf32);
                    _mm256_or_si256(w, _mm256_and_si256(is_nan, quiet))
                } else {
                    _mm256_castps_si256(_mm256_cvtph_ps(h))
                };
                // SAFETY: `y` is 32 bytes, the size of the unaligned store.
                unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), w) };
                let special = _mm_cmpeq_epi16(_mm_and_si128(h, exp), exp);
                let zero_man = _mm_cmpeq_epi16(_mm_and_si128(h, man), zero);
                nan = _mm_sub_epi16(nan, _mm_andnot_si128(zero_man, special));
                inf = _mm_sub_epi16(inf, _mm_and_si128(zero_man, special));
            }
            let (nan, inf) = (sum(nan), sum(inf));
            let m = (s_run.len() / 2) as u64;
            flags::record_n(self.nan_status, nan, &mut counts);
            flags::record_n(self.inf_status, inf, &mut counts);
            flags::record_n(0, m - nan - inf, &mut counts);
        }
        let rest = n % 8;
        if rest > 0 {
            let tail = self.run(&src[16 * groups..2 * n], &mut dst[32 * groups..4 * n], rest);
            counts.add(&tail);
        }
        counts
    }
}
