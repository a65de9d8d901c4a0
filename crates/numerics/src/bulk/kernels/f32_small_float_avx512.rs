//! f32 → binary floats of at most 8 bits (the destinations of
//! [`f32_small_float`](super::f32_small_float): e4m3fn, e5m2, the other fp8/fp6/fp4 formats,
//! e2m1 packed or not) at the AVX-512 level, 16 lanes per vector, 64 elements per step.
//!
//! The method: the hardware rounds. For a finite magnitude `a`, `e = max(getexp(a), emin)`
//! is its exponent clamped at the destination's smallest normal exponent, and
//! `s = scalef(a, man - e)` is `a` in units of the destination's last place (below `2^(man+1)`,
//! an integer exactly when the destination holds `a`). Adding the integer
//! `m = 2^23 + (e - emin) · 2^man` with the mode's embedded rounding (`vaddps {rn,rd,ru,rz}`)
//! rounds `s` to an integer and leaves, in the low bits of the sum's f32 code, the
//! destination's magnitude code (a carry into the next binade comes out right). Toward −∞ and
//! +∞ round the magnitude up or toward zero by the sign (a masked second add); ties away adds
//! a half toward zero first; to odd truncates and sets the last bit where inexact. Inexact is
//! `sum − m ≠ s`; underflow, flush, saturation and overflow are compares on the biased code,
//! into k-masks counted by masked adds in vector accumulators. Nothing here makes an f32
//! denormal from a normal input. The sign goes on by a bit select; overflow clamps to the
//! policy's code or blends it in by sign. A step whose 64 inputs hold NaN or ±Inf takes an
//! out-of-line path that also blends the policy's NaN and Inf codes. Codes are packed by
//! `vpackusdw`/`vpackuswb` and a `vpermd` (or, two 4-bit codes per byte, `vpmaddubsw` and a
//! `vpermb`). The last `n % 64` elements are left to the per-element rule. With `stream`
//! ([`stream`](super::stream)) each step's codes (64 bytes, or 32 packed) are stored
//! non-temporally; every step prefetches its source 4 KiB ahead, one line per 64 bytes.

use super::f32_small_float::{Fixed, SmallFloat, mode};
use crate::status::{Status, StatusCounts};

/// Elements per step (four vectors of 16).
const STEP: usize = 64;

/// Whether the kernel serves `sf` (laid out one code per byte, or two per byte when `packed`).
pub(crate) fn serves(sf: &SmallFloat, packed: bool) -> bool {
    sf.serves(packed) && (1..=16).contains(&(23 - sf.shift)) && sf.e0 <= 126
}

/// Casts the first `n - n % 64` of `n` little-endian f32 codes (into one byte each, or two
/// 4-bit codes per byte, the first in the low nibble, when `packed`) at the AVX-512 level, and
/// returns how many it cast with their statuses; `None` when the machine lacks AVX-512 or the
/// kernel does not serve `sf`. With `stream` (honoured when `dst` starts on a 64-byte
/// boundary, as [`stream::split`](super::stream::split) arranges) the codes are stored
/// non-temporally.
pub(crate) fn run_body(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    packed: bool,
    stream: bool,
) -> Option<(usize, StatusCounts)> {
    #[cfg(target_arch = "x86_64")]
    if serves(sf, packed) && super::simd::avx512_present() {
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
            super::flags::record_n(f[0].1, all - neg, &mut counts);
            super::flags::record_n(f[1].1, neg, &mut counts);
        }
        counts
    }
}

#[cfg(target_arch = "x86_64")]
use super::stream::prefetch;
#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

/// The layout's constants, one per lane.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Consts {
    /// 0x7FFF_FFFF.
    abs_mask: __m512i,
    /// The destination's smallest normal exponent.
    emin: __m512,
    /// Its mantissa bits.
    man: __m512,
    /// 2^man.
    two_man: __m512,
    /// 2^23 − emin · 2^man: with `e · 2^man` added, the `m` of the module doc.
    m0: __m512,
    /// 0.5.
    half: __m512,
    /// 1.
    one: __m512i,
    /// The biased code (f32 code of 2^23 + magnitude code) of the largest finite value.
    max_code: __m512i,
    /// The biased code of the smallest normal.
    min_normal: __m512i,
    /// The biased code of zero.
    zero: __m512i,
    /// The biased code of positive overflow (when it clamps).
    clamp: __m512i,
    /// The f32 magnitude of the largest finite value.
    max_abs: __m512i,
    /// The magnitude bits of a code.
    low_mask: __m512i,
    /// 32 − bits: brings the f32 sign to the code's sign bit.
    sign_shift: __m512i,
    /// Overflow codes, by sign.
    ovf: [__m512i; 2],
    /// The largest finite f32 magnitude.
    max_finite: __m512i,
}

#[cfg(target_arch = "x86_64")]
impl Consts {
    /// The constants of `sf`.
    #[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
    fn new(sf: &SmallFloat) -> Consts {
        let set = |v: u32| _mm512_set1_epi32(v as i32);
        let man = 23 - sf.shift;
        let emin = sf.e0 as i32 - 126;
        let bias = 0x4B00_0000;
        Consts {
            abs_mask: set(0x7FFF_FFFF),
            emin: _mm512_set1_ps(emin as f32),
            man: _mm512_set1_ps(man as f32),
            two_man: _mm512_set1_ps((1u32 << man) as f32),
            m0: _mm512_set1_ps((8_388_608 - emin * (1 << man)) as f32),
            half: _mm512_set1_ps(0.5),
            one: set(1),
            max_code: set(bias + sf.max_code),
            min_normal: set(bias + sf.min_normal),
            zero: set(bias),
            clamp: set(bias + sf.overflow[0].0),
            max_abs: set(sf.max_abs),
            low_mask: set((1 << (sf.bits - 1)) - 1),
            sign_shift: set(32 - sf.bits),
            ovf: [set(sf.overflow[0].0), set(sf.overflow[1].0)],
            max_finite: set(0x7F7F_FFFF),
        }
    }
}

/// The code of 16 lanes and their status masks.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Lanes {
    /// The codes (overflow already resolved), one per 32-bit lane.
    code: __m512i,
    /// Inexact lanes that do not overflow.
    inexact: __mmask16,
    /// Of those, below the smallest normal.
    under: __mmask16,
    /// Of those, zero.
    flushed: __mmask16,
    /// Beyond the largest finite value.
    beyond: __mmask16,
    /// Not overflowing.
    kept: __mmask16,
    /// Negative.
    neg: __mmask16,
}

/// Rounding control of the embedded-rounding adds (exceptions suppressed).
#[cfg(target_arch = "x86_64")]
mod rc {
    use std::arch::x86_64::*;
    /// To nearest, ties to even.
    pub const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    /// Toward +∞ (up, for magnitudes).
    pub const UP: i32 = _MM_FROUND_TO_POS_INF | _MM_FROUND_NO_EXC;
    /// Toward zero.
    pub const ZERO: i32 = _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC;
}

/// The codes and masks of 16 finite lanes `x` in mode `M` (see the module doc); `CLAMP`:
/// overflow clamps (else it blends in the overflow code by sign). Lanes holding NaN or Inf
/// give garbage, which [`special_step`] replaces.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
fn lanes<const M: u8, const CLAMP: bool>(c: &Consts, x: __m512i) -> Lanes {
    let a = _mm512_and_si512(x, c.abs_mask);
    let af = _mm512_castsi512_ps(a);
    let e = _mm512_max_ps(_mm512_getexp_ps(af), c.emin);
    let s = _mm512_scalef_ps(af, _mm512_sub_ps(c.man, e));
    let m = _mm512_fmadd_ps(e, c.two_man, c.m0);
    let neg = _mm512_movepi32_mask(x);
    let y = match M {
        mode::NEAREST_EVEN => _mm512_add_round_ps::<{ rc::NEAREST }>(s, m),
        mode::NEAREST_AWAY => {
            _mm512_add_round_ps::<{ rc::ZERO }>(_mm512_add_round_ps::<{ rc::ZERO }>(s, c.half), m)
        }
        mode::FLOOR => _mm512_mask_add_round_ps::<{ rc::UP }>(
            _mm512_add_round_ps::<{ rc::ZERO }>(s, m),
            neg,
            s,
            m,
        ),
        mode::CEIL => _mm512_mask_add_round_ps::<{ rc::ZERO }>(
            _mm512_add_round_ps::<{ rc::UP }>(s, m),
            neg,
            s,
            m,
        ),
        _ => _mm512_add_round_ps::<{ rc::ZERO }>(s, m),
    };
    // the rounded s, exactly (both integers below 2^24)
    let r = _mm512_sub_ps(y, m);
    let mut yi = _mm512_castps_si512(y);
    let (kept, inexact) = if M == mode::ODD {
        let inexact = _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(r, s);
        yi = _mm512_mask_or_epi32(yi, inexact, yi, c.one);
        let kept = _mm512_cmple_epi32_mask(yi, c.max_code);
        (kept, inexact & kept)
    } else {
        let kept = _mm512_cmple_epi32_mask(yi, c.max_code);
        (kept, _mm512_mask_cmp_ps_mask::<_CMP_NEQ_OQ>(kept, r, s))
    };
    let under = _mm512_mask_cmplt_epi32_mask(inexact, yi, c.min_normal);
    let flushed = _mm512_mask_cmpeq_epi32_mask(inexact, yi, c.zero);
    let beyond = _mm512_cmpgt_epi32_mask(a, c.max_abs);
    let sign = _mm512_srlv_epi32(x, c.sign_shift);
    let code = if CLAMP {
        // low_mask ? magnitude : sign
        _mm512_ternarylogic_epi32::<0xCA>(c.low_mask, _mm512_min_epi32(yi, c.clamp), sign)
    } else {
        let finite = _mm512_ternarylogic_epi32::<0xCA>(c.low_mask, yi, sign);
        let ovf = _mm512_mask_blend_epi32(neg, c.ovf[0], c.ovf[1]);
        _mm512_mask_blend_epi32(kept, ovf, finite)
    };
    Lanes {
        code,
        inexact,
        under,
        flushed,
        beyond,
        kept,
        neg,
    }
}

/// Stores the 64 codes of `v` (each below 256) as bytes, or as 4-bit pairs when `PACKED`;
/// non-temporally with `stream`.
///
/// # Safety
/// `y` must hold 64 bytes (32 when `PACKED`), and with `stream` start on a boundary of as
/// many bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline]
unsafe fn store<const PACKED: bool>(v: [__m512i; 4], y: &mut [u8], stream: bool) {
    // lane i of b: v0[4i..4i+4], v1[4i..], v2[4i..], v3[4i..] as bytes
    let b = _mm512_packus_epi16(
        _mm512_packus_epi32(v[0], v[1]),
        _mm512_packus_epi32(v[2], v[3]),
    );
    if PACKED {
        // word w: its two bytes as lo | hi << 4; then the low byte of word 8i + 2j + h goes
        // to byte 8j + 2i + h
        let nib = _mm512_maddubs_epi16(b, _mm512_set1_epi16(0x1001));
        let idx = _mm512_set_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0, 0, 0, 62, 60, 46, 44, 30, 28, 14, 12, 58, 56, 42, 40, 26, 24, 10, 8, 54, 52, 38, 36,
            22, 20, 6, 4, 50, 48, 34, 32, 18, 16, 2, 0,
        );
        let out = _mm512_castsi512_si256(_mm512_permutexvar_epi8(idx, nib));
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
        // dword 4i + j of b holds v_j[4i..4i+4]: dword 4j + i of the output
        let idx = _mm512_set_epi32(15, 11, 7, 3, 14, 10, 6, 2, 13, 9, 5, 1, 12, 8, 4, 0);
        let out = _mm512_permutexvar_epi32(idx, b);
        // SAFETY: `y` holds 64 bytes (the caller's contract), the size of the store, and is
        // 64-byte aligned when streamed.
        unsafe {
            if stream {
                _mm512_stream_si512(y.as_mut_ptr().cast(), out)
            } else {
                _mm512_storeu_si512(y.as_mut_ptr().cast(), out)
            }
        };
    }
}

/// [`cast`] for the layout (`packed`) and overflow rule (`clamp`) of `(packed, clamp,
/// stream)`.
///
/// # Safety
/// The CPU must support AVX2, FMA, F16C and AVX-512 F, BW, VL, DQ and VBMI; with `stream`,
/// `dst` must start on a 64-byte boundary.
#[cfg(target_arch = "x86_64")]
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
            (false, false) => cast::<M, false, false>(sf, src, dst, stream),
            (false, true) => cast::<M, false, true>(sf, src, dst, stream),
            (true, false) => cast::<M, true, false>(sf, src, dst, stream),
            (true, true) => cast::<M, true, true>(sf, src, dst, stream),
        }
    }
}

/// The cast of `src.len() / 4` (a multiple of [`STEP`]) elements in mode `M`, the codes
/// stored non-temporally with `stream`.
///
/// # Safety
/// The CPU must support the features enabled here; with `stream`, `dst` must start on a
/// 64-byte boundary.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
unsafe fn cast<const M: u8, const PACKED: bool, const CLAMP: bool>(
    sf: &SmallFloat,
    src: &[u8],
    dst: &mut [u8],
    stream: bool,
) -> StatusCounts {
    /// Steps between two flushes of the 32-bit lane counters (at most 4 per lane per step).
    const FLUSH: usize = 1 << 12;
    let c = Consts::new(sf);
    let out_step = if PACKED { STEP / 2 } else { STEP };
    let steps = src.len() / (4 * STEP);
    let zero = _mm512_setzero_si512();
    // 1 in every lane, hidden from the optimiser: a masked add of it stays one instruction
    // (one it can see becomes a mask-to-vector move and a subtract)
    let one = std::hint::black_box(_mm512_set1_epi32(1));
    // The four masks of a step, each adding 1 to the lanes of `acc` it selects.
    let count4 = |acc: &mut __m512i, k: [__mmask16; 4]| {
        for k in k {
            *acc = _mm512_mask_add_epi32(*acc, k, *acc, one);
        }
    };
    let mut tally = Tally::default();
    // inexact, under, flushed, beyond, kept, negative overflow: 64-bit lane sums
    let mut wide = [zero; 6];
    let mut i = 0;
    while i < steps {
        let end = (i + FLUSH).min(steps);
        let mut acc = [zero; 6];
        // the finite-only steps from `i` on, up to one whose lanes hold NaN or Inf (no call
        // in this loop: its constants stay in registers)
        while i < end {
            let (Some(x), Some(y)) = (
                src.get(4 * STEP * i..4 * STEP * (i + 1)),
                dst.get_mut(out_step * i..out_step * (i + 1)),
            ) else {
                break;
            };
            let v: [__m512i; 4] = std::array::from_fn(|j| {
                let p = x.as_ptr().wrapping_add(64 * j);
                prefetch(p);
                // SAFETY: `x` is 256 bytes, four unaligned 64-byte loads.
                unsafe { _mm512_loadu_si512(p.cast()) }
            });
            let special = v
                .iter()
                .map(|&x| _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, c.abs_mask), c.max_finite))
                .fold(0, |a, k| a | k);
            if special != 0 {
                break;
            }
            let l = v.map(|x| lanes::<M, CLAMP>(&c, x));
            count4(&mut acc[0], l.map(|l| l.inexact));
            count4(&mut acc[1], l.map(|l| l.under));
            count4(&mut acc[2], l.map(|l| l.flushed));
            count4(&mut acc[3], l.map(|l| l.beyond));
            count4(&mut acc[4], l.map(|l| l.kept));
            if !CLAMP {
                count4(&mut acc[5], l.map(|l| !l.kept & l.neg));
            }
            // SAFETY: `y` is `out_step` bytes, what `store` writes, at a multiple of
            // `out_step` from `dst` (64-byte aligned when streamed).
            unsafe { store::<PACKED>(l.map(|l| l.code), y, stream) };
            i += 1;
        }
        for (w, a) in wide.iter_mut().zip(acc) {
            let lo = _mm512_cvtepu32_epi64(_mm512_castsi512_si256(a));
            let hi = _mm512_cvtepu32_epi64(_mm512_extracti64x4_epi64::<1>(a));
            *w = _mm512_add_epi64(*w, _mm512_add_epi64(lo, hi));
        }
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
            let codes = special_step::<M, CLAMP>(sf, &c, v, &mut tally);
            // SAFETY: `y` is `out_step` bytes, what `store` writes, at a multiple of
            // `out_step` from `dst` (64-byte aligned when streamed).
            unsafe { store::<PACKED>(codes, y, stream) };
            i += 1;
        }
    }
    let [inexact, under, flushed, beyond, kept, ovf_neg] =
        wide.map(|w| _mm512_reduce_add_epi64(w) as u64);
    tally.inexact += inexact;
    tally.under += under;
    tally.flushed += flushed;
    tally.beyond += beyond;
    tally.kept += kept;
    tally.ovf_neg += ovf_neg;
    tally.counts(sf, (src.len() / 4) as u64)
}

/// One step of [`cast`] whose lanes hold NaN or ±Inf: the codes of `v`, with the policy's
/// NaN and Inf codes blended in, and their statuses counted into `tally` (out of line, to
/// leave the registers of the finite-only loop alone).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma,f16c,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[inline(never)]
fn special_step<const M: u8, const CLAMP: bool>(
    sf: &SmallFloat,
    c: &Consts,
    v: [__m512i; 4],
    tally: &mut Tally,
) -> [__m512i; 4] {
    let set = |v: u32| _mm512_set1_epi32(v as i32);
    let inf_bits = set(0x7F80_0000);
    let by_sign = |r: [Fixed; 2]| [set(r[0].0), set(r[1].0)];
    let inf_code = by_sign(sf.inf);
    let nan_code = by_sign(sf.nan_fixed);
    let payload = set(sf.nan_payload);
    let shift = set(sf.shift);
    let count = |k: __mmask16| u64::from(k.count_ones());
    v.map(|x| {
        let l = lanes::<M, CLAMP>(c, x);
        let a = _mm512_and_si512(x, c.abs_mask);
        let nan = _mm512_cmpgt_epi32_mask(a, inf_bits);
        let inf = _mm512_cmpeq_epi32_mask(a, inf_bits);
        let finite = !(nan | inf);
        let kept = l.kept & finite;
        tally.inexact += count(l.inexact & finite);
        tally.under += count(l.under & finite);
        tally.flushed += count(l.flushed & finite);
        tally.beyond += count(l.beyond & finite);
        tally.kept += count(kept);
        if !CLAMP {
            tally.ovf_neg += count(finite & !kept & l.neg);
        }
        tally.nan[0] += count(nan);
        tally.nan[1] += count(nan & l.neg);
        tally.inf[0] += count(inf);
        tally.inf[1] += count(inf & l.neg);
        let pick = |r: [__m512i; 2]| _mm512_mask_blend_epi32(l.neg, r[0], r[1]);
        let nan_value = _mm512_or_si512(
            pick(nan_code),
            _mm512_and_si512(_mm512_srlv_epi32(a, shift), payload),
        );
        let code = _mm512_mask_blend_epi32(inf, l.code, pick(inf_code));
        _mm512_mask_blend_epi32(nan, code, nan_value)
    })
}
