//! The fast blocks of the f32 → f16 ([`crate::bulk::kernels::x86_avx2::f16c`]) and f32 → bf16
//! ([`crate::bulk::kernels::x86_avx2::f32_bf16`]) kernels at the AVX-512 level: the same
//! rounding and per-block answers as their AVX2 fast blocks, 16 lanes per step, statuses from
//! compare masks; a bf16 block with a rare lane is cast again by `bf16_full_block`, an f16 one
//! by the AVX2 full block. Measurements are in `docs/kernels.md`.

pub(crate) use simd::{bf16_fast_block, bf16_full_block, f16_fast_block};

mod simd {
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx2::f32_half::{Acc, Fixed, SpecialResults, rounding};
    use std::arch::x86_64::{
        __m256i, __m512i, _mm256_add_epi32, _mm256_and_si256, _mm256_cmpge_epu16_mask,
        _mm256_cmplt_epu16_mask, _mm256_mask_mov_epi16, _mm256_max_epu16, _mm256_or_si256,
        _mm256_set1_epi16, _mm256_setzero_si256, _mm256_storeu_si256, _mm256_stream_si256,
        _mm256_testn_epi16_mask, _mm512_add_epi32, _mm512_and_si512, _mm512_castps_si512,
        _mm512_castsi512_ps, _mm512_castsi512_si256, _mm512_cmpeq_epi32_mask,
        _mm512_cmpge_epu32_mask, _mm512_cmple_epu32_mask, _mm512_cvt_roundps_ph,
        _mm512_cvtepi32_epi16, _mm512_cvtph_ps, _mm512_extracti64x4_epi64, _mm512_loadu_si512,
        _mm512_mask_add_epi32, _mm512_mask_or_epi32, _mm512_max_epu32, _mm512_min_epi32,
        _mm512_min_epu32, _mm512_movepi32_mask, _mm512_or_si512, _mm512_set1_epi32,
        _mm512_setzero_si512, _mm512_srli_epi32, _mm512_srlv_epi32, _mm512_sub_epi32,
        _mm512_testn_epi32_mask, _mm512_xor_si512,
    };
    use std::arch::x86_64::{
        __mmask16, _mm512_cmpgt_epu32_mask, _mm512_cmplt_epu32_mask, _mm512_mask_mov_epi32,
    };

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
                let d = _mm512_min_epi32(
                    _mm512_sub_epi32(e, _mm512_set1_epi32(102)),
                    _mm512_set1_epi32(11),
                );
                let half = _mm512_srlv_epi32(_mm512_set1_epi32(0x80_0000), d);
                let lifted =
                    _mm512_add_epi32(_mm512_min_epu32(a, _mm512_set1_epi32(0x7F80_0000)), half);
                let sign = _mm512_xor_si512(v, a);
                let h =
                    _mm512_cvt_roundps_ph::<11>(_mm512_castsi512_ps(_mm512_or_si512(lifted, sign)));
                (h, back(h), h)
            }
        }
    }

    /// A block of the f16 kernel's fast path, 16 elements per step (`src.len() / 64` steps):
    /// the codes, exactness, underflow and flush counted, and whether a lane lies beyond the
    /// largest finite f16 (the block must then be cast again by the full block). With
    /// `stream` the codes are stored non-temporally.
    ///
    /// # Safety
    /// The CPU must support AVX2, F16C and AVX-512 F, BW and VL; with `stream`, `dst` must
    /// start on a 32-byte boundary.
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl")]
    pub(crate) unsafe fn f16_fast_block<const M: u8>(
        src: &[u8],
        dst: &mut [u8],
        stream: bool,
    ) -> (Acc, bool) {
        let one = _mm512_set1_epi32(1);
        let mut exact = _mm512_setzero_si512();
        let mut underflow = _mm512_setzero_si512();
        let mut flushed = _mm512_setzero_si512();
        let mut largest = _mm256_setzero_si256();
        for (x, y) in src.chunks_exact(64).zip(dst.chunks_exact_mut(32)) {
            prefetch(x.as_ptr());
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let a = _mm512_and_si512(v, _mm512_set1_epi32(0x7FFF_FFFF));
            let (h, back, base) = f16_round::<M>(v, a);
            let is_exact = _mm512_cmpeq_epi32_mask(back, v);
            let m = _mm256_and_si256(base, _mm256_set1_epi16(0x7FFF));
            let small = _mm256_cmplt_epu16_mask(m, _mm256_set1_epi16(0x400));
            exact = _mm512_mask_add_epi32(exact, is_exact, exact, one);
            underflow = _mm512_mask_add_epi32(underflow, small & !is_exact, underflow, one);
            if M != rounding::ODD {
                let zero = _mm256_testn_epi16_mask(m, m);
                flushed = _mm512_mask_add_epi32(flushed, zero & !is_exact, flushed, one);
            }
            largest = _mm256_max_epu16(largest, m);
            // SAFETY: `y` is 32 bytes, on a 32-byte boundary when streamed.
            unsafe { store(y, h, stream) };
        }
        let limit = if M == rounding::ODD { 0x7BFE } else { 0x7BFF };
        let beyond = _mm256_cmpge_epu16_mask(largest, _mm256_set1_epi16(limit)) != 0;
        let acc = Acc {
            exact: fold(exact),
            underflow: fold(underflow),
            flushed: fold(flushed),
            ..Acc::zero()
        };
        (acc, beyond)
    }

    /// The bf16 codes (in 32-bit lanes) of the f32 codes `v` in mode `M`, and the lanes that
    /// are exact, as the AVX2 kernel's `round`: on the whole code, sign included.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline]
    fn bf16_round<const M: u8>(v: __m512i) -> (__m512i, __mmask16) {
        let one = _mm512_set1_epi32(1);
        let q = _mm512_srli_epi32::<16>(v);
        let is_exact = _mm512_testn_epi32_mask(v, _mm512_set1_epi32(0xFFFF));
        let code = match M {
            rounding::NEAREST_EVEN => _mm512_srli_epi32::<16>(_mm512_add_epi32(
                _mm512_add_epi32(v, _mm512_set1_epi32(0x7FFF)),
                _mm512_and_si512(q, one),
            )),
            rounding::NEAREST_AWAY => {
                _mm512_srli_epi32::<16>(_mm512_add_epi32(v, _mm512_set1_epi32(0x8000)))
            }
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

    /// A block of the bf16 kernel cast again with every status counted, 16 elements per step
    /// (`src.len() / 64` steps), by the rules of the AVX2 kernel's full block: the finite
    /// lanes' exactness, underflow (inexact below `min_normal`), flush and saturation
    /// (`max_code` from a magnitude beyond it) counted; the lanes whose magnitude code passes
    /// `max_code` or that are NaN replaced by `sp`'s results by sign (NaN: with the payload's
    /// top bits) and counted by class and sign. With `stream` the codes are stored
    /// non-temporally.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512 F, BW, VL and DQ; with `stream`, `dst` must start
    /// on a 32-byte boundary.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    pub(crate) unsafe fn bf16_full_block<const M: u8>(
        sp: &SpecialResults,
        (max_code, min_normal): (u32, u32),
        src: &[u8],
        dst: &mut [u8],
        stream: bool,
    ) -> Acc {
        let set = |x: u32| _mm512_set1_epi32(x as i32);
        let by_sign = |r: [Fixed; 2]| [set(r[0].0), set(r[1].0)];
        let (nan_fixed, inf_fixed, ovf_fixed) =
            (by_sign(sp.nan), by_sign(sp.inf), by_sign(sp.overflow));
        let (payload, inf_bits) = (set(sp.nan_payload), set(0x7F80_0000));
        let (max, min, sat_from) = (set(max_code), set(min_normal), set(0x7F7F_0000));
        let one = set(1);
        let zero = _mm512_setzero_si512();
        let (mut exact, mut underflow, mut flushed, mut saturated) = (zero, zero, zero, zero);
        let mut special = [[zero; 2]; 3];
        for (x, y) in src.chunks_exact(64).zip(dst.chunks_exact_mut(32)) {
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let a = _mm512_and_si512(v, set(0x7FFF_FFFF));
            let (code, is_exact) = bf16_round::<M>(v);
            let out = _mm512_and_si512(code, set(0x7FFF));
            // NaN, or beyond the largest finite after rounding
            let nan = _mm512_cmpgt_epu32_mask(a, inf_bits);
            let beyond = _mm512_cmpgt_epu32_mask(out, max) | nan;
            let inexact_finite = !(is_exact | beyond);
            let small = _mm512_cmplt_epu32_mask(out, min);
            let is_zero = _mm512_testn_epi32_mask(out, out);
            let held = _mm512_cmpeq_epi32_mask(out, max) & _mm512_cmpgt_epu32_mask(a, sat_from);
            exact = _mm512_mask_add_epi32(exact, is_exact & !beyond, exact, one);
            underflow = _mm512_mask_add_epi32(underflow, inexact_finite & small, underflow, one);
            flushed = _mm512_mask_add_epi32(flushed, inexact_finite & is_zero, flushed, one);
            saturated = _mm512_mask_add_epi32(saturated, held, saturated, one);
            // the special lanes: NaN, ±Inf, or else a finite overflow, by sign
            let neg = _mm512_movepi32_mask(v);
            let inf = _mm512_cmpeq_epi32_mask(a, inf_bits);
            let overflow = beyond & !(nan | inf);
            let fixed = |r: &[__m512i; 2]| _mm512_mask_mov_epi32(r[0], neg, r[1]);
            let nan_code = _mm512_or_si512(
                fixed(&nan_fixed),
                _mm512_and_si512(_mm512_srli_epi32::<16>(a), payload),
            );
            let code = _mm512_mask_mov_epi32(code, overflow, fixed(&ovf_fixed));
            let code = _mm512_mask_mov_epi32(code, inf, fixed(&inf_fixed));
            let code = _mm512_mask_mov_epi32(code, nan, nan_code);
            for (c, m) in special.iter_mut().zip([nan, inf, overflow]) {
                c[0] = _mm512_mask_add_epi32(c[0], m & !neg, c[0], one);
                c[1] = _mm512_mask_add_epi32(c[1], m & neg, c[1], one);
            }
            // SAFETY: `y` is 32 bytes, on a 32-byte boundary when streamed.
            unsafe { store(y, _mm512_cvtepi32_epi16(code), stream) };
        }
        Acc {
            exact: fold(exact),
            underflow: fold(underflow),
            flushed: fold(flushed),
            saturated: fold(saturated),
            special: special.map(|c| c.map(|z| fold(z))),
        }
    }

    /// A block of the bf16 kernel's fast path, 16 elements per step (`src.len() / 64`
    /// steps): the codes, the exact lanes counted (an AVX2 counter vector), and whether a lane
    /// may need more (a nonzero magnitude below the smallest normal f32, or one from which a
    /// mode can round to the largest finite bf16 or beyond), as the AVX2 fast block. With
    /// `stream` the codes are stored non-temporally.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512 F, BW, VL and DQ; with `stream`, `dst` must start
    /// on a 32-byte boundary.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    pub(crate) unsafe fn bf16_fast_block<const M: u8>(
        src: &[u8],
        dst: &mut [u8],
        stream: bool,
    ) -> (__m256i, bool) {
        let one = _mm512_set1_epi32(1);
        let mut exact = _mm512_setzero_si512();
        let mut lo = _mm512_set1_epi32(-1);
        let mut hi = _mm512_setzero_si512();
        for (x, y) in src.chunks_exact(64).zip(dst.chunks_exact_mut(32)) {
            prefetch(x.as_ptr());
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let a = _mm512_and_si512(v, _mm512_set1_epi32(0x7FFF_FFFF));
            let (code, is_exact) = bf16_round::<M>(v);
            exact = _mm512_mask_add_epi32(exact, is_exact, exact, one);
            // (a - 1 wraps for zero, which is exact)
            lo = _mm512_min_epu32(lo, _mm512_sub_epi32(a, one));
            hi = _mm512_max_epu32(hi, a);
            // SAFETY: `y` is 32 bytes, on a 32-byte boundary when streamed.
            unsafe { store(y, _mm512_cvtepi32_epi16(code), stream) };
        }
        let low = _mm512_cmple_epu32_mask(lo, _mm512_set1_epi32(0x7F_FFFE));
        let high = _mm512_cmpge_epu32_mask(hi, _mm512_set1_epi32(0x7F7E_0001));
        (fold(exact), (low | high) != 0)
    }
}
