//! What the two f32 → 16-bit float SIMD kernels ([`f16c`](crate::bulk::kernels::x86_avx2::f16c) and
//! [`f32_bf16`](crate::bulk::kernels::x86_avx2::f32_bf16)) share: the rounding mode as a const-generic parameter, and
//! the lanes they do not round themselves — NaN, ±Inf and finite overflow — whose results the
//! policy fixes by sign (NaN: plus the payload's top bits). Those lanes are blended in with
//! vector selects and counted per class and sign; no element is cast one by one.

use crate::status::{Status, StatusCounts};

use crate::bulk::kernels::flags;
pub(crate) use crate::bulk::kernels::mode as rounding;
pub(crate) use crate::bulk::kernels::portable::f32_half::{Fixed, SpecialResults};

/// How many special lanes a kernel met, by class (NaN, Inf, overflow) and sign.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SpecialCounts {
    /// By class (NaN, Inf, overflow) and sign (`[+, −]`).
    pub(crate) lanes: [[u64; 2]; 3],
}

impl SpecialCounts {
    /// All special lanes counted.
    pub(crate) fn total(&self) -> u64 {
        self.lanes.iter().flatten().sum()
    }
}

impl SpecialResults {
    /// Adds the counted special lanes, with the statuses the policy gives them, to `counts`.
    pub(crate) fn record(&self, special: &SpecialCounts, counts: &mut StatusCounts) {
        for (class, lanes) in [self.nan, self.inf, self.overflow]
            .iter()
            .zip(special.lanes)
        {
            for (fixed, n) in class.iter().zip(lanes) {
                if n > 0 {
                    flags::record_n(fixed.1, n, counts);
                }
            }
        }
    }
}

/// A 16-bit float kernel whose loop takes the rounding mode and the width of its blocks as
/// const parameters.
pub(crate) trait ModeLoop {
    /// The loop in mode `M`; with `WIDE` the blocks run at the AVX-512 level, and with
    /// `stream` as well they store non-temporally ([`stream`](crate::bulk::kernels::stream)).
    ///
    /// # Safety
    /// The CPU must support the kernel's features (AVX2, and F16C for f16), and with `WIDE`
    /// AVX-512 F, BW, VL and DQ; with `stream`, `dst` must start on a 64-byte boundary.
    unsafe fn run_mode<const M: u8, const WIDE: bool>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> StatusCounts;
}

/// Runs `k`'s loop in rounding mode `mode` (see [`rounding`]), the one place that turns the
/// mode into a const parameter.
///
/// # Safety
/// As [`ModeLoop::run_mode`].
pub(crate) unsafe fn run_in_mode<K: ModeLoop, const WIDE: bool>(
    k: &K,
    mode: u8,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> StatusCounts {
    // SAFETY: the caller's guarantee, passed on.
    unsafe {
        match mode {
            rounding::NEAREST_EVEN => {
                k.run_mode::<{ rounding::NEAREST_EVEN }, WIDE>(src, dst, n, stream)
            }
            rounding::NEAREST_AWAY => {
                k.run_mode::<{ rounding::NEAREST_AWAY }, WIDE>(src, dst, n, stream)
            }
            rounding::FLOOR => k.run_mode::<{ rounding::FLOOR }, WIDE>(src, dst, n, stream),
            rounding::CEIL => k.run_mode::<{ rounding::CEIL }, WIDE>(src, dst, n, stream),
            rounding::TRUNC => k.run_mode::<{ rounding::TRUNC }, WIDE>(src, dst, n, stream),
            _ => k.run_mode::<{ rounding::ODD }, WIDE>(src, dst, n, stream),
        }
    }
}

pub(crate) use simd::{Acc, blend, blend_nan_inf};

mod simd {
    use super::{SpecialResults, Totals};
    use std::arch::x86_64::{
        __m256i, _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_epi8, _mm256_cmpeq_epi32,
        _mm256_cmpgt_epi32, _mm256_or_si256, _mm256_set1_epi32, _mm256_srai_epi32,
        _mm256_srli_epi32, _mm256_sub_epi32, _mm256_testz_si256,
    };
    use std::arch::x86_64::{_mm256_setzero_si256, _mm256_storeu_si256};

    /// Per-lane counters (32-bit lanes): of the finite lanes' statuses, and of the special
    /// lanes by class (NaN, Inf, overflow) and sign (positive, negative).
    #[derive(Clone, Copy)]
    pub(crate) struct Acc {
        pub(crate) exact: __m256i,
        pub(crate) underflow: __m256i,
        pub(crate) flushed: __m256i,
        pub(crate) saturated: __m256i,
        pub(crate) special: [[__m256i; 2]; 3],
    }

    /// The sum of the eight 32-bit lanes of `v`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn sum(v: __m256i) -> u64 {
        let mut lanes = [0u32; 8];
        // SAFETY: `lanes` is 32 bytes, the size of the unaligned store.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
        lanes.iter().map(|&c| u64::from(c)).sum()
    }

    impl Acc {
        #[target_feature(enable = "avx2")]
        #[inline]
        pub(crate) fn zero() -> Acc {
            let z = _mm256_setzero_si256();
            Acc {
                exact: z,
                underflow: z,
                flushed: z,
                saturated: z,
                special: [[z; 2]; 3],
            }
        }

        #[target_feature(enable = "avx2")]
        #[inline]
        pub(crate) fn add_to(self, t: &mut Totals) {
            t.exact += sum(self.exact);
            t.underflow += sum(self.underflow);
            t.flushed += sum(self.flushed);
            t.saturated += sum(self.saturated);
            for (c, v) in t.special.lanes.iter_mut().zip(self.special) {
                for (s, lanes) in c.iter_mut().zip(v) {
                    *s += sum(lanes);
                }
            }
        }
    }

    /// `r[0]` in lanes whose sign mask is clear, `r[1]` where it is set.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn by_sign(r: [super::Fixed; 2], sign: __m256i) -> __m256i {
        _mm256_blendv_epi8(
            _mm256_set1_epi32(r[0].0 as i32),
            _mm256_set1_epi32(r[1].0 as i32),
            sign,
        )
    }

    /// The codes `code` (32-bit lanes) with the lanes of `special` replaced by the policy's
    /// results; `v` are the f32 codes, `a` their magnitudes, `SHIFT` the mantissa bits the
    /// destination drops (where the NaN payload's top bits start). A special lane is NaN, ±Inf,
    /// or else a finite overflow. Counts the special lanes into `acc`'s vector counters (no
    /// per-step mask extraction and popcount: a block full of ±Inf, a causal attention mask
    /// say, stays on vector code).
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn blend<const SHIFT: i32>(
        sp: &SpecialResults,
        v: __m256i,
        a: __m256i,
        code: __m256i,
        special: __m256i,
        acc: &mut Acc,
    ) -> __m256i {
        let inf_bits = _mm256_set1_epi32(0x7F80_0000);
        let sign = _mm256_srai_epi32::<31>(v);
        let nan = _mm256_cmpgt_epi32(a, inf_bits);
        let inf = _mm256_cmpeq_epi32(a, inf_bits);
        let overflow = _mm256_andnot_si256(_mm256_or_si256(nan, inf), special);
        let nan_code = _mm256_or_si256(
            by_sign(sp.nan, sign),
            _mm256_and_si256(
                _mm256_srli_epi32::<SHIFT>(a),
                _mm256_set1_epi32(sp.nan_payload as i32),
            ),
        );
        let code = _mm256_blendv_epi8(code, by_sign(sp.overflow, sign), overflow);
        let code = _mm256_blendv_epi8(code, by_sign(sp.inf, sign), inf);
        let code = _mm256_blendv_epi8(code, nan_code, nan);
        for (lanes, mask) in acc.special.iter_mut().zip([nan, inf, overflow]) {
            // (a mask lane is -1: subtracting it counts one)
            lanes[0] = _mm256_sub_epi32(lanes[0], _mm256_andnot_si256(sign, mask));
            lanes[1] = _mm256_sub_epi32(lanes[1], _mm256_and_si256(sign, mask));
        }
        code
    }

    /// [`blend`] for lanes `special` that are all NaN or ±Inf: where none is NaN and the
    /// rounded code of every ±Inf lane already is the policy's code for it (the usual policy
    /// on an attention mask's −∞), the codes stay as they are and only those lanes are
    /// counted (by sign, into `acc`'s Inf counters); otherwise [`blend`].
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn blend_nan_inf<const SHIFT: i32>(
        sp: &SpecialResults,
        v: __m256i,
        a: __m256i,
        code: __m256i,
        special: __m256i,
        acc: &mut Acc,
    ) -> __m256i {
        let sign = _mm256_srai_epi32::<31>(v);
        let nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F80_0000));
        let other = _mm256_andnot_si256(_mm256_cmpeq_epi32(code, by_sign(sp.inf, sign)), special);
        let off = _mm256_or_si256(nan, other);
        if _mm256_testz_si256(off, off) == 0 {
            return blend::<SHIFT>(sp, v, a, code, special, acc);
        }
        let inf = &mut acc.special[1];
        inf[0] = _mm256_sub_epi32(inf[0], _mm256_andnot_si256(sign, special));
        inf[1] = _mm256_sub_epi32(inf[1], _mm256_and_si256(sign, special));
        code
    }
}

/// The status counts of a run: of the finite lanes, and the special lanes met.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Totals {
    /// Exact results.
    pub exact: u64,
    /// Results below the smallest normal that are inexact.
    pub underflow: u64,
    /// Inexact results flushed to zero.
    pub flushed: u64,
    /// Results held at the largest finite value.
    pub saturated: u64,
    /// Special lanes (NaN, Inf, overflow), by sign.
    pub special: SpecialCounts,
}

impl Totals {
    /// The counts of a run of `n` lanes, the special ones given `specials`' results.
    pub(crate) fn into_counts(self, n: usize, specials: &SpecialResults) -> StatusCounts {
        let mut counts = StatusCounts::default();
        let finite = (n as u64).saturating_sub(self.special.total());
        counts.total = finite;
        counts.exact = self.exact;
        for (flag, k) in [
            (Status::INEXACT, finite.saturating_sub(self.exact)),
            (Status::UNDERFLOW, self.underflow),
            (Status::FLUSHED_TO_ZERO, self.flushed),
            (Status::SATURATED, self.saturated),
        ] {
            if let Some(slot) = counts.flags.get_mut(flag.bits().trailing_zeros() as usize) {
                *slot += k;
            }
        }
        specials.record(&self.special, &mut counts);
        counts
    }
}
