//! f32 → binary floats of at most 8 bits in the to-nearest-even mode at the AVX2 level, by a
//! scaled float add: the method of the AVX-512 kernel
//! ([`crate::bulk::kernels::x86_avx512::f32_small_float`], see `docs/kernels.md`) on 8 lanes
//! per instruction, 32 elements per step. The magnitude is scaled so that its binade (or, below
//! the destination's smallest normal, that binade) lands on `[2, 4)`, and one float add of a
//! per-binade constant rounds it at the destination's last mantissa bit and leaves the biased
//! code in the low bits of the sum. AVX2 has no embedded rounding: the add rounds by the
//! floating-point environment, which Rust keeps at its default (to nearest, ties to even,
//! no flush of subnormals). To odd is derived from that sum: the exact difference
//! `(y − m) − s` says whether the add rounded up, and one less is then the truncation; the
//! inexact lanes get their last bit set with the inexact bit (as the AVX-512 kernel's
//! truncating add does). The other modes keep the integer rule of [`super::f32_small_float`].
//!
//! The codes, the inexact lanes and the source signs are packed to bytes once per step, and
//! the statuses are counted on those bytes (byte counters, added up every 255 steps). A step
//! with a NaN or ±Inf lane blends the policy's codes in by mask, and one with an exactly
//! overflowing lane (a finite value that rounds exactly to one code above the largest or
//! beyond) marks it as the inexact overflows are marked: no step leaves the loop. The source
//! is prefetched ahead, and a large output is streamed past the cache (non-temporal stores)
//! where the driver asks for it.

use crate::bulk::kernels::mode;
use crate::bulk::kernels::portable::f32_small_float::{Fixed, SmallFloat};
use crate::bulk::kernels::stream::prefetch;
use crate::status::{Status, StatusCounts};
use std::arch::x86_64::*;

use super::f32_small_float_lean as lean;

/// Elements per step (four vectors of 8).
pub(crate) const STEP: usize = 32;

/// Whether this loop serves `sf` (one code per byte, or two per byte when `packed`): the
/// to-nearest-even and to-odd modes, the magnitude codes up to the clamp code below the inexact bit
/// (0x80), and the code offsets of every binade below 2^23.
pub(crate) fn serves(sf: &SmallFloat, packed: bool) -> bool {
    matches!(sf.mode, mode::NEAREST_EVEN | mode::ODD)
        && sf.serves(packed)
        && (1..=7).contains(&(23 - sf.shift))
        && sf.e0 <= 126
        && sf.max_code < 0x7F
}

/// Casts the first `n - n % 32` of `n` little-endian f32 codes (into one byte each, or two
/// 4-bit codes per byte, the first in the low nibble, when `packed`) and returns how many it
/// cast with their statuses; `None` when the machine lacks AVX2 or POPCNT or the loop does
/// not serve `sf` ([`serves`]). With `stream` (honoured when `dst` starts on a 64-byte
/// boundary, as [`stream::split`](crate::bulk::kernels::stream::split) arranges) the codes
/// are stored past the cache.
pub(crate) fn run_body(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    packed: bool,
    stream: bool,
) -> Option<(usize, StatusCounts)> {
    if !serves(sf, packed)
        || !crate::bulk::kernels::simd::avx2_present()
        || !std::arch::is_x86_feature_detected!("popcnt")
    {
        return None;
    }
    let body = n - n % STEP;
    let out = if packed { body / 2 } else { body };
    let (s, d) = (src.get(..4 * body)?, dst.get_mut(..out)?);
    let clamp = sf.overflow_clamps();
    let stream = stream && (d.as_ptr() as usize).is_multiple_of(64);
    let job = (packed, clamp, stream);
    // SAFETY: the CPU has AVX2 and POPCNT (checked just above); `d` starts on a 64-byte
    // boundary when `stream` is still set.
    let counts = unsafe {
        if sf.mode == mode::ODD {
            dispatch::<{ mode::ODD }>(sf, s, d, job)
        } else {
            dispatch::<{ mode::NEAREST_EVEN }>(sf, s, d, job)
        }
    };
    Some((body, counts))
}

/// [`cast`] in mode `M` for the layout (`packed`), the overflow rule (`clamp`) and the
/// stores (`stream`).
///
/// # Safety
/// The CPU must support AVX2 and POPCNT; with `stream`, `dst` must start on a 64-byte
/// boundary.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn dispatch<const M: u8>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    (packed, clamp, stream): (bool, bool, bool),
) -> StatusCounts {
    // SAFETY: AVX2 and POPCNT are enabled here and `dst` is aligned when streamed (the
    // caller's guarantee).
    unsafe {
        match (packed, clamp) {
            (false, false) => cast::<M, false, false>(sf, src, dst, stream),
            (false, true) if M == mode::NEAREST_EVEN => {
                if sf.overflow[0].1 == sf.overflow[1].1 {
                    lean::cast::<false>(sf, src, dst, stream)
                } else {
                    lean::cast::<true>(sf, src, dst, stream)
                }
            }
            (false, true) => cast::<M, false, true>(sf, src, dst, stream),
            (true, false) => cast::<M, true, false>(sf, src, dst, stream),
            (true, true) => cast::<M, true, true>(sf, src, dst, stream),
        }
    }
}

/// The layout's constants, per 32-bit lane or (`b_`) per byte.
#[derive(Clone, Copy)]
pub(super) struct Consts {
    /// 0x7FFF_FFFF.
    pub(super) abs_mask: __m256i,
    /// 0x7F80_0000, the f32 exponent field (and the magnitude of ±Inf).
    pub(super) exp_field: __m256i,
    /// 0x7F7F_FFFF, the largest finite f32 magnitude.
    pub(super) max_finite: __m256i,
    /// The code of the scale `2^(128 − Emin)`, the largest one (lanes below `Emin`).
    pub(super) max_scale: __m256i,
    /// 23 − man: shifts a scale's exponent field to its code offset.
    pub(super) to_code: __m128i,
    /// `bias + (255 − Emin) · 2^man`: less the shifted scale, the code of the addend.
    pub(super) m_base: __m256i,
    /// The biased code one above the largest finite magnitude: the clamp of every sum.
    pub(super) clamp: __m256i,
    /// 0xFF: the magnitude code in the low byte of a clamped sum.
    pub(super) low_byte: __m256i,
    /// The f32 magnitude of the largest finite value.
    pub(super) max_abs: __m256i,
    /// The mantissa bits the destination drops (NaN payloads).
    pub(super) shift: __m128i,
    /// The NaN payload bits kept.
    pub(super) nan_payload: __m256i,
    /// Bytes: 0x80, the inexact bit of a code byte (to odd: 0x81, the last bit set too).
    pub(super) b_inexact: __m256i,
    /// Bytes: 0x80, an inexact zero (flushed).
    pub(super) b_flushed: __m256i,
    /// Bytes: the magnitude code one above the largest (an exact overflow, NaN or Inf).
    pub(super) b_clamp: __m256i,
    /// Bytes: that code with the inexact bit, and to odd its last bit (an overflow).
    pub(super) b_ovf: __m256i,
    /// Bytes: −128 + the smallest normal's code (signed, below it: inexact and subnormal).
    pub(super) b_under: __m256i,
    /// Bytes: 0x7F, the magnitude of a code byte.
    pub(super) b_mag: __m256i,
    /// Bytes: the destination's sign bit.
    pub(super) b_sign: __m256i,
    /// Bytes: the positive overflow code (overflow clamps to it).
    pub(super) b_ovf_clamp: __m256i,
    /// Bytes: the overflow codes by sign.
    pub(super) b_ovf_code: [__m256i; 2],
    /// Bytes: the ±Inf codes by sign.
    pub(super) b_inf: [__m256i; 2],
    /// Bytes: the fixed bits of the NaN codes by sign.
    pub(super) b_nan: [__m256i; 2],
    /// `vpermd` indices that put the packed bytes of the four vectors in element order.
    pub(super) order: __m256i,
}

impl Consts {
    /// The constants of `sf`.
    #[target_feature(enable = "avx2")]
    pub(super) fn new(sf: &SmallFloat) -> Consts {
        let set = |v: u32| _mm256_set1_epi32(v as i32);
        let set8 = |v: u32| _mm256_set1_epi8(v as u8 as i8);
        let man = 23 - sf.shift;
        // the f32 exponent field of the smallest normal
        let e_min = sf.e0 + 1;
        let bias = (151 - man) << 23;
        let odd = sf.mode == mode::ODD;
        Consts {
            abs_mask: set(0x7FFF_FFFF),
            exp_field: set(0x7F80_0000),
            max_finite: set(0x7F7F_FFFF),
            max_scale: set((255 - e_min) << 23),
            to_code: _mm_cvtsi32_si128((23 - man) as i32),
            m_base: set(bias + ((255 - e_min) << man)),
            clamp: set(bias + sf.max_code + 1),
            low_byte: set(0xFF),
            max_abs: set(sf.max_abs),
            shift: _mm_cvtsi32_si128(sf.shift as i32),
            nan_payload: set(sf.nan_payload),
            b_inexact: set8(if odd { 0x81 } else { 0x80 }),
            b_flushed: set8(0x80),
            b_clamp: set8(sf.max_code + 1),
            b_ovf: set8(0x80 | (sf.max_code + 1) | u32::from(odd)),
            b_under: set8(0x80 + sf.min_normal),
            b_mag: set8(0x7F),
            b_sign: set8(1 << (sf.bits - 1)),
            b_ovf_clamp: set8(sf.overflow[0].0),
            b_ovf_code: [set8(sf.overflow[0].0), set8(sf.overflow[1].0)],
            b_inf: [set8(sf.inf[0].0), set8(sf.inf[1].0)],
            b_nan: [set8(sf.nan_fixed[0].0), set8(sf.nan_fixed[1].0)],
            order: _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7),
        }
    }
}

/// Status counts of a run of steps, in scalars.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Tally {
    /// Inexact finite lanes that do not overflow.
    pub(super) inexact: u64,
    /// Of those, below the smallest normal.
    pub(super) under: u64,
    /// Of those, zero.
    pub(super) flushed: u64,
    /// Finite lanes beyond the largest finite value (overflowing or saturating to it).
    pub(super) beyond: u64,
    /// Finite lanes that do not overflow.
    pub(super) kept: u64,
    /// Negative overflowing lanes.
    pub(super) ovf_neg: u64,
    /// NaN lanes, and the negative ones.
    pub(super) nan: [u64; 2],
    /// ±Inf lanes, and the negative ones.
    pub(super) inf: [u64; 2],
}

impl Tally {
    /// The status counts of `lanes` elements tallied here under `sf`'s fixed results.
    pub(super) fn counts(&self, sf: &SmallFloat, lanes: u64) -> StatusCounts {
        let mut counts = StatusCounts::default();
        let ovf = lanes - self.kept - self.nan[0] - self.inf[0];
        counts.total += self.kept;
        counts.exact += self.kept - self.inexact;
        for (flag, k) in [
            (Status::INEXACT, self.inexact),
            (Status::UNDERFLOW, self.under),
            (Status::FLUSHED_TO_ZERO, self.flushed),
            (Status::SATURATED, self.beyond - ovf),
        ] {
            if let Some(slot) = counts.flags.get_mut(flag.bits().trailing_zeros() as usize) {
                *slot += k;
            }
        }
        let fixed: [([Fixed; 2], u64, u64); 3] = [
            (sf.nan_fixed, self.nan[0], self.nan[1]),
            (sf.inf, self.inf[0], self.inf[1]),
            (sf.overflow, ovf, self.ovf_neg),
        ];
        for (f, all, neg) in fixed {
            crate::bulk::kernels::flags::record_n(f[0].1, all - neg, &mut counts);
            crate::bulk::kernels::flags::record_n(f[1].1, neg, &mut counts);
        }
        counts
    }
}

/// 8 lanes `x` rounded in mode `M` ([`rounded`]): the biased code clamped at one above the
/// largest finite magnitude (NaN and ±Inf give the clamp code), the inexact lanes (not NaN or
/// ±Inf) and the lanes beyond the largest finite value.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn lanes<const M: u8>(c: &Consts, x: __m256i) -> (__m256i, __m256i, __m256i) {
    let a = _mm256_and_si256(x, c.abs_mask);
    let (code, inexact) = rounded::<M>(c, a);
    (code, inexact, _mm256_cmpgt_epi32(a, c.max_abs))
}

/// 8 magnitudes `a` (f32 codes without the sign) rounded in mode `M`, to nearest even or (for
/// [`mode::ODD`]) toward zero, the last bit of the inexact lanes to be set with their inexact
/// bit ([`Consts::b_inexact`]): the biased code clamped at one above the largest finite
/// magnitude (NaN and ±Inf give the clamp code) and the inexact lanes (not NaN or ±Inf).
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn rounded<const M: u8>(c: &Consts, a: __m256i) -> (__m256i, __m256i) {
    // exponent field min(255 − E, 255 − Emin): 2^(128 − Ec); zero for NaN and Inf
    let scale = _mm256_min_epu32(_mm256_andnot_si256(a, c.exp_field), c.max_scale);
    let s = _mm256_mul_ps(_mm256_castsi256_ps(a), _mm256_castsi256_ps(scale));
    let m = _mm256_castsi256_ps(_mm256_sub_epi32(
        c.m_base,
        _mm256_srl_epi32(scale, c.to_code),
    ));
    // rounded by the default environment: to nearest, ties to even
    let y = _mm256_add_ps(s, m);
    // the rounded s, exactly (both in one binade below 2^24 ulps); NaN: not inexact
    let r = _mm256_sub_ps(y, m);
    let inexact = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_NEQ_OQ>(r, s));
    let y = _mm256_castps_si256(y);
    let y = if M == mode::ODD {
        // rounded up (−1): the code below is the truncation (the sum's codes are
        // consecutive within its binade and across its top); NaN: not up
        let up = _mm256_castps_si256(_mm256_cmp_ps::<_CMP_GT_OQ>(r, s));
        _mm256_add_epi32(y, up)
    } else {
        y
    };
    // unsigned: a NaN sum (of either sign) clamps too
    let code = _mm256_min_epu32(y, c.clamp);
    (_mm256_and_si256(code, c.low_byte), inexact)
}

/// The 32-bit lanes of four vectors (each at most 0xFF, or −1 / 0 masks, or sign-carrying
/// values with `signed`) as bytes, in the packed order: dword `j` of the result holds lanes
/// `4(j / 4)..` of vector `j % 4`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn pack<const SIGNED: bool>(v: [__m256i; 4]) -> __m256i {
    if SIGNED {
        _mm256_packs_epi16(
            _mm256_packs_epi32(v[0], v[1]),
            _mm256_packs_epi32(v[2], v[3]),
        )
    } else {
        _mm256_packus_epi16(
            _mm256_packus_epi32(v[0], v[1]),
            _mm256_packus_epi32(v[2], v[3]),
        )
    }
}

/// The four vectors of one step's source `x` (128 bytes, two cache lines, each prefetched
/// ahead).
///
/// # Safety
/// The CPU must support AVX2; `x` must hold at least 128 bytes.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn load_step(x: &[u8]) -> [__m256i; 4] {
    prefetch(x.as_ptr());
    prefetch(x.as_ptr().wrapping_add(64));
    // SAFETY: `x` holds 128 bytes (the caller's guarantee), four unaligned 32-byte loads.
    std::array::from_fn(|j| unsafe { _mm256_loadu_si256(x.as_ptr().add(32 * j).cast()) })
}

/// Stores the 32 codes `b` (bytes in the packed order of [`pack`]) in element order, as
/// bytes or, when `PACKED`, as 4-bit pairs; non-temporally with `stream`.
///
/// # Safety
/// The CPU must support AVX2; `y` must hold 32 bytes (16 when `PACKED`), and with `stream`
/// start on a boundary of as many bytes.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) unsafe fn store<const PACKED: bool>(c: &Consts, b: __m256i, y: &mut [u8], stream: bool) {
    let b = _mm256_permutevar8x32_epi32(b, c.order);
    if PACKED {
        // byte pairs (lo, hi) → lo | hi << 4 in the low byte of each 16-bit pair
        let pairs = _mm256_and_si256(
            _mm256_or_si256(b, _mm256_srli_epi16::<4>(b)),
            _mm256_set1_epi16(0x00FF),
        );
        let out = _mm256_castsi256_si128(_mm256_permute4x64_epi64::<0x08>(_mm256_packus_epi16(
            pairs, pairs,
        )));
        // SAFETY: `y` holds 16 bytes (the caller's contract), the size of the store, and is
        // 16-byte aligned when streamed.
        unsafe {
            if stream {
                _mm_stream_si128(y.as_mut_ptr().cast(), out)
            } else {
                _mm_storeu_si128(y.as_mut_ptr().cast(), out)
            }
        };
    } else {
        // SAFETY: `y` holds 32 bytes (the caller's contract), the size of the store, and is
        // 32-byte aligned when streamed.
        unsafe {
            if stream {
                _mm256_stream_si256(y.as_mut_ptr().cast(), b)
            } else {
                _mm256_storeu_si256(y.as_mut_ptr().cast(), b)
            }
        };
    }
}

/// The cast of `src.len() / 4` (a multiple of [`STEP`]) elements in mode `M`: codes one per
/// byte or, with `PACKED`, two per byte; with `CLAMP` overflow is the rounded magnitude
/// clamped to the overflow code with the sign put on; with `stream` stored past the cache.
///
/// # Safety
/// The CPU must support AVX2 and POPCNT; with `stream`, `dst` must start on a 32-byte
/// boundary.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn cast<const M: u8, const PACKED: bool, const CLAMP: bool>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
) -> StatusCounts {
    /// Steps between two flushes of the byte counters (at most 1 per byte per step).
    const FLUSH: usize = 255;
    let c = Consts::new(sf);
    let out_step = if PACKED { STEP / 2 } else { STEP };
    let steps = src.len() / (4 * STEP);
    let zero = _mm256_setzero_si256();
    let mut tally = Tally::default();
    // overflowing, inexact bit, underflowing, flushed, negative overflowing: 64-bit lane
    // sums of the byte counters; beyond: of the 32-bit lane counters
    let mut wide = [zero; 5];
    let mut wide_beyond = zero;
    // NaN and ±Inf lanes of fast steps (counted as exact and beyond by the fast counters)
    let mut nan_inf = 0;
    for (s_run, d_run) in src
        .chunks(4 * STEP * FLUSH)
        .zip(dst.chunks_mut(out_step * FLUSH))
    {
        let mut acc = [zero; 5];
        let mut beyond = zero;
        for (x, y) in s_run
            .chunks_exact(4 * STEP)
            .zip(d_run.chunks_exact_mut(out_step))
        {
            // SAFETY: `x` is one step's 128 source bytes.
            let xs = unsafe { load_step(x) };
            let l = xs.map(|x| lanes::<M>(&c, x));
            let b = _mm256_or_si256(
                pack::<false>(l.map(|(v, _, _)| v)),
                _mm256_and_si256(pack::<true>(l.map(|(_, k, _)| k)), c.b_inexact),
            );
            // the source signs in the sign bit of each byte
            let sign = pack::<true>(xs);
            let clamped = _mm256_cmpeq_epi8(b, c.b_clamp);
            // NaN and ±Inf lanes: their bytes become an exact zero for the counts (taken
            // off at the end), their codes are blended in after; an exact overflow takes
            // the integer rule
            let (b, specials) = if _mm256_testz_si256(clamped, clamped) != 0 {
                (b, None)
            } else {
                let abs = xs.map(|x| _mm256_and_si256(x, c.abs_mask));
                let sp = pack::<true>(abs.map(|a| _mm256_cmpgt_epi32(a, c.max_finite)));
                let count = |m: __m256i| u64::from(_mm256_movemask_epi8(m).count_ones());
                let neg = _mm256_cmpgt_epi8(zero, sign);
                nan_inf += count(sp);
                let nans = abs.map(|a| _mm256_cmpgt_epi32(a, c.exp_field));
                let any_nan = _mm256_or_si256(
                    _mm256_or_si256(nans[0], nans[1]),
                    _mm256_or_si256(nans[2], nans[3]),
                );
                // (no NaN: the special lanes are all ±Inf, the usual case)
                let nan = if _mm256_testz_si256(any_nan, any_nan) != 0 {
                    None
                } else {
                    let nan = pack::<true>(nans);
                    tally.nan[0] += count(nan);
                    tally.nan[1] += count(_mm256_and_si256(nan, neg));
                    Some(nan)
                };
                let inf = match nan {
                    None => sp,
                    Some(nan) => _mm256_andnot_si256(nan, sp),
                };
                tally.inf[0] += count(inf);
                tally.inf[1] += count(_mm256_and_si256(inf, neg));
                // an exact overflow (a clamp byte that is no NaN or ±Inf) counts as the
                // inexact overflows do: the same code and statuses
                let b = _mm256_or_si256(
                    _mm256_andnot_si256(sp, b),
                    _mm256_and_si256(_mm256_andnot_si256(sp, clamped), c.b_inexact),
                );
                (b, Some((sp, nan, abs)))
            };
            let ovf = _mm256_cmpeq_epi8(b, c.b_ovf);
            acc[0] = _mm256_sub_epi8(acc[0], ovf);
            acc[1] = _mm256_sub_epi8(acc[1], _mm256_cmpgt_epi8(zero, b));
            acc[2] = _mm256_sub_epi8(acc[2], _mm256_cmpgt_epi8(c.b_under, b));
            acc[3] = _mm256_sub_epi8(acc[3], _mm256_cmpeq_epi8(b, c.b_flushed));
            acc[4] = _mm256_sub_epi8(acc[4], _mm256_and_si256(ovf, _mm256_cmpgt_epi8(zero, sign)));
            for (_, _, k) in l {
                beyond = _mm256_sub_epi32(beyond, k);
            }
            let mag = _mm256_and_si256(b, c.b_mag);
            let signed =
                |mag: __m256i| _mm256_or_si256(mag, _mm256_blendv_epi8(zero, c.b_sign, sign));
            let code = if CLAMP {
                signed(_mm256_min_epu8(mag, c.b_ovf_clamp))
            } else {
                let ovf_code = _mm256_blendv_epi8(c.b_ovf_code[0], c.b_ovf_code[1], sign);
                _mm256_blendv_epi8(signed(mag), ovf_code, ovf)
            };
            let code = match specials {
                None => code,
                Some((sp, nan, abs)) => {
                    let inf_code = _mm256_blendv_epi8(c.b_inf[0], c.b_inf[1], sign);
                    let code = _mm256_blendv_epi8(code, inf_code, sp);
                    match nan {
                        None => code,
                        Some(nan) => {
                            let payload = pack::<false>(abs.map(|a| {
                                _mm256_and_si256(_mm256_srl_epi32(a, c.shift), c.nan_payload)
                            }));
                            let nan_code = _mm256_or_si256(
                                _mm256_blendv_epi8(c.b_nan[0], c.b_nan[1], sign),
                                payload,
                            );
                            _mm256_blendv_epi8(code, nan_code, nan)
                        }
                    }
                }
            };
            // SAFETY: `y` is `out_step` bytes, what `store` writes, aligned when streamed.
            unsafe { store::<PACKED>(&c, code, y, stream) };
        }
        flush_counters((&mut wide, &mut wide_beyond), acc, beyond);
    }
    let fast = (STEP * steps) as u64;
    add_fast(&mut tally, fast, wide, wide_beyond);
    tally.kept -= nan_inf;
    tally.beyond -= nan_inf;
    tally.counts(sf, fast)
}

/// The sum of the four 64-bit lanes of `v`.
#[target_feature(enable = "avx2")]
#[inline]
pub(super) fn sum64(v: __m256i) -> u64 {
    let mut l = [0u64; 4];
    // SAFETY: `l` is 32 bytes, the size of the unaligned store.
    unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), v) };
    l.iter().sum()
}

/// Adds to `tally` the statuses of [`cast`]'s `fast` lanes of fast steps, from the 64-bit
/// lane sums of their counters (`wide`: overflowing, inexact bit, underflowing, flushed,
/// negative overflowing; `wide_beyond`: beyond the largest finite value).
#[target_feature(enable = "avx2")]
#[inline]
fn add_fast(tally: &mut Tally, fast: u64, wide: [__m256i; 5], wide_beyond: __m256i) {
    let [ovf, inexact_bit, under, flushed, ovf_neg] = wide.map(|w| sum64(w));
    // the lanes of the fast steps, less those that overflowed
    tally.kept += fast - ovf;
    tally.inexact += inexact_bit - ovf;
    tally.under += under;
    tally.flushed += flushed;
    tally.beyond += sum64(wide_beyond);
    tally.ovf_neg += ovf_neg;
}

/// Adds [`cast`]'s byte counters `acc` and 32-bit lane counter `beyond` of a run of steps
/// into their 64-bit lane sums (`wide`, `wide_beyond`).
#[target_feature(enable = "avx2")]
#[inline]
fn flush_counters(
    (wide, wide_beyond): (&mut [__m256i; 5], &mut __m256i),
    acc: [__m256i; 5],
    beyond: __m256i,
) {
    for (w, a) in wide.iter_mut().zip(acc) {
        *w = _mm256_add_epi64(*w, _mm256_sad_epu8(a, _mm256_setzero_si256()));
    }
    let lo = _mm256_cvtepu32_epi64(_mm256_castsi256_si128(beyond));
    let hi = _mm256_cvtepu32_epi64(_mm256_extracti128_si256::<1>(beyond));
    *wide_beyond = _mm256_add_epi64(*wide_beyond, _mm256_add_epi64(lo, hi));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::kernels::portable::f32_float::FloatDst;
    use crate::{CastPolicy, Format, RoundMode};

    #[test]
    fn the_loop_serves_to_nearest_even_and_to_odd_and_no_other_mode() {
        let sf = |f, p: &CastPolicy| FloatDst::new(f, p).map(|k| k.small_float());
        for f in [
            Format::F8E4M3FN,
            Format::F8E5M2,
            Format::F6E2M3FN,
            Format::F4E2M1,
        ] {
            for mode in RoundMode::DETERMINISTIC {
                for p in [
                    CastPolicy::new(mode),
                    CastPolicy::saturating(mode),
                    CastPolicy::non_saturating(mode),
                ] {
                    let Some(sf) = sf(f, &p) else {
                        panic!("{f:?} {p:?}: no small-float kernel")
                    };
                    let want = matches!(mode, RoundMode::Rint | RoundMode::Odd);
                    assert_eq!(serves(&sf, false), want, "{f:?} {p:?}");
                }
            }
        }
    }
}
