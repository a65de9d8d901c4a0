//! f32 → binary floats of at most 8 bits (e4m3fn, e5m2, the other fp8/fp6/fp4 formats, e2m1
//! packed or not) at the AVX-512 level, 64 elements per step: the hardware rounds a scaled
//! magnitude with the mode's embedded rounding, and the statuses are read off the step's 64
//! codes as bytes. The last `n % 64` elements are left to the per-element rule. The method
//! is in `docs/kernels.md`.

use crate::bulk::kernels::mode;
use crate::bulk::kernels::portable::f32_small_float::{Fixed, SmallFloat};
use crate::status::{Status, StatusCounts};

/// Elements per step (four vectors of 16).
const STEP: usize = 64;

/// Casts the first `n - n % 64` of `n` little-endian f32 codes (into one byte each, or two
/// 4-bit codes per byte, the first in the low nibble, when `packed`) at the AVX-512 level, and
/// returns how many it cast with their statuses; `None` when the machine lacks AVX-512 or the
/// kernel does not serve `sf`. With `stream` (honoured when `dst` starts on a 64-byte
/// boundary, as [`stream::split`](crate::bulk::kernels::stream::split) arranges) the codes are stored
/// non-temporally.
pub(crate) fn run_body(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    packed: bool,
    stream: bool,
) -> Option<(usize, StatusCounts)> {
    if sf.serves_avx512(packed) && crate::bulk::kernels::simd::avx512_present() {
        let body = n - n % STEP;
        let out = if packed { body / 2 } else { body };
        let (s, d) = (src.get(..4 * body)?, dst.get_mut(..out)?);
        let clamp = overflow_clamps(sf);
        let stream = stream && (d.as_ptr() as usize).is_multiple_of(64);
        let job = (packed, clamp, stream);
        // SAFETY: the CPU has every feature `dispatch` enables (checked just above), and `d`
        // starts on a 64-byte boundary when `stream` is still set.
        let counts = unsafe {
            match sf.mode {
                mode::NEAREST_EVEN => dispatch::<{ mode::NEAREST_EVEN }>(sf, s, d, job),
                mode::NEAREST_AWAY => dispatch::<{ mode::NEAREST_AWAY }>(sf, s, d, job),
                mode::FLOOR => dispatch::<{ mode::FLOOR }>(sf, s, d, job),
                mode::CEIL => dispatch::<{ mode::CEIL }>(sf, s, d, job),
                mode::TRUNC => dispatch::<{ mode::TRUNC }>(sf, s, d, job),
                _ => dispatch::<{ mode::ODD }>(sf, s, d, job),
            }
        };
        return Some((body, counts));
    }
    let _ = (sf, src, dst, n, packed, stream);
    None
}

/// [`run_body`] for an fnuz destination (`sf` with no negative zero: a result of magnitude
/// zero is code 0 whatever the sign; its largest finite magnitude code may be 0x7F), one
/// code per byte; `None` when the machine lacks AVX-512 or the kernel does not serve `sf`.
pub(crate) fn run_body_fnuz(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    stream: bool,
) -> Option<(usize, StatusCounts)> {
    if sf.serves_avx512_fnuz() && crate::bulk::kernels::simd::avx512_present() {
        let body = n - n % STEP;
        let (s, d) = (src.get(..4 * body)?, dst.get_mut(..body)?);
        let clamp = overflow_clamps(sf);
        let stream = stream && (d.as_ptr() as usize).is_multiple_of(64);
        // SAFETY: the CPU has every feature `dispatch` enables (checked just above), and `d`
        // starts on a 64-byte boundary when `stream` is still set.
        let counts = unsafe {
            match sf.mode {
                mode::NEAREST_EVEN => fnuz::<{ mode::NEAREST_EVEN }>(sf, s, d, clamp, stream),
                mode::NEAREST_AWAY => fnuz::<{ mode::NEAREST_AWAY }>(sf, s, d, clamp, stream),
                mode::FLOOR => fnuz::<{ mode::FLOOR }>(sf, s, d, clamp, stream),
                mode::CEIL => fnuz::<{ mode::CEIL }>(sf, s, d, clamp, stream),
                mode::TRUNC => fnuz::<{ mode::TRUNC }>(sf, s, d, clamp, stream),
                _ => fnuz::<{ mode::ODD }>(sf, s, d, clamp, stream),
            }
        };
        return Some((body, counts));
    }
    let _ = (sf, src, dst, n, stream);
    None
}

/// Whether finite overflow gives, for both signs, the largest finite magnitude or the next
/// code up, with the sign bit by sign, and the same status: then the code is the rounded
/// magnitude clamped to that code, with the sign put on, and negative overflow needs no count
/// of its own.
fn overflow_clamps(sf: &SmallFloat) -> bool {
    let sign_bit = 1 << (sf.bits - 1);
    let [(p, ps), (n, ns)] = sf.overflow;
    (p == sf.max_code || p == sf.max_code + 1) && p < sign_bit && n == p | sign_bit && ps == ns
}

/// Status counts of a run of steps, in scalars.
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    /// Inexact finite lanes that do not overflow.
    inexact: u64,
    /// Of those, below the smallest normal.
    under: u64,
    /// Of those, zero.
    flushed: u64,
    /// Finite lanes beyond the largest finite value (overflowing or saturating to it).
    beyond: u64,
    /// Finite lanes that do not overflow.
    kept: u64,
    /// Negative overflowing lanes (counted only when overflow does not clamp).
    ovf_neg: u64,
    /// NaN lanes, and the negative ones.
    nan: [u64; 2],
    /// ±Inf lanes, and the negative ones.
    inf: [u64; 2],
}

impl Tally {
    /// The status counts of `lanes` elements tallied here under `sf`'s fixed results.
    fn counts(&self, sf: &SmallFloat, lanes: u64) -> StatusCounts {
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

use crate::bulk::kernels::stream::prefetch;
use crate::bulk::kernels::x86_avx512::store::store64;
use std::arch::x86_64::*;

/// The layout's constants, one per lane (32-bit) or per byte (`b_` and the byte indices).
#[derive(Clone, Copy)]
struct Consts {
    /// 0x7FFF_FFFF.
    abs_mask: __m512i,
    /// 0x7F80_0000, the f32 exponent field.
    exp_field: __m512i,
    /// The code of the scale `2^(128 − Emin)`, the largest one (lanes below `Emin`).
    max_scale: __m512i,
    /// 23 − man: shifts a scale's exponent field to its code offset.
    to_code: __m512i,
    /// `bias + (255 − Emin) · 2^man`: less the shifted scale, the code of `m`.
    m_base: __m512i,
    /// Half a destination ulp in units of `s` (ties away).
    half: __m512,
    /// 1.
    one: __m512i,
    /// 0x80, the inexact bit of a lane's code byte (to odd: 0x81, the last bit set too).
    inexact_bit: __m512i,
    /// The biased code (f32 code of `m` at `Emin` plus the magnitude code) one above the
    /// largest finite magnitude: the clamp of every sum.
    clamp: __m512i,
    /// The biased code of the largest finite value.
    max_code: __m512i,
    /// The biased code of the smallest normal.
    min_normal: __m512i,
    /// The biased code of zero.
    zero: __m512i,
    /// The f32 magnitude of the largest finite value.
    max_abs: __m512i,
    /// The magnitude bits of a code.
    low_mask: __m512i,
    /// 32 − bits: brings the f32 sign to the code's sign bit.
    sign_shift: __m512i,
    /// Overflow codes, by sign.
    ovf: [__m512i; 2],
    /// Bytes: the magnitude code one above the largest (an exact overflow, NaN or Inf).
    b_clamp: __m512i,
    /// Bytes: that code with the inexact bit, and to odd its last bit (an overflow).
    b_ovf: __m512i,
    /// Bytes: −128 + the smallest normal's code (signed, below it: inexact and subnormal).
    b_under: __m512i,
    /// Bytes: 0x80 (inexact zero).
    b_flushed: __m512i,
    /// Bytes: the smallest normal's code (fnuz: the inexact bit is a mask, not bit 7).
    b_min_normal: __m512i,
    /// Bytes: 1 (fnuz to odd: the last bit of an inexact code).
    b_one: __m512i,
    /// Bytes: 0x7F (the magnitude of a code byte).
    b_mag: __m512i,
    /// Bytes: the positive overflow code (overflow clamps to it).
    b_ovf_clamp: __m512i,
    /// Bytes: the code's sign bit.
    b_sign: __m512i,
    /// Bytes: the overflow codes by sign.
    b_ovf_code: [__m512i; 2],
    /// Bytes: the ±Inf codes by sign.
    b_inf: [__m512i; 2],
    /// Bytes: the fixed bits of the NaN codes by sign.
    b_nan: [__m512i; 2],
    /// The NaN payload bits kept (of the f32 magnitude shifted down by `shift`).
    nan_payload: __m512i,
    /// The mantissa bits the destination drops.
    shift: __m512i,
    /// `vpermt2b` indices of the low bytes of 32 lanes (twice).
    low_bytes: __m512i,
    /// `vpermt2b` indices of the top bytes of 32 lanes (twice).
    top_bytes: __m512i,
    /// `vpermb` indices of the even bytes (twice).
    even_bytes: __m512i,
}

impl Consts {
    /// The constants of `sf`.
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
    fn new(sf: &SmallFloat) -> Consts {
        let set = |v: u32| _mm512_set1_epi32(v as i32);
        let set8 = |v: u32| _mm512_set1_epi8(v as u8 as i8);
        let man = 23 - sf.shift;
        // the f32 exponent field of the smallest normal
        let e_min = sf.e0 + 1;
        let bias = (151 - man) << 23;
        let idx = |f: fn(usize) -> usize| {
            let b: [u8; 64] = std::array::from_fn(|j| f(j) as u8);
            // SAFETY: `b` is 64 bytes, the size of the unaligned load.
            unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
        };
        Consts {
            abs_mask: set(0x7FFF_FFFF),
            exp_field: set(0x7F80_0000),
            max_scale: set((255 - e_min) << 23),
            to_code: set(23 - man),
            m_base: set(bias + ((255 - e_min) << man)),
            half: _mm512_set1_ps(f32::from_bits((127 - man) << 23)),
            one: set(1),
            inexact_bit: set(if sf.mode == mode::ODD { 0x81 } else { 0x80 }),
            clamp: set(bias + sf.max_code + 1),
            max_code: set(bias + sf.max_code),
            min_normal: set(bias + sf.min_normal),
            zero: set(bias),
            max_abs: set(sf.max_abs),
            low_mask: set((1 << (sf.bits - 1)) - 1),
            sign_shift: set(32 - sf.bits),
            ovf: [set(sf.overflow[0].0), set(sf.overflow[1].0)],
            b_clamp: set8(sf.max_code + 1),
            b_ovf: set8(if sf.mode == mode::ODD {
                0x80 | (sf.max_code + 1) | 1
            } else {
                0x80 | (sf.max_code + 1)
            }),
            b_under: set8(0x80 + sf.min_normal),
            b_flushed: set8(0x80),
            b_min_normal: set8(sf.min_normal),
            b_one: set8(1),
            b_mag: set8(0x7F),
            b_ovf_clamp: set8(sf.overflow[0].0),
            b_sign: set8(1 << (sf.bits - 1)),
            b_ovf_code: [set8(sf.overflow[0].0), set8(sf.overflow[1].0)],
            b_inf: [set8(sf.inf[0].0), set8(sf.inf[1].0)],
            b_nan: [set8(sf.nan_fixed[0].0), set8(sf.nan_fixed[1].0)],
            nan_payload: set(sf.nan_payload),
            shift: set(sf.shift),
            low_bytes: idx(|j| (4 * j) & 127),
            top_bytes: idx(|j| (4 * j + 3) & 127),
            even_bytes: idx(|j| (2 * j) & 63),
        }
    }
}

/// Rounding control of the embedded-rounding adds (exceptions suppressed).
mod rc {
    use std::arch::x86_64::*;
    /// To nearest, ties to even.
    pub const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    /// Toward +∞ (up, for magnitudes).
    pub const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
    /// Toward zero.
    pub const ZERO: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
}

/// 16 lanes `x` in mode `M` (see the module doc): the biased code clamped at one above the
/// largest finite magnitude (to odd: before its last bit is set where inexact), the inexact
/// lanes and the lanes beyond the largest finite value. A NaN or ±Inf lane gives the clamp
/// code, not inexact.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lanes<const M: u8>(c: &Consts, x: __m512i) -> (__m512i, __mmask16, __mmask16) {
    let a = _mm512_and_si512(x, c.abs_mask);
    // exponent field min(255 − E, 255 − Emin): 2^(128 − Ec); zero for NaN and Inf
    let scale = _mm512_min_epu32(_mm512_andnot_si512(x, c.exp_field), c.max_scale);
    let s = _mm512_mul_ps(_mm512_castsi512_ps(a), _mm512_castsi512_ps(scale));
    let m = _mm512_castsi512_ps(_mm512_sub_epi32(
        c.m_base,
        _mm512_srlv_epi32(scale, c.to_code),
    ));
    let y = match M {
        mode::NEAREST_EVEN => _mm512_add_round_ps::<{ rc::NEAREST }>(s, m),
        mode::NEAREST_AWAY => {
            _mm512_add_round_ps::<{ rc::ZERO }>(_mm512_add_round_ps::<{ rc::ZERO }>(s, c.half), m)
        }
        mode::FLOOR => _mm512_mask_add_round_ps::<{ rc::UP }>(
            _mm512_add_round_ps::<{ rc::ZERO }>(s, m),
            _mm512_movepi32_mask(x),
            s,
            m,
        ),
        mode::CEIL => _mm512_mask_add_round_ps::<{ rc::ZERO }>(
            _mm512_add_round_ps::<{ rc::UP }>(s, m),
            _mm512_movepi32_mask(x),
            s,
            m,
        ),
        _ => _mm512_add_round_ps::<{ rc::ZERO }>(s, m),
    };
    // the rounded s, exactly (both in one binade below 2^24 ulps); NaN: not inexact
    let inexact = _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(_mm512_sub_ps(y, m), s);
    // unsigned: a NaN sum (of either sign) clamps too
    let code = _mm512_min_epu32(_mm512_castps_si512(y), c.clamp);
    (code, inexact, _mm512_cmpgt_epi32_mask(a, c.max_abs))
}

/// The low (or, with `top`, the top) bytes of the 64 lanes of `v`, in order.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn gather(idx: __m512i, v: [__m512i; 4]) -> __m512i {
    let ab = _mm512_permutex2var_epi8(v[0], idx, v[1]);
    let cd = _mm512_permutex2var_epi8(v[2], idx, v[3]);
    _mm512_mask_blend_epi8(0xFFFF_FFFF_0000_0000, ab, cd)
}

/// Stores the 64 codes `b` (bytes, each below 256) as bytes, or as 4-bit pairs when
/// `PACKED`; non-temporally with `stream`.
///
/// # Safety
/// `y` must hold 64 bytes (32 when `PACKED`), and with `stream` start on a boundary of as
/// many bytes.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
unsafe fn store<const PACKED: bool>(c: &Consts, b: __m512i, y: &mut [u8], stream: bool) {
    if PACKED {
        // byte pairs (lo, hi) → lo | hi << 4 in the low byte of each 16-bit pair, then the
        // even bytes
        let pairs = _mm512_or_si512(b, _mm512_srli_epi16::<4>(b));
        let out = _mm512_castsi512_si256(_mm512_permutexvar_epi8(c.even_bytes, pairs));
        // SAFETY: `y` holds 32 bytes (the caller's contract), the size of the store, and is
        // 32-byte aligned when streamed.
        unsafe {
            if stream {
                _mm256_stream_si256(y.as_mut_ptr().cast(), out)
            } else {
                _mm256_storeu_si256(y.as_mut_ptr().cast(), out)
            }
        };
    } else {
        // SAFETY: `y` holds 64 bytes (the caller's contract), the size of the store, and is
        // 64-byte aligned when streamed.
        unsafe { store64(y.as_mut_ptr(), b, stream) };
    }
}

/// [`cast`] for the layout (`packed`) and overflow rule (`clamp`) of `(packed, clamp,
/// stream)`.
///
/// # Safety
/// The CPU must support AVX2, FMA, F16C and AVX-512 F, BW, VL, DQ and VBMI; with `stream`,
/// `dst` must start on a 64-byte boundary.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn dispatch<const M: u8>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    (packed, clamp, stream): (bool, bool, bool),
) -> StatusCounts {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        match (packed, clamp) {
            (false, false) => cast::<M, false, false, false>(sf, src, dst, stream),
            (false, true) => cast::<M, false, true, false>(sf, src, dst, stream),
            (true, false) => cast::<M, true, false, false>(sf, src, dst, stream),
            (true, true) => cast::<M, true, true, false>(sf, src, dst, stream),
        }
    }
}

/// [`cast`] into an fnuz destination, one code per byte, for the overflow rule `clamp`.
///
/// # Safety
/// As [`dispatch`].
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn fnuz<const M: u8>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    clamp: bool,
    stream: bool,
) -> StatusCounts {
    // SAFETY: the caller's guarantees, passed on.
    unsafe {
        if clamp {
            cast::<M, false, true, true>(sf, src, dst, stream)
        } else {
            cast::<M, false, false, true>(sf, src, dst, stream)
        }
    }
}

/// The cast of `src.len() / 4` (a multiple of [`STEP`]) elements in mode `M`, the codes
/// stored non-temporally with `stream`. With `FNUZ` the destination has no negative zero and
/// its clamp code may be 0x80: the inexact lanes are a 64-bit mask instead of bit 7 of each
/// code byte, and a zero magnitude takes no sign.
///
/// # Safety
/// The CPU must support the features enabled here; with `stream`, `dst` must start on a
/// 64-byte boundary.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn cast<const M: u8, const PACKED: bool, const CLAMP: bool, const FNUZ: bool>(
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
    let zero = _mm512_setzero_si512();
    // all ones (−1) in every byte and 1 in every 32-bit lane, hidden from the optimiser: a
    // masked subtract or add of them stays one instruction (one it can see becomes a
    // mask-to-vector move and an add)
    let minus_one = std::hint::black_box(_mm512_set1_epi8(-1));
    let one = std::hint::black_box(_mm512_set1_epi32(1));
    let mut tally = Tally::default();
    // overflowing, inexact bit, underflowing, flushed, negative overflowing: 64-bit lane
    // sums of the byte counters; beyond: of the 32-bit lane counters
    let mut wide = [zero; 5];
    let mut wide_beyond = zero;
    let mut special_steps = 0;
    // NaN and ±Inf lanes of fast steps (counted as exact and beyond by the fast counters)
    let mut nan_inf = 0;
    let mut i = 0;
    while i < steps {
        let end = (i + FLUSH).min(steps);
        let mut acc = [zero; 5];
        let mut beyond = zero;
        // the steps from `i` on, up to one with an exact overflow, NaN or Inf (no call in
        // this loop: its constants stay in registers)
        while i < end {
            let (Some(x), Some(y)) = (
                src.get(4 * STEP * i..4 * STEP * (i + 1)),
                dst.get_mut(out_step * i..out_step * (i + 1)),
            ) else {
                break;
            };
            // SAFETY: `x` is one step's 256 source bytes.
            let xs = unsafe { load_step(x) };
            let l = xs.map(|x| lanes::<M>(&c, x));
            // the code bytes, and (fnuz) the inexact lanes
            let (b, inexact) = if FNUZ {
                let k = l.map(|(_, k, _)| k);
                let inexact = u64::from(k[0])
                    | u64::from(k[1]) << 16
                    | u64::from(k[2]) << 32
                    | u64::from(k[3]) << 48;
                (gather(c.low_bytes, l.map(|(v, _, _)| v)), inexact)
            } else {
                let b = gather(
                    c.low_bytes,
                    l.map(|(v, k, _)| _mm512_mask_or_epi32(v, k, v, c.inexact_bit)),
                );
                (b, 0)
            };
            let sign = _mm512_movepi8_mask(gather(c.top_bytes, xs));
            let clamped = if FNUZ {
                _mm512_mask_cmpeq_epi8_mask(!inexact, b, c.b_clamp)
            } else {
                _mm512_cmpeq_epi8_mask(b, c.b_clamp)
            };
            // NaN and ±Inf lanes: their bytes become an exact zero for the counts (taken
            // off at the end), their codes are blended in after; an exact overflow takes
            // the full rule
            let (b, specials) = if clamped == 0 {
                (b, None)
            } else {
                let (sp, nan) = nan_inf_lanes(&c, xs);
                if clamped & !sp != 0 {
                    break;
                }
                nan_inf += u64::from(sp.count_ones());
                tally.nan[0] += u64::from(nan.count_ones());
                tally.nan[1] += u64::from((nan & sign).count_ones());
                tally.inf[0] += u64::from((sp & !nan).count_ones());
                tally.inf[1] += u64::from((sp & !nan & sign).count_ones());
                (_mm512_mask_mov_epi8(b, sp, zero), Some((sp, nan)))
            };
            let ovf = if FNUZ {
                _mm512_mask_cmpeq_epi8_mask(inexact, b, c.b_clamp)
            } else {
                _mm512_cmpeq_epi8_mask(b, c.b_ovf)
            };
            let count = |acc: &mut __m512i, k: __mmask64| {
                *acc = _mm512_mask_sub_epi8(*acc, k, *acc, minus_one);
            };
            count(&mut acc[0], ovf);
            if FNUZ {
                count(&mut acc[1], inexact);
                count(
                    &mut acc[2],
                    _mm512_mask_cmplt_epu8_mask(inexact, b, c.b_min_normal),
                );
                // to odd never flushes: an inexact zero becomes the smallest subnormal
                if M != mode::ODD {
                    count(&mut acc[3], _mm512_mask_cmpeq_epi8_mask(inexact, b, zero));
                }
            } else {
                count(&mut acc[1], _mm512_movepi8_mask(b));
                count(&mut acc[2], _mm512_cmplt_epi8_mask(b, c.b_under));
                count(&mut acc[3], _mm512_cmpeq_epi8_mask(b, c.b_flushed));
            }
            for (_, _, k) in l {
                beyond = _mm512_mask_add_epi32(beyond, k, beyond, one);
            }
            if !CLAMP {
                count(&mut acc[4], ovf & sign);
            }
            let code = fast_codes::<M, CLAMP, FNUZ>(&c, b, sign, (ovf, inexact));
            let code = match specials {
                None => code,
                Some((sp, nan)) => nan_inf_codes(&c, xs, code, sign, (sp, nan)),
            };
            // SAFETY: `y` is `out_step` bytes, what `store` writes, at a multiple of
            // `out_step` from `dst` (64-byte aligned when streamed).
            unsafe { store::<PACKED>(&c, code, y, stream) };
            i += 1;
        }
        flush_counters((&mut wide, &mut wide_beyond), acc, beyond);
        if i < end
            && let (Some(x), Some(y)) = (
                src.get(4 * STEP * i..4 * STEP * (i + 1)),
                dst.get_mut(out_step * i..out_step * (i + 1)),
            )
        {
            // SAFETY: `x` is 256 bytes, four unaligned 64-byte loads.
            let v: [__m512i; 4] = std::array::from_fn(|j| unsafe {
                _mm512_loadu_si512(x.as_ptr().add(64 * j).cast())
            });
            let codes = special_step::<M, CLAMP, FNUZ>(sf, &c, v, &mut tally);
            // SAFETY: `y` is `out_step` bytes, what `store` writes, at a multiple of
            // `out_step` from `dst` (64-byte aligned when streamed).
            unsafe { store::<PACKED>(&c, codes, y, stream) };
            special_steps += 1;
            i += 1;
        }
    }
    let fast = (STEP * (steps - special_steps)) as u64;
    add_fast(&mut tally, fast, wide, wide_beyond);
    tally.kept -= nan_inf;
    tally.beyond -= nan_inf;
    tally.counts(sf, (src.len() / 4) as u64)
}

/// Adds to `tally` the statuses of [`cast`]'s `fast` lanes of fast steps, from the 64-bit
/// lane sums of their counters (`wide`: overflowing, inexact bit, underflowing, flushed,
/// negative overflowing; `wide_beyond`: beyond the largest finite value).
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn add_fast(tally: &mut Tally, fast: u64, wide: [__m512i; 5], wide_beyond: __m512i) {
    let [ovf, inexact_bit, under, flushed, ovf_neg] =
        wide.map(|w| _mm512_reduce_add_epi64(w) as u64);
    // the lanes of the fast steps, less those that overflowed
    tally.kept += fast - ovf;
    tally.inexact += inexact_bit - ovf;
    tally.under += under;
    tally.flushed += flushed;
    tally.beyond += _mm512_reduce_add_epi64(wide_beyond) as u64;
    tally.ovf_neg += ovf_neg;
}

/// The four vectors of one step's source `x` (256 bytes), each prefetched ahead.
///
/// # Safety
/// The CPU must support AVX-512 F; `x` must hold at least 256 bytes.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
unsafe fn load_step(x: &[u8]) -> [__m512i; 4] {
    std::array::from_fn(|j| {
        let p = x.as_ptr().wrapping_add(64 * j);
        prefetch(p);
        // SAFETY: `x` holds 256 bytes (the caller's guarantee), four unaligned 64-byte loads.
        unsafe { _mm512_loadu_si512(p.cast()) }
    })
}

/// The 64 codes of a fast step of [`cast`] from its code bytes `b`: the magnitude with the
/// sign (`sign`: the negative lanes) put on, and overflowing lanes (`ovf`) given the overflow
/// code by sign (`CLAMP`: the magnitude clamped to it). With `FNUZ` the bytes are the
/// magnitudes alone, `inexact` the inexact lanes (to odd: their last bit set here), and a
/// zero magnitude keeps no sign.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn fast_codes<const M: u8, const CLAMP: bool, const FNUZ: bool>(
    c: &Consts,
    b: __m512i,
    sign: __mmask64,
    (ovf, inexact): (__mmask64, __mmask64),
) -> __m512i {
    let mag = if !FNUZ {
        _mm512_and_si512(b, c.b_mag)
    } else if M == mode::ODD {
        _mm512_or_si512(b, _mm512_maskz_mov_epi8(inexact, c.b_one))
    } else {
        b
    };
    // the lanes that take the sign bit
    let signed = |mag: __m512i| {
        if FNUZ {
            _mm512_mask_test_epi8_mask(sign, mag, mag)
        } else {
            sign
        }
    };
    if CLAMP {
        let mag = _mm512_min_epu8(mag, c.b_ovf_clamp);
        _mm512_mask_add_epi8(mag, signed(mag), mag, c.b_sign)
    } else {
        let finite = _mm512_mask_add_epi8(mag, signed(mag), mag, c.b_sign);
        let ovf_code = _mm512_mask_blend_epi8(sign, c.b_ovf_code[0], c.b_ovf_code[1]);
        _mm512_mask_blend_epi8(ovf, finite, ovf_code)
    }
}

/// The NaN or ±Inf lanes of a step's four vectors `xs`, and of them the NaN ones, as 64-bit
/// masks in element order.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn nan_inf_lanes(c: &Consts, xs: [__m512i; 4]) -> (u64, u64) {
    let mut sp = 0u64;
    let mut nan = 0u64;
    for (j, x) in xs.into_iter().enumerate() {
        let a = _mm512_and_si512(x, c.abs_mask);
        sp |= u64::from(_mm512_cmpge_epu32_mask(a, c.exp_field)) << (16 * j);
        nan |= u64::from(_mm512_cmpgt_epu32_mask(a, c.exp_field)) << (16 * j);
    }
    (sp, nan)
}

/// The 64 codes `code` of a step (its four vectors `xs`, `sign`: the negative lanes) with
/// the policy's codes on its NaN or ±Inf lanes (`sp`, of them NaN: `nan`): ±Inf's code by
/// sign, NaN's fixed bits by sign with the payload kept.
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn nan_inf_codes(
    c: &Consts,
    xs: [__m512i; 4],
    code: __m512i,
    sign: __mmask64,
    (sp, nan): (u64, u64),
) -> __m512i {
    let inf_code = _mm512_mask_blend_epi8(sign, c.b_inf[0], c.b_inf[1]);
    let payload = gather(
        c.low_bytes,
        xs.map(|x| {
            let a = _mm512_and_si512(x, c.abs_mask);
            _mm512_and_si512(_mm512_srlv_epi32(a, c.shift), c.nan_payload)
        }),
    );
    let nan_code = _mm512_or_si512(
        _mm512_mask_blend_epi8(sign, c.b_nan[0], c.b_nan[1]),
        payload,
    );
    let code = _mm512_mask_mov_epi8(code, sp, inf_code);
    _mm512_mask_mov_epi8(code, nan, nan_code)
}

/// Adds [`cast`]'s byte counters `acc` and 32-bit lane counter `beyond` of a run of steps
/// into their 64-bit lane sums (`wide`, `wide_beyond`).
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn flush_counters(
    (wide, wide_beyond): (&mut [__m512i; 5], &mut __m512i),
    acc: [__m512i; 5],
    beyond: __m512i,
) {
    for (w, a) in wide.iter_mut().zip(acc) {
        *w = _mm512_add_epi64(*w, _mm512_sad_epu8(a, _mm512_setzero_si512()));
    }
    let lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(beyond));
    let hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(beyond));
    *wide_beyond = _mm512_add_epi64(*wide_beyond, _mm512_add_epi64(lo, hi));
}

/// One step of [`cast`] with an exact overflow, NaN or ±Inf: the 64 code bytes of `v`, with
/// the policy's NaN and Inf codes blended in, and their statuses counted into `tally` (out
/// of line, to leave the registers of the fast loop alone).
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline(never)]
fn special_step<const M: u8, const CLAMP: bool, const FNUZ: bool>(
    sf: &SmallFloat,
    c: &Consts,
    v: [__m512i; 4],
    tally: &mut Tally,
) -> __m512i {
    let set = |v: u32| _mm512_set1_epi32(v as i32);
    let inf_bits = set(0x7F80_0000);
    let by_sign = |r: [Fixed; 2]| [set(r[0].0), set(r[1].0)];
    let inf_code = by_sign(sf.inf);
    let nan_code = by_sign(sf.nan_fixed);
    let payload = set(sf.nan_payload);
    let shift = set(sf.shift);
    let count = |k: __mmask16| u64::from(k.count_ones());
    let codes = v.map(|x| {
        let (code, inexact, beyond) = lanes::<M>(c, x);
        let code = if M == mode::ODD {
            _mm512_mask_or_epi32(code, inexact, code, c.one)
        } else {
            code
        };
        let a = _mm512_and_si512(x, c.abs_mask);
        let nan = _mm512_cmpgt_epi32_mask(a, inf_bits);
        let inf = _mm512_cmpeq_epi32_mask(a, inf_bits);
        let neg = _mm512_movepi32_mask(x);
        let finite = !(nan | inf);
        let kept = _mm512_mask_cmple_epu32_mask(finite, code, c.max_code);
        let inexact = inexact & kept;
        tally.inexact += count(inexact);
        tally.under += count(_mm512_mask_cmplt_epu32_mask(inexact, code, c.min_normal));
        tally.flushed += count(_mm512_mask_cmpeq_epi32_mask(inexact, code, c.zero));
        tally.beyond += count(beyond & finite);
        tally.kept += count(kept);
        if !CLAMP {
            tally.ovf_neg += count(finite & !kept & neg);
        }
        tally.nan[0] += count(nan);
        tally.nan[1] += count(nan & neg);
        tally.inf[0] += count(inf);
        tally.inf[1] += count(inf & neg);
        let mag = _mm512_sub_epi32(code, c.zero);
        let sign = _mm512_srlv_epi32(x, c.sign_shift);
        // fnuz: a zero magnitude (an exact one: to odd sets the last bit of inexact ones)
        // keeps no sign
        let sign = if FNUZ {
            _mm512_maskz_mov_epi32(_mm512_test_epi32_mask(mag, mag), sign)
        } else {
            sign
        };
        let pick = |r: [__m512i; 2]| _mm512_mask_blend_epi32(neg, r[0], r[1]);
        let code = if CLAMP {
            // low_mask ? magnitude : sign
            _mm512_ternarylogic_epi32::<0xCA>(c.low_mask, _mm512_min_epu32(mag, c.ovf[0]), sign)
        } else {
            let finite = _mm512_ternarylogic_epi32::<0xCA>(c.low_mask, mag, sign);
            _mm512_mask_blend_epi32(kept, pick(c.ovf), finite)
        };
        let nan_value = _mm512_or_si512(
            pick(nan_code),
            _mm512_and_si512(_mm512_srlv_epi32(a, shift), payload),
        );
        let code = _mm512_mask_blend_epi32(inf, code, pick(inf_code));
        _mm512_mask_blend_epi32(nan, code, nan_value)
    });
    gather(c.low_bytes, codes)
}
