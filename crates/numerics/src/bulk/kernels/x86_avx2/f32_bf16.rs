//! f32 → bf16 at the AVX2 level, in every deterministic rounding mode and under every policy:
//! bf16 is the f32's top 16 bits, so rounding is integer arithmetic on the magnitude `a` of 8
//! lanes at a time (`q = a >> 16`, the rest `a & 0xFFFF`: nearest-even `(a + 0x7FFF +
//! (q & 1)) >> 16`, ties-away `(a + 0x8000) >> 16`, floor / ceil `q` plus one where inexact on
//! the matching sign, trunc `q`, odd `q | inexact`), 16 lanes packed to 16 bits per store.
//!
//! Inexact ⇔ the rest is not zero, counted in a vector accumulator on every step. A result
//! below the smallest normal (underflow, flush to zero) or at or beyond the largest finite
//! value (saturation; NaN, ±Inf and overflow, whose results the policy fixes, see
//! [`f32_half`](crate::bulk::kernels::x86_avx2::f32_half)) sends its step of 16 lanes through
//! the full rule, which counts those statuses and blends in the special results, still 8
//! lanes at a time, in the same pass: no block is cast twice. Tested bit for bit
//! against the reference like every kernel.

use crate::bulk::kernels::portable::f32_half::Bf16;
use crate::bulk::kernels::x86_avx2::f32_half::Totals;
use crate::bulk::kernels::x86_avx2::f32_half::run_in_mode;
use crate::status::StatusCounts;

/// Largest finite bf16 magnitude code.
const MAX_CODE: u32 = 0x7F7F;
/// Smallest normal bf16 magnitude code.
const MIN_NORMAL: u32 = 0x80;

/// Steps of 16 elements per block: how far the fast rule's exact counter runs before it is
/// added to the others.
const BLOCK_STEPS: usize = 32;

/// Blocks between two flushes of the 32-bit lane counters (each lane adds at most two per
/// step).
const FLUSH_BLOCKS: usize = 1 << 20;

impl Bf16 {
    /// Casts `n` little-endian f32 codes into bf16 codes; `None` when the machine lacks AVX2.
    /// `wide` takes the AVX-512 blocks ([`x86_avx512::f32_half`](crate::bulk::kernels::x86_avx512::f32_half))
    /// where the machine has them, and `stream` (a 64-byte aligned `dst`) their non-temporal
    /// stores.
    pub(crate) fn run(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        wide: bool,
        stream: bool,
    ) -> Option<StatusCounts> {
        if crate::bulk::kernels::simd::avx2_present() {
            if wide && crate::bulk::kernels::simd::avx512_present() {
                crate::bulk::kernels::plan::ran("f32-bf16-avx512");
                // SAFETY: the CPU has AVX2 and AVX-512 F, BW, VL and DQ (checked).
                return Some(unsafe {
                    crate::bulk::kernels::x86_avx512::f32_half::bf16_wide(
                        self,
                        (MAX_CODE, MIN_NORMAL),
                        src,
                        dst,
                        n,
                        stream,
                    )
                });
            }
            crate::bulk::kernels::plan::ran("f32-bf16");
            // SAFETY: the CPU has AVX2 (checked just above).
            return Some(unsafe { run_in_mode::<_, false>(self, self.mode, src, dst, n, false) });
        }
        let _ = (src, dst, n);
        None
    }
}

impl crate::bulk::kernels::x86_avx2::f32_half::ModeLoop for Bf16 {
    unsafe fn run_mode<const M: u8, const WIDE: bool>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        // SAFETY: the caller's guarantee, passed on.
        unsafe { self.run_mode_impl::<M, WIDE>(src, dst, n, stream) }
    }
}

mod simd {
    use super::{BLOCK_STEPS, Bf16, FLUSH_BLOCKS, MAX_CODE, MIN_NORMAL, Totals};
    use crate::bulk::kernels::x86_avx2::f32_half::{Acc, blend, blend_nan_inf, rounding};
    use crate::status::StatusCounts;
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi32, _mm256_and_si256, _mm256_andnot_si256, _mm256_cmpeq_epi32,
        _mm256_cmpgt_epi32, _mm256_loadu_si256, _mm256_or_si256, _mm256_packus_epi32,
        _mm256_permute4x64_epi64, _mm256_set1_epi32, _mm256_setzero_si256, _mm256_srai_epi32,
        _mm256_srli_epi32, _mm256_storeu_si256, _mm256_sub_epi32, _mm256_testz_si256,
    };

    /// One rounded group of 8.
    #[derive(Clone, Copy)]
    struct Group {
        /// The f32 magnitudes.
        a: __m256i,
        /// The bf16 codes in 32-bit lanes.
        code: __m256i,
        /// Lanes whose f32 value is a bf16 value (all ones there).
        exact: __m256i,
    }

    /// 16 codes in 32-bit lanes packed to 16 bits and stored into `y`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn store(y: &mut [u8; 32], c0: __m256i, c1: __m256i) {
        // packus interleaves the 128-bit halves; the permute restores the order.
        let packed = _mm256_permute4x64_epi64::<0b11_01_10_00>(_mm256_packus_epi32(c0, c1));
        // SAFETY: `y` is 32 bytes, the size of the unaligned store.
        unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), packed) };
    }

    /// The two groups of 8 f32 codes in `x`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn load(x: &[u8; 64]) -> (__m256i, __m256i) {
        // SAFETY: `x` is 64 bytes, two unaligned 32-byte loads.
        unsafe {
            (
                _mm256_loadu_si256(x.as_ptr().cast()),
                _mm256_loadu_si256(x.as_ptr().add(32).cast()),
            )
        }
    }

    /// The blocks of `src` (f32 codes) and `dst` (bf16 codes), [`BLOCK_STEPS`] steps of 16
    /// elements each (the last one possibly shorter), as arrays.
    fn steps<'a>(
        src: &'a [u8],
        dst: &'a mut [u8],
    ) -> impl Iterator<Item = (&'a [u8; 64], &'a mut [u8; 32])> {
        src.chunks_exact(64)
            .zip(dst.chunks_exact_mut(32))
            .filter_map(|(x, y)| Some((x.try_into().ok()?, y.try_into().ok()?)))
    }

    impl Bf16 {
        /// The f32 codes `v` rounded to bf16 in mode `M`. The rounding works on the whole
        /// code, sign included: a carry out of the magnitude reaches the sign bit only from a
        /// NaN, which the policy replaces anyway.
        #[target_feature(enable = "avx2")]
        #[inline]
        fn round<const M: u8>(v: __m256i) -> Group {
            let one = _mm256_set1_epi32(1);
            let a = _mm256_and_si256(v, _mm256_set1_epi32(0x7FFF_FFFF));
            let q = _mm256_srli_epi32::<16>(v);
            let exact = _mm256_cmpeq_epi32(
                _mm256_and_si256(v, _mm256_set1_epi32(0xFFFF)),
                _mm256_setzero_si256(),
            );
            let code = match M {
                rounding::NEAREST_EVEN => _mm256_srli_epi32::<16>(_mm256_add_epi32(
                    _mm256_add_epi32(v, _mm256_set1_epi32(0x7FFF)),
                    _mm256_and_si256(q, one),
                )),
                rounding::NEAREST_AWAY => {
                    _mm256_srli_epi32::<16>(_mm256_add_epi32(v, _mm256_set1_epi32(0x8000)))
                }
                // The magnitude goes up (minus an all-ones mask) where inexact and negative ...
                rounding::FLOOR => {
                    _mm256_sub_epi32(q, _mm256_andnot_si256(exact, _mm256_srai_epi32::<31>(v)))
                }
                // ... or inexact and positive.
                rounding::CEIL => _mm256_sub_epi32(
                    q,
                    _mm256_andnot_si256(
                        _mm256_or_si256(exact, _mm256_srai_epi32::<31>(v)),
                        _mm256_cmpeq_epi32(one, one),
                    ),
                ),
                rounding::TRUNC => q,
                _ => _mm256_or_si256(q, _mm256_andnot_si256(exact, one)),
            };
            Group { a, code, exact }
        }

        /// The codes of group `g` (f32 codes `v`) with every status counted: exactness,
        /// underflow, flush and saturation of the finite lanes into `acc`; the special lanes
        /// (magnitude code beyond the largest finite) replaced by the policy's results and
        /// counted into `seen`.
        #[target_feature(enable = "avx2")]
        #[inline]
        fn full(&self, v: __m256i, g: Group, acc: &mut Acc) -> __m256i {
            let out = _mm256_and_si256(g.code, _mm256_set1_epi32(0x7FFF));
            // Beyond the largest finite after rounding, or NaN (whose rounding may carry).
            let special = _mm256_or_si256(
                _mm256_cmpgt_epi32(out, _mm256_set1_epi32(MAX_CODE as i32)),
                _mm256_cmpgt_epi32(g.a, _mm256_set1_epi32(0x7F80_0000)),
            );
            let inexact_finite = _mm256_andnot_si256(
                _mm256_or_si256(g.exact, special),
                _mm256_cmpeq_epi32(out, out),
            );
            let small = _mm256_cmpgt_epi32(_mm256_set1_epi32(MIN_NORMAL as i32), out);
            let zero = _mm256_cmpeq_epi32(out, _mm256_setzero_si256());
            let saturated = _mm256_and_si256(
                _mm256_cmpeq_epi32(out, _mm256_set1_epi32(MAX_CODE as i32)),
                _mm256_cmpgt_epi32(g.a, _mm256_set1_epi32(0x7F7F_0000)),
            );
            acc.exact = _mm256_sub_epi32(acc.exact, _mm256_andnot_si256(special, g.exact));
            acc.underflow =
                _mm256_sub_epi32(acc.underflow, _mm256_and_si256(inexact_finite, small));
            acc.flushed = _mm256_sub_epi32(acc.flushed, _mm256_and_si256(inexact_finite, zero));
            acc.saturated = _mm256_sub_epi32(acc.saturated, saturated);
            blend::<16>(&self.specials, v, g.a, g.code, special, acc)
        }

        /// 16 elements with every status counted (see [`Bf16::full`]).
        #[target_feature(enable = "avx2")]
        #[inline]
        fn full_step<const M: u8>(&self, x: &[u8; 64], y: &mut [u8; 32], acc: &mut Acc) {
            let (v0, v1) = load(x);
            let c0 = self.full(v0, Self::round::<M>(v0), acc);
            let c1 = self.full(v1, Self::round::<M>(v1), acc);
            store(y, c0, c1);
        }

        /// One block, 16 elements per step: the codes, their counts added to `acc`. A step
        /// whose lanes are all ±0 or normal f32 magnitudes below those from which a mode can
        /// round to the largest finite bf16 counts its exact lanes only; a step with any other
        /// lane (a superset of the lanes that underflow, saturate or are special) is cast by
        /// [`Bf16::full`], which blends in the policy's special results on the lanes that need
        /// them.
        #[target_feature(enable = "avx2")]
        #[inline]
        fn block<const M: u8>(&self, src: &[u8], dst: &mut [u8], acc: &mut Acc) {
            let mut exact = _mm256_setzero_si256();
            // `a + 0x7FFF_FFFF` is below this (signed) exactly for nonzero f32 subnormals
            let low_below = _mm256_set1_epi32(0x807F_FFFF_u32 as i32);
            let high_above = _mm256_set1_epi32(0x7F7E_0000);
            let rare = |g: &Group| {
                _mm256_or_si256(
                    _mm256_cmpgt_epi32(
                        low_below,
                        _mm256_add_epi32(g.a, _mm256_set1_epi32(0x7FFF_FFFF)),
                    ),
                    _mm256_cmpgt_epi32(g.a, high_above),
                )
            };
            for (x, y) in steps(src, dst) {
                let (v0, v1) = load(x);
                let g0 = Self::round::<M>(v0);
                let g1 = Self::round::<M>(v1);
                let (r0, r1) = (rare(&g0), rare(&g1));
                let r = _mm256_or_si256(r0, r1);
                if _mm256_testz_si256(r, r) != 0 {
                    exact = _mm256_sub_epi32(_mm256_sub_epi32(exact, g0.exact), g1.exact);
                    store(y, g0.code, g1.code);
                    continue;
                }
                // NaN or ±Inf lanes (an exponent field of all ones)
                let sp0 = _mm256_cmpgt_epi32(g0.a, _mm256_set1_epi32(0x7F7F_FFFF));
                let sp1 = _mm256_cmpgt_epi32(g1.a, _mm256_set1_epi32(0x7F7F_FFFF));
                let other =
                    _mm256_or_si256(_mm256_andnot_si256(sp0, r0), _mm256_andnot_si256(sp1, r1));
                if _mm256_testz_si256(other, other) != 0 {
                    // only NaN or ±Inf lanes are rare: the fast count of the others, the
                    // policy's results blended in on those
                    exact = _mm256_sub_epi32(
                        _mm256_sub_epi32(exact, _mm256_andnot_si256(sp0, g0.exact)),
                        _mm256_andnot_si256(sp1, g1.exact),
                    );
                    let c0 = blend_nan_inf::<16>(&self.specials, v0, g0.a, g0.code, sp0, acc);
                    let c1 = blend_nan_inf::<16>(&self.specials, v1, g1.a, g1.code, sp1, acc);
                    store(y, c0, c1);
                } else {
                    let c0 = self.full(v0, g0, acc);
                    let c1 = self.full(v1, g1, acc);
                    store(y, c0, c1);
                }
            }
            acc.exact = _mm256_add_epi32(acc.exact, exact);
        }

        /// [`Bf16::run`] in mode `M`: one pass over blocks of [`BLOCK_STEPS`] × 16 elements,
        /// read from `src` and written to `dst` in place ([`Bf16::block`]); the last `n % 16`
        /// through a zero-padded step.
        ///
        /// `WIDE` and `stream` are not used: the AVX-512 level runs its own loop
        /// ([`x86_avx512::f32_half::bf16_wide`](crate::bulk::kernels::x86_avx512::f32_half::bf16_wide)),
        /// which hands this one its last `n % 16` elements.
        ///
        /// # Safety
        /// The CPU must support AVX2.
        #[target_feature(enable = "avx2")]
        pub(super) unsafe fn run_mode_impl<const M: u8, const WIDE: bool>(
            &self,
            src: &[u8],
            dst: &mut [u8],
            n: usize,
            stream: bool,
        ) -> StatusCounts {
            let _ = stream;
            let steps16 = n / 16;
            let mut totals = Totals::default();
            let block_src = 64 * BLOCK_STEPS;
            let block_dst = 32 * BLOCK_STEPS;
            for (s_run, d_run) in src[..64 * steps16]
                .chunks(block_src * FLUSH_BLOCKS)
                .zip(dst[..32 * steps16].chunks_mut(block_dst * FLUSH_BLOCKS))
            {
                let mut acc = Acc::zero();
                for (xs, ys) in s_run.chunks(block_src).zip(d_run.chunks_mut(block_dst)) {
                    self.block::<M>(xs, ys, &mut acc);
                }
                acc.add_to(&mut totals);
            }
            let rest = n % 16;
            if rest > 0 {
                // +0 in the padding lanes: exact, never special; taken off the exact count.
                let mut xs = [0u8; 64];
                xs[..4 * rest].copy_from_slice(&src[64 * steps16..4 * n]);
                let mut ys = [0u8; 32];
                let mut acc = Acc::zero();
                self.full_step::<M>(&xs, &mut ys, &mut acc);
                dst[32 * steps16..2 * n].copy_from_slice(&ys[..2 * rest]);
                acc.add_to(&mut totals);
                totals.exact = totals.exact.saturating_sub((16 - rest) as u64);
            }
            totals.into_counts(n, &self.specials)
        }
    }
}
