//! f32 → f16, round to nearest even, IEEE overflow: the codes from the F16C instruction
//! `vcvtps2ph` (8 per instruction) and their exact round trip `vcvtph2ps`; the statuses from
//! the f32 code, the f16 code and the round trip, counted in the same pass in vector
//! accumulators (groups of 8 holding a NaN, Inf or overflow take the per-element rule).
//! Used at the AVX2 level only, for the policies whose Inf, NaN and overflow results are the
//! instruction's own (checked when the [`F16c`] parameters are made), and tested bit for bit
//! against the reference like every kernel.

use super::flags;
use crate::status::{Status, StatusCounts};

const INEXACT: u16 = Status::INEXACT.bits();
const UNDERFLOW: u16 = Status::UNDERFLOW.bits();
const FLUSHED: u16 = Status::FLUSHED_TO_ZERO.bits();
const SATURATED: u16 = Status::SATURATED.bits();

/// The statuses the policy gives the special inputs, by sign (the codes are F16C's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct F16c {
    /// ±Inf inputs.
    pub inf: [u16; 2],
    /// Finite inputs that round beyond 65504.
    pub overflow: [u16; 2],
    /// NaN inputs.
    pub nan: [u16; 2],
}

impl F16c {
    /// Raw status bits of f32 code `x` cast to f16 code `c`, whose value as f32 is `back`.
    #[inline(always)]
    fn status(&self, x: u32, c: u16, back: u32) -> u16 {
        let a = x & 0x7FFF_FFFF;
        let m = u32::from(c & 0x7FFF);
        let side = |r: [u16; 2]| if x >> 31 == 1 { r[1] } else { r[0] };
        let inexact = back != x;
        let flag = |b: bool, f: u16| if b { f } else { 0 };
        let finite = flag(inexact, INEXACT)
            | flag(inexact & (m < 0x400), UNDERFLOW)
            | flag(inexact & (m == 0), FLUSHED)
            | flag((m == 0x7BFF) & (a > 0x477F_E000), SATURATED);
        if a > 0x7F80_0000 {
            side(self.nan)
        } else if a == 0x7F80_0000 {
            side(self.inf)
        } else if m == 0x7C00 {
            side(self.overflow)
        } else {
            finite
        }
    }

    /// Casts `n` little-endian f32 codes into f16 codes; `None` when the machine lacks F16C.
    pub(crate) fn run(&self, src: &[u8], dst: &mut [u8], n: usize) -> Option<StatusCounts> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2")
            && std::arch::is_x86_feature_detected!("f16c")
        {
            // SAFETY: the CPU has AVX2 and F16C (checked just above).
            return Some(unsafe { self.run_f16c(src, dst, n) });
        }
        let _ = (src, dst, n);
        None
    }

    /// [`F16c::run`] on a CPU with AVX2 and F16C: one pass, 8 elements per step, read from
    /// `src` and written to `dst` in place. The statuses of finite, non-overflowing lanes are
    /// counted in vector accumulators (inexact ⇔ the round trip differs; underflow, flush and
    /// saturation from the f16 code); a group of 8 with a NaN, Inf or overflow in it takes the
    /// per-element status rule.
    ///
    /// # Safety
    /// The CPU must support AVX2 and F16C.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,f16c")]
    unsafe fn run_f16c(&self, src: &[u8], dst: &mut [u8], n: usize) -> StatusCounts {
        use std::arch::x86_64::{
            __m256i, _MM_FROUND_TO_NEAREST_INT, _mm_storeu_si128, _mm256_and_si256,
            _mm256_andnot_si256, _mm256_castps_si256, _mm256_castsi256_ps, _mm256_cmpeq_epi32,
            _mm256_cmpgt_epi32, _mm256_cvtepu16_epi32, _mm256_cvtph_ps, _mm256_cvtps_ph,
            _mm256_loadu_si256, _mm256_or_si256, _mm256_set1_epi32, _mm256_setzero_si256,
            _mm256_storeu_si256, _mm256_sub_epi32, _mm256_testz_si256,
        };
        const ROUND: i32 = _MM_FROUND_TO_NEAREST_INT;
        /// Groups of 8 between two flushes of the 32-bit lane counters.
        const FLUSH: usize = 1 << 24;
        let mut counts = StatusCounts::default();
        let groups = n / 8;
        let abs_mask = _mm256_set1_epi32(0x7FFF_FFFF);
        let max_finite_f32 = _mm256_set1_epi32(0x7F7F_FFFF);
        let f16_abs = _mm256_set1_epi32(0x7FFF);
        let f16_inf = _mm256_set1_epi32(0x7C00);
        let f16_max = _mm256_set1_epi32(0x7BFF);
        let f16_max_f32 = _mm256_set1_epi32(0x477F_E000);
        let min_normal = _mm256_set1_epi32(0x400);
        let zero = _mm256_setzero_si256();
        let ones = _mm256_cmpeq_epi32(zero, zero);
        let sum = |v: __m256i| -> u64 {
            let mut lanes = [0u32; 8];
            // SAFETY: `lanes` is 32 bytes, the size of the unaligned store.
            unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
            lanes.iter().map(|&c| u64::from(c)).sum()
        };
        for (s_run, d_run) in src[..32 * groups]
            .chunks(32 * FLUSH)
            .zip(dst[..16 * groups].chunks_mut(16 * FLUSH))
        {
            let (mut inexact, mut under, mut flushed, mut saturated) = (zero, zero, zero, zero);
            let mut fast = 0u64;
            for (x, y) in s_run.chunks_exact(32).zip(d_run.chunks_exact_mut(16)) {
                // SAFETY: `x` is 32 bytes and `y` 16, the sizes of the unaligned load and
                // store; AVX2 and F16C are enabled here.
                let (v, h, back) = unsafe {
                    let v = _mm256_loadu_si256(x.as_ptr().cast());
                    let h = _mm256_cvtps_ph::<ROUND>(_mm256_castsi256_ps(v));
                    _mm_storeu_si128(y.as_mut_ptr().cast(), h);
                    (v, h, _mm256_castps_si256(_mm256_cvtph_ps(h)))
                };
                let a = _mm256_and_si256(v, abs_mask);
                let m = _mm256_and_si256(_mm256_cvtepu16_epi32(h), f16_abs);
                let special = _mm256_or_si256(
                    _mm256_cmpgt_epi32(a, max_finite_f32),
                    _mm256_cmpeq_epi32(m, f16_inf),
                );
                if _mm256_testz_si256(special, special) == 0 {
                    let mut xs = [0u32; 8];
                    let mut hs = [0u16; 8];
                    let mut bs = [0u32; 8];
                    // SAFETY: 32-, 16- and 32-byte arrays, the sizes of the stores.
                    unsafe {
                        _mm256_storeu_si256(xs.as_mut_ptr().cast(), v);
                        _mm_storeu_si128(hs.as_mut_ptr().cast(), h);
                        _mm256_storeu_si256(bs.as_mut_ptr().cast(), back);
                    }
                    let mut st = [0u16; 8];
                    for (((t, &x), &c), &b) in st.iter_mut().zip(&xs).zip(&hs).zip(&bs) {
                        *t = self.status(x, c, b);
                    }
                    flags::count(&st, &mut counts);
                    continue;
                }
                fast += 8;
                let inex = _mm256_andnot_si256(_mm256_cmpeq_epi32(back, v), ones);
                inexact = _mm256_sub_epi32(inexact, inex);
                under = _mm256_sub_epi32(
                    under,
                    _mm256_and_si256(inex, _mm256_cmpgt_epi32(min_normal, m)),
                );
                flushed =
                    _mm256_sub_epi32(flushed, _mm256_and_si256(inex, _mm256_cmpeq_epi32(m, zero)));
                saturated = _mm256_sub_epi32(
                    saturated,
                    _mm256_and_si256(
                        _mm256_cmpeq_epi32(m, f16_max),
                        _mm256_cmpgt_epi32(a, f16_max_f32),
                    ),
                );
            }
            // Finite lanes: saturation and underflow (hence flush) imply inexact.
            let inexact = sum(inexact);
            counts.total += fast;
            counts.exact += fast - inexact;
            for (flag, k) in [
                (INEXACT, inexact),
                (UNDERFLOW, sum(under)),
                (FLUSHED, sum(flushed)),
                (SATURATED, sum(saturated)),
            ] {
                if let Some(slot) = counts.flags.get_mut(flag.trailing_zeros() as usize) {
                    *slot += k;
                }
            }
        }
        // The last n % 8 elements, through a zero-padded group.
        let rest = n % 8;
        if rest > 0 {
            let mut xs = [0u32; 8];
            for (x, b) in xs.iter_mut().zip(src[32 * groups..4 * n].chunks_exact(4)) {
                *x = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
            }
            let mut hs = [0u16; 8];
            let mut bs = [0u32; 8];
            // SAFETY: 32-, 16- and 32-byte arrays, the sizes of the loads and stores; AVX2 and
            // F16C are enabled here.
            unsafe {
                let v = _mm256_loadu_si256(xs.as_ptr().cast());
                let h = _mm256_cvtps_ph::<ROUND>(_mm256_castsi256_ps(v));
                _mm_storeu_si128(hs.as_mut_ptr().cast(), h);
                _mm256_storeu_si256(
                    bs.as_mut_ptr().cast(),
                    _mm256_castps_si256(_mm256_cvtph_ps(h)),
                );
            }
            let mut st = [0u16; 8];
            for ((((t, &x), &c), &b), y) in st
                .iter_mut()
                .zip(&xs)
                .zip(&hs)
                .zip(&bs)
                .zip(dst[16 * groups..2 * n].chunks_exact_mut(2))
            {
                *t = self.status(x, c, b);
                y.copy_from_slice(&c.to_le_bytes());
            }
            flags::count(&st[..rest], &mut counts);
        }
        counts
    }
}
