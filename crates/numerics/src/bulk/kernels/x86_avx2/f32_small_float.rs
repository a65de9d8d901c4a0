//! f32 → binary floats of at most 8 bits (e4m3fn, e5m2, the other fp8/fp6/fp4 formats the
//! [`crate::bulk::kernels::portable::f32_float`] kernel serves, and packed e2m1) at the AVX2 level: the same rounding
//! on the bit patterns as that kernel's per-element rule, 8 lanes per instruction, with the
//! destination's layout (exponent bits, mantissa bits, bias, largest finite value, the codes
//! and statuses of Inf, NaN and overflow) as run-time parameters held in registers. Normal
//! results rebias the exponent; subnormal ones shift the significand by a per-lane count
//! (`vpsrlvd`); the mode rounds up from the remainder, the half and the last kept bit; the
//! special cases are blended in. Statuses are counted in vector accumulators in the same
//! pass. The last `n % 16` elements take the per-element rule. The to-nearest-even mode of
//! the layouts it serves takes [`super::f32_small_float_scaled`] instead (a float add, fewer
//! instructions).

use crate::bulk::kernels::mode;
use crate::bulk::kernels::portable::f32_small_float::{Fixed, SmallFloat};
use crate::status::{Status, StatusCounts};
use std::arch::x86_64::*;

/// Elements per step (two vectors of 8).
const STEP: usize = 16;

impl SmallFloat {
    /// Casts the first `n - n % 16` of `n` little-endian f32 codes (16 codes per step into 16
    /// bytes, or 8 bytes when `packed`: two 4-bit codes per byte, the first in the low nibble)
    /// at the AVX2 level, and returns how many it cast with their statuses; `None` when the
    /// machine lacks AVX2. With `stream` the scaled loop
    /// ([`super::f32_small_float_scaled::run_body`]) stores past the cache.
    pub(crate) fn run_body(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        packed: bool,
        stream: bool,
    ) -> Option<(usize, StatusCounts)> {
        let scaled = super::f32_small_float_scaled::run_body(self, src, dst, n, packed, stream);
        if let Some(done) = scaled {
            return Some(done);
        }
        if self.serves(packed) && crate::bulk::kernels::simd::avx2_present() {
            let body = n - n % STEP;
            let out = if packed { body / 2 } else { body };
            let (s, d) = (&src[..4 * body], &mut dst[..out]);
            // SAFETY: the CPU has AVX2 (checked just above).
            let clamp = self.overflow_clamps();
            // SAFETY: the CPU has AVX2 (checked just above).
            let counts = unsafe {
                match self.mode {
                    mode::NEAREST_EVEN => {
                        self.dispatch::<{ mode::NEAREST_EVEN }>(s, d, packed, clamp)
                    }
                    mode::NEAREST_AWAY => {
                        self.dispatch::<{ mode::NEAREST_AWAY }>(s, d, packed, clamp)
                    }
                    mode::FLOOR => self.dispatch::<{ mode::FLOOR }>(s, d, packed, clamp),
                    mode::CEIL => self.dispatch::<{ mode::CEIL }>(s, d, packed, clamp),
                    mode::TRUNC => self.dispatch::<{ mode::TRUNC }>(s, d, packed, clamp),
                    _ => self.dispatch::<{ mode::ODD }>(s, d, packed, clamp),
                }
            };
            return Some((body, counts));
        }
        let _ = (src, dst, n, packed);
        None
    }

    /// Whether finite overflow gives, for both signs, the largest finite magnitude or the next
    /// code up, with the sign bit by sign: then the code is the rounded magnitude clamped to
    /// that code, with the sign put on (no blend).
    pub(super) fn overflow_clamps(&self) -> bool {
        let sign_bit = 1 << (self.bits - 1);
        let [(p, _), (n, _)] = self.overflow;
        (p == self.max_code || p == self.max_code + 1) && p < sign_bit && n == p | sign_bit
    }

    /// [`SmallFloat::cast`] for the layout (`packed`) and overflow rule (`clamp`).
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn dispatch<const M: u8>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        packed: bool,
        clamp: bool,
    ) -> StatusCounts {
        // SAFETY: AVX2 is enabled here.
        unsafe {
            match (packed, clamp) {
                (false, false) => self.cast::<M, false, false>(src, dst),
                (false, true) => self.cast::<M, false, true>(src, dst),
                (true, false) => self.cast::<M, true, false>(src, dst),
                (true, true) => self.cast::<M, true, true>(src, dst),
            }
        }
    }

    /// The cast of `src.len() / 4` (a multiple of [`STEP`]) elements in mode `M`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    unsafe fn cast<const M: u8, const PACKED: bool, const CLAMP: bool>(
        &self,
        src: &[u8],
        dst: &mut [u8],
    ) -> StatusCounts {
        use std::arch::x86_64::*;
        /// Steps between two flushes of the 16-bit lane counters (2 per lane per step).
        const FLUSH: usize = 1 << 14;
        let set = |v: u32| _mm256_set1_epi32(v as i32);
        let zero = _mm256_setzero_si256();
        let one = set(1);
        let abs_mask = set(0x7FFF_FFFF);
        let sub_base = set(self.shift + self.e0 + 1);
        let max_shift = set(31);
        let min_normal = set(self.min_normal);
        let max_code = set(self.max_code);
        let max_abs = set(self.max_abs);
        let (ovf_p, ovf_n) = (set(self.overflow[0].0), set(self.overflow[1].0));

        // The same for 8 finite lanes, in fewer steps: the exponent clamped to the subnormal
        // range gives both the significand (rebiased, or with its implicit bit) and the shift;
        // nearest modes round by adding the half (less one, plus the last kept bit) before the
        // shift; the sign is put on after. Masks: exact finite, underflow, flushed, saturated,
        // overflow, negative overflow.
        let all = set(!0);
        let top = set(self.e0 + 1);
        let implicit_add = set(1 << 23);
        let thirty_two = set(32);
        let sign_shift = _mm_cvtsi32_si128(32 - self.bits as i32);
        let finite_lanes = |x: __m256i| {
            let neg = _mm256_srai_epi32::<31>(x);
            let abs = _mm256_and_si256(x, abs_mask);
            let t = _mm256_min_epi32(_mm256_max_epi32(_mm256_srli_epi32::<23>(abs), one), top);
            let base = _mm256_sub_epi32(
                _mm256_add_epi32(abs, implicit_add),
                _mm256_slli_epi32::<23>(t),
            );
            let sh = _mm256_min_epi32(_mm256_sub_epi32(sub_base, t), max_shift);
            let low = _mm256_srlv_epi32(all, _mm256_sub_epi32(thirty_two, sh));
            let q = _mm256_srlv_epi32(base, sh);
            let exact = _mm256_cmpeq_epi32(_mm256_and_si256(base, low), zero);
            let out = match M {
                mode::NEAREST_EVEN => {
                    let bias =
                        _mm256_add_epi32(_mm256_srli_epi32::<1>(low), _mm256_and_si256(q, one));
                    _mm256_srlv_epi32(_mm256_add_epi32(base, bias), sh)
                }
                mode::NEAREST_AWAY => {
                    let half = _mm256_sub_epi32(_mm256_srli_epi32::<1>(low), all);
                    _mm256_srlv_epi32(_mm256_add_epi32(base, half), sh)
                }
                mode::FLOOR => _mm256_sub_epi32(q, _mm256_andnot_si256(exact, neg)),
                mode::CEIL => {
                    _mm256_add_epi32(q, _mm256_andnot_si256(_mm256_or_si256(exact, neg), one))
                }
                mode::TRUNC => q,
                _ => _mm256_or_si256(q, _mm256_andnot_si256(exact, one)),
            };
            let ovf = _mm256_cmpgt_epi32(out, max_code);
            let sign = _mm256_srl_epi32(_mm256_and_si256(x, set(1 << 31)), sign_shift);
            let code = if CLAMP {
                // the overflow code is the largest finite one or the next, by sign
                _mm256_or_si256(_mm256_min_epu32(out, ovf_p), sign)
            } else {
                _mm256_blendv_epi8(
                    _mm256_or_si256(out, sign),
                    _mm256_blendv_epi8(ovf_p, ovf_n, neg),
                    ovf,
                )
            };
            let under = _mm256_andnot_si256(exact, _mm256_cmpgt_epi32(min_normal, out));
            let flushed = _mm256_andnot_si256(exact, _mm256_cmpeq_epi32(out, zero));
            // beyond the largest finite value: overflow, or saturation to it
            let beyond = _mm256_cmpgt_epi32(abs, max_abs);
            // (exact finite, underflow), (flushed, beyond), (overflow, negative overflow) in
            // the low and high halves of 32-bit lanes: 16-bit counters
            let pair = |lo: __m256i, hi: __m256i| _mm256_blend_epi16::<0xAA>(lo, hi);
            (
                code,
                [
                    pair(_mm256_andnot_si256(ovf, exact), under),
                    pair(flushed, beyond),
                    pair(ovf, _mm256_and_si256(ovf, neg)),
                ],
            )
        };
        let max_finite_f32 = set(0x7F7F_FFFF);

        let mut counts = StatusCounts::default();
        let sum = |v: __m256i| -> u64 {
            let mut l = [0u32; 8];
            // SAFETY: `l` is 32 bytes, the size of the unaligned store.
            unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), v) };
            l.iter().map(|&c| u64::from(c)).sum()
        };
        // The low and high 16-bit halves of the lanes of `v`, summed.
        let sum16 = |v: __m256i| -> (u64, u64) {
            let mut l = [0u32; 8];
            // SAFETY: `l` is 32 bytes, the size of the unaligned store.
            unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), v) };
            let lo = l.iter().map(|&c| u64::from(c & 0xFFFF)).sum();
            (lo, l.iter().map(|&c| u64::from(c >> 16)).sum())
        };
        let out_step = if PACKED { STEP / 2 } else { STEP };
        for (s_run, d_run) in src
            .chunks(4 * STEP * FLUSH)
            .zip(dst.chunks_mut(out_step * FLUSH))
        {
            // NaN, negative NaN, ±Inf, negative Inf lanes
            let mut acc = [zero; 4];
            let mut fin = [zero; 3];
            for (x, y) in s_run
                .chunks_exact(4 * STEP)
                .zip(d_run.chunks_exact_mut(out_step))
            {
                // SAFETY: `x` is 64 bytes, two unaligned 32-byte loads.
                let (a, b) = unsafe {
                    (
                        _mm256_loadu_si256(x.as_ptr().cast()),
                        _mm256_loadu_si256(x.as_ptr().add(32).cast()),
                    )
                };
                let nan_or_inf = _mm256_or_si256(
                    _mm256_cmpgt_epi32(_mm256_and_si256(a, abs_mask), max_finite_f32),
                    _mm256_cmpgt_epi32(_mm256_and_si256(b, abs_mask), max_finite_f32),
                );
                // A NaN or ±Inf lane's finite rule overflows (and lies beyond the largest
                // finite value): counted so, and taken off those counts at the end.
                let (ca, sa) = finite_lanes(a);
                let (cb, sb) = finite_lanes(b);
                for ((t, p), q) in fin.iter_mut().zip(sa).zip(sb) {
                    *t = _mm256_sub_epi16(_mm256_sub_epi16(*t, p), q);
                }
                let (ca, cb) = if _mm256_testz_si256(nan_or_inf, nan_or_inf) != 0 {
                    (ca, cb)
                } else {
                    (
                        self.nan_inf_codes(a, ca, &mut acc),
                        self.nan_inf_codes(b, cb, &mut acc),
                    )
                };
                // a0..3 b0..3 | a4..7 b4..7 → a0..7 b0..7 as 16-bit codes, then bytes
                let p = _mm256_permute4x64_epi64::<0xD8>(_mm256_packus_epi32(ca, cb));
                let bytes = _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0x08>(
                    _mm256_packus_epi16(p, p),
                ));
                if PACKED {
                    // byte pairs (lo, hi) → lo | hi << 4
                    let lo = _mm_and_si128(bytes, _mm_set1_epi16(0x000F));
                    let hi = _mm_and_si128(_mm_srli_epi16::<4>(bytes), _mm_set1_epi16(0x00F0));
                    let nib = _mm_packus_epi16(_mm_or_si128(lo, hi), _mm_setzero_si128());
                    // SAFETY: `y` is 8 bytes, the size of the unaligned store.
                    unsafe { _mm_storel_epi64(y.as_mut_ptr().cast(), nib) };
                } else {
                    // SAFETY: `y` is 16 bytes, the size of the unaligned store.
                    unsafe { _mm_storeu_si128(y.as_mut_ptr().cast(), bytes) };
                }
            }
            let m = (s_run.len() / 4) as u64;
            let [nan, nan_neg, inf, inf_neg] = acc.map(sum);
            let [(exact, under), (flushed, beyond), (ovf, ovf_neg)] = fin.map(sum16);
            // the NaN and ±Inf lanes counted as overflowing and beyond
            let ovf = ovf - nan - inf;
            let ovf_neg = ovf_neg - nan_neg - inf_neg;
            let saturated = beyond - nan - inf - ovf;
            let finite = m - nan - inf - ovf;
            // The finite lanes neither exact nor overflowing are inexact.
            let inexact = finite - exact;
            counts.total += finite;
            // Finite lanes: underflow, flush and saturation imply inexact.
            counts.exact += exact;
            for (flag, k) in [
                (Status::INEXACT, inexact),
                (Status::UNDERFLOW, under),
                (Status::FLUSHED_TO_ZERO, flushed),
                (Status::SATURATED, saturated),
            ] {
                if let Some(slot) = counts.flags.get_mut(flag.bits().trailing_zeros() as usize) {
                    *slot += k;
                }
            }
            for (fixed, all, neg) in [
                (self.nan_fixed, nan, nan_neg),
                (self.inf, inf, inf_neg),
                (self.overflow, ovf, ovf_neg),
            ] {
                crate::bulk::kernels::flags::record_n(fixed[0].1, all - neg, &mut counts);
                crate::bulk::kernels::flags::record_n(fixed[1].1, neg, &mut counts);
            }
        }
        counts
    }

    /// The codes `code` of the 8 lanes `x` (by the finite rule) with the policy's codes on
    /// their NaN and ±Inf lanes (NaN's by sign with the payload kept, Inf's by sign), those
    /// lanes counted into `acc` (NaN, negative NaN, ±Inf, negative Inf).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn nan_inf_codes(&self, x: __m256i, code: __m256i, acc: &mut [__m256i; 4]) -> __m256i {
        let inf_bits = set(0x7F80_0000);
        let neg = _mm256_srai_epi32::<31>(x);
        let abs = _mm256_and_si256(x, set(0x7FFF_FFFF));
        let nan = _mm256_cmpgt_epi32(abs, inf_bits);
        let inf = _mm256_cmpeq_epi32(abs, inf_bits);
        for (t, m) in acc.iter_mut().zip([
            nan,
            _mm256_and_si256(nan, neg),
            inf,
            _mm256_and_si256(inf, neg),
        ]) {
            *t = _mm256_sub_epi32(*t, m);
        }
        let pick = |r: [Fixed; 2]| _mm256_blendv_epi8(set(r[0].0), set(r[1].0), neg);
        let nan_code = _mm256_or_si256(
            pick(self.nan_fixed),
            _mm256_and_si256(
                _mm256_srlv_epi32(abs, set(self.shift)),
                set(self.nan_payload),
            ),
        );
        let code = _mm256_blendv_epi8(code, pick(self.inf), inf);
        _mm256_blendv_epi8(code, nan_code, nan)
    }
}

/// `v` in every 32-bit lane.
#[target_feature(enable = "avx2")]
#[inline]
fn set(v: u32) -> __m256i {
    _mm256_set1_epi32(v as i32)
}
