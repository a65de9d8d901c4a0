//! The f32 → f16 ([`crate::bulk::kernels::x86_avx2::f16c`]) and f32 → bf16
//! ([`crate::bulk::kernels::x86_avx2::f32_bf16`]) kernels at the AVX-512 level, over a whole
//! slice ([`f16_wide`], [`bf16_wide`]): the same rounding and statuses as their AVX2 loops, 16
//! lanes per step, statuses from compare masks counted by masked adds, the counters folded
//! once per block of 128 steps. Four steps at a time are converted and sorted
//! by their codes: the fast rule, ±Inf alone, the fast rule with NaN and ±Inf lanes counted and
//! given the policy's codes by masks; anything else pair by pair and, for a pair with another
//! rare lane (a finite overflow, saturation, and for bf16 f32 subnormals), the full rule per
//! step: nothing is cast twice. Measurements are in `docs/kernels.md`.

pub(crate) use simd::{bf16_wide, f16_wide};

mod simd {
    use crate::bulk::kernels::portable::f32_half::{Bf16, F16c, MAX_F32};
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx2::f32_half::{
        Acc, Fixed, ModeLoop, SpecialResults, Totals, rounding, run_in_mode,
    };
    use crate::bulk::kernels::x86_avx512::store::store64;
    use crate::status::StatusCounts;
    use std::arch::x86_64::*;

    /// `x` in every 32-bit lane.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn set(x: u32) -> __m512i {
        _mm512_set1_epi32(x as i32)
    }

    /// Stores the 32 bytes `v` at `y`: non-temporally with `stream`, else unaligned.
    ///
    /// # Safety
    /// `y` must hold at least 32 bytes, and start on a 32-byte boundary with `stream`.
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn store(y: &mut [u8], v: __m256i, stream: bool) {
        // SAFETY: the caller's guarantee.
        unsafe {
            if stream {
                _mm256_stream_si256(y.as_mut_ptr().cast(), v)
            } else {
                _mm256_storeu_si256(y.as_mut_ptr().cast(), v)
            }
        }
    }

    /// The eight 32-bit lanes of `z`'s two halves added: an AVX2 counter vector.
    #[target_feature(enable = "avx2,avx512f")]
    #[inline]
    fn fold(z: __m512i) -> __m256i {
        _mm256_add_epi32(_mm512_castsi512_si256(z), _mm512_extracti64x4_epi64::<1>(z))
    }

    /// Per-lane counters of a block (16 lanes of 32 bits): the finite lanes' statuses, the
    /// special lanes by class (NaN, Inf, overflow) and sign (`[+, −]`), and the NaN or ±Inf
    /// lanes of steps without other rare lanes in one byte each (NaN or Inf positive,
    /// negative; NaN positive, negative: at most one a step, so a block of at most 255 steps
    /// cannot carry out of a byte).
    #[derive(Clone, Copy)]
    struct Acc512 {
        exact: __m512i,
        underflow: __m512i,
        flushed: __m512i,
        saturated: __m512i,
        special: [[__m512i; 2]; 3],
        nan_inf: __m512i,
        /// The NaN or ±Inf lanes of four-step groups taken by the special rule, counted on
        /// their 16-bit codes (32 lanes of 16 bits, a byte each for positive and negative: at
        /// most two a group and lane, so a block of at most 127 groups cannot carry out of a
        /// byte) ...
        special16: __m512i,
        /// ... and the NaN lanes among them, likewise.
        nan16: __m512i,
        /// Exact lanes counted on 32 16-bit codes at once (32 lanes of 16 bits, at most two a
        /// group and lane: 64 a block), added to `exact` once per block.
        exact16: __m512i,
    }

    impl Acc512 {
        #[target_feature(enable = "avx512f")]
        #[inline]
        fn zero() -> Acc512 {
            let z = _mm512_setzero_si512();
            Acc512 {
                exact: z,
                underflow: z,
                flushed: z,
                saturated: z,
                special: [[z; 2]; 3],
                nan_inf: z,
                special16: z,
                nan16: z,
                exact16: z,
            }
        }

        /// Counts the exact lanes `e` of 32 16-bit codes (`inc`: 1 in every 16-bit lane).
        #[target_feature(enable = "avx512f,avx512bw")]
        #[inline]
        fn exact32(&mut self, e: __mmask32, inc: __m512i) {
            self.exact16 = _mm512_mask_add_epi16(self.exact16, e, self.exact16, inc);
        }

        /// Counts the NaN or ±Inf lanes `s` of 32 16-bit codes `code` (of which `nan` are
        /// NaN) by sign, the code's sign bit, in the 16-bit byte counters: `inc` is 1 in every
        /// 16-bit lane and `inc_neg` 0x100 (hidden from the optimiser, see `f16_steps`).
        #[target_feature(enable = "avx512f,avx512bw")]
        #[inline]
        fn specials16(
            &mut self,
            code: __m512i,
            s: __mmask32,
            nan: __mmask32,
            (inc, inc_neg): (__m512i, __m512i),
        ) {
            let inc = _mm512_mask_mov_epi16(inc, _mm512_movepi16_mask(code), inc_neg);
            self.special16 = _mm512_mask_add_epi16(self.special16, s, self.special16, inc);
            self.nan16 = _mm512_mask_add_epi16(self.nan16, nan, self.nan16, inc);
        }

        /// Whether the block counted a NaN or ±Inf lane so far (by any rule).
        #[target_feature(enable = "avx512f")]
        #[inline]
        fn saw_special(&self) -> bool {
            let any = _mm512_or_si512(self.nan_inf, self.special16);
            _mm512_test_epi32_mask(any, any) != 0
        }

        /// Counts the NaN or ±Inf lanes `sp` of a step, of which `nan` are NaN, by sign (`neg`:
        /// the negative lanes) in the byte counters.
        #[target_feature(enable = "avx512f")]
        #[inline]
        fn nan_inf(&mut self, sp: __mmask16, nan: __mmask16, neg: __mmask16) {
            let inc = _mm512_mask_mov_epi32(set(1), neg, set(0x100));
            self.nan_inf = _mm512_mask_add_epi32(self.nan_inf, sp, self.nan_inf, inc);
            self.nan_inf = _mm512_mask_add_epi32(
                self.nan_inf,
                nan,
                self.nan_inf,
                _mm512_slli_epi32::<16>(inc),
            );
        }

        /// The byte counters of NaN and ±Inf lanes added to the 32-bit ones by class and
        /// sign, and cleared: once per block of at most 255 steps, so that no byte carries.
        #[target_feature(enable = "avx2,avx512f,avx512bw")]
        #[inline]
        fn settle(&mut self) {
            // the two 16-bit halves of each 32-bit lane added
            let e = self.exact16;
            self.exact = _mm512_add_epi32(
                self.exact,
                _mm512_add_epi32(_mm512_and_si512(e, set(0xFFFF)), _mm512_srli_epi32::<16>(e)),
            );
            self.exact16 = _mm512_setzero_si512();
            if _mm512_test_epi32_mask(self.special16, self.special16) != 0 {
                // a byte a sign in each 16-bit lane; the two 16-bit halves of a 32-bit lane
                // added (at most 2 * 64 a byte)
                let bytes = |x: __m512i| {
                    let pair = |y: __m512i| {
                        _mm512_add_epi32(
                            _mm512_and_si512(y, set(0xFFFF)),
                            _mm512_srli_epi32::<16>(y),
                        )
                    };
                    (
                        pair(_mm512_and_si512(x, _mm512_set1_epi16(0xFF))),
                        pair(_mm512_srli_epi16::<8>(x)),
                    )
                };
                let (all_pos, all_neg) = bytes(self.special16);
                let (nan_pos, nan_neg) = bytes(self.nan16);
                let s = &mut self.special;
                s[0][0] = _mm512_add_epi32(s[0][0], nan_pos);
                s[0][1] = _mm512_add_epi32(s[0][1], nan_neg);
                s[1][0] = _mm512_add_epi32(s[1][0], _mm512_sub_epi32(all_pos, nan_pos));
                s[1][1] = _mm512_add_epi32(s[1][1], _mm512_sub_epi32(all_neg, nan_neg));
                self.special16 = _mm512_setzero_si512();
                self.nan16 = _mm512_setzero_si512();
            }
            if _mm512_test_epi32_mask(self.nan_inf, self.nan_inf) == 0 {
                return;
            }
            let byte =
                |k: u32| _mm512_and_si512(_mm512_srlv_epi32(self.nan_inf, set(8 * k)), set(0xFF));
            let [nan_inf_pos, nan_inf_neg, nan_pos, nan_neg] = [0, 1, 2, 3].map(byte);
            let s = &mut self.special;
            s[0][0] = _mm512_add_epi32(s[0][0], nan_pos);
            s[0][1] = _mm512_add_epi32(s[0][1], nan_neg);
            s[1][0] = _mm512_add_epi32(s[1][0], _mm512_sub_epi32(nan_inf_pos, nan_pos));
            s[1][1] = _mm512_add_epi32(s[1][1], _mm512_sub_epi32(nan_inf_neg, nan_neg));
            self.nan_inf = _mm512_setzero_si512();
        }

        /// The counters added to `totals` and cleared.
        #[target_feature(enable = "avx2,avx512f,avx512bw")]
        #[inline]
        fn flush(&mut self, totals: &mut Totals) {
            self.settle();
            self.fold().add_to(totals);
            *self = Acc512::zero();
        }

        /// The counters folded into an AVX2 counter set.
        #[target_feature(enable = "avx2,avx512f")]
        #[inline]
        fn fold(self) -> Acc {
            // most blocks count exactness alone: one test instead of folding ten zeros
            let rare = [self.underflow, self.flushed, self.saturated, self.nan_inf]
                .into_iter()
                .chain(self.special.into_iter().flatten())
                .fold(_mm512_setzero_si512(), |a, b| _mm512_or_si512(a, b));
            if _mm512_test_epi32_mask(rare, rare) == 0 {
                let z = _mm256_setzero_si256();
                return Acc {
                    exact: fold(self.exact),
                    underflow: z,
                    flushed: z,
                    saturated: z,
                    special: [[z; 2]; 3],
                };
            }
            let byte =
                |k: u32| _mm512_and_si512(_mm512_srlv_epi32(self.nan_inf, set(8 * k)), set(0xFF));
            let [nan_inf_pos, nan_inf_neg, nan_pos, nan_neg] = [0, 1, 2, 3].map(byte);
            let mut special = self.special;
            special[0][0] = _mm512_add_epi32(special[0][0], nan_pos);
            special[0][1] = _mm512_add_epi32(special[0][1], nan_neg);
            special[1][0] = _mm512_add_epi32(special[1][0], _mm512_sub_epi32(nan_inf_pos, nan_pos));
            special[1][1] = _mm512_add_epi32(special[1][1], _mm512_sub_epi32(nan_inf_neg, nan_neg));
            Acc {
                exact: fold(self.exact),
                underflow: fold(self.underflow),
                flushed: fold(self.flushed),
                saturated: fold(self.saturated),
                special: special.map(|c| c.map(|z| fold(z))),
            }
        }
    }

    /// The policy's special results as vectors: by sign, the NaN, Inf and overflow codes,
    /// and the NaN payload mask.
    #[derive(Clone, Copy)]
    struct Specials {
        nan: [__m512i; 2],
        inf: [__m512i; 2],
        overflow: [__m512i; 2],
        payload: __m512i,
    }

    impl Specials {
        #[target_feature(enable = "avx512f")]
        #[inline]
        fn new(sp: &SpecialResults) -> Specials {
            let by_sign = |r: [Fixed; 2]| [set(r[0].0), set(r[1].0)];
            Specials {
                nan: by_sign(sp.nan),
                inf: by_sign(sp.inf),
                overflow: by_sign(sp.overflow),
                payload: set(sp.nan_payload),
            }
        }

        /// The codes `code` with the lanes of `special` (NaN, ±Inf, or else a finite
        /// overflow) replaced by the policy's results by sign (`neg`), NaN's with the
        /// payload's top bits (`a >> SHIFT`, `a` the f32 magnitudes); those lanes counted
        /// into `acc` by class and sign.
        #[target_feature(enable = "avx512f")]
        #[inline]
        fn blend<const SHIFT: u32>(
            &self,
            a: __m512i,
            neg: __mmask16,
            code: __m512i,
            special: __mmask16,
            acc: &mut Acc512,
        ) -> __m512i {
            let inf_bits = set(0x7F80_0000);
            let nan = _mm512_cmpgt_epu32_mask(a, inf_bits);
            let inf = _mm512_cmpeq_epi32_mask(a, inf_bits);
            let overflow = special & !(nan | inf);
            let fixed = |r: &[__m512i; 2]| _mm512_mask_mov_epi32(r[0], neg, r[1]);
            let nan_code = _mm512_or_si512(
                fixed(&self.nan),
                _mm512_and_si512(_mm512_srli_epi32::<SHIFT>(a), self.payload),
            );
            let code = _mm512_mask_mov_epi32(code, overflow, fixed(&self.overflow));
            let code = _mm512_mask_mov_epi32(code, inf, fixed(&self.inf));
            let code = _mm512_mask_mov_epi32(code, nan, nan_code);
            let one = set(1);
            for (c, m) in acc.special.iter_mut().zip([nan, inf, overflow]) {
                c[0] = _mm512_mask_add_epi32(c[0], m & !neg, c[0], one);
                c[1] = _mm512_mask_add_epi32(c[1], m & neg, c[1], one);
            }
            code
        }

        /// The codes `code` with the NaN or ±Inf lanes `sp` (`a`: the f32 magnitudes, `neg`:
        /// the negative lanes) given the policy's results as [`Specials::blend`] does, and
        /// counted into `acc`'s byte counters: fewer instructions, for steps whose only rare
        /// lanes are these (a causal mask's −∞, scattered NaN).
        #[target_feature(enable = "avx512f")]
        #[inline]
        fn nan_inf<const SHIFT: u32>(
            &self,
            a: __m512i,
            neg: __mmask16,
            code: __m512i,
            sp: __mmask16,
            acc: &mut Acc512,
        ) -> __m512i {
            let nan = _mm512_cmpgt_epu32_mask(a, set(0x7F80_0000));
            let fixed = |r: &[__m512i; 2]| _mm512_mask_mov_epi32(r[0], neg, r[1]);
            // fixed | (a >> SHIFT) & payload
            let nan_code = _mm512_ternarylogic_epi32::<0xF8>(
                fixed(&self.nan),
                _mm512_srli_epi32::<SHIFT>(a),
                self.payload,
            );
            let code = _mm512_mask_mov_epi32(code, sp, fixed(&self.inf));
            let code = _mm512_mask_mov_epi32(code, nan, nan_code);
            let inc = _mm512_mask_mov_epi32(set(1), neg, set(0x100));
            acc.nan_inf = _mm512_mask_add_epi32(acc.nan_inf, sp, acc.nan_inf, inc);
            acc.nan_inf =
                _mm512_mask_add_epi32(acc.nan_inf, nan, acc.nan_inf, _mm512_slli_epi32::<16>(inc));
            code
        }
    }

    /// The f16 codes of the f32 codes `v` (magnitudes `a`) in mode `M`, the f32 bits of
    /// their exact round trip, and the codes whose magnitude decides underflow (for odd the
    /// truncation), as the AVX2 kernel's `round`.
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl")]
    #[inline]
    fn f16_round<const M: u8>(v: __m512i, a: __m512i) -> (__m256i, __m512i, __m256i) {
        let x = _mm512_castsi512_ps(v);
        let back = |h: __m256i| _mm512_castps_si512(_mm512_cvtph_ps(h));
        // vcvtps2ph immediates: rounding in bits 0-1, bit 3 suppresses exceptions.
        match M {
            rounding::NEAREST_EVEN => {
                let h = _mm512_cvt_roundps_ph::<8>(x);
                (h, back(h), h)
            }
            rounding::FLOOR => {
                let h = _mm512_cvt_roundps_ph::<9>(x);
                (h, back(h), h)
            }
            rounding::CEIL => {
                let h = _mm512_cvt_roundps_ph::<10>(x);
                (h, back(h), h)
            }
            rounding::TRUNC => {
                let h = _mm512_cvt_roundps_ph::<11>(x);
                (h, back(h), h)
            }
            rounding::ODD => {
                let t = _mm512_cvt_roundps_ph::<11>(x);
                let bt = back(t);
                let inexact = !_mm512_cmpeq_epi32_mask(bt, v);
                let odd = _mm256_or_si256(t, _mm256_set1_epi16(1));
                (_mm256_mask_mov_epi16(t, inexact, odd), bt, t)
            }
            _ => {
                // Ties away: the truncation of |x| plus half an f16 ulp added on the f32 bits
                // (see the AVX2 kernel for why this is exact).
                let e = _mm512_srli_epi32::<23>(a);
                let d = _mm512_min_epi32(_mm512_sub_epi32(e, set(102)), set(11));
                let half = _mm512_srlv_epi32(set(0x80_0000), d);
                let lifted = _mm512_add_epi32(_mm512_min_epu32(a, set(0x7F80_0000)), half);
                let sign = _mm512_xor_si512(v, a);
                let h =
                    _mm512_cvt_roundps_ph::<11>(_mm512_castsi512_ps(_mm512_or_si512(lifted, sign)));
                (h, back(h), h)
            }
        }
    }

    /// What a step of the f16 kernel needs besides its data: the policy's special results,
    /// whether its ±Inf codes are the conversion's own (0x7C00, 0xFC00), the overflow thresholds by sign, the limit code and the normal band below it.
    #[derive(Clone, Copy)]
    struct F16Consts {
        sp: Specials,
        natural_inf: bool,
        above: [__m512i; 2],
        top: i16,
        limit: __m256i,
        normal_from: __m256i,
        band: __m256i,
        band_from: __m256i,
        band_width: __m256i,
        one: __m512i,
        nan16: [__m256i; 2],
        inf16: [__m256i; 2],
        payload16: __m256i,
        /// Whether the policy's NaN and ±Inf codes are `vcvtps2ph`'s own in this mode (the
        /// sign, the quiet bit and the payload's top nine bits; 0x7C00, 0xFC00) and ties
        /// away is not the mode: NaN and ±Inf lanes then need no blend, only counting.
        natural: bool,
        /// 1 and 0x100 in every 16-bit lane, hidden from the optimiser
        /// ([`Acc512::specials16`]).
        inc16: (__m512i, __m512i),
    }

    impl F16Consts {
        /// The f16 codes of a step (the 16 f32 codes `v`, their conversion `base` and its
        /// magnitudes `m`) whose only lanes at or beyond the largest finite code are the NaN
        /// or ±Inf lanes `s`: the other lanes counted as [`f16_finite`] does (those lanes are
        /// never small nor zero, and are left out of the exact ones), those counted by class
        /// and sign, with the policy's codes blended in (NaN's with the payload's top bits;
        /// Inf's only when the policy's differ from the conversion's own).
        #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
        #[inline]
        fn nan_inf<const M: u8>(
            &self,
            v: __m512i,
            base: __m256i,
            m: __m256i,
            s: __mmask16,
            acc: &mut Acc512,
        ) -> __m256i {
            // a step of NaN and ±Inf alone (a causal mask's −∞) has no finite lane to count
            let exact = if s == 0xFFFF {
                0
            } else {
                let exact =
                    _mm512_cmpeq_epi32_mask(_mm512_castps_si512(_mm512_cvtph_ps(base)), v) & !s;
                let small = _mm256_testn_epi16_mask(m, _mm256_set1_epi16(0x7C00));
                let one = self.one;
                acc.exact = _mm512_mask_add_epi32(acc.exact, exact, acc.exact, one);
                acc.underflow =
                    _mm512_mask_add_epi32(acc.underflow, small & !exact, acc.underflow, one);
                if M != rounding::ODD {
                    let zero = _mm256_testn_epi16_mask(m, m);
                    acc.flushed =
                        _mm512_mask_add_epi32(acc.flushed, zero & !exact, acc.flushed, one);
                }
                exact
            };
            let nan = _mm512_fpclass_ps_mask::<0x81>(_mm512_castsi512_ps(v));
            let inf = s & !nan;
            let neg = _mm512_movepi32_mask(v);
            acc.nan_inf(s, nan, neg);
            let code = f16_odd::<M>(base, exact | s);
            let fixed = |r: &[__m256i; 2]| _mm256_mask_mov_epi16(r[0], neg, r[1]);
            // (ties away lifts ±Inf by half an ulp, to a NaN: its codes are always blended)
            let code = if self.natural_inf && M != rounding::NEAREST_AWAY {
                code
            } else {
                _mm256_mask_mov_epi16(code, inf, fixed(&self.inf16))
            };
            if nan == 0 {
                return code;
            }
            // fixed | (a >> 13) & payload
            let top = _mm512_cvtepi32_epi16(_mm512_srli_epi32::<13>(v));
            let nan_code =
                _mm256_ternarylogic_epi32::<0xF8>(fixed(&self.nan16), top, self.payload16);
            _mm256_mask_mov_epi16(code, nan, nan_code)
        }
    }

    /// The f16 codes of one step (the 16 f32 codes `v`) in mode `M`, counted into `acc` by
    /// the rule that fits the step: the codes' band (only exactness to count, from the round
    /// trip), the finite rule with underflow and flush, the NaN / ±Inf rule, or the full rule
    /// (see [`f16_steps`]).
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn f16_step<const M: u8>(v: __m512i, c: &F16Consts, acc: &mut Acc512) -> __m256i {
        let one = c.one;
        let a = _mm512_and_si512(v, set(0x7FFF_FFFF));
        if c.natural_inf && _mm512_cmpeq_epi32_mask(a, set(0x7F80_0000)) == 0xFFFF {
            // a step of ±Inf alone (a causal mask's −∞), under a policy that keeps their
            // codes: counted by sign, nothing else to count
            let neg = _mm512_movepi32_mask(v);
            let by_sign = _mm512_mask_mov_epi32(set(1), neg, set(0x100));
            acc.nan_inf = _mm512_add_epi32(acc.nan_inf, by_sign);
            return _mm256_mask_mov_epi16(
                _mm256_set1_epi16(0x7C00),
                neg,
                _mm256_set1_epi16(0xFC00u16 as i16),
            );
        }
        let (h, back, base) = f16_round::<M>(v, a);
        let is_exact = _mm512_cmpeq_epi32_mask(back, v);
        let m = _mm256_and_si256(base, _mm256_set1_epi16(0x7FFF));
        // every code normal and below the limit: only exactness to count
        let outside = _mm256_cmpge_epu16_mask(_mm256_sub_epi16(m, c.normal_from), c.band);
        let rare = if outside == 0 {
            0
        } else {
            _mm256_cmpge_epu16_mask(m, c.limit)
        };
        if outside == 0 {
            acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact, acc.exact, one);
            h
        } else if rare == 0 {
            let small = _mm256_cmplt_epu16_mask(m, _mm256_set1_epi16(0x400));
            acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact, acc.exact, one);
            acc.underflow =
                _mm512_mask_add_epi32(acc.underflow, small & !is_exact, acc.underflow, one);
            if M != rounding::ODD {
                let zero = _mm256_testn_epi16_mask(m, m);
                acc.flushed =
                    _mm512_mask_add_epi32(acc.flushed, zero & !is_exact, acc.flushed, one);
            }
            h
        } else if rare & !_mm512_cmpge_epu32_mask(a, set(0x7F80_0000)) == 0 {
            // only NaN or ±Inf lanes are rare: the fast counts, those lanes left out of
            // the exact ones (they are neither small nor zero)
            let nan_inf = _mm512_cmpge_epu32_mask(a, set(0x7F80_0000));
            let small = _mm256_cmplt_epu16_mask(m, _mm256_set1_epi16(0x400));
            acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact & !nan_inf, acc.exact, one);
            acc.underflow =
                _mm512_mask_add_epi32(acc.underflow, small & !is_exact, acc.underflow, one);
            if M != rounding::ODD {
                let zero = _mm256_testn_epi16_mask(m, m);
                acc.flushed =
                    _mm512_mask_add_epi32(acc.flushed, zero & !is_exact, acc.flushed, one);
            }
            let neg = _mm512_movepi32_mask(v);
            let code =
                c.sp.nan_inf::<13>(a, neg, _mm512_cvtepu16_epi32(h), nan_inf, acc);
            _mm512_cvtepi32_epi16(code)
        } else {
            let code = _mm512_cvtepu16_epi32(h);
            let m = _mm512_and_si512(code, set(0x7FFF));
            let small = _mm512_cmplt_epu32_mask(m, set(0x400));
            let zero = _mm512_testn_epi32_mask(m, m);
            let neg = _mm512_movepi32_mask(v);
            let special =
                _mm512_cmpgt_epu32_mask(a, _mm512_mask_mov_epi32(c.above[0], neg, c.above[1]));
            let beyond = _mm512_cmpgt_epu32_mask(a, set(MAX_F32));
            // (special lanes are never small: their f16 magnitude is at least 0x7BFF)
            acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact & !special, acc.exact, one);
            acc.underflow =
                _mm512_mask_add_epi32(acc.underflow, small & !is_exact, acc.underflow, one);
            acc.flushed = _mm512_mask_add_epi32(acc.flushed, zero & !is_exact, acc.flushed, one);
            acc.saturated =
                _mm512_mask_add_epi32(acc.saturated, beyond & !special, acc.saturated, one);
            _mm512_cvtepi32_epi16(c.sp.blend::<13>(a, neg, code, special, acc))
        }
    }

    /// The mode's f16 conversion of the 16 f32 codes `v` (for odd: the truncation, which the
    /// caller makes odd where inexact).
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl")]
    #[inline]
    fn f16_base<const M: u8>(v: __m512i) -> __m256i {
        if M == rounding::ODD {
            _mm512_cvt_roundps_ph::<11>(_mm512_castsi512_ps(v))
        } else {
            f16_round::<M>(v, _mm512_and_si512(v, set(0x7FFF_FFFF))).0
        }
    }

    /// The codes `base` made odd where `exact` is clear, for mode odd; `base` otherwise.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
    #[inline]
    fn f16_odd<const M: u8>(base: __m256i, exact: __mmask16) -> __m256i {
        if M == rounding::ODD {
            _mm256_mask_mov_epi16(base, !exact, _mm256_or_si256(base, _mm256_set1_epi16(1)))
        } else {
            base
        }
    }

    /// The f16 codes of a step (the 16 f32 codes `v`, their conversion `base` and its
    /// magnitudes `m`) whose codes all lie below the largest finite f16, counted into `acc`:
    /// exactness by the round trip (`vcvtph2ps` and a compare), underflow (inexact below the
    /// smallest normal code) and, except for odd, flush (inexact and zero).
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn f16_finite<const M: u8>(
        v: __m512i,
        base: __m256i,
        m: __m256i,
        one: __m512i,
        acc: &mut Acc512,
    ) -> __m256i {
        let exact = _mm512_cmpeq_epi32_mask(_mm512_castps_si512(_mm512_cvtph_ps(base)), v);
        let small = _mm256_testn_epi16_mask(m, _mm256_set1_epi16(0x7C00));
        acc.exact = _mm512_mask_add_epi32(acc.exact, exact, acc.exact, one);
        acc.underflow = _mm512_mask_add_epi32(acc.underflow, small & !exact, acc.underflow, one);
        if M != rounding::ODD {
            let zero = _mm256_testn_epi16_mask(m, m);
            acc.flushed = _mm512_mask_add_epi32(acc.flushed, zero & !exact, acc.flushed, one);
        }
        f16_odd::<M>(base, exact)
    }

    /// Steps of 16 lanes per block of the loops here: the NaN / ±Inf byte counters
    /// ([`Acc512::nan_inf`]) take at most one a step and lane, so a block stays below 256.
    const BLOCK_STEPS: usize = 128;

    /// Steps of 16 lanes per block of the f16 loop: as [`BLOCK_STEPS`], at most 255 for the
    /// byte counters, and at most 63 groups of four for the special loop's counters
    /// ([`f16_special_counts`]); the more steps a block, the less each pays for the block's
    /// bookkeeping (the special loop's call, the counters added and settled).
    const F16_BLOCK_STEPS: usize = 240;

    /// Blocks between two flushes of the 32-bit lane counters into the totals (each lane adds
    /// at most one a step: 2^23 steps stay far below 2^32).
    const FLUSH_BLOCKS: usize = 1 << 16;

    /// The four 16-lane f32 vectors of a 256-byte quad, its lines prefetched first when the
    /// output is streamed (only past the cache: in it the prefetches cost a fifth of the
    /// loop's time).
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn load_quad(x: &[u8], stream: bool) -> [__m512i; 4] {
        debug_assert!(x.len() >= 256);
        if stream {
            for line in 0..4 {
                prefetch(x.as_ptr().wrapping_add(64 * line));
            }
        }
        // SAFETY: `x` is at least 256 bytes (a quad of the callers' `chunks_exact(256)`),
        // four unaligned 64-byte loads.
        std::array::from_fn(|i| unsafe { _mm512_loadu_si512(x.as_ptr().add(64 * i).cast()) })
    }

    /// `lo` in the low half and `hi` in the high half of a 512-bit vector.
    #[target_feature(enable = "avx512f")]
    #[inline]
    fn join(lo: __m256i, hi: __m256i) -> __m512i {
        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(lo), hi)
    }

    /// The codes `c` (32 lanes of 16 bits) made odd where `exact` is clear, for mode odd;
    /// `c` otherwise.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn f16_odd32<const M: u8>(c: __m512i, exact: __mmask32) -> __m512i {
        if M == rounding::ODD {
            _mm512_mask_mov_epi16(c, !exact, _mm512_or_si512(c, _mm512_set1_epi16(1)))
        } else {
            c
        }
    }

    /// The f16 codes of a pair of steps (`v0` then `v1`, their conversions `b0`, `b1`),
    /// counted into `acc` by the rule that fits the pair (see [`f16_wide`]).
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn f16_pair<const M: u8>(
        v0: __m512i,
        v1: __m512i,
        b0: __m256i,
        b1: __m256i,
        c: &F16Consts,
        acc: &mut Acc512,
    ) -> (__m256i, __m256i) {
        let one = c.one;
        let magnitude = _mm256_set1_epi16(0x7FFF);
        let (m0, m1) = (
            _mm256_and_si256(b0, magnitude),
            _mm256_and_si256(b1, magnitude),
        );
        let outside =
            |m: __m256i| _mm256_cmpge_epu16_mask(_mm256_sub_epi16(m, c.band_from), c.band_width);
        // vfpclassps: +Inf 0x08, −Inf 0x10
        let inf_lanes = |v: __m512i| _mm512_fpclass_ps_mask::<0x18>(_mm512_castsi512_ps(v));
        if outside(m0) | outside(m1) == 0 {
            // in the band: exact where the 13 dropped significand bits are zero
            let e0 = _mm512_testn_epi32_mask(v0, set(0x1FFF));
            let e1 = _mm512_testn_epi32_mask(v1, set(0x1FFF));
            acc.exact = _mm512_mask_add_epi32(acc.exact, e0, acc.exact, one);
            acc.exact = _mm512_mask_add_epi32(acc.exact, e1, acc.exact, one);
            (f16_odd::<M>(b0, e0), f16_odd::<M>(b1, e1))
        } else if _mm256_cmpge_epu16_mask(m0, c.limit) | _mm256_cmpge_epu16_mask(m1, c.limit) == 0 {
            // below the largest finite code, some lane small (f16 subnormals, zeros)
            (
                f16_finite::<M>(v0, b0, m0, one, acc),
                f16_finite::<M>(v1, b1, m1, one, acc),
            )
        } else if c.natural_inf && inf_lanes(v0) & inf_lanes(v1) == 0xFFFF {
            // ±Inf alone (a causal mask's −∞) under a policy that keeps their codes:
            // counted by sign, the codes by sign
            let mut inf_codes = |v: __m512i| {
                let neg = _mm512_movepi32_mask(v);
                let by_sign = _mm512_mask_mov_epi32(one, neg, set(0x100));
                acc.nan_inf = _mm512_add_epi32(acc.nan_inf, by_sign);
                _mm256_mask_mov_epi16(c.inf16[0], neg, c.inf16[1])
            };
            (inf_codes(v0), inf_codes(v1))
        } else {
            // vfpclassps: QNaN 0x01, +Inf 0x08, −Inf 0x10, SNaN 0x80
            let class = |v: __m512i| _mm512_fpclass_ps_mask::<0x99>(_mm512_castsi512_ps(v));
            let (s0, s1) = (class(v0), class(v1));
            if _mm256_cmpge_epu16_mask(m0, c.limit) == s0
                && _mm256_cmpge_epu16_mask(m1, c.limit) == s1
            {
                // the only lanes at or beyond the largest finite code are NaN or ±Inf
                (
                    c.nan_inf::<M>(v0, b0, m0, s0, acc),
                    c.nan_inf::<M>(v1, b1, m1, s1, acc),
                )
            } else {
                (f16_step::<M>(v0, c, acc), f16_step::<M>(v1, c, acc))
            }
        }
    }

    /// The f16 codes (`c01`: steps 0 and 1, `c23`: steps 2 and 3) of four steps `v` whose
    /// codes are not all in the band, counted into `acc` (see [`f16_wide`]). One copy for the
    /// main loop and one for the special loop (`SPECIAL_LOOP`): each has one caller, so that
    /// both stay inlined (called, it takes the main loop's data and counters off registers).
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn f16_quad_rare<const M: u8, const SPECIAL_LOOP: bool>(
        v: &[__m512i; 4],
        b: &[__m256i; 4],
        (c01, c23): (__m512i, __m512i),
        (m01, m23): (__m512i, __m512i),
        c: &F16Consts,
        acc: &mut Acc512,
    ) -> (__m512i, __m512i) {
        let one = c.one;
        let limit = _mm512_set1_epi16(c.top);
        if _mm512_cmpge_epu16_mask(_mm512_max_epu16(m01, m23), limit) == 0 {
            // below the largest finite code, some lane small (f16 subnormals, zeros)
            let h: [__m256i; 4] = std::array::from_fn(|k| {
                f16_finite::<M>(
                    v[k],
                    b[k],
                    _mm256_and_si256(b[k], _mm256_set1_epi16(0x7FFF)),
                    one,
                    acc,
                )
            });
            return (join(h[0], h[1]), join(h[2], h[3]));
        }
        // vfpclassps: +Inf 0x08, −Inf 0x10
        let inf = |v: __m512i| _mm512_fpclass_ps_mask::<0x18>(_mm512_castsi512_ps(v));
        if inf(v[0]) & inf(v[1]) & inf(v[2]) & inf(v[3]) == 0xFFFF {
            // ±Inf alone (a causal mask's −∞): counted by sign, the policy's codes by sign
            for &vk in v {
                let by_sign = _mm512_mask_mov_epi32(one, _mm512_movepi32_mask(vk), set(0x100));
                acc.nan_inf = _mm512_add_epi32(acc.nan_inf, by_sign);
            }
            let (pos, neg) = (
                _mm512_broadcast_i64x4(c.inf16[0]),
                _mm512_broadcast_i64x4(c.inf16[1]),
            );
            let by_sign =
                |code: __m512i| _mm512_mask_mov_epi16(pos, _mm512_movepi16_mask(code), neg);
            return (by_sign(c01), by_sign(c23));
        }
        // vfpclassps: QNaN 0x01, +Inf 0x08, −Inf 0x10, SNaN 0x80
        let class = |v: __m512i| _mm512_fpclass_ps_mask::<0x99>(_mm512_castsi512_ps(v));
        let s01 = _mm512_kunpackw(u32::from(class(v[1])), u32::from(class(v[0])));
        let s23 = _mm512_kunpackw(u32::from(class(v[3])), u32::from(class(v[2])));
        let from = _mm512_set1_epi16(0x401);
        let width = _mm512_set1_epi16(c.top - 0x401);
        let out01 = _mm512_cmpge_epu16_mask(_mm512_sub_epi16(m01, from), width);
        let out23 = _mm512_cmpge_epu16_mask(_mm512_sub_epi16(m23, from), width);
        if out01 != s01 || out23 != s23 {
            // another rare lane (small or beyond the finite range): pair by pair
            let (h0, h1) = f16_pair::<M>(v[0], v[1], b[0], b[1], c, acc);
            let (h2, h3) = f16_pair::<M>(v[2], v[3], b[2], b[3], c, acc);
            return (join(h0, h1), join(h2, h3));
        }
        // the lanes outside the band are exactly the NaN and ±Inf ones: the others count
        // exactness by the band's rule, those by class and sign
        let e: [__mmask16; 4] = std::array::from_fn(|k| {
            let s = (if k < 2 { s01 } else { s23 }) >> (16 * (k % 2));
            _mm512_testn_epi32_mask(v[k], set(0x1FFF)) & !(s as u16)
        });
        for (k, &ek) in e.iter().enumerate() {
            acc.exact = _mm512_mask_add_epi32(acc.exact, ek, acc.exact, one);
            let s = ((if k < 2 { s01 } else { s23 }) >> (16 * (k % 2))) as u16;
            if s != 0 {
                let nan = _mm512_fpclass_ps_mask::<0x81>(_mm512_castsi512_ps(v[k]));
                acc.nan_inf(s, nan, _mm512_movepi32_mask(v[k]));
            }
        }
        let e01 = _mm512_kunpackw(u32::from(e[1]), u32::from(e[0]));
        let e23 = _mm512_kunpackw(u32::from(e[3]), u32::from(e[2]));
        let mut codes = [
            (f16_odd32::<M>(c01, e01 | s01), s01, 0),
            (f16_odd32::<M>(c23, e23 | s23), s23, 2),
        ];
        for (code, s, k) in codes.iter_mut() {
            if *s == 0 {
                continue;
            }
            let neg = _mm512_movepi16_mask(*code);
            let fixed = |r: &[__m256i; 2]| {
                _mm512_mask_mov_epi16(
                    _mm512_broadcast_i64x4(r[0]),
                    neg,
                    _mm512_broadcast_i64x4(r[1]),
                )
            };
            let nan = _mm512_kunpackw(
                u32::from(_mm512_fpclass_ps_mask::<0x81>(_mm512_castsi512_ps(
                    v[*k + 1],
                ))),
                u32::from(_mm512_fpclass_ps_mask::<0x81>(_mm512_castsi512_ps(v[*k]))),
            );
            // (ties away lifts ±Inf by half an ulp, to a NaN: its codes are always blended)
            if !c.natural_inf || M == rounding::NEAREST_AWAY {
                *code = _mm512_mask_mov_epi16(*code, *s & !nan, fixed(&c.inf16));
            }
            if nan != 0 {
                // fixed | (a >> 13) & payload
                let top = join(
                    _mm512_cvtepi32_epi16(_mm512_srli_epi32::<13>(v[*k])),
                    _mm512_cvtepi32_epi16(_mm512_srli_epi32::<13>(v[*k + 1])),
                );
                let nan_code = _mm512_ternarylogic_epi32::<0xF8>(
                    fixed(&c.nan16),
                    top,
                    _mm512_broadcast_i64x4(c.payload16),
                );
                *code = _mm512_mask_mov_epi16(*code, nan, nan_code);
            }
        }
        (codes[0].0, codes[1].0)
    }

    /// Whether `vcvtps2ph` in mode `mode` gives the policy `sp`'s NaN and ±Inf codes itself
    /// ([`F16Consts::natural`]): NaN's the sign, 0x7E00 and the payload's top nine bits (the
    /// policy's fixed codes 0x7E00, 0xFE00 and a payload mask of those nine bits, perhaps with
    /// the quiet and exponent bits the fixed codes hold anyway), ±Inf's 0x7C00 and 0xFC00.
    fn f16_natural(sp: &SpecialResults, mode: u8) -> bool {
        let payload = sp.nan_payload & 0xFFFF;
        mode != rounding::NEAREST_AWAY
            && sp.inf[0].0 == 0x7C00
            && sp.inf[1].0 == 0xFC00
            && sp.nan[0].0 == 0x7E00
            && sp.nan[1].0 == 0xFE00
            && payload & 0x1FF == 0x1FF
            && payload & !0x7FFF == 0
    }

    /// How many of `n` 16-bit codes go before the first 64-byte boundary of `dst` (none when
    /// `dst` is not 2-byte aligned, at most `n`): the loops' 64-byte stores then never split a
    /// cache line (a NumPy array's data sits 16 bytes past one: 13.5 against 15.4 Gelem/s,
    /// `docs/kernels.md`).
    fn aligned_head(dst: &[u8], n: usize) -> usize {
        let at = dst.as_ptr() as usize;
        if !at.is_multiple_of(2) {
            return 0;
        }
        ((64 - at % 64) % 64 / 2).min(n)
    }

    /// How many of `n` f32 codes go before the first 64-byte boundary of `src` (none when
    /// `src` is not 4-byte aligned, at most `n`): the loops' 64-byte loads then never split a
    /// cache line. f32 → f16 aligns its source rather than its destination when it does not
    /// stream: with a NumPy array's data 16 bytes past a line, the destination aligned left
    /// every load split and cost a tenth of the loop's speed at 1 Mi elements
    /// (`docs/speed.md`).
    fn aligned_src_head(src: &[u8], n: usize) -> usize {
        let at = src.as_ptr() as usize;
        if !at.is_multiple_of(4) {
            return 0;
        }
        ((64 - at % 64) % 64 / 4).min(n)
    }

    /// f32 → f16 by the AVX-512 loop: the whole steps of 16 of the `n` f32 codes `src` into
    /// `dst` ([`f16_steps`] in `k`'s mode) from the first 64-byte boundary of `src`
    /// ([`aligned_src_head`]), or with `stream` of `dst` ([`aligned_head`]), the elements
    /// before it and the last `n % 16` by the AVX2 kernel. With `stream` the steps' codes are
    /// stored non-temporally and the source prefetched.
    ///
    /// # Safety
    /// The CPU must support AVX2, F16C and AVX-512 F, BW, VL and DQ; with `stream`, `dst`
    /// must start on a 64-byte boundary.
    pub(crate) unsafe fn f16_wide(
        k: &F16c,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        // SAFETY: the caller's guarantees, passed on.
        unsafe {
            let head = if stream {
                aligned_head(dst, n)
            } else {
                aligned_src_head(src, n)
            };
            wide(k, k.mode, &k.specials, src, dst, n, head, |x, y| {
                match k.mode {
                    rounding::NEAREST_EVEN => {
                        f16_steps::<{ rounding::NEAREST_EVEN }>(k, x, y, stream)
                    }
                    rounding::NEAREST_AWAY => {
                        f16_steps::<{ rounding::NEAREST_AWAY }>(k, x, y, stream)
                    }
                    rounding::FLOOR => f16_steps::<{ rounding::FLOOR }>(k, x, y, stream),
                    rounding::CEIL => f16_steps::<{ rounding::CEIL }>(k, x, y, stream),
                    rounding::TRUNC => f16_steps::<{ rounding::TRUNC }>(k, x, y, stream),
                    _ => f16_steps::<{ rounding::ODD }>(k, x, y, stream),
                }
            })
        }
    }

    /// The frame of [`f16_wide`] and [`bf16_wide`]: the first `head` elements (those before
    /// a 64-byte boundary: [`aligned_head`], [`aligned_src_head`]; at most `n`) by the AVX2
    /// loop of `k` in `mode`, the whole steps
    /// of 16 after it by `steps` (given the source and destination bytes of those steps, it
    /// returns their counters), the last `n % 16` elements by the AVX2 loop again; the counts
    /// added up (`specials`: what the counters' special lanes became).
    ///
    /// # Safety
    /// The CPU must support AVX2 (and what `steps` needs); `steps` must be safe to call on
    /// the steps' bytes.
    #[allow(clippy::too_many_arguments)]
    unsafe fn wide<K: ModeLoop>(
        k: &K,
        mode: u8,
        specials: &SpecialResults,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        head: usize,
        steps: impl FnOnce(&[u8], &mut [u8]) -> Totals,
    ) -> StatusCounts {
        // SAFETY: the CPU has AVX2 (the caller's guarantee).
        let mut counts = unsafe {
            run_in_mode::<_, false>(k, mode, &src[..4 * head], &mut dst[..2 * head], head, false)
        };
        let (src, dst, n) = (&src[4 * head..], &mut dst[2 * head..], n - head);
        let done = n / 16 * 16;
        let (x, rest_x) = src[..4 * n].split_at(4 * done);
        let (y, rest_y) = dst[..2 * n].split_at_mut(2 * done);
        counts.add(&steps(x, y).into_counts(done, specials));
        if done < n {
            // SAFETY: the CPU has AVX2 (the caller's guarantee).
            counts
                .add(&unsafe { run_in_mode::<_, false>(k, mode, rest_x, rest_y, n - done, false) });
        }
        counts
    }

    /// The f16 codes of the whole steps of `src` (`src.len() / 64` steps of 16 f32 codes) in
    /// mode `M` into `dst`, and their counts. Four steps at a time are converted (for odd the
    /// truncation) and sorted by their magnitude codes `m`: all in [0x401, top) (normal
    /// results of normal inputs below the largest finite code; top is one lower for odd,
    /// whose test is on the truncation) count only their exact lanes, by the 13 dropped bits
    /// (a code of at least 0x401 only comes from a magnitude above 2^−14 in every mode: an
    /// f32 just below it that rounds to 0x400 is inexact with zero dropped bits); all below
    /// top count exactness by the round trip, underflow and flush ([`f16_finite`]); when the
    /// lanes outside the band are exactly the NaN and ±Inf inputs, the others count by the
    /// band's rule and those by class and sign, with the policy's codes blended in. Any other
    /// four steps go pair by pair ([`f16_pair`]: the same rules, the NaN / ±Inf one by the
    /// round trip, and [`f16_step`] per step for a finite overflow or saturation, the AVX2
    /// kernel's full rule). The counters are folded once per block of [`F16_BLOCK_STEPS`] steps.
    ///
    /// # Safety
    /// The CPU must support AVX2, F16C and AVX-512 F, BW, VL and DQ; `dst` must hold
    /// `src.len() / 2` bytes, and start on a 64-byte boundary with `stream`.
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
    unsafe fn f16_steps<const M: u8>(k: &F16c, src: &[u8], dst: &mut [u8], stream: bool) -> Totals {
        let top: i16 = if M == rounding::ODD { 0x7BFE } else { 0x7BFF };
        let c = F16Consts {
            sp: Specials::new(&k.specials),
            natural_inf: k.specials.inf[0].0 == 0x7C00 && k.specials.inf[1].0 == 0xFC00,
            above: [set(k.overflow_above[0]), set(k.overflow_above[1])],
            top,
            limit: _mm256_set1_epi16(top),
            // the band of normal magnitudes below `limit`, as one unsigned compare on m − 0x400
            normal_from: _mm256_set1_epi16(0x400),
            band: _mm256_set1_epi16(top - 0x400),
            // codes in [0x401, top) as one unsigned compare on m − 0x401: normal results from
            // normal inputs, below the largest finite code
            band_from: _mm256_set1_epi16(0x401),
            band_width: _mm256_set1_epi16(top - 0x401),
            // 1 in every lane, hidden from the optimiser: a masked add of it stays one
            // instruction (one it can see becomes mask moves through general registers, a
            // mask-to-vector move and a subtract: most of this loop's time at 1 Mi elements)
            one: std::hint::black_box(set(1)),
            nan16: k.specials.nan.map(|r| _mm256_set1_epi16(r.0 as u16 as i16)),
            inf16: k.specials.inf.map(|r| _mm256_set1_epi16(r.0 as u16 as i16)),
            payload16: _mm256_set1_epi16((k.specials.nan_payload & 0x7FFF) as u16 as i16),
            natural: f16_natural(&k.specials, M),
            inc16: std::hint::black_box((_mm512_set1_epi16(1), _mm512_set1_epi16(0x100))),
        };
        let magnitude = _mm512_set1_epi16(0x7FFF);
        let from = _mm512_set1_epi16(0x401);
        let width = _mm512_set1_epi16(top - 0x401);
        let one = c.one;
        let mut totals = Totals::default();
        // the block's counters, kept in memory (behind a reference the optimiser must treat
        // as escaped): only the rare rules touch them, and the band's exact counter, a local
        // of the quad loop, keeps its register (with them in registers the rare rules' many
        // counters pushed it onto the stack: a load and a store per quad)
        let mut counters = Acc512::zero();
        let acc: &mut Acc512 = std::hint::black_box(&mut counters);
        let steps = src.len() / 64;
        // whether the last block held a few NaN or ±Inf lanes under a policy whose codes for
        // them are the conversion's own: the next blocks then take the special loop
        let mut specials = false;
        let blocks = steps.div_ceil(F16_BLOCK_STEPS);
        let whole_blocks = steps / F16_BLOCK_STEPS;
        let mut blk = 0;
        // blocks counted since the last flush of the 32-bit counters
        let mut unflushed = 0;
        while blk < blocks {
            if specials && blk < whole_blocks {
                // the special loop over whole blocks from this one on, while each holds a few
                // NaN or ±Inf lanes (at most `SPECIAL_RUN_BLOCKS` at a time, so that the
                // 32-bit counters are flushed in time); its counters come back apart and are
                // added: the main loop's counters never leave its registers. The block it
                // stopped at (one with a negative NaN, which it does not count, or the one
                // after a block outside its rule) runs the main loop.
                let end = whole_blocks.min(blk + SPECIAL_RUN_BLOCKS) * F16_BLOCK_STEPS;
                let at = blk * F16_BLOCK_STEPS;
                // SAFETY: the caller's guarantees; the destination holds half the bytes of
                // the source, and starts on a 64-byte boundary with `stream` (blocks are
                // whole multiples of 64 bytes).
                let (done, counted) = unsafe {
                    f16_special_quads::<M>(
                        &src[64 * at..64 * end],
                        &mut dst[32 * at..32 * end],
                        &c,
                        stream,
                    )
                };
                specials = false;
                if done > 0 {
                    *acc = f16_add(*acc, &counted);
                    acc.settle();
                    blk += done;
                    unflushed += done;
                    if unflushed >= FLUSH_BLOCKS {
                        acc.flush(&mut totals);
                        unflushed = 0;
                    }
                    continue;
                }
            }
            let at = blk * F16_BLOCK_STEPS;
            let end = steps.min(at + F16_BLOCK_STEPS);
            let xs = &src[64 * at..64 * end];
            let ys = &mut dst[32 * at..32 * end];
            let whole = xs.len() / 256 * 256;
            let (xs, rx) = xs.split_at(whole);
            let (ys, ry) = ys.split_at_mut(whole / 2);
            let n = xs.len();
            let mut exact = _mm512_setzero_si512();
            // the quads of one +Inf, of one −Inf
            let mut inf_quads = [0u32; 2];
            for (x, y) in xs[..n].chunks_exact(256).zip(ys.chunks_exact_mut(128)) {
                let v = load_quad(x, stream);
                let b: [__m256i; 4] = std::array::from_fn(|i| f16_base::<M>(v[i]));
                let (c01, c23) = (join(b[0], b[1]), join(b[2], b[3]));
                let (m01, m23) = (
                    _mm512_and_si512(c01, magnitude),
                    _mm512_and_si512(c23, magnitude),
                );
                let (d01, d23) = (_mm512_sub_epi16(m01, from), _mm512_sub_epi16(m23, from));
                let (h01, h23) = if _mm512_cmpge_epu16_mask(_mm512_max_epu16(d01, d23), width) == 0
                {
                    // in the band: exact where the 13 dropped significand bits are zero
                    let e: [__mmask16; 4] =
                        std::array::from_fn(|i| _mm512_testn_epi32_mask(v[i], set(0x1FFF)));
                    for &ei in &e {
                        exact = _mm512_mask_add_epi32(exact, ei, exact, one);
                    }
                    (
                        f16_odd32::<M>(c01, _mm512_kunpackw(u32::from(e[1]), u32::from(e[0]))),
                        f16_odd32::<M>(c23, _mm512_kunpackw(u32::from(e[3]), u32::from(e[2]))),
                    )
                } else if let Some(neg) = f16_one_inf(&v, (m01, m23), c.top) {
                    // one ±Inf in all 64 lanes (a causal mask's −∞): counted by sign, the
                    // policy's code for it stored, nothing classed
                    inf_quads[usize::from(neg)] += 1;
                    let code = _mm512_broadcast_i64x4(c.inf16[usize::from(neg)]);
                    (code, code)
                } else {
                    f16_quad_rare::<M, false>(&v, &b, (c01, c23), (m01, m23), &c, acc)
                };
                // SAFETY: `y` is 128 bytes, on a 64-byte boundary when streamed (the caller
                // aligns `dst`; blocks and quads are whole multiples of 64 bytes).
                unsafe {
                    store64(y.as_mut_ptr(), h01, stream);
                    store64(y.as_mut_ptr().add(64), h23, stream);
                }
            }
            acc.exact = _mm512_add_epi32(acc.exact, exact);
            // four steps a quad in each of the 16 lanes, by sign in bytes 0 and 1 (a block
            // adds at most one a step and lane: no byte carries)
            let [pos, neg] = inf_quads.map(|q| 4 * q);
            acc.nan_inf = _mm512_add_epi32(acc.nan_inf, set(pos | neg << 8));
            // the block's last one to three steps (only in the last block)
            let mut rest = rx.chunks_exact(64);
            let mut rest_out = ry.chunks_exact_mut(32);
            while let (Some(x0), Some(y0)) = (rest.next(), rest_out.next()) {
                // SAFETY: `x0` is 64 bytes, the size of the unaligned load.
                let v0 = unsafe { _mm512_loadu_si512(x0.as_ptr().cast()) };
                let (h0, h1) = match (rest.next(), rest_out.next()) {
                    (Some(x1), Some(y1)) => {
                        // SAFETY: `x1` is 64 bytes, the size of the unaligned load.
                        let v1 = unsafe { _mm512_loadu_si512(x1.as_ptr().cast()) };
                        let (b0, b1) = (f16_base::<M>(v0), f16_base::<M>(v1));
                        let (h0, h1) = f16_pair::<M>(v0, v1, b0, b1, &c, acc);
                        (h0, Some((h1, y1)))
                    }
                    _ => (f16_step::<M>(v0, &c, acc), None),
                };
                // SAFETY: 32 bytes each, on 32-byte boundaries when streamed.
                unsafe {
                    store(y0, h0, stream);
                    if let Some((h1, y1)) = h1 {
                        store(y1, h1, stream);
                    }
                }
            }
            specials = c.natural && (1..=SPECIAL_BLOCK_LANES).contains(&f16_special_lanes(acc));
            acc.settle();
            blk += 1;
            unflushed += 1;
            if unflushed >= FLUSH_BLOCKS {
                acc.flush(&mut totals);
                unflushed = 0;
            }
        }
        acc.flush(&mut totals);
        totals
    }

    /// Whether the 64 f32 codes `v` (their magnitude codes `m01`, `m23`) are all one ±Inf:
    /// `Some` of its sign (negative: `true`). The first test is [`f16_quad_rare`]'s, whose
    /// finite groups (f16 subnormals, zeros) thus pay for nothing else.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn f16_one_inf(v: &[__m512i; 4], (m01, m23): (__m512i, __m512i), top: i16) -> Option<bool> {
        let limit = _mm512_set1_epi16(top);
        if _mm512_cmpge_epu16_mask(_mm512_max_epu16(m01, m23), limit) == 0 {
            return None;
        }
        let first = _mm_cvtsi128_si32(_mm512_castsi512_si128(v[0])) as u32;
        if first & 0x7FFF_FFFF != 0x7F80_0000 {
            return None;
        }
        let k = set(first);
        // (a ^ k) | (b ^ k)
        let d01 = _mm512_ternarylogic_epi32::<0x7E>(v[0], v[1], k);
        let d23 = _mm512_ternarylogic_epi32::<0x7E>(v[2], v[3], k);
        let d = _mm512_or_si512(d01, d23);
        (_mm512_test_epi32_mask(d, d) == 0).then_some(first >> 31 != 0)
    }

    /// The most NaN and ±Inf lanes a block may hold for the next to take the special loop
    /// ([`f16_special_quads`]): scattered NaN (a sixteenth of the lanes at most); a causal
    /// mask's runs of −∞ run faster in the main loop.
    const SPECIAL_BLOCK_LANES: u64 = 127;

    /// The most blocks one call of the special loop ([`f16_special_quads`]) runs: its 32-bit
    /// counters are added to the main loop's, flushed every [`FLUSH_BLOCKS`], after it.
    const SPECIAL_RUN_BLOCKS: usize = 1 << 12;

    /// The counters `a` and `b` added lane by lane (within one block: no byte counter of
    /// the sum carries).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn f16_add(a: Acc512, b: &Acc512) -> Acc512 {
        let add = _mm512_add_epi32;
        Acc512 {
            exact: add(a.exact, b.exact),
            underflow: add(a.underflow, b.underflow),
            flushed: add(a.flushed, b.flushed),
            saturated: add(a.saturated, b.saturated),
            special: std::array::from_fn(|i| {
                std::array::from_fn(|j| add(a.special[i][j], b.special[i][j]))
            }),
            nan_inf: add(a.nan_inf, b.nan_inf),
            special16: _mm512_add_epi16(a.special16, b.special16),
            nan16: _mm512_add_epi16(a.nan16, b.nan16),
            exact16: _mm512_add_epi16(a.exact16, b.exact16),
        }
    }

    /// The NaN and ±Inf lanes the byte counters of `acc` hold (counted by the NaN / ±Inf
    /// rules since the last [`Acc512::settle`]).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn f16_special_lanes(acc: &Acc512) -> u64 {
        let z = _mm512_setzero_si512();
        // NaN or ±Inf by sign: bytes 0 and 1 of `nan_inf`, both bytes of `special16`
        let a = _mm512_sad_epu8(acc.special16, z);
        let b = _mm512_sad_epu8(_mm512_and_si512(acc.nan_inf, set(0xFFFF)), z);
        _mm512_reduce_add_epi64(_mm512_add_epi64(a, b)) as u64
    }

    /// The whole blocks of `xs` (of [`F16_BLOCK_STEPS`] steps) into `ys` (see [`f16_steps`]),
    /// block after block while each holds 1 to [`SPECIAL_BLOCK_LANES`] NaN or ±Inf lanes, and
    /// how many blocks it converted with their counters: the special loop, for the blocks
    /// after one with such lanes under a policy whose codes for them are the conversion's
    /// own: no blend, and no branch on where those lanes are; one call for a run of blocks, so
    /// that its set-up and the adding of its counters are paid once a run, not once a block. A group whose
    /// lanes outside the band are exactly the NaN and ±Inf ones (`vfpclassps`; a causal mask's
    /// −∞ alone too) counts exactness on the low halves of its f32 codes gathered into 32
    /// 16-bit lanes (`vpermt2w`); one whose only lanes at or beyond the largest finite code
    /// are those (small lanes beside them) by the round trip, with underflow and flush as
    /// [`f16_finite`] counts them. Both count the NaN and ±Inf lanes on their 16-bit codes `c`
    /// by two masked adds, of one and of `c >> 9` (62 + NaN + 64 × negative, when no lane is a
    /// negative NaN), in registers ([`f16_special_counts`] turns them into the byte counters
    /// once per block). Any other group takes [`f16_quad_rare`]. Out of line, so that the main
    /// loop keeps its registers. It stops before counting a block in which those rules met a
    /// negative NaN (a code of at least 0xFE00: the largest code tells): the caller converts
    /// that block again by the main loop.
    ///
    /// # Safety
    /// As [`f16_steps`]: `ys` must hold `xs.len() / 2` bytes, on a 64-byte boundary with
    /// `stream`.
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline(never)]
    unsafe fn f16_special_quads<const M: u8>(
        xs: &[u8],
        ys: &mut [u8],
        c: &F16Consts,
        stream: bool,
    ) -> (usize, Acc512) {
        // the blocks' counters, added up once a block, in memory like the rare rule's
        let mut total_counters = Acc512::zero();
        let total: &mut Acc512 = std::hint::black_box(&mut total_counters);
        let mut blocks = 0;
        // the rare rule's counters in memory, behind a reference the optimiser must treat as
        // escaped (in registers too, they pushed the other rules' onto the stack: a load and a
        // store per group)
        let mut rare_counters = Acc512::zero();
        let rare: &mut Acc512 = std::hint::black_box(&mut rare_counters);
        let magnitude = _mm512_set1_epi16(0x7FFF);
        let from = _mm512_set1_epi16(0x401);
        let width = _mm512_set1_epi16(c.top - 0x401);
        let limit = _mm512_set1_epi16(c.top);
        let low = _mm512_set1_epi16(0x1FFF);
        let inc = c.inc16.0;
        let one = c.one;
        // the low 16-bit halves of two vectors of 16 f32 codes, in their order
        let halves = _mm512_set_epi16(
            62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38, 36, 34, 32, 30, 28, 26, 24, 22, 20,
            18, 16, 14, 12, 10, 8, 6, 4, 2, 0,
        );
        // the band and round-trip rules' counters, in registers: exact lanes (16-bit lanes);
        // NaN and ±Inf lanes of steps 0-1 and 2-3, and the sums of their codes' `c >> 9`; the
        // largest code; underflow and flush (32-bit lanes)
        let z = _mm512_setzero_si512();
        for (xb, yb) in xs
            .chunks_exact(64 * F16_BLOCK_STEPS)
            .zip(ys.chunks_exact_mut(32 * F16_BLOCK_STEPS))
        {
            let (mut exact, mut n01, mut n23, mut w01, mut w23, mut most) = (z, z, z, z, z, z);
            let (mut underflow, mut flushed) = (z, z);
            let mut rare_used = false;
            for (x, y) in xb.chunks_exact(256).zip(yb.chunks_exact_mut(128)) {
                let v = load_quad(x, stream);
                let b: [__m256i; 4] = std::array::from_fn(|i| f16_base::<M>(v[i]));
                let (c01, c23) = (join(b[0], b[1]), join(b[2], b[3]));
                let (m01, m23) = (
                    _mm512_and_si512(c01, magnitude),
                    _mm512_and_si512(c23, magnitude),
                );
                // vfpclassps: QNaN 0x01, +Inf 0x08, −Inf 0x10, SNaN 0x80
                let class = |v: __m512i| _mm512_fpclass_ps_mask::<0x99>(_mm512_castsi512_ps(v));
                let s01 = _mm512_kunpackw(u32::from(class(v[1])), u32::from(class(v[0])));
                let s23 = _mm512_kunpackw(u32::from(class(v[3])), u32::from(class(v[2])));
                let out01 = _mm512_cmpge_epu16_mask(_mm512_sub_epi16(m01, from), width);
                let out23 = _mm512_cmpge_epu16_mask(_mm512_sub_epi16(m23, from), width);
                let band = _kortestz_mask32_u8(_kxor_mask32(out01, s01), _kxor_mask32(out23, s23));
                let exact_lanes = if band != 0 {
                    // exact where the 13 dropped significand bits are zero
                    let lo01 = _mm512_permutex2var_epi16(v[0], halves, v[1]);
                    let lo23 = _mm512_permutex2var_epi16(v[2], halves, v[3]);
                    Some((
                        _mm512_mask_testn_epi16_mask(!s01, lo01, low),
                        _mm512_mask_testn_epi16_mask(!s23, lo23, low),
                    ))
                } else if _mm512_cmpge_epu16_mask(m01, limit) == s01
                    && _mm512_cmpge_epu16_mask(m23, limit) == s23
                {
                    // small lanes beside them: exact by the round trip, underflow and flush as
                    // `f16_finite` counts them
                    let e: [__mmask16; 4] = std::array::from_fn(|k| {
                        let exact = _mm512_cmpeq_epi32_mask(
                            _mm512_castps_si512(_mm512_cvtph_ps(b[k])),
                            v[k],
                        );
                        let m = _mm256_and_si256(b[k], _mm256_set1_epi16(0x7FFF));
                        let small = _mm256_testn_epi16_mask(m, _mm256_set1_epi16(0x7C00));
                        underflow =
                            _mm512_mask_add_epi32(underflow, small & !exact, underflow, one);
                        if M != rounding::ODD {
                            let zero = _mm256_testn_epi16_mask(m, m);
                            flushed = _mm512_mask_add_epi32(flushed, zero & !exact, flushed, one);
                        }
                        exact
                    });
                    Some((
                        _mm512_kunpackw(u32::from(e[1]), u32::from(e[0])) & !s01,
                        _mm512_kunpackw(u32::from(e[3]), u32::from(e[2])) & !s23,
                    ))
                } else {
                    None
                };
                let (h01, h23) = if let Some((e01, e23)) = exact_lanes {
                    // the NaN and ±Inf lanes keep the conversion's codes and are counted on them
                    exact = _mm512_mask_add_epi16(exact, e01, exact, inc);
                    exact = _mm512_mask_add_epi16(exact, e23, exact, inc);
                    n01 = _mm512_mask_add_epi16(n01, s01, n01, inc);
                    n23 = _mm512_mask_add_epi16(n23, s23, n23, inc);
                    w01 = _mm512_mask_add_epi16(w01, s01, w01, _mm512_srli_epi16::<9>(c01));
                    w23 = _mm512_mask_add_epi16(w23, s23, w23, _mm512_srli_epi16::<9>(c23));
                    most = _mm512_max_epu16(most, _mm512_max_epu16(c01, c23));
                    (
                        f16_odd32::<M>(c01, e01 | s01),
                        f16_odd32::<M>(c23, e23 | s23),
                    )
                } else {
                    rare_used = true;
                    f16_quad_rare::<M, true>(&v, &b, (c01, c23), (m01, m23), c, rare)
                };
                // SAFETY: `y` is 128 bytes, on a 64-byte boundary when streamed (the caller
                // aligns `dst`; blocks and quads are whole multiples of 64 bytes).
                unsafe {
                    store64(y.as_mut_ptr(), h01, stream);
                    store64(y.as_mut_ptr().add(64), h23, stream);
                }
            }
            // a negative NaN's code is at least 0xFE00 (the quiet bit set): the block is not
            // counted (nor its rare lanes)
            if _mm512_cmpge_epu16_mask(most, _mm512_set1_epi16(0xFE00u16 as i16)) != 0 {
                break;
            }
            total.exact16 = _mm512_add_epi16(total.exact16, exact);
            total.underflow = _mm512_add_epi32(total.underflow, underflow);
            total.flushed = _mm512_add_epi32(total.flushed, flushed);
            f16_special_counts(total, (n01, w01));
            f16_special_counts(total, (n23, w23));
            if rare_used {
                *total = f16_add(*total, rare);
                *rare = Acc512::zero();
            }
            // the next block too when this one held a few NaN or ±Inf lanes
            let more = (1..=SPECIAL_BLOCK_LANES).contains(&f16_special_lanes(total));
            total.settle();
            blocks += 1;
            if !more {
                break;
            }
        }
        (blocks, *total)
    }

    /// Adds to `acc`'s 16-bit byte counters ([`Acc512::specials16`]) the NaN and ±Inf lanes of
    /// one block's band rule in [`f16_special_quads`]: per 16-bit lane `n` of them, none a
    /// negative NaN, and `w` the sum of their codes' `c >> 9` (+Inf 62, +NaN 63, −Inf 126),
    /// so `w − 62 n` is the NaN lanes plus 64 times the negative ones (at most 60 of each a
    /// lane: a block's 60 groups, below 64).
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn f16_special_counts(acc: &mut Acc512, (n, w): (__m512i, __m512i)) {
        let x = _mm512_sub_epi16(w, _mm512_mullo_epi16(n, _mm512_set1_epi16(62)));
        let nan = _mm512_and_si512(x, _mm512_set1_epi16(63));
        let neg = _mm512_srli_epi16::<6>(x);
        // positive lanes in the low byte, negative ones in the high byte
        let by_sign = _mm512_add_epi16(_mm512_sub_epi16(n, neg), _mm512_slli_epi16::<8>(neg));
        acc.special16 = _mm512_add_epi16(acc.special16, by_sign);
        acc.nan16 = _mm512_add_epi16(acc.nan16, nan);
    }

    /// The bf16 codes (in 32-bit lanes) of the f32 codes `v` in mode `M`, and the lanes that
    /// are exact, as the AVX2 kernel's `round`: on the whole code, sign included.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn bf16_round<const M: u8>(v: __m512i) -> (__m512i, __mmask16) {
        let one = set(1);
        let q = _mm512_srli_epi32::<16>(v);
        let is_exact = _mm512_testn_epi32_mask(v, set(0xFFFF));
        let code = match M {
            rounding::NEAREST_EVEN => _mm512_srli_epi32::<16>(_mm512_add_epi32(
                _mm512_add_epi32(v, set(0x7FFF)),
                _mm512_and_si512(q, one),
            )),
            rounding::NEAREST_AWAY => _mm512_srli_epi32::<16>(_mm512_add_epi32(v, set(0x8000))),
            // The magnitude goes up where inexact and negative ...
            rounding::FLOOR => {
                _mm512_mask_add_epi32(q, !is_exact & _mm512_movepi32_mask(v), q, one)
            }
            // ... or inexact and positive.
            rounding::CEIL => {
                _mm512_mask_add_epi32(q, !is_exact & !_mm512_movepi32_mask(v), q, one)
            }
            rounding::TRUNC => q,
            _ => _mm512_mask_or_epi32(q, !is_exact, q, one),
        };
        (code, is_exact)
    }

    /// What a step of the bf16 kernel needs besides its data: the policy's special results,
    /// whether its ±Inf codes are the rounding's own (0x7F80, 0xFF80), the largest finite
    /// magnitude code and the smallest normal one.
    #[derive(Clone, Copy)]
    struct Bf16Consts {
        specials: Specials,
        natural_inf: bool,
        max: __m512i,
        min: __m512i,
        inc: __m512i,
        /// Whether the policy's NaN code is `vcvtne2ps2bf16`'s own (the quiet NaN by sign with
        /// the payload's top six bits: the instruction sets the quiet bit, 0x40, and keeps the
        /// high half).
        natural_nan: bool,
        /// 1 and 0x100 in every 16-bit lane, hidden from the optimiser ([`Acc512::specials16`]).
        inc16: (__m512i, __m512i),
    }

    /// The lanes of `v` that the bf16 fast rule does not count: a nonzero f32 subnormal (`a`
    /// − 1 wraps for zero, which is not rare), or a magnitude from which some mode rounds to
    /// the largest finite bf16 or beyond (NaN and ±Inf included).
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn bf16_rare(v: __m512i) -> __mmask16 {
        let a = _mm512_and_si512(v, set(0x7FFF_FFFF));
        _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, set(1)), set(0x7F_FFFF))
            | _mm512_cmpgt_epu32_mask(a, set(0x7F7E_0000))
    }

    /// The bf16 codes of two steps (the 32 f32 codes `v0` then `v1`) in mode `M`, 16 bits a
    /// lane, and the lanes that are exact (`e`: the low 16 bits zero): the high halves picked
    /// by one `vpermt2w` (the truncation), after the rounding add for the nearest modes, then
    /// raised by one where the directed mode says (floor: inexact and negative; ceil: inexact
    /// and positive; odd: inexact, last bit set). Lanes the fast rule does not count may come out wrong here (see
    /// [`bf16_pair_rare`]); the caller sorts them out.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn bf16_pair<const M: u8>(v0: __m512i, v1: __m512i, e: __mmask32, high: __m512i) -> __m512i {
        let one = _mm512_set1_epi16(1);
        let pick = |a: __m512i, b: __m512i| _mm512_permutex2var_epi16(a, high, b);
        match M {
            rounding::NEAREST_EVEN => {
                let up = |v: __m512i| {
                    _mm512_add_epi32(
                        _mm512_add_epi32(v, set(0x7FFF)),
                        _mm512_and_si512(_mm512_srli_epi32::<16>(v), set(1)),
                    )
                };
                pick(up(v0), up(v1))
            }
            rounding::NEAREST_AWAY => pick(
                _mm512_add_epi32(v0, set(0x8000)),
                _mm512_add_epi32(v1, set(0x8000)),
            ),
            // t − (t >> 15) arithmetic: one up where negative; t + (!t >> 15) logical: one up
            // where positive (shifts, not a sign mask and a masked add of 1, which the compiler
            // turns into a mask-to-vector move and a subtract)
            rounding::FLOOR => {
                let t = pick(v0, v1);
                _mm512_mask_sub_epi16(t, !e, t, _mm512_srai_epi16::<15>(t))
            }
            rounding::CEIL => {
                let t = pick(v0, v1);
                let up = _mm512_srli_epi16::<15>(_mm512_xor_si512(t, _mm512_set1_epi16(-1)));
                _mm512_mask_add_epi16(t, !e, t, up)
            }
            rounding::TRUNC => pick(v0, v1),
            _ => {
                let t = pick(v0, v1);
                _mm512_mask_mov_epi16(t, !e, _mm512_or_si512(t, one))
            }
        }
    }

    /// The lanes of a pair of steps (`v0` then `v1`, their bf16 codes `code`) that the fast
    /// rule does not count, as two masks: `s`, the inputs that are NaN, ±Inf or a nonzero f32
    /// subnormal (one `vfpclassps` a step), and `b`, the codes whose magnitude is at least the
    /// largest finite one (`max`). A NaN or ±Inf input is in both; a finite input in only one
    /// of them needs the full rule.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn bf16_pair_rare(
        v0: __m512i,
        v1: __m512i,
        code: __m512i,
        max: __m512i,
    ) -> (__mmask32, __mmask32) {
        // vfpclassps: QNaN 0x01, +Inf 0x08, −Inf 0x10, denormal 0x20, SNaN 0x80
        let class = |v: __m512i| _mm512_fpclass_ps_mask::<0xB9>(_mm512_castsi512_ps(v)) as u32;
        let s = class(v0) | (class(v1) << 16);
        let b = _mm512_cmpge_epu16_mask(_mm512_and_si512(code, _mm512_set1_epi16(0x7FFF)), max);
        (s, b)
    }

    /// The bf16 codes (in 32-bit lanes) of one step (the 16 f32 codes `v`) in mode `M` with a
    /// rare lane ([`bf16_rare`]), counted into `acc`: a step whose rare lanes are all ±Inf
    /// under a policy that keeps the rounding's Inf codes counts them by sign (byte counters)
    /// and the other lanes' exactness; one whose rare lanes are all NaN or ±Inf blends the
    /// policy's codes in ([`Specials::nan_inf`]); any other takes the full rule (see
    /// [`bf16_wide`]).
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn bf16_step<const M: u8>(v: __m512i, c: &Bf16Consts, acc: &mut Acc512) -> __m512i {
        let (inf_bits, sat_from) = (set(0x7F80_0000), set(0x7F7F_0000));
        let inc = c.inc;
        let a = _mm512_and_si512(v, set(0x7FFF_FFFF));
        let (code, is_exact) = bf16_round::<M>(v);
        let rare = bf16_rare(v);
        let nan_inf = _mm512_cmpge_epu32_mask(a, inf_bits);
        if rare == 0 {
            acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact, acc.exact, inc);
            code
        } else if rare & !nan_inf == 0 {
            // only NaN or ±Inf lanes are rare
            acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact & !nan_inf, acc.exact, inc);
            let neg = _mm512_movepi32_mask(v);
            let inf = _mm512_cmpeq_epi32_mask(a, inf_bits);
            if c.natural_inf && inf == nan_inf {
                // only ±Inf, whose codes the rounding already gives: counted by sign
                let by_sign = _mm512_mask_mov_epi32(set(1), neg, set(0x100));
                acc.nan_inf = _mm512_mask_add_epi32(acc.nan_inf, inf, acc.nan_inf, by_sign);
                code
            } else {
                c.specials.nan_inf::<16>(a, neg, code, nan_inf, acc)
            }
        } else {
            let out = _mm512_and_si512(code, set(0x7FFF));
            // NaN, or beyond the largest finite after rounding
            let nan = _mm512_cmpgt_epu32_mask(a, inf_bits);
            let beyond = _mm512_cmpgt_epu32_mask(out, c.max) | nan;
            let inexact_finite = !(is_exact | beyond);
            let small = _mm512_cmplt_epu32_mask(out, c.min);
            let is_zero = _mm512_testn_epi32_mask(out, out);
            let held = _mm512_cmpeq_epi32_mask(out, c.max) & _mm512_cmpgt_epu32_mask(a, sat_from);
            acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact & !beyond, acc.exact, inc);
            acc.underflow =
                _mm512_mask_add_epi32(acc.underflow, inexact_finite & small, acc.underflow, inc);
            acc.flushed =
                _mm512_mask_add_epi32(acc.flushed, inexact_finite & is_zero, acc.flushed, inc);
            acc.saturated = _mm512_mask_add_epi32(acc.saturated, held, acc.saturated, inc);
            let neg = _mm512_movepi32_mask(v);
            c.specials.blend::<16>(a, neg, code, beyond, acc)
        }
    }

    /// f32 → bf16 by the AVX-512 loop: the whole steps of 16 of the `n` f32 codes `src` into
    /// `dst` in `k`'s mode from the first 64-byte boundary of `dst`, the elements before it
    /// ([`aligned_head`]) and the last `n % 16` by the AVX2 kernel. `limits` are the largest
    /// finite and the smallest normal magnitude codes. With `stream` the steps' codes are
    /// stored non-temporally and the source prefetched.
    ///
    /// Four steps at a time: each pair converted to 32 codes ([`bf16_pair`]; with AVX-512 BF16
    /// and nearest-even one `vcvtne2ps2bf16`, which rounds normal f32 values and zeros to
    /// nearest even as the rule does) and its rare lanes taken ([`bf16_pair_rare`]). None in
    /// the four: only the exact lanes are counted (the low 16 bits zero). Otherwise four steps
    /// of ±Inf alone are counted by sign and given the policy's Inf codes, and any other go
    /// pair by pair ([`bf16_pair_rule`]): a pair with only NaN and ±Inf counts those by class
    /// and sign and blends the policy's codes in ([`PairConsts::nan_inf`]); any other pair
    /// (and an odd last step) takes [`bf16_step`] per step: ±Inf alone under a policy that
    /// keeps their codes is counted by sign; other rare lanes take the full rule (the AVX2
    /// kernel's, per step): the finite lanes' exactness, underflow (inexact below the
    /// smallest normal), flush and saturation (the largest finite code from a magnitude
    /// beyond it) counted; the lanes whose magnitude code passes the largest finite one or
    /// that are NaN replaced by the policy's results by sign (NaN: with the payload's top
    /// bits) and counted by class and sign. The counters are folded once per block of
    /// [`BLOCK_STEPS`] steps.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512 F, BW, VL and DQ; with `stream`, `dst` must start
    /// on a 64-byte boundary.
    pub(crate) unsafe fn bf16_wide(
        k: &Bf16,
        limits: (u32, u32),
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream: bool,
    ) -> StatusCounts {
        let sp = &k.specials;
        let ne = crate::bulk::kernels::simd::avx512bf16_present();
        // SAFETY: the caller's guarantees; the BF16 variant only where the CPU has AVX-512 BF16.
        unsafe {
            wide(
                k,
                k.mode,
                sp,
                src,
                dst,
                n,
                aligned_head(dst, n),
                |x, y| match k.mode {
                    rounding::NEAREST_EVEN if ne => {
                        bf16_steps_ne::<{ rounding::NEAREST_EVEN }>(sp, limits, x, y, stream)
                    }
                    rounding::NEAREST_EVEN => {
                        bf16_steps_any::<{ rounding::NEAREST_EVEN }>(sp, limits, x, y, stream)
                    }
                    rounding::NEAREST_AWAY => {
                        bf16_steps_any::<{ rounding::NEAREST_AWAY }>(sp, limits, x, y, stream)
                    }
                    rounding::FLOOR => {
                        bf16_steps_any::<{ rounding::FLOOR }>(sp, limits, x, y, stream)
                    }
                    rounding::CEIL => {
                        bf16_steps_any::<{ rounding::CEIL }>(sp, limits, x, y, stream)
                    }
                    rounding::TRUNC => {
                        bf16_steps_any::<{ rounding::TRUNC }>(sp, limits, x, y, stream)
                    }
                    _ => bf16_steps_any::<{ rounding::ODD }>(sp, limits, x, y, stream),
                },
            )
        }
    }

    /// What a pair of bf16 steps needs besides its data: the word indices of the 32 high
    /// halves of two vectors (for `vpermt2w`), the largest finite magnitude code, and the
    /// policy's NaN and Inf codes by sign with the NaN payload mask, 16 bits a lane.
    #[derive(Clone, Copy)]
    struct PairConsts {
        high: __m512i,
        max: __m512i,
        nan: [__m512i; 2],
        inf: [__m512i; 2],
        payload: __m512i,
    }

    impl PairConsts {
        #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
        #[inline]
        fn new(sp: &SpecialResults, max_code: u32) -> PairConsts {
            let word = |x: u32| _mm512_set1_epi16(x as u16 as i16);
            let high: [u16; 32] = std::array::from_fn(|i| 2 * i as u16 + 1);
            PairConsts {
                // SAFETY: `high` is 64 bytes, the size of the unaligned load.
                high: unsafe { _mm512_loadu_si512(high.as_ptr().cast()) },
                max: word(max_code),
                nan: [word(sp.nan[0].0), word(sp.nan[1].0)],
                inf: [word(sp.inf[0].0), word(sp.inf[1].0)],
                payload: word(sp.nan_payload & 0x7FFF),
            }
        }

        /// The codes `code` of a pair of steps (`v0` then `v1`) whose only rare lanes `s` are
        /// NaN or ±Inf, with the policy's codes blended in on those (NaN's with the payload's
        /// top bits; Inf's only when `natural_inf` is false, the rounding's own otherwise);
        /// the exact lanes `exact` counted, the NaN and Inf lanes counted by sign.
        #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
        #[inline]
        #[allow(clippy::too_many_arguments)]
        fn nan_inf(
            &self,
            v0: __m512i,
            v1: __m512i,
            code: __m512i,
            exact: __mmask32,
            s: __mmask32,
            natural_inf: bool,
            inc: __m512i,
            acc: &mut Acc512,
        ) -> __m512i {
            let nan_of = |v: __m512i| _mm512_fpclass_ps_mask::<0x81>(_mm512_castsi512_ps(v)) as u32;
            let nan = nan_of(v0) | (nan_of(v1) << 16);
            let inf = s & !nan;
            let neg = _mm512_movepi16_mask(code);
            acc.exact = _mm512_mask_add_epi32(acc.exact, exact as u16, acc.exact, inc);
            acc.exact = _mm512_mask_add_epi32(acc.exact, (exact >> 16) as u16, acc.exact, inc);
            acc.nan_inf(s as u16, nan as u16, neg as u16);
            acc.nan_inf((s >> 16) as u16, (nan >> 16) as u16, (neg >> 16) as u16);
            let fixed = |r: &[__m512i; 2]| _mm512_mask_mov_epi16(r[0], neg, r[1]);
            let code = if natural_inf {
                code
            } else {
                _mm512_mask_mov_epi16(code, inf, fixed(&self.inf))
            };
            if nan == 0 {
                return code;
            }
            // fixed | t & payload, t the high halves (the magnitude's top bits and the sign)
            let t = _mm512_permutex2var_epi16(v0, self.high, v1);
            let nan_code = _mm512_ternarylogic_epi32::<0xF8>(fixed(&self.nan), t, self.payload);
            _mm512_mask_mov_epi16(code, nan, nan_code)
        }
    }

    /// The bf16 codes (`code`, 16 bits a lane) of a pair of steps (`v0` then `v1`, `e` their
    /// exact lanes) with the rare lanes `s` and `b` of [`bf16_pair_rare`], counted into
    /// `acc` by the rule that fits the pair (see [`bf16_wide`]).
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    #[allow(clippy::too_many_arguments)]
    fn bf16_pair_rule<const M: u8>(
        v0: __m512i,
        v1: __m512i,
        code: __m512i,
        e: __mmask32,
        (s, b): (__mmask32, __mmask32),
        c: &Bf16Consts,
        pc: &PairConsts,
        acc: &mut Acc512,
    ) -> __m512i {
        let inc = c.inc;
        if s | b == 0 {
            acc.exact = _mm512_mask_add_epi32(acc.exact, e as u16, acc.exact, inc);
            acc.exact = _mm512_mask_add_epi32(acc.exact, (e >> 16) as u16, acc.exact, inc);
            code
        } else if s == b {
            pc.nan_inf(v0, v1, code, e & !s, s, c.natural_inf, inc, acc)
        } else {
            let h0 = _mm512_cvtepi32_epi16(bf16_step::<M>(v0, c, acc));
            let h1 = _mm512_cvtepi32_epi16(bf16_step::<M>(v1, c, acc));
            join(h0, h1)
        }
    }

    /// Defines the loop of [`bf16_wide`] over whole steps as `$name` for the target features
    /// `$features`, whose pairs of steps convert by `vcvtne2ps2bf16` when `$ne`.
    macro_rules! bf16_steps_variant {
        ($name:ident, $features:literal, $ne:literal) => {
            /// The bf16 codes of the whole steps of `src` (`src.len() / 64` steps of 16 f32
            /// codes) in mode `M` into `dst`, and their counts (see [`bf16_wide`]).
            ///
            /// # Safety
            /// As [`bf16_wide`]; `dst` must hold `src.len() / 2` bytes, and the CPU must
            /// support the function's target features.
            #[target_feature(enable = $features)]
            unsafe fn $name<const M: u8>(
                sp: &SpecialResults,
                (max_code, min_normal): (u32, u32),
                src: &[u8],
                dst: &mut [u8],
                stream: bool,
            ) -> Totals {
                let c = Bf16Consts {
                    specials: Specials::new(sp),
                    natural_inf: sp.inf[0].0 == 0x7F80 && sp.inf[1].0 == 0xFF80,
                    max: set(max_code),
                    min: set(min_normal),
                    // 1 in every lane for the counters, hidden from the optimiser (see
                    // `f16_steps`)
                    inc: std::hint::black_box(set(1)),
                    natural_nan: sp.nan[0].0 == 0x7FC0
                        && sp.nan[1].0 == 0xFFC0
                        && sp.nan_payload & 0x3F == 0x3F,
                    inc16: std::hint::black_box((_mm512_set1_epi16(1), _mm512_set1_epi16(0x100))),
                };
                let pc = PairConsts::new(sp, max_code);
                /// The whole four-step groups of `xs` into `ys` (see [`bf16_wide`]); with
                /// `SPECIAL` by the special rule ([`bf16_quad_special`]). Two loops, so that
                /// neither carries the other's registers.
                ///
                /// # Safety
                /// As the enclosing function: `ys` must hold `xs.len() / 2` bytes.
                #[target_feature(enable = $features)]
                #[inline]
                unsafe fn quads<const M: u8, const SPECIAL: bool>(
                    xs: &[u8],
                    ys: &mut [u8],
                    c: &Bf16Consts,
                    pc: &PairConsts,
                    acc_out: &mut Acc512,
                    stream: bool,
                ) {
                    // the counters in registers for the loop, not behind the reference
                    let mut counters = *acc_out;
                    let acc = &mut counters;
                    // the 32 codes of a pair, and its rare lanes
                    let codes = |v0: __m512i, v1: __m512i, e: __mmask32| {
                        let code = if $ne && M == rounding::NEAREST_EVEN {
                            // SAFETY: this variant runs only where the CPU has AVX-512 BF16.
                            unsafe {
                                std::mem::transmute::<__m512bh, __m512i>(
                                    std::arch::x86_64::_mm512_cvtne2ps_pbh(
                                        _mm512_castsi512_ps(v1),
                                        _mm512_castsi512_ps(v0),
                                    ),
                                )
                            }
                        } else {
                            bf16_pair::<M>(v0, v1, e, pc.high)
                        };
                        (code, bf16_pair_rare(v0, v1, code, pc.max))
                    };
                    let exact = |v: __m512i| _mm512_testn_epi32_mask(v, set(0xFFFF));
                    for (x, y) in xs.chunks_exact(256).zip(ys.chunks_exact_mut(128)) {
                        let v = load_quad(x, stream);
                        let e: [__mmask16; 4] = std::array::from_fn(|i| exact(v[i]));
                        let e01 = _mm512_kunpackw(u32::from(e[1]), u32::from(e[0]));
                        let e23 = _mm512_kunpackw(u32::from(e[3]), u32::from(e[2]));
                        let (c01, r01) = codes(v[0], v[1], e01);
                        let (c23, r23) = codes(v[2], v[3], e23);
                        let fast = if SPECIAL {
                            bf16_quad_special::<M, $ne>(
                                &v,
                                (c01, c23),
                                (e01, e23),
                                (r01, r23),
                                c,
                                pc,
                                acc,
                            )
                        } else if r01.0 | r01.1 | r23.0 | r23.1 == 0 {
                            acc.exact32(e01, c.inc16.0);
                            acc.exact32(e23, c.inc16.0);
                            Some((c01, c23))
                        } else {
                            None
                        };
                        // (one call of the rare rule, so that it stays inlined)
                        let (h01, h23) = match fast {
                            Some(h) => h,
                            None => bf16_quad_rare::<M>(
                                &v,
                                (c01, c23),
                                (e01, e23),
                                (r01, r23),
                                c,
                                pc,
                                acc,
                            ),
                        };
                        // SAFETY: `y` is 128 bytes, on a 64-byte boundary when streamed (the
                        // caller aligns `dst`; blocks and quads are whole multiples of 64
                        // bytes).
                        unsafe {
                            store64(y.as_mut_ptr(), h01, stream);
                            store64(y.as_mut_ptr().add(64), h23, stream);
                        }
                    }
                    *acc_out = counters;
                }
                // the 32 codes of a pair, and its rare lanes
                let codes = |v0: __m512i, v1: __m512i, e: __mmask32| {
                    let code = if $ne && M == rounding::NEAREST_EVEN {
                        // SAFETY: this variant runs only where the CPU has AVX-512 BF16.
                        unsafe {
                            std::mem::transmute::<__m512bh, __m512i>(
                                std::arch::x86_64::_mm512_cvtne2ps_pbh(
                                    _mm512_castsi512_ps(v1),
                                    _mm512_castsi512_ps(v0),
                                ),
                            )
                        }
                    } else {
                        bf16_pair::<M>(v0, v1, e, pc.high)
                    };
                    (code, bf16_pair_rare(v0, v1, code, pc.max))
                };
                let exact = |v: __m512i| _mm512_testn_epi32_mask(v, set(0xFFFF));
                let mut totals = Totals::default();
                let mut acc = Acc512::zero();
                let steps = src.len() / 64;
                // whether the last block held NaN or ±Inf: this block then takes the special
                // rule
                let mut specials = false;
                for (blk, (xs, ys)) in src[..64 * steps]
                    .chunks(64 * BLOCK_STEPS)
                    .zip(dst[..32 * steps].chunks_mut(32 * BLOCK_STEPS))
                    .enumerate()
                {
                    let whole = xs.len() / 256 * 256;
                    let (qx, rx) = xs.split_at(whole);
                    let (qy, ry) = ys.split_at_mut(whole / 2);
                    // SAFETY: the caller's guarantees.
                    unsafe {
                        if specials {
                            quads::<M, true>(qx, qy, &c, &pc, &mut acc, stream);
                        } else {
                            quads::<M, false>(qx, qy, &c, &pc, &mut acc, stream);
                        }
                    }
                    // the block's last one to three steps (only in the last block)
                    let mut rest = rx.chunks_exact(64);
                    let mut rest_out = ry.chunks_exact_mut(32);
                    while let (Some(x0), Some(y0)) = (rest.next(), rest_out.next()) {
                        // SAFETY: `x0` is 64 bytes, the size of the unaligned load.
                        let v0 = unsafe { _mm512_loadu_si512(x0.as_ptr().cast()) };
                        match (rest.next(), rest_out.next()) {
                            (Some(x1), Some(y1)) => {
                                // SAFETY: `x1` is 64 bytes, the size of the unaligned load.
                                let v1 = unsafe { _mm512_loadu_si512(x1.as_ptr().cast()) };
                                let e = _mm512_kunpackw(u32::from(exact(v1)), u32::from(exact(v0)));
                                let (code, r) = codes(v0, v1, e);
                                let h = bf16_pair_rule::<M>(v0, v1, code, e, r, &c, &pc, &mut acc);
                                // SAFETY: 32 bytes each, on 32-byte boundaries when streamed.
                                unsafe {
                                    store(y0, _mm512_castsi512_si256(h), stream);
                                    store(y1, _mm512_extracti64x4_epi64::<1>(h), stream);
                                }
                            }
                            _ => {
                                let h = _mm512_cvtepi32_epi16(bf16_step::<M>(v0, &c, &mut acc));
                                // SAFETY: 32 bytes, on a 32-byte boundary when streamed.
                                unsafe { store(y0, h, stream) };
                            }
                        }
                    }
                    specials = c.natural_inf && acc.saw_special();
                    acc.settle();
                    if (blk + 1) % FLUSH_BLOCKS == 0 {
                        acc.flush(&mut totals);
                    }
                }
                acc.flush(&mut totals);
                totals
            }
        };
    }

    /// The bf16 codes (`c01`: steps 0 and 1, `c23`: steps 2 and 3) of four steps `v` by the
    /// special rule, for blocks that follow one with NaN or ±Inf under a policy that keeps the
    /// rounding's ±Inf codes (`e`: the exact lanes, `r`: the rare lanes of [`bf16_pair_rare`]
    /// by pair): without a branch on where they are, when each pair's rare lanes are only NaN
    /// and ±Inf (`s` equal to `b`), the others count exactness and those are counted by sign
    /// and class; their codes are the conversion's own with `vcvtne2ps2bf16` under a policy
    /// whose NaN code is its own ([`Bf16Consts::natural_nan`]: a NaN code then has the quiet
    /// bit, 0x40), else the policy's NaN codes are blended in (the fixed bits by sign and the
    /// payload's top bits from the high halves). `None` (nothing counted) for any other four
    /// steps: the caller takes [`bf16_quad_rare`].
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    #[allow(clippy::type_complexity)]
    fn bf16_quad_special<const M: u8, const NE: bool>(
        v: &[__m512i; 4],
        (c01, c23): (__m512i, __m512i),
        (e01, e23): (__mmask32, __mmask32),
        (r01, r23): ((__mmask32, __mmask32), (__mmask32, __mmask32)),
        c: &Bf16Consts,
        pc: &PairConsts,
        acc: &mut Acc512,
    ) -> Option<(__m512i, __m512i)> {
        if (r01.0 ^ r01.1) | (r23.0 ^ r23.1) != 0 {
            return None;
        }
        let natural = NE && M == rounding::NEAREST_EVEN && c.natural_nan;
        let mut pair = |v0: __m512i, v1: __m512i, code: __m512i, e: __mmask32, s: __mmask32| {
            acc.exact32(e & !s, c.inc16.0);
            if natural {
                let nan = _mm512_mask_test_epi16_mask(s, code, _mm512_set1_epi16(0x40));
                acc.specials16(code, s, nan, c.inc16);
                return code;
            }
            let nan_of = |v: __m512i| _mm512_fpclass_ps_mask::<0x81>(_mm512_castsi512_ps(v));
            let nan = _mm512_kunpackw(u32::from(nan_of(v1)), u32::from(nan_of(v0)));
            // the high halves: the sign, the magnitude's top bits
            let t = _mm512_permutex2var_epi16(v0, pc.high, v1);
            let fixed = _mm512_mask_mov_epi16(pc.nan[0], _mm512_movepi16_mask(t), pc.nan[1]);
            // fixed | t & payload
            let nan_code = _mm512_ternarylogic_epi32::<0xF8>(fixed, t, pc.payload);
            acc.specials16(t, s, nan, c.inc16);
            _mm512_mask_mov_epi16(code, nan, nan_code)
        };
        Some((
            pair(v[0], v[1], c01, e01, r01.0),
            pair(v[2], v[3], c23, e23, r23.0),
        ))
    }

    /// The bf16 codes (`c01`: steps 0 and 1, `c23`: steps 2 and 3) of four steps `v` with a
    /// rare lane (`e`: the exact lanes, `r`: the rare lanes of [`bf16_pair_rare`] by pair),
    /// counted into `acc`: four steps of ±Inf alone (a causal mask's −∞) are counted by sign
    /// and given the policy's codes by sign; any other go pair by pair ([`bf16_pair_rule`]).
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    #[allow(clippy::type_complexity)]
    fn bf16_quad_rare<const M: u8>(
        v: &[__m512i; 4],
        (c01, c23): (__m512i, __m512i),
        (e01, e23): (__mmask32, __mmask32),
        (r01, r23): ((__mmask32, __mmask32), (__mmask32, __mmask32)),
        c: &Bf16Consts,
        pc: &PairConsts,
        acc: &mut Acc512,
    ) -> (__m512i, __m512i) {
        // vfpclassps: +Inf 0x08, −Inf 0x10
        let inf = |v: __m512i| _mm512_fpclass_ps_mask::<0x18>(_mm512_castsi512_ps(v));
        if r01.0 & r23.0 == u32::MAX && inf(v[0]) & inf(v[1]) & inf(v[2]) & inf(v[3]) == 0xFFFF {
            for &vk in v {
                let by_sign = _mm512_mask_mov_epi32(c.inc, _mm512_movepi32_mask(vk), set(0x100));
                acc.nan_inf = _mm512_add_epi32(acc.nan_inf, by_sign);
            }
            let by_sign = |code: __m512i| {
                _mm512_mask_mov_epi16(pc.inf[0], _mm512_movepi16_mask(code), pc.inf[1])
            };
            return (by_sign(c01), by_sign(c23));
        }
        (
            bf16_pair_rule::<M>(v[0], v[1], c01, e01, r01, c, pc, acc),
            bf16_pair_rule::<M>(v[2], v[3], c23, e23, r23, c, pc, acc),
        )
    }

    bf16_steps_variant!(
        bf16_steps_any,
        "avx2,avx512f,avx512bw,avx512vl,avx512dq",
        false
    );
    bf16_steps_variant!(
        bf16_steps_ne,
        "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512bf16",
        true
    );
}
