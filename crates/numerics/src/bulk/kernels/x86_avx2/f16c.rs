//! f32 → f16 at the AVX2 + F16C level, in every deterministic rounding mode and under every
//! policy: `vcvtps2ph` rounds 8 lanes per instruction (its immediate gives nearest-even,
//! floor, ceil and trunc; ties-away truncates the magnitude plus half an f16 ulp added on the
//! f32 bits; odd sets the truncation's last bit where its exact round trip `vcvtph2ps`
//! differs). The statuses of the finite lanes come from the f32 code, the f16 code and the
//! round trip, counted in the same pass in vector accumulators. A group of 8 with a lane beyond
//! the largest finite f16 is cast by the full rule instead, which blends in what the policy
//! makes of NaN, ±Inf and overflow ([`f32_half`](crate::bulk::kernels::x86_avx2::f32_half))
//! and counts saturation: per group, in the same pass (no block is cast twice), and nothing
//! element by element. Tested bit for bit against the
//! reference like every kernel.

use crate::bulk::kernels::portable::f32_half::{F16c, MAX_F32};
use crate::bulk::kernels::x86_avx2::f32_half::Totals;
use crate::bulk::kernels::x86_avx2::f32_half::run_in_mode;
use crate::status::StatusCounts;

/// Groups of 8 per block: how far the fast rule's 16-bit lane counters run before they are
/// added to the 32-bit ones.
const BLOCK_GROUPS: usize = 64;

/// Blocks between two flushes of the 32-bit lane counters (each lane adds at most one per
/// group).
const FLUSH_BLOCKS: usize = 1 << 20;

impl F16c {
    /// Casts `n` little-endian f32 codes into f16 codes; `None` when the machine lacks AVX2 or
    /// F16C.
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
                crate::bulk::kernels::plan::ran("f16c-avx512");
                // SAFETY: the CPU has AVX2 and F16C and AVX-512 F, BW, VL and DQ (checked).
                return Some(unsafe {
                    crate::bulk::kernels::x86_avx512::f32_half::f16_wide(self, src, dst, n, stream)
                });
            }
            crate::bulk::kernels::plan::ran("f16c");
            // SAFETY: the CPU has AVX2 and F16C (checked just above).
            return Some(unsafe { run_in_mode::<_, false>(self, self.mode, src, dst, n, false) });
        }
        let _ = (src, dst, n);
        None
    }
}

impl crate::bulk::kernels::x86_avx2::f32_half::ModeLoop for F16c {
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
    use super::{BLOCK_GROUPS, F16c, FLUSH_BLOCKS, MAX_F32, Totals};
    use crate::bulk::kernels::x86_avx2::f32_half::{Acc, blend, blend_nan_inf, rounding};
    use crate::status::StatusCounts;
    use std::arch::x86_64::{
        __m128i, __m256i, _mm_and_si128, _mm_andnot_si128, _mm_cmpeq_epi16, _mm_cmpgt_epi16,
        _mm_or_si128, _mm_packs_epi32, _mm_packus_epi32, _mm_set1_epi16, _mm_setzero_si128,
        _mm_srai_epi16, _mm_storeu_si128, _mm_sub_epi16, _mm_testz_si128, _mm256_add_epi32,
        _mm256_and_si256, _mm256_andnot_si256, _mm256_blendv_ps, _mm256_castps_si256,
        _mm256_castsi256_ps, _mm256_castsi256_si128, _mm256_cmpeq_epi32, _mm256_cmpgt_epi32,
        _mm256_cvtepu16_epi32, _mm256_cvtph_ps, _mm256_cvtps_ph, _mm256_extracti128_si256,
        _mm256_loadu_si256, _mm256_min_epi32, _mm256_or_si256, _mm256_set1_epi32,
        _mm256_setzero_si256, _mm256_srli_epi32, _mm256_srlv_epi32, _mm256_sub_epi32,
        _mm256_xor_si256,
    };

    /// The fast rule's per-lane counters over one block (at most [`BLOCK_GROUPS`] each).
    #[derive(Clone, Copy)]
    struct Acc16 {
        exact: __m128i,
        underflow: __m128i,
        flushed: __m128i,
        /// ±Inf lanes of groups whose other lanes are all finite and in range, by sign.
        inf: [__m128i; 2],
    }

    /// The 32-bit lane masks of `m` narrowed to 16-bit lanes.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn narrow(m: __m256i) -> __m128i {
        _mm_packs_epi32(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m))
    }

    impl F16c {
        /// The f16 codes of the f32 codes `v` in mode `M`, the f32 value of a code whose
        /// round trip equals `v` exactly when `v` is an f16 value, and the codes whose
        /// magnitude decides underflow (for odd the truncation, a shorter dependency chain:
        /// setting the last bit never moves a code across 0x400; else the codes themselves).
        #[target_feature(enable = "avx2,f16c")]
        #[inline]
        fn round<const M: u8>(v: __m256i, a: __m256i) -> (__m128i, __m256i, __m128i) {
            let x = _mm256_castsi256_ps(v);
            let back = |h: __m128i| _mm256_castps_si256(_mm256_cvtph_ps(h));
            match M {
                rounding::NEAREST_EVEN => {
                    let h = _mm256_cvtps_ph::<0>(x);
                    (h, back(h), h)
                }
                rounding::FLOOR => {
                    let h = _mm256_cvtps_ph::<1>(x);
                    (h, back(h), h)
                }
                rounding::CEIL => {
                    let h = _mm256_cvtps_ph::<2>(x);
                    (h, back(h), h)
                }
                rounding::TRUNC => {
                    let h = _mm256_cvtps_ph::<3>(x);
                    (h, back(h), h)
                }
                rounding::ODD => {
                    // The truncation, its last bit set where it is inexact.
                    let t = _mm256_cvtps_ph::<3>(x);
                    let bt = back(t);
                    let exact = narrow(_mm256_cmpeq_epi32(bt, v));
                    (
                        _mm_or_si128(t, _mm_andnot_si128(exact, _mm_set1_epi16(1))),
                        bt,
                        t,
                    )
                }
                _ => {
                    // Ties away: truncate |x| + half an f16 ulp, the addition done on the f32
                    // bits. Half an ulp of x's f32 binade e, in f32 ulps, is 2^12 for f16
                    // normals (e >= 113), 2^(125 - e) for f16 subnormals (e in 102..=112) and
                    // 0 below 2^-25 (an out-of-range `srlv` count gives 0). A carry across a
                    // binade stops at a power of two, an f16 value: the comparison with the
                    // next f16 value stays exact. NaN is clamped to Inf first so that the sum
                    // cannot reach the sign bit (and stays NaN for the special lanes' check).
                    let e = _mm256_srli_epi32::<23>(a);
                    let d = _mm256_min_epi32(
                        _mm256_sub_epi32(e, _mm256_set1_epi32(102)),
                        _mm256_set1_epi32(11),
                    );
                    let half = _mm256_srlv_epi32(_mm256_set1_epi32(0x80_0000), d);
                    let lifted =
                        _mm256_add_epi32(_mm256_min_epi32(a, _mm256_set1_epi32(0x7F80_0000)), half);
                    let sign = _mm256_xor_si256(v, a);
                    let h =
                        _mm256_cvtps_ph::<3>(_mm256_castsi256_ps(_mm256_or_si256(lifted, sign)));
                    (h, back(h), h)
                }
            }
        }

        /// The fast rule's counts of one group of 8 (exact lanes `exact`, magnitude codes
        /// `m`): exactness, underflow and flush counted into `acc` (16-bit lanes, one per
        /// element).
        #[target_feature(enable = "avx2,f16c")]
        #[inline]
        fn count<const M: u8>(exact: __m128i, m: __m128i, acc: &mut Acc16) {
            // Underflow and flush: inexact with a subnormal or zero result (never zero in odd:
            // an inexact result has its last bit set).
            let small = _mm_cmpgt_epi16(_mm_set1_epi16(0x400), m);
            acc.exact = _mm_sub_epi16(acc.exact, exact);
            acc.underflow = _mm_sub_epi16(acc.underflow, _mm_andnot_si128(exact, small));
            if M != rounding::ODD {
                let zero = _mm_cmpeq_epi16(m, _mm_setzero_si128());
                acc.flushed = _mm_sub_epi16(acc.flushed, _mm_andnot_si128(exact, zero));
            }
        }

        /// One group of 8 with every status counted: as [`F16c::count`], and the lanes
        /// beyond the largest finite f16 sorted out: overflow by the mode's threshold for the
        /// lane's sign, the special lanes replaced by the policy's results and counted into
        /// `acc` (and taken off the exact count), the others saturated.
        #[target_feature(enable = "avx2,f16c")]
        #[inline]
        fn full<const M: u8>(&self, v: __m256i, acc: &mut Acc) -> __m128i {
            let a = _mm256_and_si256(v, _mm256_set1_epi32(0x7FFF_FFFF));
            let (h, back, _) = Self::round::<M>(v, a);
            let exact = _mm256_cmpeq_epi32(back, v);
            let code = _mm256_cvtepu16_epi32(h);
            let m = _mm256_and_si256(code, _mm256_set1_epi32(0x7FFF));
            let small = _mm256_cmpgt_epi32(_mm256_set1_epi32(0x400), m);
            let zero = _mm256_cmpeq_epi32(m, _mm256_setzero_si256());
            let above = _mm256_castps_si256(_mm256_blendv_ps(
                _mm256_castsi256_ps(_mm256_set1_epi32(self.overflow_above[0] as i32)),
                _mm256_castsi256_ps(_mm256_set1_epi32(self.overflow_above[1] as i32)),
                _mm256_castsi256_ps(v),
            ));
            let special = _mm256_cmpgt_epi32(a, above);
            let beyond = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(MAX_F32 as i32));
            // (special lanes are never small: their f16 magnitude is at least 0x7BFF)
            acc.exact = _mm256_sub_epi32(acc.exact, _mm256_andnot_si256(special, exact));
            acc.underflow = _mm256_sub_epi32(acc.underflow, _mm256_andnot_si256(exact, small));
            acc.flushed = _mm256_sub_epi32(acc.flushed, _mm256_andnot_si256(exact, zero));
            acc.saturated = _mm256_sub_epi32(acc.saturated, _mm256_andnot_si256(special, beyond));
            let code = blend::<13>(&self.specials, v, a, code, special, acc);
            _mm_packus_epi32(
                _mm256_castsi256_si128(code),
                _mm256_extracti128_si256::<1>(code),
            )
        }

        /// One block, 8 elements per group: the codes, their counts added to `acc`. A group
        /// whose codes stay below the largest finite f16 (for odd, whose check is on the
        /// truncation, one code lower) takes the fast rule's counts ([`F16c::count`]); a
        /// group with a lane at or beyond it (NaN, Inf, overflow or saturation, or an exact
        /// ±65504) is cast by [`F16c::full`], which blends in the policy's special results
        /// on the lanes that need them.
        #[target_feature(enable = "avx2,f16c")]
        #[inline]
        fn block<const M: u8>(&self, src: &[u8], dst: &mut [u8], full: &mut Acc) {
            let z = _mm_setzero_si128();
            let mut acc = Acc16 {
                exact: z,
                underflow: z,
                flushed: z,
                inf: [z; 2],
            };
            let below = _mm_set1_epi16(if M == rounding::ODD { 0x7BFD } else { 0x7BFE });
            // whether the policy's ±Inf codes are the rounded ones (±Inf kept as ±Inf)
            let inf_kept = self.specials.inf[0].0 == 0x7C00 && self.specials.inf[1].0 == 0xFC00;
            let inf_code = _mm_set1_epi16(0x7C00);
            for (x, y) in src.chunks_exact(32).zip(dst.chunks_exact_mut(16)) {
                // SAFETY: `x` is 32 bytes, the size of the unaligned load.
                let v = unsafe { _mm256_loadu_si256(x.as_ptr().cast()) };
                let a = _mm256_and_si256(v, _mm256_set1_epi32(0x7FFF_FFFF));
                let (h, back, base) = Self::round::<M>(v, a);
                let m = _mm_and_si128(base, _mm_set1_epi16(0x7FFF));
                // (magnitude codes are at most 0x7FFF: a signed compare)
                let rare = _mm_cmpgt_epi16(m, below);
                let exact = narrow(_mm256_cmpeq_epi32(back, v));
                // ±Inf lanes, told on the 16-bit codes: the Inf code with an exact round trip
                // (a finite lane rounded to Inf is inexact; in odd mode, whose `m` is the
                // truncation, no finite lane reaches the Inf code)
                let inf = _mm_and_si128(_mm_cmpeq_epi16(m, inf_code), exact);
                let other = _mm_andnot_si128(inf, rare);
                let h = if _mm_testz_si128(rare, rare) != 0 {
                    Self::count::<M>(exact, m, &mut acc);
                    h
                } else if inf_kept && _mm_testz_si128(other, other) != 0 {
                    // every rare lane is ±Inf and keeps its rounded code: the group's codes
                    // stand, those lanes are counted by sign (an attention mask's −∞)
                    Self::count::<M>(_mm_andnot_si128(inf, exact), m, &mut acc);
                    let neg = _mm_srai_epi16::<15>(h);
                    acc.inf[0] = _mm_sub_epi16(acc.inf[0], _mm_andnot_si128(neg, inf));
                    acc.inf[1] = _mm_sub_epi16(acc.inf[1], _mm_and_si128(neg, inf));
                    h
                } else {
                    // NaN or ±Inf lanes (an exponent field of all ones)
                    let sp = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7F7F_FFFF));
                    let other = _mm_andnot_si128(narrow(sp), rare);
                    if _mm_testz_si128(other, other) != 0 {
                        // only NaN or ±Inf lanes are rare: the fast counts of the others
                        // (those lanes are neither small nor zero), the policy's results
                        // blended in on those
                        let exact = _mm256_andnot_si256(sp, _mm256_cmpeq_epi32(back, v));
                        Self::count::<M>(narrow(exact), m, &mut acc);
                        let code = blend_nan_inf::<13>(
                            &self.specials,
                            v,
                            a,
                            _mm256_cvtepu16_epi32(h),
                            sp,
                            full,
                        );
                        _mm_packus_epi32(
                            _mm256_castsi256_si128(code),
                            _mm256_extracti128_si256::<1>(code),
                        )
                    } else {
                        self.full::<M>(v, full)
                    }
                };
                // SAFETY: `y` is 16 bytes, the size of the unaligned store.
                unsafe { _mm_storeu_si128(y.as_mut_ptr().cast(), h) };
            }
            full.exact = _mm256_add_epi32(full.exact, _mm256_cvtepu16_epi32(acc.exact));
            full.underflow = _mm256_add_epi32(full.underflow, _mm256_cvtepu16_epi32(acc.underflow));
            full.flushed = _mm256_add_epi32(full.flushed, _mm256_cvtepu16_epi32(acc.flushed));
            for (lanes, counted) in full.special[1].iter_mut().zip(acc.inf) {
                *lanes = _mm256_add_epi32(*lanes, _mm256_cvtepu16_epi32(counted));
            }
        }

        /// [`F16c::run`] in mode `M`: one pass over blocks of [`BLOCK_GROUPS`] × 8 elements,
        /// read from `src` and written to `dst` in place ([`F16c::block`]); the last `n % 8`
        /// through a zero-padded group.
        ///
        /// `WIDE` and `stream` are not used: the AVX-512 level runs its own loop
        /// ([`x86_avx512::f32_half::f16_wide`](crate::bulk::kernels::x86_avx512::f32_half::f16_wide)),
        /// which hands this one its last `n % 16` elements.
        ///
        /// # Safety
        /// The CPU must support AVX2 and F16C.
        #[target_feature(enable = "avx2,f16c")]
        pub(super) unsafe fn run_mode_impl<const M: u8, const WIDE: bool>(
            &self,
            src: &[u8],
            dst: &mut [u8],
            n: usize,
            stream: bool,
        ) -> StatusCounts {
            let _ = stream;
            let groups = n / 8;
            let mut totals = Totals::default();
            let block_src = 32 * BLOCK_GROUPS;
            let block_dst = 16 * BLOCK_GROUPS;
            for (s_run, d_run) in src[..32 * groups]
                .chunks(block_src * FLUSH_BLOCKS)
                .zip(dst[..16 * groups].chunks_mut(block_dst * FLUSH_BLOCKS))
            {
                let mut acc = Acc::zero();
                for (xs, ys) in s_run.chunks(block_src).zip(d_run.chunks_mut(block_dst)) {
                    self.block::<M>(xs, ys, &mut acc);
                }
                acc.add_to(&mut totals);
            }
            let rest = n % 8;
            if rest > 0 {
                // +0 in the padding lanes: exact, never special; taken off the exact count.
                let mut xs = [0u8; 32];
                xs[..4 * rest].copy_from_slice(&src[32 * groups..4 * n]);
                let mut acc = Acc::zero();
                // SAFETY: `xs` is 32 bytes, the size of the unaligned load.
                let v = unsafe { _mm256_loadu_si256(xs.as_ptr().cast()) };
                let h = self.full::<M>(v, &mut acc);
                let mut hs = [0u8; 16];
                // SAFETY: `hs` is 16 bytes, the size of the unaligned store.
                unsafe { _mm_storeu_si128(hs.as_mut_ptr().cast(), h) };
                dst[16 * groups..2 * n].copy_from_slice(&hs[..2 * rest]);
                acc.add_to(&mut totals);
                totals.exact = totals.exact.saturating_sub((8 - rest) as u64);
            }
            totals.into_counts(n, &self.specials)
        }
    }
}
