//! The blocks of the f32 → f16 ([`crate::bulk::kernels::x86_avx2::f16c`]) and f32 → bf16
//! ([`crate::bulk::kernels::x86_avx2::f32_bf16`]) kernels at the AVX-512 level: the same
//! rounding and statuses as their AVX2 loops, 16 lanes per step, statuses from compare masks
//! counted by masked adds. Two steps at a time are converted and sorted by their codes: the
//! fast rule, the fast rule with NaN and ±Inf lanes counted and given the policy's codes by
//! masks, or, for a pair with another rare lane (a finite overflow, saturation, and for bf16
//! f32 subnormals), the full rule per step: no block is cast twice. Measurements are in
//! `docs/kernels.md`.

pub(crate) use simd::{bf16_block, f16_block};

mod simd {
    use crate::bulk::kernels::portable::f32_half::{F16c, MAX_F32};
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx2::f32_half::{Acc, Fixed, SpecialResults, rounding};
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
            }
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
        limit: __m256i,
        normal_from: __m256i,
        band: __m256i,
        one: __m512i,
        nan16: [__m256i; 2],
        inf16: [__m256i; 2],
        payload16: __m256i,
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
    /// (see [`f16_block`]).
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

    /// One block of the f16 kernel `k` in mode `M`, 16 elements per step (`src.len() / 64`
    /// steps): the codes and their counts. Two steps at a time are converted, then sorted by
    /// their magnitude codes `m`: all in [0x401, top) (normal results of normal inputs below
    /// the largest finite code; top is one lower for odd, whose test is on the truncation)
    /// count only their exact lanes, by the 13 dropped bits; all below top count exactness by
    /// the round trip, underflow and flush ([`f16_finite`]); those whose lanes at or beyond
    /// top are exactly their NaN and ±Inf inputs count those by class and sign and blend the
    /// policy's codes in ([`F16Consts::nan_inf`]). Any other step (and an odd last one) takes
    /// [`f16_step`]: a step with a lane at or beyond top (overflow, saturation) sorts those
    /// lanes out by the full rule (the AVX2 kernel's `full`): overflow by the mode's threshold
    /// for the lane's sign, the special lanes replaced by the policy's results and counted by
    /// class and sign, the others saturated. With `stream` the codes are stored
    /// non-temporally and the source prefetched.
    ///
    /// # Safety
    /// The CPU must support AVX2, F16C and AVX-512 F, BW, VL and DQ; with `stream`, `dst`
    /// must start on a 32-byte boundary.
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
    pub(crate) unsafe fn f16_block<const M: u8>(
        k: &F16c,
        src: &[u8],
        dst: &mut [u8],
        stream: bool,
    ) -> Acc {
        let top: i16 = if M == rounding::ODD { 0x7BFE } else { 0x7BFF };
        let c = F16Consts {
            sp: Specials::new(&k.specials),
            natural_inf: k.specials.inf[0].0 == 0x7C00 && k.specials.inf[1].0 == 0xFC00,
            above: [set(k.overflow_above[0]), set(k.overflow_above[1])],
            limit: _mm256_set1_epi16(top),
            // the band of normal magnitudes below `limit`, as one unsigned compare on m − 0x400
            normal_from: _mm256_set1_epi16(0x400),
            band: _mm256_set1_epi16(top - 0x400),
            // 1 in every lane, hidden from the optimiser: a masked add of it stays one
            // instruction (one it can see becomes mask moves through general registers, a
            // mask-to-vector move and a subtract: most of this loop's time at 1 Mi elements)
            one: std::hint::black_box(set(1)),
            nan16: k.specials.nan.map(|r| _mm256_set1_epi16(r.0 as u16 as i16)),
            inf16: k.specials.inf.map(|r| _mm256_set1_epi16(r.0 as u16 as i16)),
            payload16: _mm256_set1_epi16((k.specials.nan_payload & 0x7FFF) as u16 as i16),
        };
        // codes in [0x401, top) as one unsigned compare on m − 0x401: normal results from
        // normal inputs, below the largest finite code
        let (band_from, band_width) = (_mm256_set1_epi16(0x401), _mm256_set1_epi16(top - 0x401));
        let magnitude = _mm256_set1_epi16(0x7FFF);
        // vfpclassps: +Inf 0x08, −Inf 0x10
        let inf_lanes = |v: __m512i| _mm512_fpclass_ps_mask::<0x18>(_mm512_castsi512_ps(v));
        let one = c.one;
        let mut acc = Acc512::zero();
        let pairs = src.len() / 128;
        let (src_pairs, src_rest) = src.split_at(128 * pairs);
        let (dst_pairs, dst_rest) = dst.split_at_mut(64 * pairs);
        for (x, y) in src_pairs
            .chunks_exact(128)
            .zip(dst_pairs.chunks_exact_mut(64))
        {
            if stream {
                // only past the cache: in it the prefetches cost a fifth of the loop's time
                prefetch(x.as_ptr());
                prefetch(x.as_ptr().wrapping_add(64));
            }
            // SAFETY: `x` is 128 bytes, two unaligned 64-byte loads.
            let (v0, v1) = unsafe {
                (
                    _mm512_loadu_si512(x.as_ptr().cast()),
                    _mm512_loadu_si512(x.as_ptr().add(64).cast()),
                )
            };
            let (b0, b1) = (f16_base::<M>(v0), f16_base::<M>(v1));
            let (m0, m1) = (
                _mm256_and_si256(b0, magnitude),
                _mm256_and_si256(b1, magnitude),
            );
            let outside =
                |m: __m256i| _mm256_cmpge_epu16_mask(_mm256_sub_epi16(m, band_from), band_width);
            let (h0, h1) = if outside(m0) | outside(m1) == 0 {
                // in the band: exact where the 13 dropped significand bits are zero
                let e0 = _mm512_testn_epi32_mask(v0, set(0x1FFF));
                let e1 = _mm512_testn_epi32_mask(v1, set(0x1FFF));
                acc.exact = _mm512_mask_add_epi32(acc.exact, e0, acc.exact, one);
                acc.exact = _mm512_mask_add_epi32(acc.exact, e1, acc.exact, one);
                (f16_odd::<M>(b0, e0), f16_odd::<M>(b1, e1))
            } else if _mm256_cmpge_epu16_mask(m0, c.limit) | _mm256_cmpge_epu16_mask(m1, c.limit)
                == 0
            {
                // below the largest finite code, some lane small (f16 subnormals, zeros)
                (
                    f16_finite::<M>(v0, b0, m0, one, &mut acc),
                    f16_finite::<M>(v1, b1, m1, one, &mut acc),
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
                        c.nan_inf::<M>(v0, b0, m0, s0, &mut acc),
                        c.nan_inf::<M>(v1, b1, m1, s1, &mut acc),
                    )
                } else {
                    (
                        f16_step::<M>(v0, &c, &mut acc),
                        f16_step::<M>(v1, &c, &mut acc),
                    )
                }
            };
            let (y0, y1) = y.split_at_mut(32);
            // SAFETY: `y0` and `y1` are 32 bytes each, on 32-byte boundaries when streamed.
            unsafe {
                store(y0, h0, stream);
                store(y1, h1, stream);
            }
        }
        for (x, y) in src_rest.chunks_exact(64).zip(dst_rest.chunks_exact_mut(32)) {
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let out = f16_step::<M>(v, &c, &mut acc);
            // SAFETY: `y` is 32 bytes, on a 32-byte boundary when streamed.
            unsafe { store(y, out, stream) };
        }
        acc.fold()
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
    /// [`bf16_block`]).
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

    /// One block of the bf16 kernel in mode `M`, 16 elements per step (`src.len() / 64`
    /// steps): the codes and their counts. Two steps at a time are converted to 32 codes
    /// ([`bf16_pair`]; with AVX-512 BF16 and nearest-even one `vcvtne2ps2bf16`, which rounds
    /// normal f32 values and zeros to nearest even as the rule does) and sorted by their rare
    /// lanes ([`bf16_pair_rare`]): none, only the exact lanes are counted (the low 16 bits
    /// zero); only NaN and ±Inf, those are counted by class and sign and the policy's codes
    /// blended in ([`PairConsts::nan_inf`]). Any other pair (and an odd last step) takes
    /// [`bf16_step`] per step: ±Inf alone under a policy that keeps their codes is counted by
    /// sign; other rare lanes take the full rule (the AVX2 kernel's full rule, per step): the
    /// finite lanes' exactness, underflow (inexact below `min_normal`), flush and saturation
    /// (`max_code` from a magnitude beyond it) counted; the lanes whose magnitude code passes
    /// `max_code` or that are NaN replaced by `sp`'s results by sign (NaN: with the payload's
    /// top bits) and counted by class and sign. With `stream` the codes are stored
    /// non-temporally and the source prefetched.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512 F, BW, VL and DQ; with `stream`, `dst` must start
    /// on a 32-byte boundary.
    pub(crate) unsafe fn bf16_block<const M: u8>(
        sp: &SpecialResults,
        limits: (u32, u32),
        src: &[u8],
        dst: &mut [u8],
        stream: bool,
    ) -> Acc {
        // SAFETY: the caller's guarantees; the BF16 variant only where the CPU has AVX-512 BF16.
        unsafe {
            if M == rounding::NEAREST_EVEN && crate::bulk::kernels::simd::avx512bf16_present() {
                bf16_block_ne::<M>(sp, limits, src, dst, stream)
            } else {
                bf16_block_any::<M>(sp, limits, src, dst, stream)
            }
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

    /// Stores the 64 bytes `v` at `y`: non-temporally as two 32-byte halves with `stream`,
    /// else as one unaligned store.
    ///
    /// # Safety
    /// `y` must hold at least 64 bytes, and start on a 32-byte boundary with `stream`.
    #[target_feature(enable = "avx2,avx512f")]
    #[inline]
    unsafe fn store_pair(y: &mut [u8], v: __m512i, stream: bool) {
        // SAFETY: the caller's guarantee.
        unsafe {
            if stream {
                _mm256_stream_si256(y.as_mut_ptr().cast(), _mm512_castsi512_si256(v));
                _mm256_stream_si256(
                    y.as_mut_ptr().add(32).cast(),
                    _mm512_extracti64x4_epi64::<1>(v),
                );
            } else {
                _mm512_storeu_si512(y.as_mut_ptr().cast(), v)
            }
        }
    }

    /// Defines a [`bf16_block`] variant `$name` for the target features `$features`, whose
    /// fast pairs of steps convert by `vcvtne2ps2bf16` when `$ne`.
    macro_rules! bf16_block_variant {
        ($name:ident, $features:literal, $ne:literal) => {
            /// [`bf16_block`] for one set of target features.
            ///
            /// # Safety
            /// As [`bf16_block`], and the CPU must support the function's target features.
            #[target_feature(enable = $features)]
            unsafe fn $name<const M: u8>(
                sp: &SpecialResults,
                (max_code, min_normal): (u32, u32),
                src: &[u8],
                dst: &mut [u8],
                stream: bool,
            ) -> Acc {
                let natural_inf = sp.inf[0].0 == 0x7F80 && sp.inf[1].0 == 0xFF80;
                let c = Bf16Consts {
                    specials: Specials::new(sp),
                    natural_inf,
                    max: set(max_code),
                    min: set(min_normal),
                    // 1 in every lane for the counters, hidden from the optimiser (see
                    // `f16_block`)
                    inc: std::hint::black_box(set(1)),
                };
                let inc = c.inc;
                let pc = PairConsts::new(sp, max_code);
                let mut acc = Acc512::zero();
                let pairs = src.len() / 128;
                let (src_pairs, src_rest) = src.split_at(128 * pairs);
                let (dst_pairs, dst_rest) = dst.split_at_mut(64 * pairs);
                for (x, y) in src_pairs
                    .chunks_exact(128)
                    .zip(dst_pairs.chunks_exact_mut(64))
                {
                    if stream {
                        // only past the cache (see `f16_block`)
                        prefetch(x.as_ptr());
                        prefetch(x.as_ptr().wrapping_add(64));
                    }
                    // SAFETY: `x` is 128 bytes, two unaligned 64-byte loads.
                    let (v0, v1) = unsafe {
                        (
                            _mm512_loadu_si512(x.as_ptr().cast()),
                            _mm512_loadu_si512(x.as_ptr().add(64).cast()),
                        )
                    };
                    let e0 = _mm512_testn_epi32_mask(v0, set(0xFFFF));
                    let e1 = _mm512_testn_epi32_mask(v1, set(0xFFFF));
                    let e = _mm512_kunpackw(u32::from(e1), u32::from(e0));
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
                    let (s, b) = bf16_pair_rare(v0, v1, code, pc.max);
                    let code = if s | b == 0 {
                        acc.exact = _mm512_mask_add_epi32(acc.exact, e0, acc.exact, inc);
                        acc.exact = _mm512_mask_add_epi32(acc.exact, e1, acc.exact, inc);
                        code
                    } else if s == b {
                        pc.nan_inf(v0, v1, code, e & !s, s, c.natural_inf, inc, &mut acc)
                    } else {
                        let h0 = _mm512_cvtepi32_epi16(bf16_step::<M>(v0, &c, &mut acc));
                        let h1 = _mm512_cvtepi32_epi16(bf16_step::<M>(v1, &c, &mut acc));
                        _mm512_inserti64x4::<1>(_mm512_castsi256_si512(h0), h1)
                    };
                    // SAFETY: `y` is 64 bytes, on a 32-byte boundary when streamed.
                    unsafe { store_pair(y, code, stream) };
                }
                for (x, y) in src_rest.chunks_exact(64).zip(dst_rest.chunks_exact_mut(32)) {
                    // SAFETY: `x` is 64 bytes, the size of the unaligned load.
                    let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
                    let out = _mm512_cvtepi32_epi16(bf16_step::<M>(v, &c, &mut acc));
                    // SAFETY: `y` is 32 bytes, on a 32-byte boundary when streamed.
                    unsafe { store(y, out, stream) };
                }
                acc.fold()
            }
        };
    }

    bf16_block_variant!(
        bf16_block_any,
        "avx2,avx512f,avx512bw,avx512vl,avx512dq",
        false
    );
    bf16_block_variant!(
        bf16_block_ne,
        "avx2,avx512f,avx512bw,avx512vl,avx512dq,avx512bf16",
        true
    );
}
