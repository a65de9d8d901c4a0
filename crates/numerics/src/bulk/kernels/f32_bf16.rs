//! f32 → bf16 at the AVX2 level, in every deterministic rounding mode and under every policy:
//! bf16 is the f32's top 16 bits, so rounding is integer arithmetic on the magnitude `a` of 8
//! lanes at a time (`q = a >> 16`, the rest `a & 0xFFFF`: nearest-even `(a + 0x7FFF +
//! (q & 1)) >> 16`, ties-away `(a + 0x8000) >> 16`, floor / ceil `q` plus one where inexact on
//! the matching sign, trunc `q`, odd `q | inexact`), 16 lanes packed to 16 bits per store.
//!
//! Inexact ⇔ the rest is not zero, counted in a vector accumulator on every step. A result
//! below the smallest normal (underflow, flush to zero) or at or beyond the largest finite
//! value (saturation; NaN, ±Inf and overflow, whose results the policy fixes, see
//! [`f32_half`](super::f32_half)) sends its 16 lanes through a cold branch that counts those
//! statuses and blends in the special results, still 8 lanes at a time. Tested bit for bit
//! against the reference like every kernel.

use super::f32_half::{SpecialCounts, SpecialResults, rounding};
use crate::status::{Status, StatusCounts};

/// f32 → bf16 in one mode under one policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bf16 {
    /// The rounding mode (see [`rounding`]).
    mode: u8,
    /// What NaN, ±Inf and overflow become.
    specials: SpecialResults,
}

/// Largest finite bf16 magnitude code.
const MAX_CODE: u32 = 0x7F7F;
/// Smallest normal bf16 magnitude code.
const MIN_NORMAL: u32 = 0x80;

/// Steps of 16 elements between two flushes of the 32-bit lane counters (each lane adds at
/// most two per step).
const FLUSH: usize = 1 << 24;

/// The finite lanes' status counts of a run.
#[derive(Clone, Copy, Debug, Default)]
struct Totals {
    exact: u64,
    underflow: u64,
    flushed: u64,
    saturated: u64,
}

impl Totals {
    /// The counts of `n` lanes of which `seen` were special.
    fn into_counts(
        self,
        n: usize,
        seen: &SpecialCounts,
        specials: &SpecialResults,
    ) -> StatusCounts {
        let mut counts = StatusCounts::default();
        let finite = (n as u64).saturating_sub(seen.total());
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
        specials.record(seen, &mut counts);
        counts
    }
}

impl Bf16 {
    /// The kernel for rounding mode `mode` (see [`rounding`]) whose special lanes become
    /// `specials`.
    pub(crate) fn new(mode: u8, specials: SpecialResults) -> Bf16 {
        Bf16 { mode, specials }
    }

    /// Casts `n` little-endian f32 codes into bf16 codes; `None` when the machine lacks AVX2.
    pub(crate) fn run(&self, src: &[u8], dst: &mut [u8], n: usize) -> Option<StatusCounts> {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked just above).
            return Some(unsafe {
                match self.mode {
                    rounding::NEAREST_EVEN => {
                        self.run_mode::<{ rounding::NEAREST_EVEN }>(src, dst, n)
                    }
                    rounding::NEAREST_AWAY => {
                        self.run_mode::<{ rounding::NEAREST_AWAY }>(src, dst, n)
                    }
                    rounding::FLOOR => self.run_mode::<{ rounding::FLOOR }>(src, dst, n),
                    rounding::CEIL => self.run_mode::<{ rounding::CEIL }>(src, dst, n),
                    rounding::TRUNC => self.run_mode::<{ rounding::TRUNC }>(src, dst, n),
                    _ => self.run_mode::<{ rounding::ODD }>(src, dst, n),
                }
            });
        }
        let _ = (src, dst, n);
        None
    }
}

#[cfg(target_arch = "x86_64")]
mod simd {
    use super::{Bf16, FLUSH, MAX_CODE, MIN_NORMAL, Totals};
    use crate::bulk::kernels::f32_half::{SpecialCounts, blend, rounding};
    use crate::status::StatusCounts;
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi32,
        _mm256_cmpgt_epi32, _mm256_loadu_si256, _mm256_or_si256, _mm256_packus_epi32,
        _mm256_permute4x64_epi64, _mm256_set1_epi32, _mm256_setzero_si256, _mm256_srai_epi32,
        _mm256_srli_epi32, _mm256_storeu_si256, _mm256_sub_epi32, _mm256_testz_si256,
    };

    /// Per-lane counters of the finite lanes.
    #[derive(Clone, Copy)]
    struct Acc {
        exact: __m256i,
        underflow: __m256i,
        flushed: __m256i,
        saturated: __m256i,
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
        fn zero() -> Acc {
            let z = _mm256_setzero_si256();
            Acc {
                exact: z,
                underflow: z,
                flushed: z,
                saturated: z,
            }
        }

        #[target_feature(enable = "avx2")]
        #[inline]
        fn add_to(self, t: &mut Totals) {
            t.exact += sum(self.exact);
            t.underflow += sum(self.underflow);
            t.flushed += sum(self.flushed);
            t.saturated += sum(self.saturated);
        }
    }

    /// One rounded group of 8.
    #[derive(Clone, Copy)]
    struct Group {
        /// The bf16 codes in 32-bit lanes.
        code: __m256i,
        /// Their rounded magnitudes (up to 0x8000: NaN may carry into the sign bit's place).
        out: __m256i,
        /// Lanes whose f32 value is a bf16 value (all ones there).
        exact: __m256i,
        /// Lanes whose result is below the smallest normal or at least the largest finite.
        rare: __m256i,
    }

    impl Bf16 {
        /// The f32 codes `v` rounded to bf16 in mode `M`.
        #[target_feature(enable = "avx2")]
        #[inline]
        fn round<const M: u8>(v: __m256i) -> Group {
            let one = _mm256_set1_epi32(1);
            let a = _mm256_and_si256(v, _mm256_set1_epi32(0x7FFF_FFFF));
            let q = _mm256_srli_epi32::<16>(a);
            let exact = _mm256_cmpeq_epi32(
                _mm256_and_si256(a, _mm256_set1_epi32(0xFFFF)),
                _mm256_setzero_si256(),
            );
            let negative = _mm256_srai_epi32::<31>(v);
            let out = match M {
                rounding::NEAREST_EVEN => _mm256_srli_epi32::<16>(_mm256_add_epi32(
                    _mm256_add_epi32(a, _mm256_set1_epi32(0x7FFF)),
                    _mm256_and_si256(q, one),
                )),
                rounding::NEAREST_AWAY => {
                    _mm256_srli_epi32::<16>(_mm256_add_epi32(a, _mm256_set1_epi32(0x8000)))
                }
                // The magnitude goes up (minus an all-ones mask) where inexact and negative ...
                rounding::FLOOR => _mm256_sub_epi32(q, _mm256_andnot_si256(exact, negative)),
                // ... or inexact and positive.
                rounding::CEIL => _mm256_sub_epi32(
                    q,
                    _mm256_andnot_si256(
                        _mm256_or_si256(exact, negative),
                        _mm256_cmpeq_epi32(one, one),
                    ),
                ),
                rounding::TRUNC => q,
                _ => _mm256_or_si256(q, _mm256_andnot_si256(exact, one)),
            };
            let sign = _mm256_and_si256(_mm256_srli_epi32::<16>(v), _mm256_set1_epi32(0x8000));
            let rare = _mm256_or_si256(
                _mm256_cmpgt_epi32(out, _mm256_set1_epi32(MAX_CODE as i32 - 1)),
                _mm256_cmpgt_epi32(_mm256_set1_epi32(MIN_NORMAL as i32), out),
            );
            Group {
                code: _mm256_or_si256(out, sign),
                out,
                exact,
                rare,
            }
        }

        /// A group with a rare lane: its codes, its special lanes (magnitude code beyond the
        /// largest finite) replaced by the policy's results and counted into `seen`, and what
        /// its finite lanes add to the counters (underflow, flush, saturation; the special
        /// lanes taken off the exact count).
        #[target_feature(enable = "avx2")]
        #[inline(never)]
        #[cold]
        fn rare(&self, v: __m256i, g: Group, seen: &mut SpecialCounts) -> (__m256i, Acc) {
            let a = _mm256_and_si256(v, _mm256_set1_epi32(0x7FFF_FFFF));
            let out = g.out;
            let special = _mm256_cmpgt_epi32(out, _mm256_set1_epi32(MAX_CODE as i32));
            let inexact_finite = _mm256_andnot_si256(
                _mm256_or_si256(g.exact, special),
                _mm256_cmpeq_epi32(out, out),
            );
            let small = _mm256_cmpgt_epi32(_mm256_set1_epi32(MIN_NORMAL as i32), out);
            let zero = _mm256_cmpeq_epi32(out, _mm256_setzero_si256());
            let saturated = _mm256_and_si256(
                _mm256_cmpeq_epi32(out, _mm256_set1_epi32(MAX_CODE as i32)),
                _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F7F_0000)),
            );
            // Masks (all ones = one lane counted); `exact` is subtracted by the caller.
            let delta = Acc {
                exact: _mm256_and_si256(g.exact, special),
                underflow: _mm256_and_si256(inexact_finite, small),
                flushed: _mm256_and_si256(inexact_finite, zero),
                saturated,
            };
            (
                blend::<16>(&self.specials, v, a, g.code, special, seen),
                delta,
            )
        }

        /// `acc` plus the counts of `d` (a [`Bf16::rare`] result).
        #[target_feature(enable = "avx2")]
        #[inline]
        fn apply(acc: &mut Acc, d: Acc) {
            acc.exact = _mm256_add_epi32(acc.exact, d.exact);
            acc.underflow = _mm256_sub_epi32(acc.underflow, d.underflow);
            acc.flushed = _mm256_sub_epi32(acc.flushed, d.flushed);
            acc.saturated = _mm256_sub_epi32(acc.saturated, d.saturated);
        }

        /// Two groups of 8 (`x` is 64 bytes of f32 codes) into 16 bf16 codes (`y`, 32 bytes).
        #[target_feature(enable = "avx2")]
        #[inline]
        fn step<const M: u8>(
            &self,
            x: &[u8; 64],
            y: &mut [u8; 32],
            acc: &mut Acc,
            seen: &mut SpecialCounts,
        ) {
            // SAFETY: `x` is 64 bytes, two unaligned 32-byte loads.
            let (v0, v1) = unsafe {
                (
                    _mm256_loadu_si256(x.as_ptr().cast()),
                    _mm256_loadu_si256(x.as_ptr().add(32).cast()),
                )
            };
            let g0 = Self::round::<M>(v0);
            let g1 = Self::round::<M>(v1);
            acc.exact = _mm256_sub_epi32(_mm256_sub_epi32(acc.exact, g0.exact), g1.exact);
            let rare = _mm256_or_si256(g0.rare, g1.rare);
            let (c0, c1) = if _mm256_testz_si256(rare, rare) == 0 {
                let (c0, d0) = self.rare(v0, g0, seen);
                let (c1, d1) = self.rare(v1, g1, seen);
                Self::apply(acc, d0);
                Self::apply(acc, d1);
                (c0, c1)
            } else {
                (g0.code, g1.code)
            };
            // packus interleaves the 128-bit halves; the permute restores the order.
            let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(c0, c1));
            // SAFETY: `y` is 32 bytes, the size of the unaligned store.
            unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), packed) };
        }

        /// [`Bf16::run`] in mode `M`: one pass, 16 elements per step, read from `src` and
        /// written to `dst` in place; the last `n % 16` through a zero-padded step.
        ///
        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        pub(super) unsafe fn run_mode<const M: u8>(
            &self,
            src: &[u8],
            dst: &mut [u8],
            n: usize,
        ) -> StatusCounts {
            let steps = n / 16;
            let mut totals = Totals::default();
            let mut seen = SpecialCounts::default();
            for (s_run, d_run) in src[..64 * steps]
                .chunks(64 * FLUSH)
                .zip(dst[..32 * steps].chunks_mut(32 * FLUSH))
            {
                let mut acc = Acc::zero();
                for (x, y) in s_run.chunks_exact(64).zip(d_run.chunks_exact_mut(32)) {
                    // (always 64 and 32 bytes)
                    if let (Ok(x), Ok(y)) = (x.try_into(), y.try_into()) {
                        self.step::<M>(x, y, &mut acc, &mut seen);
                    }
                }
                acc.add_to(&mut totals);
            }
            let rest = n % 16;
            if rest > 0 {
                // +0 in the padding lanes: exact, never special; taken off the exact count.
                let mut xs = [0u8; 64];
                xs[..4 * rest].copy_from_slice(&src[64 * steps..4 * n]);
                let mut ys = [0u8; 32];
                let mut acc = Acc::zero();
                self.step::<M>(&xs, &mut ys, &mut acc, &mut seen);
                dst[32 * steps..2 * n].copy_from_slice(&ys[..2 * rest]);
                acc.add_to(&mut totals);
                totals.exact = totals.exact.saturating_sub((16 - rest) as u64);
            }
            totals.into_counts(n, &seen, &self.specials)
        }
    }
}
