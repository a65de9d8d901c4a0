//! f64 and i32 → f32 at the AVX-512 level, 16 elements per step, every deterministic mode and
//! policy: the hardware conversion with the mode as embedded rounding, statuses from masks.
//! The last `n % 16` elements take the portable loop of
//! [`crate::bulk::kernels::portable::to_f32`]. The method is in `docs/kernels.md`.

use crate::bulk::kernels::portable::to_f32::{Source, ToF32, mode};
use crate::bulk::kernels::simd;
use crate::status::{Status, StatusCounts};

/// Elements per step.
const STEP: usize = 16;

/// Casts `n` little-endian source codes of `k` into f32 codes at the AVX-512 level, the full
/// steps stored non-temporally with `stream` where `dst` starts on a 64-byte boundary; `None`
/// when the machine lacks the level.
pub(crate) fn run(
    k: &ToF32,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> Option<StatusCounts> {
    if simd::avx512_present() {
        let w = match k.source {
            Source::F64 => 8,
            Source::I32 => 4,
        };
        let body = n - n % STEP;
        let stream = stream && (dst.as_ptr() as usize).is_multiple_of(64);
        // SAFETY: the CPU has every feature of the AVX-512 level (checked just above); a
        // streamed `dst` starts on a 64-byte boundary (checked just above).
        let mut counts =
            unsafe { dispatch(k, &src[..w * body], &mut dst[..4 * body], body, stream) };
        if body < n {
            let tail = k.run_portable(&src[w * body..w * n], &mut dst[4 * body..4 * n], n - body);
            counts.add(&tail);
        }
        return Some(counts);
    }
    let _ = (k, src, dst, n, stream);
    None
}

/// Embedded-rounding immediates (exceptions suppressed).
mod imm {
    /// Nearest, ties to even.
    pub const NEAREST: i32 = 0x08;
    /// Toward −∞.
    pub const DOWN: i32 = 0x09;
    /// Toward +∞.
    pub const UP: i32 = 0x0A;
    /// Toward zero.
    pub const ZERO: i32 = 0x0B;
}

/// The cast for `k`'s source and mode.
///
/// # Safety
/// The CPU must support every feature of the AVX-512 level ([`simd::avx512_present`]); with
/// `stream`, `dst` must start on a 64-byte boundary.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn dispatch(k: &ToF32, src: &[u8], dst: &mut [u8], n: usize, stream: bool) -> StatusCounts {
    // SAFETY: the caller's guarantees are those of every cast below.
    unsafe {
        match (k.source, k.mode) {
            (Source::F64, mode::NEAREST_AWAY) => {
                f64_cast::<{ mode::NEAREST_AWAY }>(k, src, dst, n, stream)
            }
            (Source::F64, mode::FLOOR) => f64_cast::<{ mode::FLOOR }>(k, src, dst, n, stream),
            (Source::F64, mode::CEIL) => f64_cast::<{ mode::CEIL }>(k, src, dst, n, stream),
            (Source::F64, mode::TRUNC) => f64_cast::<{ mode::TRUNC }>(k, src, dst, n, stream),
            (Source::F64, mode::ODD) => f64_cast::<{ mode::ODD }>(k, src, dst, n, stream),
            (Source::F64, _) => f64_cast::<{ mode::NEAREST_EVEN }>(k, src, dst, n, stream),
            (Source::I32, mode::NEAREST_AWAY) => {
                i32_cast::<{ mode::NEAREST_AWAY }>(src, dst, n, stream)
            }
            (Source::I32, mode::FLOOR) => i32_cast::<{ mode::FLOOR }>(src, dst, n, stream),
            (Source::I32, mode::CEIL) => i32_cast::<{ mode::CEIL }>(src, dst, n, stream),
            (Source::I32, mode::TRUNC) => i32_cast::<{ mode::TRUNC }>(src, dst, n, stream),
            (Source::I32, mode::ODD) => i32_cast::<{ mode::ODD }>(src, dst, n, stream),
            (Source::I32, _) => i32_cast::<{ mode::NEAREST_EVEN }>(src, dst, n, stream),
        }
    }
}

/// Steps between two flushes of the 32-bit lane counters (at most one per lane per step).
const FLUSH: usize = 1 << 24;

/// The sum of the 16 lane counters.
#[target_feature(enable = "avx512f")]
fn lane_sum(v: std::arch::x86_64::__m512i) -> u64 {
    use std::arch::x86_64::*;
    // each lane is at most FLUSH, so the sum fits
    _mm512_reduce_add_epi32(v) as u32 as u64
}

/// Adds `k` results of flag `flag` to `counts`.
fn add_flag(counts: &mut StatusCounts, flag: Status, k: u64) {
    if let Some(slot) = counts.flags.get_mut(flag.bits().trailing_zeros() as usize) {
        *slot += k;
    }
}

/// The f32 codes of the 8 f64 lanes of `x` rounded by mode `M`, before the policy: the
/// hardware conversion with the mode as embedded rounding; ties away as the truncation of
/// `x` plus half an f32 unit of its binade; odd as the truncation with its last bit set where
/// inexact.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn round8<const M: u8>(x: std::arch::x86_64::__m512d) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let sign64 = _mm512_set1_epi64(i64::MIN);
    let exp64 = _mm512_set1_epi64(0x7FF0_0000_0000_0000);
    // the f64 exponent field of the smallest f32 normal binade
    let min_exp = _mm512_set1_epi64((1023 - 126) << 52);
    let half_unit = _mm512_set1_epi64(24 << 52);
    match M {
        mode::NEAREST_EVEN => _mm256_castps_si256(_mm512_cvt_roundpd_ps::<{ imm::NEAREST }>(x)),
        mode::FLOOR => _mm256_castps_si256(_mm512_cvt_roundpd_ps::<{ imm::DOWN }>(x)),
        mode::CEIL => _mm256_castps_si256(_mm512_cvt_roundpd_ps::<{ imm::UP }>(x)),
        mode::TRUNC => _mm256_castps_si256(_mm512_cvt_roundpd_ps::<{ imm::ZERO }>(x)),
        mode::NEAREST_AWAY => {
            // x + half an f32 unit of its binade (2^-150 below the normals), signed like
            // x, the sum truncated: its truncation to f32 is x's ties-away rounding
            let xi = _mm512_castpd_si512(x);
            let e = _mm512_max_epu64(_mm512_and_si512(xi, exp64), min_exp);
            let h = _mm512_ternarylogic_epi64::<0xEA>(xi, sign64, _mm512_sub_epi64(e, half_unit));
            let y = _mm512_add_round_pd::<{ imm::ZERO }>(x, _mm512_castsi512_pd(h));
            _mm256_castps_si256(_mm512_cvt_roundpd_ps::<{ imm::ZERO }>(y))
        }
        _ => {
            // odd: the truncation, its last bit set where inexact (never for NaN)
            let t = _mm512_cvt_roundpd_ps::<{ imm::ZERO }>(x);
            let inexact = _mm512_cmp_pd_mask::<_CMP_NEQ_OQ>(_mm512_cvtps_pd(t), x);
            let ti = _mm256_castps_si256(t);
            _mm256_mask_or_epi32(ti, inexact, ti, _mm256_set1_epi32(1))
        }
    }
}

/// Adds the statuses of a run of `m` f64 elements to `counts`, from its lane counters `acc`
/// (lossy, overflow, underflow, flushed, beyond max, Inf results, NaN, ±Inf inputs) under
/// `k`'s policy.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn add_run(k: &ToF32, counts: &mut StatusCounts, m: u64, acc: [std::arch::x86_64::__m512i; 8]) {
    let [lossy, ovf, tiny, flushed, beyond, inf_out, nan, inf_in] = acc.map(|v| lane_sum(v));
    let inexact =
        lossy + if k.inf_saturate { inf_in } else { 0 } + if k.nan_zero { nan } else { 0 };
    counts.total += m;
    counts.exact += m - inexact;
    add_flag(counts, Status::INEXACT, inexact);
    add_flag(counts, Status::OVERFLOW, ovf);
    add_flag(counts, Status::UNDERFLOW, tiny);
    add_flag(counts, Status::FLUSHED_TO_ZERO, flushed);
    add_flag(counts, Status::SATURATED, beyond - inf_out);
    add_flag(counts, Status::INF, inf_out);
    if k.nan_zero {
        add_flag(counts, Status::INVALID, nan);
    } else {
        add_flag(counts, Status::NAN, nan);
    }
}

/// The cast of `n` (a multiple of [`STEP`]) f64 codes rounded by mode `M` under `k`'s policy.
///
/// Per lane, with `r` the rounded code before the policy and `c` the code written:
/// - NaN (`r` NaN): the quiet NaN `r` (the hardware keeps the sign and the top payload bits),
///   or +0 (invalid, inexact) under the NaN-to-zero rule;
/// - ±Inf (`r` ±Inf and exact): kept (inf), or ±max (saturated, inexact);
/// - overflow (a finite `|x| ≥ 2^128`, or ≥ max + half a unit for ties-away, or a finite
///   `x` whose `r` is ±Inf): ±max or ±Inf per sign and policy, overflow and inexact, and
///   saturated or inf;
/// - otherwise `r`: inexact where its widening differs from `x`, underflow where inexact and
///   below the smallest normal, flushed where inexact and zero, saturated where `|x| > max`.
///
/// # Safety
/// The CPU must support every feature of the AVX-512 level; with `stream`, `dst` must start
/// on a 64-byte boundary.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn f64_cast<const M: u8>(
    k: &ToF32,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> StatusCounts {
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx512::store::store64;
    use std::arch::x86_64::*;
    let abs64 = _mm512_castsi512_pd(_mm512_set1_epi64(0x7FFF_FFFF_FFFF_FFFF));
    let max_d = _mm512_set1_pd(f64::from(f32::MAX));
    // |x| from which a finite x overflows whatever `r` is: 2^128, or max + half a unit
    let big_d = _mm512_set1_pd(if M == mode::NEAREST_AWAY {
        f64::from(f32::MAX) + 2f64.powi(103)
    } else {
        2f64.powi(128)
    });
    let abs32 = _mm512_set1_epi32(0x7FFF_FFFF);
    let exp32 = _mm512_set1_epi32(0x7F80_0000);
    let inf32 = _mm512_set1_epi32(0x7F80_0000);
    let one32 = _mm512_set1_epi32(1);
    let minus_one = _mm512_set1_epi32(-1);
    let sign32 = _mm512_set1_epi32(i32::MIN);
    let max32 = _mm512_set1_epi32(0x7F7F_FFFF);
    let code = |to_max: bool| if to_max { 0x7F7F_FFFFi32 } else { 0x7F80_0000 };
    let ovf_pos = _mm512_set1_epi32(code(k.max_pos));
    let ovf_neg = _mm512_set1_epi32(code(k.max_neg) | i32::MIN);
    let inf_sat: __mmask16 = if k.inf_saturate { 0xFFFF } else { 0 };
    let nan_zero: __mmask16 = if k.nan_zero { 0xFFFF } else { 0 };

    let mut counts = StatusCounts::default();
    let steps = n / STEP;
    for (s_run, d_run) in src[..8 * STEP * steps]
        .chunks(8 * STEP * FLUSH)
        .zip(dst[..4 * STEP * steps].chunks_mut(4 * STEP * FLUSH))
    {
        let zero = _mm512_setzero_si512();
        // lossy (inexact, finite), overflow, underflow, flushed, beyond max, inf results,
        // NaN, ±Inf inputs
        let mut acc = [zero; 8];
        for (x, y) in s_run
            .chunks_exact(8 * STEP)
            .zip(d_run.chunks_exact_mut(4 * STEP))
        {
            prefetch(x.as_ptr());
            prefetch(x[64..].as_ptr());
            // SAFETY: `x` is 128 bytes, two unaligned 64-byte loads.
            let (x0, x1) = unsafe {
                (
                    _mm512_loadu_pd(x.as_ptr().cast()),
                    _mm512_loadu_pd(x.as_ptr().add(64).cast()),
                )
            };
            let (r0, r1) = (round8::<M>(x0), round8::<M>(x1));
            let r = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(r0), r1);
            let back = |ri: __m256i, xd: __m512d| {
                _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(_mm512_cvtps_pd(_mm256_castsi256_ps(ri)), xd)
            };
            let exact = _mm512_kunpackb(back(r1, x1).into(), back(r0, x0).into());
            let (a0, a1) = (_mm512_and_pd(x0, abs64), _mm512_and_pd(x1, abs64));
            let big = _mm512_kunpackb(
                _mm512_cmp_pd_mask::<_CMP_GE_OQ>(a1, big_d).into(),
                _mm512_cmp_pd_mask::<_CMP_GE_OQ>(a0, big_d).into(),
            );
            let beyond = _mm512_kunpackb(
                _mm512_cmp_pd_mask::<_CMP_GT_OQ>(a1, max_d).into(),
                _mm512_cmp_pd_mask::<_CMP_GT_OQ>(a0, max_d).into(),
            );
            let r_abs = _mm512_and_si512(r, abs32);
            let nan = _mm512_cmpgt_epi32_mask(r_abs, inf32);
            let r_inf = _mm512_cmpeq_epi32_mask(r_abs, inf32);
            let inf_in = r_inf & exact;
            let ovf = (big | r_inf) & !inf_in;
            let lossy = !(exact | nan);
            // the policy: overflow codes per sign, ±max for saturated ±Inf, +0 for NaN
            let ovf_code = _mm512_mask_blend_epi32(_mm512_movepi32_mask(r), ovf_pos, ovf_neg);
            let c = _mm512_mask_mov_epi32(r, ovf, ovf_code);
            let c = _mm512_mask_ternarylogic_epi32::<0xEA>(c, inf_in & inf_sat, sign32, max32);
            let c = _mm512_mask_mov_epi32(c, nan & nan_zero, zero);
            // SAFETY: `y` is 64 bytes; streamed, `dst` starts on a 64-byte boundary (the
            // caller's guarantee) and every step writes 64 bytes, so `y` does too.
            unsafe { store64(y.as_mut_ptr(), c, stream) };
            let tiny = _mm512_mask_testn_epi32_mask(lossy, c, exp32);
            let flushed = _mm512_mask_testn_epi32_mask(lossy, c, abs32);
            // beyond max, the result is ±max (last bit 1) or ±Inf (0)
            let inf_out = _mm512_mask_testn_epi32_mask(beyond, c, one32);
            for (t, m) in acc
                .iter_mut()
                .zip([lossy, ovf, tiny, flushed, beyond, inf_out, nan, inf_in])
            {
                *t = _mm512_mask_sub_epi32(*t, m, *t, minus_one);
            }
        }
        add_run(k, &mut counts, (s_run.len() / 8) as u64, acc);
    }
    counts
}

/// The cast of `n` (a multiple of [`STEP`]) i32 codes rounded by mode `M` (an i32 is never
/// beyond the f32 range, so the only status is inexact: where the result, converted back,
/// differs; 2^31 converts back to the integer indefinite value, −2^31).
///
/// # Safety
/// The CPU must support every feature of the AVX-512 level; with `stream`, `dst` must start
/// on a 64-byte boundary.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn i32_cast<const M: u8>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> StatusCounts {
    use crate::bulk::kernels::stream::prefetch;
    use crate::bulk::kernels::x86_avx512::store::store64;
    use std::arch::x86_64::*;
    let one = _mm512_set1_epi32(1);
    let minus_one = _mm512_set1_epi32(-1);
    let sign = _mm512_set1_epi32(i32::MIN);
    let unit_shift = _mm512_set1_epi32(151);
    let round = |x: __m512i| -> __m512i {
        match M {
            mode::NEAREST_EVEN => {
                _mm512_castps_si512(_mm512_cvt_roundepi32_ps::<{ imm::NEAREST }>(x))
            }
            mode::FLOOR => _mm512_castps_si512(_mm512_cvt_roundepi32_ps::<{ imm::DOWN }>(x)),
            mode::CEIL => _mm512_castps_si512(_mm512_cvt_roundepi32_ps::<{ imm::UP }>(x)),
            mode::TRUNC => _mm512_castps_si512(_mm512_cvt_roundepi32_ps::<{ imm::ZERO }>(x)),
            mode::NEAREST_AWAY => {
                // |x| plus half a unit of its f32 binade (2^(e - 151) for the truncation's
                // biased exponent e, none below 2^24), truncated, then the sign
                let v = _mm512_abs_epi32(x);
                let t = _mm512_castps_si512(_mm512_cvt_roundepu32_ps::<{ imm::ZERO }>(v));
                let h = _mm512_sllv_epi32(
                    one,
                    _mm512_sub_epi32(_mm512_srli_epi32::<23>(t), unit_shift),
                );
                let r = _mm512_cvt_roundepu32_ps::<{ imm::ZERO }>(_mm512_add_epi32(v, h));
                _mm512_ternarylogic_epi32::<0xEA>(x, sign, _mm512_castps_si512(r))
            }
            _ => {
                // odd: the truncation, its last bit set where inexact
                let t = _mm512_castps_si512(_mm512_cvt_roundepi32_ps::<{ imm::ZERO }>(x));
                let inexact =
                    _mm512_cmpneq_epi32_mask(_mm512_cvttps_epi32(_mm512_castsi512_ps(t)), x);
                _mm512_mask_or_epi32(t, inexact, t, one)
            }
        }
    };
    let mut counts = StatusCounts::default();
    let steps = n / STEP;
    for (s_run, d_run) in src[..4 * STEP * steps]
        .chunks(4 * STEP * FLUSH)
        .zip(dst[..4 * STEP * steps].chunks_mut(4 * STEP * FLUSH))
    {
        let mut acc = _mm512_setzero_si512();
        for (x, y) in s_run
            .chunks_exact(4 * STEP)
            .zip(d_run.chunks_exact_mut(4 * STEP))
        {
            prefetch(x.as_ptr());
            // SAFETY: `x` is 64 bytes, the size of the unaligned load.
            let x = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let r = round(x);
            // SAFETY: `y` is 64 bytes; streamed, `dst` starts on a 64-byte boundary (the
            // caller's guarantee) and every step writes 64 bytes, so `y` does too.
            unsafe { store64(y.as_mut_ptr(), r, stream) };
            let inexact = _mm512_cmpneq_epi32_mask(_mm512_cvttps_epi32(_mm512_castsi512_ps(r)), x);
            acc = _mm512_mask_sub_epi32(acc, inexact, acc, minus_one);
        }
        let m = (s_run.len() / 4) as u64;
        let inexact = lane_sum(acc);
        counts.total += m;
        counts.exact += m - inexact;
        add_flag(&mut counts, Status::INEXACT, inexact);
    }
    counts
}
