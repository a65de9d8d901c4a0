//! The fast blocks of the f32 → f16 ([`f16c`](super::f16c)) and f32 → bf16
//! ([`f32_bf16`](super::f32_bf16)) kernels at the AVX-512 level: the same rounding and the
//! same per-block answers as their AVX2 fast blocks. A block with a rare lane is cast again by
//! the AVX2 kernel's full block, unchanged, so the special lanes (NaN, ±Inf, overflow,
//! saturation) and the tails have one implementation. Tested bit for bit against the
//! reference at every level, like every kernel.
//!
//! The lean blocks (`*_lean_block`, whole blocks of 32-lane steps) do as little per element as
//! the statuses allow: on the 2-core VM a 64 Mi streamed cast lost speed with every vector
//! instruction per line (of a 2-thread memcpy: a shift-only narrowing about 95 %, two
//! `vcvtps2ph` and the store about 90 %, the 16-lane blocks with the round trip about 70 %,
//! these blocks about 80 %). So: 32 lanes per step, one 64-byte store (non-temporal when
//! streaming), and the work that is rare in practice moved out of the loop.
//!
//! - f16: two `vcvtps2ph` joined into one register. Every lane is taken to be inexact, which
//!   holds unless its low 13 bits are zero (the f16 drops at least those 13); the smallest
//!   of those bits over the block (`vpminud`) says whether the block has such a candidate.
//!   Underflow is then "the f16 exponent field is zero" (one `vptestnmw`, counted by
//!   `popcnt`), and a flushed lane needs a zero result (the smallest magnitude code
//!   over the block). A block with a candidate or a zero result is rescanned 16 lanes at a
//!   time; only the groups with a candidate or a magnitude below 2^-24 (where every zero
//!   result comes from) are rounded again with the round trip, correcting the counts (and
//!   for odd, whose fast codes set the last bit everywhere, the codes).
//! - bf16: the high and low 16-bit halves of two registers merged by a shift and a
//!   `vpternlogd` (lane i: element i and element 16 + i), rounded in 16-bit arithmetic (the
//!   carry of nearest-even is "low half ≥ 0x8001 − last bit", one unsigned compare), and put
//!   in element order by one `vpermw`. Exact lanes (low half zero) and results at the edges
//!   (a magnitude code below 0x80 or from 0x7F7F, which covers underflow, saturation, NaN,
//!   ±Inf and overflow) are detected over the block by a `vpminuw` and a `vpmaxuw`; such a
//!   block is rescanned for the exact count and the precise rare test of the AVX2 fast block.

#[cfg(target_arch = "x86_64")]
pub(crate) use lean::{bf16_lean_block, f16_lean_block};
#[cfg(target_arch = "x86_64")]
pub(crate) use simd::{bf16_fast_block, f16_fast_block};

#[cfg(target_arch = "x86_64")]
mod simd {
    use crate::bulk::kernels::f32_half::{Acc, rounding};
    use crate::bulk::kernels::stream::prefetch;
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
    pub(super) fn fold(z: __m512i) -> __m256i {
        _mm256_add_epi32(_mm512_castsi512_si256(z), _mm512_extracti64x4_epi64::<1>(z))
    }

    /// The f16 codes of the f32 codes `v` (magnitudes `a`) in mode `M`, the f32 bits of
    /// their exact round trip, and the codes whose magnitude decides underflow (for odd the
    /// truncation), as the AVX2 kernel's `round`.
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl")]
    #[inline]
    pub(super) fn f16_round<const M: u8>(v: __m512i, a: __m512i) -> (__m256i, __m512i, __m256i) {
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
            saturated: _mm256_setzero_si256(),
        };
        (acc, beyond)
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

#[cfg(target_arch = "x86_64")]
mod lean {
    use super::simd::{f16_round, fold};
    use crate::bulk::kernels::f32_half::{Acc, rounding};
    use crate::bulk::kernels::stream::prefetch;
    use std::arch::x86_64::{
        __m256i, __m512i, _mm256_and_si256, _mm256_cmplt_epu16_mask, _mm256_or_si256,
        _mm256_set1_epi16, _mm256_setr_epi32, _mm256_setzero_si256, _mm256_storeu_si256,
        _mm256_testn_epi16_mask, _mm512_add_epi16, _mm512_and_si512, _mm512_castsi256_si512,
        _mm512_castsi512_ps, _mm512_cmpeq_epi32_mask, _mm512_cmpge_epu16_mask,
        _mm512_cmpge_epu32_mask, _mm512_cmple_epu32_mask, _mm512_cmplt_epu32_mask,
        _mm512_cvt_roundps_ph, _mm512_inserti64x4, _mm512_loadu_si512, _mm512_mask_add_epi16,
        _mm512_mask_add_epi32, _mm512_mask_test_epi16_mask, _mm512_max_epu16, _mm512_max_epu32,
        _mm512_min_epu16, _mm512_min_epu32, _mm512_movepi16_mask, _mm512_or_si512,
        _mm512_permutexvar_epi16, _mm512_set1_epi16, _mm512_set1_epi32, _mm512_setzero_si512,
        _mm512_slli_epi32, _mm512_srli_epi16, _mm512_srli_epi32, _mm512_storeu_si512,
        _mm512_stream_si512, _mm512_sub_epi16, _mm512_sub_epi32, _mm512_ternarylogic_epi32,
        _mm512_testn_epi16_mask, _mm512_testn_epi32_mask,
    };

    /// `vpternlogd` immediate of `a ? c : b`, bit by bit.
    const SELECT: i32 = 0xAC;
    /// `vpternlogd` immediate of `(a & b) ^ c`.
    const AND_XOR: i32 = 0x6A;

    /// The two 64-byte halves of a 128-byte step as 16 f32 codes each.
    ///
    /// # Safety
    /// `x` must hold at least 128 bytes.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn load2(x: &[u8]) -> (__m512i, __m512i) {
        // SAFETY: the caller's guarantee: two unaligned 64-byte loads inside `x`.
        unsafe {
            (
                _mm512_loadu_si512(x.as_ptr().cast()),
                _mm512_loadu_si512(x.as_ptr().add(64).cast()),
            )
        }
    }

    /// Stores the 64 bytes `v` at `y`: non-temporally with `stream`, else unaligned.
    ///
    /// # Safety
    /// `y` must hold at least 64 bytes, and start on a 64-byte boundary with `stream`.
    #[target_feature(enable = "avx512f")]
    #[inline]
    unsafe fn store64(y: &mut [u8], v: __m512i, stream: bool) {
        // SAFETY: the caller's guarantee.
        unsafe {
            if stream {
                _mm512_stream_si512(y.as_mut_ptr().cast(), v)
            } else {
                _mm512_storeu_si512(y.as_mut_ptr().cast(), v)
            }
        }
    }

    /// A count as a counter vector (all in the first lane; a block's counts fit 31 bits).
    #[target_feature(enable = "avx2")]
    #[inline]
    fn counter(n: u64) -> __m256i {
        _mm256_setr_epi32(n as i32, 0, 0, 0, 0, 0, 0, 0)
    }

    /// The lean block's f16 codes of the f32 codes `v` in mode `M`: as the full rounding,
    /// except odd, whose last bit is set in every lane (right for every inexact lane).
    #[target_feature(enable = "avx2,f16c,avx512f,avx512bw,avx512vl")]
    #[inline]
    fn f16_codes<const M: u8>(v: __m512i) -> __m256i {
        if M == rounding::ODD {
            let t = _mm512_cvt_roundps_ph::<11>(_mm512_castsi512_ps(v));
            _mm256_or_si256(t, _mm256_set1_epi16(1))
        } else {
            f16_round::<M>(v, _mm512_and_si512(v, _mm512_set1_epi32(0x7FFF_FFFF))).0
        }
    }

    /// A block of the f16 kernel's fast path, 32 elements per step (`src.len()` must be a
    /// multiple of 128 bytes): the codes, exactness, underflow and flush counted, and whether
    /// a lane lies beyond the largest finite f16 (the block must then be cast again by the
    /// full block; the counts are then meaningless). With `stream` the codes are stored
    /// non-temporally.
    ///
    /// # Safety
    /// The CPU must support AVX2, F16C, POPCNT and AVX-512 F, BW and VL; with `stream`, `dst`
    /// must start on a 64-byte boundary.
    #[target_feature(enable = "avx2,f16c,popcnt,avx512f,avx512bw,avx512vl")]
    pub(crate) unsafe fn f16_lean_block<const M: u8>(
        src: &[u8],
        dst: &mut [u8],
        stream: bool,
    ) -> (Acc, bool) {
        let low13 = _mm512_set1_epi32(0x1FFF);
        let mut under = 0u32;
        let mut candidate = _mm512_set1_epi32(-1);
        let mut largest = _mm512_setzero_si512();
        let mut least = _mm512_set1_epi16(-1);
        for (x, y) in src.chunks_exact(128).zip(dst.chunks_exact_mut(64)) {
            prefetch(x.as_ptr());
            prefetch(x.as_ptr().wrapping_add(64));
            // SAFETY: `x` is 128 bytes.
            let (v0, v1) = unsafe { load2(x) };
            let z = _mm512_inserti64x4::<1>(
                _mm512_castsi256_si512(f16_codes::<M>(v0)),
                f16_codes::<M>(v1),
            );
            candidate = _mm512_min_epu32(
                candidate,
                _mm512_min_epu32(_mm512_and_si512(v0, low13), _mm512_and_si512(v1, low13)),
            );
            // The exponent field zero: a result below the smallest normal.
            // (counted by `popcnt`: one vector-port uop, where a masked add takes two)
            under += _mm512_testn_epi16_mask(z, _mm512_set1_epi16(0x7C00)).count_ones();
            let m = _mm512_and_si512(z, _mm512_set1_epi16(0x7FFF));
            largest = _mm512_max_epu16(largest, m);
            least = _mm512_min_epu16(least, m);
            // SAFETY: `y` is 64 bytes, on a 64-byte boundary when streamed.
            unsafe { store64(y, z, stream) };
        }
        // (for odd, a truncation of 0x7BFE or more shows as 0x7BFF here)
        if _mm512_cmpge_epu16_mask(largest, _mm512_set1_epi16(0x7BFF)) != 0 {
            return (Acc::zero(), true);
        }
        let mut fix = Fix {
            exact: 0,
            under: u64::from(under),
            flushed: 0,
        };
        if _mm512_testn_epi32_mask(candidate, candidate) != 0
            || _mm512_testn_epi16_mask(least, least) != 0
        {
            // SAFETY: the CPU features are this function's; `dst` is as long as `src` needs.
            unsafe { f16_rescan::<M>(src, dst, &mut fix) };
        }
        let acc = Acc {
            exact: counter(fix.exact),
            underflow: counter(fix.under),
            flushed: counter(fix.flushed),
            saturated: _mm256_setzero_si256(),
        };
        (acc, false)
    }

    /// A lean f16 block's counts: the fast loop takes every lane as inexact.
    struct Fix {
        exact: u64,
        under: u64,
        flushed: u64,
    }

    /// The lean f16 block's counts corrected (and for odd its codes) where a lane may be
    /// exact (its low 13 bits zero) or round to zero (magnitude below 2^-24): such groups of
    /// 16 are rounded again with the round trip.
    ///
    /// # Safety
    /// The CPU must support AVX2, F16C, POPCNT and AVX-512 F, BW and VL; `dst` must hold the
    /// codes of `src` (half its length).
    #[target_feature(enable = "avx2,f16c,popcnt,avx512f,avx512bw,avx512vl")]
    #[inline(never)]
    #[cold]
    unsafe fn f16_rescan<const M: u8>(src: &[u8], dst: &mut [u8], fix: &mut Fix) {
        for (x, y) in src.chunks_exact(64).zip(dst.chunks_exact_mut(32)) {
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let a = _mm512_and_si512(v, _mm512_set1_epi32(0x7FFF_FFFF));
            let odd_ones = _mm512_testn_epi32_mask(v, _mm512_set1_epi32(0x1FFF))
                | _mm512_cmplt_epu32_mask(a, _mm512_set1_epi32(0x3380_0000));
            if odd_ones == 0 {
                continue;
            }
            let (h, back, base) = f16_round::<M>(v, a);
            let is_exact = _mm512_cmpeq_epi32_mask(back, v);
            let m = _mm256_and_si256(base, _mm256_set1_epi16(0x7FFF));
            let small = _mm256_cmplt_epu16_mask(m, _mm256_set1_epi16(0x400));
            fix.exact += u64::from(is_exact.count_ones());
            // (the fast loop counted every small lane as an underflow)
            fix.under = fix
                .under
                .saturating_sub(u64::from((small & is_exact).count_ones()));
            if M == rounding::ODD {
                if is_exact != 0 {
                    // SAFETY: `y` is 32 bytes, the size of the unaligned store.
                    unsafe { _mm256_storeu_si256(y.as_mut_ptr().cast(), h) };
                }
            } else {
                let zero = _mm256_testn_epi16_mask(m, m);
                fix.flushed += u64::from((zero & !is_exact).count_ones());
            }
        }
    }

    /// A step's 32 bf16 codes (16-bit lanes; lane 2i is element i, lane 2i + 1 element
    /// 16 + i) in mode `M`, from the high (`hi`) and low (`lo`) halves of the f32 codes.
    #[target_feature(enable = "avx512f,avx512bw")]
    #[inline]
    fn bf16_round<const M: u8>(hi: __m512i, lo: __m512i) -> __m512i {
        let one = _mm512_set1_epi16(1);
        match M {
            // A carry out of the low half of a + 0x7FFF + last bit: lo ≥ 0x8001 − last bit.
            rounding::NEAREST_EVEN => {
                let at = _mm512_ternarylogic_epi32::<AND_XOR>(
                    hi,
                    one,
                    _mm512_set1_epi16(0x8001_u16 as i16),
                );
                _mm512_mask_add_epi16(hi, _mm512_cmpge_epu16_mask(lo, at), hi, one)
            }
            rounding::NEAREST_AWAY => _mm512_add_epi16(hi, _mm512_srli_epi16::<15>(lo)),
            // The magnitude goes up where inexact and negative ...
            rounding::FLOOR => {
                let up = _mm512_mask_test_epi16_mask(_mm512_movepi16_mask(hi), lo, lo);
                _mm512_mask_add_epi16(hi, up, hi, one)
            }
            // ... or inexact and positive.
            rounding::CEIL => {
                let up = _mm512_mask_test_epi16_mask(!_mm512_movepi16_mask(hi), lo, lo);
                _mm512_mask_add_epi16(hi, up, hi, one)
            }
            rounding::TRUNC => hi,
            _ => _mm512_or_si512(hi, _mm512_min_epu16(lo, one)),
        }
    }

    /// Where [`bf16_round`]'s lanes go in element order.
    const ORDER: [i16; 32] = [
        0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 1, 3, 5, 7, 9, 11, 13, 15, 17,
        19, 21, 23, 25, 27, 29, 31,
    ];

    /// A block of the bf16 kernel's fast path, 32 elements per step (`src.len()` must be a
    /// multiple of 128 bytes): the codes, the exact lanes counted (an AVX2 counter vector), and
    /// whether a lane may need more, as the AVX2 fast block. With `stream` the codes are
    /// stored non-temporally.
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512 F, BW, VL and DQ; with `stream`, `dst` must start
    /// on a 64-byte boundary.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    pub(crate) unsafe fn bf16_lean_block<const M: u8>(
        src: &[u8],
        dst: &mut [u8],
        stream: bool,
    ) -> (__m256i, bool) {
        let high = _mm512_set1_epi32(0xFFFF_0000_u32 as i32);
        // SAFETY: `ORDER` is 64 bytes, the size of the unaligned load.
        let order = unsafe { _mm512_loadu_si512(ORDER.as_ptr().cast()) };
        let mut least_lo = _mm512_set1_epi16(-1);
        let mut edge = _mm512_setzero_si512();
        for (x, y) in src.chunks_exact(128).zip(dst.chunks_exact_mut(64)) {
            prefetch(x.as_ptr());
            prefetch(x.as_ptr().wrapping_add(64));
            // SAFETY: `x` is 128 bytes.
            let (v0, v1) = unsafe { load2(x) };
            let hi = _mm512_ternarylogic_epi32::<SELECT>(high, _mm512_srli_epi32::<16>(v0), v1);
            let lo = _mm512_ternarylogic_epi32::<SELECT>(high, v0, _mm512_slli_epi32::<16>(v1));
            let code = bf16_round::<M>(hi, lo);
            least_lo = _mm512_min_epu16(least_lo, lo);
            // The magnitude code doubled, less 0x100: from 0xFDFE for a code below 0x80 (it
            // wraps) or from 0x7F7F.
            edge = _mm512_max_epu16(
                edge,
                _mm512_sub_epi16(_mm512_add_epi16(code, code), _mm512_set1_epi16(0x100)),
            );
            // SAFETY: `y` is 64 bytes, on a 64-byte boundary when streamed.
            unsafe { store64(y, _mm512_permutexvar_epi16(order, code), stream) };
        }
        let exact_lane = _mm512_testn_epi16_mask(least_lo, least_lo) != 0;
        let at_edge = _mm512_cmpge_epu16_mask(edge, _mm512_set1_epi16(0xFDFE_u16 as i16)) != 0;
        if exact_lane || at_edge {
            // SAFETY: the CPU features are this function's.
            return unsafe { bf16_rescan(src) };
        }
        (_mm256_setzero_si256(), false)
    }

    /// A lean bf16 block with an exact lane or a result at an edge, read again: the exact
    /// lanes counted, and the AVX2 fast block's precise rare test (a nonzero magnitude below
    /// the smallest normal f32, or one from which a mode can round to the largest finite
    /// bf16 or beyond).
    ///
    /// # Safety
    /// The CPU must support AVX2 and AVX-512 F, BW, VL and DQ.
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512dq")]
    #[inline(never)]
    #[cold]
    unsafe fn bf16_rescan(src: &[u8]) -> (__m256i, bool) {
        let one = _mm512_set1_epi32(1);
        let mut exact = _mm512_setzero_si512();
        let mut lo = _mm512_set1_epi32(-1);
        let mut hi = _mm512_setzero_si512();
        for x in src.chunks_exact(64) {
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let v = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let a = _mm512_and_si512(v, _mm512_set1_epi32(0x7FFF_FFFF));
            let is_exact = _mm512_testn_epi32_mask(v, _mm512_set1_epi32(0xFFFF));
            exact = _mm512_mask_add_epi32(exact, is_exact, exact, one);
            // (a - 1 wraps for zero, which is exact)
            lo = _mm512_min_epu32(lo, _mm512_sub_epi32(a, one));
            hi = _mm512_max_epu32(hi, a);
        }
        let low = _mm512_cmple_epu32_mask(lo, _mm512_set1_epi32(0x7F_FFFE));
        let high = _mm512_cmpge_epu32_mask(hi, _mm512_set1_epi32(0x7F7E_0001));
        (fold(exact), (low | high) != 0)
    }
}
