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

    /// The f16 codes in mode `M` of 16 f32 codes `v` whose magnitudes all lie in
    /// [2^−14, 65472) (normal f16 magnitudes whose codes stay below 0x7BFE in every mode),
    /// and the exact lanes: those whose 13 low significand bits, the ones f16 drops, are zero
    /// (one test instead of a conversion back and a compare).
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn f16_band<const M: u8>(v: __m512i) -> (__m256i, __mmask16) {
        let is_exact = _mm512_testn_epi32_mask(v, set(0x1FFF));
        let h = if M == rounding::ODD {
            let t = _mm512_cvt_roundps_ph::<11>(_mm512_castsi512_ps(v));
            _mm256_mask_mov_epi16(t, !is_exact, _mm256_or_si256(t, _mm256_set1_epi16(1)))
        } else {
            f16_round::<M>(v, _mm512_and_si512(v, set(0x7FFF_FFFF))).0
        };
        (h, is_exact)
    }

    /// One block of the f16 kernel `k` in mode `M`, 16 elements per step (`src.len() / 64`
    /// steps): the codes and their counts. Two steps at a time whose 32 magnitudes all lie in
    /// [2^−14, 65472) (checked while pairs keep passing, and on every eighth pair after one
    /// fails) (one unsigned compare per step on `a − 2^−14`: normal f16 results below
    /// the largest finite one in every mode) count only their exact lanes, by the dropped
    /// bits ([`f16_band`]). Any other step (and an odd last one) takes [`f16_step`]: a step
    /// whose codes stay below the largest finite f16 counts exactness, underflow and flush; a
    /// step with a lane at or beyond it (NaN, ±Inf, overflow, saturation; for odd, whose
    /// check is on the truncation, from one code below) sorts those lanes out by the full rule
    /// (the AVX2 kernel's `full`): overflow by the mode's threshold for the lane's sign, the
    /// special lanes replaced by the policy's results and counted by class and sign, the
    /// others saturated. With `stream` the codes are stored non-temporally.
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
        };
        // magnitudes in [2^-14, 65472) as one unsigned compare on a − 2^-14
        let (band_from, band_width) = (set(0x3880_0000), set(0x477F_C000 - 0x3880_0000));
        let one = c.one;
        let mut acc = Acc512::zero();
        let pairs = src.len() / 128;
        let (src_pairs, src_rest) = src.split_at(128 * pairs);
        let (dst_pairs, dst_rest) = dst.split_at_mut(64 * pairs);
        let (mut try_band, mut tries) = (true, 0u32);
        for (x, y) in src_pairs
            .chunks_exact(128)
            .zip(dst_pairs.chunks_exact_mut(64))
        {
            prefetch(x.as_ptr());
            prefetch(x.as_ptr().wrapping_add(64));
            // SAFETY: `x` is 128 bytes, two unaligned 64-byte loads.
            let (v0, v1) = unsafe {
                (
                    _mm512_loadu_si512(x.as_ptr().cast()),
                    _mm512_loadu_si512(x.as_ptr().add(64).cast()),
                )
            };
            let in_band = |v: __m512i| {
                let a = _mm512_and_si512(v, set(0x7FFF_FFFF));
                _mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, band_from), band_width)
            };
            // the band is tried while it serves, and on every eighth pair after a miss
            // (data whose pairs are rarely in it, such as many f16 subnormals, pay little)
            tries = tries.wrapping_add(1);
            let band = (try_band || tries % 8 == 0) && in_band(v0) & in_band(v1) == 0xFFFF;
            try_band = band;
            let (h0, h1) = if band {
                let (h0, e0) = f16_band::<M>(v0);
                let (h1, e1) = f16_band::<M>(v1);
                acc.exact = _mm512_mask_add_epi32(acc.exact, e0, acc.exact, one);
                acc.exact = _mm512_mask_add_epi32(acc.exact, e1, acc.exact, one);
                (h0, h1)
            } else {
                (
                    f16_step::<M>(v0, &c, &mut acc),
                    f16_step::<M>(v1, &c, &mut acc),
                )
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
    /// steps): the codes and their counts. Two steps at a time whose lanes are all ±0 or
    /// normal f32 magnitudes below those from which a mode can round to the largest finite
    /// bf16 count their exact lanes only (the low 16 bits zero); with AVX-512 BF16 and
    /// nearest-even their 32 codes are one `vcvtne2ps2bf16`, which rounds such lanes to
    /// nearest even as the rule does. Any other step (and an odd last one) takes
    /// [`bf16_step`]: ±Inf alone under a policy that keeps their codes is counted by sign;
    /// other rare lanes take the full rule (the AVX2 kernel's full rule, per step): the finite
    /// lanes' exactness, underflow (inexact below `min_normal`), flush and saturation
    /// (`max_code` from a magnitude beyond it) counted; the lanes whose magnitude code passes
    /// `max_code` or that are NaN replaced by `sp`'s results by sign (NaN: with the payload's
    /// top bits) and counted by class and sign. With `stream` the codes are stored
    /// non-temporally.
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
                let mut acc = Acc512::zero();
                let pairs = src.len() / 128;
                let (src_pairs, src_rest) = src.split_at(128 * pairs);
                let (dst_pairs, dst_rest) = dst.split_at_mut(64 * pairs);
                for (x, y) in src_pairs
                    .chunks_exact(128)
                    .zip(dst_pairs.chunks_exact_mut(64))
                {
                    prefetch(x.as_ptr());
                    prefetch(x.as_ptr().wrapping_add(64));
                    // SAFETY: `x` is 128 bytes, two unaligned 64-byte loads.
                    let (v0, v1) = unsafe {
                        (
                            _mm512_loadu_si512(x.as_ptr().cast()),
                            _mm512_loadu_si512(x.as_ptr().add(64).cast()),
                        )
                    };
                    let (h0, h1) = if bf16_rare(v0) | bf16_rare(v1) == 0 {
                        let e0 = _mm512_testn_epi32_mask(v0, set(0xFFFF));
                        let e1 = _mm512_testn_epi32_mask(v1, set(0xFFFF));
                        acc.exact = _mm512_mask_add_epi32(acc.exact, e0, acc.exact, inc);
                        acc.exact = _mm512_mask_add_epi32(acc.exact, e1, acc.exact, inc);
                        if $ne {
                            // SAFETY: this variant runs only where the CPU has AVX-512 BF16.
                            let h: __m512i = unsafe {
                                std::mem::transmute(std::arch::x86_64::_mm512_cvtne2ps_pbh(
                                    _mm512_castsi512_ps(v1),
                                    _mm512_castsi512_ps(v0),
                                ))
                            };
                            (_mm512_castsi512_si256(h), _mm512_extracti64x4_epi64::<1>(h))
                        } else {
                            (
                                _mm512_cvtepi32_epi16(bf16_round::<M>(v0).0),
                                _mm512_cvtepi32_epi16(bf16_round::<M>(v1).0),
                            )
                        }
                    } else {
                        (
                            _mm512_cvtepi32_epi16(bf16_step::<M>(v0, &c, &mut acc)),
                            _mm512_cvtepi32_epi16(bf16_step::<M>(v1, &c, &mut acc)),
                        )
                    };
                    let (y0, y1) = y.split_at_mut(32);
                    // SAFETY: `y0` and `y1` are 32 bytes each, on 32-byte boundaries when
                    // streamed.
                    unsafe {
                        store(y0, h0, stream);
                        store(y1, h1, stream);
                    }
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
