//! The blocks of the f32 → f16 ([`crate::bulk::kernels::x86_avx2::f16c`]) and f32 → bf16
//! ([`crate::bulk::kernels::x86_avx2::f32_bf16`]) kernels at the AVX-512 level: the same
//! rounding and statuses as their AVX2 loops, 16 lanes per step, statuses from compare masks
//! counted by masked adds. Each step is cast by the fast rule; a step with a rare lane (one
//! the fast rule does not count: NaN, ±Inf, overflow, saturation, and for bf16 f32
//! subnormals) is cast by the full rule instead, 16 lanes at a time, the policy's special
//! results blended in by masks: no block is cast twice. Measurements are in
//! `docs/kernels.md`.

pub(crate) use simd::{bf16_block, f16_block};

mod simd {
    use crate::bulk::kernels::portable::f32_half::{F16c, MAX_F32};
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx2::f32_half::{Acc, Fixed, SpecialResults, rounding};
    use std::arch::x86_64::{
        __m256i, __m512i, __mmask16, _mm256_add_epi32, _mm256_and_si256, _mm256_cmpge_epu16_mask,
        _mm256_cmplt_epu16_mask, _mm256_mask_mov_epi16, _mm256_or_si256, _mm256_set1_epi16,
        _mm256_storeu_si256, _mm256_stream_si256, _mm256_sub_epi16, _mm256_testn_epi16_mask,
        _mm512_add_epi32, _mm512_and_si512, _mm512_castps_si512, _mm512_castsi512_ps,
        _mm512_castsi512_si256, _mm512_cmpeq_epi32_mask, _mm512_cmpge_epu32_mask,
        _mm512_cmpgt_epu32_mask, _mm512_cmplt_epu32_mask, _mm512_cvt_roundps_ph,
        _mm512_cvtepi32_epi16, _mm512_cvtepu16_epi32, _mm512_cvtph_ps, _mm512_extracti64x4_epi64,
        _mm512_loadu_si512, _mm512_mask_add_epi32, _mm512_mask_mov_epi32, _mm512_mask_or_epi32,
        _mm512_min_epi32, _mm512_min_epu32, _mm512_movepi32_mask, _mm512_or_si512,
        _mm512_set1_epi32, _mm512_setzero_si512, _mm512_slli_epi32, _mm512_srli_epi32,
        _mm512_srlv_epi32, _mm512_sub_epi32, _mm512_ternarylogic_epi32, _mm512_testn_epi32_mask,
        _mm512_xor_si512,
    };

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

        /// The counters folded into an AVX2 counter set.
        #[target_feature(enable = "avx2,avx512f")]
        #[inline]
        fn fold(self) -> Acc {
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

    /// One block of the f16 kernel `k` in mode `M`, 16 elements per step (`src.len() / 64`
    /// steps): the codes and their counts. A step whose codes stay below the largest finite
    /// f16 counts exactness, underflow and flush; a step with a lane at or beyond it (NaN,
    /// ±Inf, overflow, saturation; for odd, whose check is on the truncation, from one code
    /// below) sorts those lanes out by the full rule (the AVX2 kernel's `full`): overflow by
    /// the mode's threshold for the lane's sign, the special lanes replaced by the policy's
    /// results and counted by class and sign, the others saturated. With `stream` the codes
    /// are stored non-temporally.
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
        // 1 in every lane, hidden from the optimiser: a masked add of it stays one
        // instruction (one it can see becomes mask moves through general registers, a
        // mask-to-vector move and a subtract: most of this loop's time at 1 Mi elements)
        let one = std::hint::black_box(set(1));
        let sp = Specials::new(&k.specials);
        let above = [set(k.overflow_above[0]), set(k.overflow_above[1])];
        let top: i16 = if M == rounding::ODD { 0x7BFE } else { 0x7BFF };
        let limit = _mm256_set1_epi16(top);
        // the band of normal magnitudes below `limit`, as one unsigned compare on m − 0x400
        let (normal_from, band) = (_mm256_set1_epi16(0x400), _mm256_set1_epi16(top - 0x400));
        let mut acc = Acc512::zero();
        for (x, y) in src.chunks_exact(64).zip(dst.chunks_exact_mut(32)) {
            prefetch(x.as_ptr());
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let a = _mm512_and_si512(v, set(0x7FFF_FFFF));
            let (h, back, base) = f16_round::<M>(v, a);
            let is_exact = _mm512_cmpeq_epi32_mask(back, v);
            let m = _mm256_and_si256(base, _mm256_set1_epi16(0x7FFF));
            // the usual step: every code normal and below the limit, only exactness to count
            let outside = _mm256_cmpge_epu16_mask(_mm256_sub_epi16(m, normal_from), band);
            let rare = if outside == 0 {
                0
            } else {
                _mm256_cmpge_epu16_mask(m, limit)
            };
            let out = if outside == 0 {
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
                let code = sp.nan_inf::<13>(a, neg, _mm512_cvtepu16_epi32(h), nan_inf, &mut acc);
                _mm512_cvtepi32_epi16(code)
            } else {
                let code = _mm512_cvtepu16_epi32(h);
                let m = _mm512_and_si512(code, set(0x7FFF));
                let small = _mm512_cmplt_epu32_mask(m, set(0x400));
                let zero = _mm512_testn_epi32_mask(m, m);
                let neg = _mm512_movepi32_mask(v);
                let special =
                    _mm512_cmpgt_epu32_mask(a, _mm512_mask_mov_epi32(above[0], neg, above[1]));
                let beyond = _mm512_cmpgt_epu32_mask(a, set(MAX_F32));
                // (special lanes are never small: their f16 magnitude is at least 0x7BFF)
                acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact & !special, acc.exact, one);
                acc.underflow =
                    _mm512_mask_add_epi32(acc.underflow, small & !is_exact, acc.underflow, one);
                acc.flushed =
                    _mm512_mask_add_epi32(acc.flushed, zero & !is_exact, acc.flushed, one);
                acc.saturated =
                    _mm512_mask_add_epi32(acc.saturated, beyond & !special, acc.saturated, one);
                _mm512_cvtepi32_epi16(sp.blend::<13>(a, neg, code, special, &mut acc))
            };
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

    /// One block of the bf16 kernel in mode `M`, 16 elements per step (`src.len() / 64`
    /// steps): the codes and their counts. A step whose lanes are all ±0 or normal f32
    /// magnitudes below those from which a mode can round to the largest finite bf16 counts
    /// its exact lanes only; a step with any other lane takes the full rule (the AVX2
    /// kernel's full rule, per step): the finite lanes' exactness, underflow (inexact below
    /// `min_normal`), flush and saturation (`max_code` from a magnitude beyond it) counted;
    /// the lanes whose magnitude code passes `max_code` or that are NaN replaced by `sp`'s
    /// results by sign (NaN: with the payload's top bits) and counted by class and sign. With
    /// `stream` the codes are stored non-temporally.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512 F, BW, VL and DQ; with `stream`, `dst` must start
    /// on a 32-byte boundary.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    pub(crate) unsafe fn bf16_block<const M: u8>(
        sp: &SpecialResults,
        (max_code, min_normal): (u32, u32),
        src: &[u8],
        dst: &mut [u8],
        stream: bool,
    ) -> Acc {
        let specials = Specials::new(sp);
        let (inf_bits, max, min, sat_from) = (
            set(0x7F80_0000),
            set(max_code),
            set(min_normal),
            set(0x7F7F_0000),
        );
        let one = set(1);
        // 1 in every lane for the counters, hidden from the optimiser (see `f16_block`)
        let inc = std::hint::black_box(one);
        let mut acc = Acc512::zero();
        for (x, y) in src.chunks_exact(64).zip(dst.chunks_exact_mut(32)) {
            prefetch(x.as_ptr());
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let a = _mm512_and_si512(v, set(0x7FFF_FFFF));
            let (code, is_exact) = bf16_round::<M>(v);
            // a nonzero f32 subnormal (a - 1 wraps for zero, which is not rare), or a
            // magnitude from which some mode rounds to the largest finite bf16 or beyond
            let rare = _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), set(0x7F_FFFF))
                | _mm512_cmpgt_epu32_mask(a, set(0x7F7E_0000));
            let nan_inf = _mm512_cmpge_epu32_mask(a, inf_bits);
            let code = if rare == 0 {
                acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact, acc.exact, inc);
                code
            } else if rare & !nan_inf == 0 {
                // only NaN or ±Inf lanes are rare
                acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact & !nan_inf, acc.exact, inc);
                let neg = _mm512_movepi32_mask(v);
                specials.nan_inf::<16>(a, neg, code, nan_inf, &mut acc)
            } else {
                let out = _mm512_and_si512(code, set(0x7FFF));
                // NaN, or beyond the largest finite after rounding
                let nan = _mm512_cmpgt_epu32_mask(a, inf_bits);
                let beyond = _mm512_cmpgt_epu32_mask(out, max) | nan;
                let inexact_finite = !(is_exact | beyond);
                let small = _mm512_cmplt_epu32_mask(out, min);
                let is_zero = _mm512_testn_epi32_mask(out, out);
                let held = _mm512_cmpeq_epi32_mask(out, max) & _mm512_cmpgt_epu32_mask(a, sat_from);
                acc.exact = _mm512_mask_add_epi32(acc.exact, is_exact & !beyond, acc.exact, inc);
                acc.underflow = _mm512_mask_add_epi32(
                    acc.underflow,
                    inexact_finite & small,
                    acc.underflow,
                    inc,
                );
                acc.flushed =
                    _mm512_mask_add_epi32(acc.flushed, inexact_finite & is_zero, acc.flushed, inc);
                acc.saturated = _mm512_mask_add_epi32(acc.saturated, held, acc.saturated, inc);
                let neg = _mm512_movepi32_mask(v);
                specials.blend::<16>(a, neg, code, beyond, &mut acc)
            };
            // SAFETY: `y` is 32 bytes, on a 32-byte boundary when streamed.
            unsafe { store(y, _mm512_cvtepi32_epi16(code), stream) };
        }
        acc.fold()
    }
}
