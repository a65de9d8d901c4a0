//! The vector block kernel at the AVX-512 level: runs of full blocks (32 elements for MX, 16
//! for NVFP4) along a contiguous axis, each block in one pass while it is in registers: the
//! amax by a vector max of the magnitudes' bits, the plan (scale byte, exponent) by the
//! scheme's scalar rule, then the elements by the bulk casts' rule (`docs/kernels.md`): each
//! magnitude scaled by the block's power of two with an integer subtraction from its
//! exponent (an NVFP4 element multiplied by the scale's f32 reciprocal instead), scaled again
//! into one fixed binade and rounded at the element's last place by one f32 add under the
//! mode's embedded rounding; the codes narrowed to bytes (or packed two per byte) in
//! registers and the statuses counted on the bytes.
//!
//! A scaled magnitude below 2^-100 (an element under a large scale, whose exact scaled value
//! would leave f32's normal range) is replaced by 2^-100: every element grid's smallest
//! subnormal is 2^-16 or more, so any non-zero magnitude that small rounds the same way in
//! every deterministic mode, with the same statuses; zeros stay zeros.

use std::arch::x86_64::*;

use super::fast::{BlockKernel, BlockPlan};
use super::fused_element::{CEIL, FLOOR, Lanes, ODD, RINT, ROUND, SmallFloat};
use super::plan_avx512::{amax16, plan16};
use super::stats::BlockStats;

/// The stand-in for scaled magnitudes below it: 2^-100.
const TINY_BITS: u32 = 27 << 23;

/// The element format's constants, broadcast.
struct Consts {
    /// 0x7FFF_FFFF.
    mag_mask: __m512i,
    /// 2^-100's bits.
    tiny: __m512i,
    /// 0x7F80_0000.
    exp_field: __m512i,
    /// The exponent field of the scale of magnitudes below the smallest normal.
    max_scale: __m512i,
    /// `23 - man`, shifting a scale's exponent field to its code offset.
    to_code: __m128i,
    /// `bias + (255 - Emin) << man`: less the shifted scale, the rounding addend's bits.
    m_base: __m512i,
    /// Half the element's last place in units of the scaled value (ties away).
    half: __m512,
    /// The biased code one above the largest magnitude: the clamp of every sum.
    clamp: __m512i,
    /// The f32 bits of the largest finite element value.
    max_abs: __m512i,
    /// The byte flag of an inexact lane (to odd: with the code's last bit).
    inexact_bit: __m512i,
    /// Bytes: -128 plus the smallest normal's code (signed: below it, inexact and subnormal).
    b_under: __m256i,
    /// Bytes: 0x80, an inexact zero.
    b_flushed: __m256i,
    /// Bytes: 0x7F.
    b_mag: __m256i,
    /// Bytes: the largest magnitude code.
    b_max: __m256i,
    /// Bytes: the code's sign bit.
    b_sign: __m256i,
    /// `vpermt2b` indices of the low bytes of 32 lanes (twice).
    low_bytes: __m512i,
    /// `vpermt2b` indices of the top bytes of 32 lanes (twice).
    top_bytes: __m512i,
}

impl Consts {
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl,avx512vbmi")]
    fn new<const MODE: u8>(g: &SmallFloat) -> Consts {
        let c = |v: u32| _mm512_set1_epi32(v as i32);
        let c8 = |v: u32| _mm256_set1_epi8(v as u8 as i8);
        let man = 23 - g.shift;
        let e_min = g.normal_min as u32;
        let bias = (151 - man) << 23;
        let idx = |f: fn(usize) -> usize| {
            let b: [u8; 64] = std::array::from_fn(|j| f(j) as u8);
            // SAFETY: `b` is 64 bytes, the size of the unaligned load.
            unsafe { _mm512_loadu_si512(b.as_ptr().cast()) }
        };
        Consts {
            mag_mask: c(0x7FFF_FFFF),
            tiny: c(TINY_BITS),
            exp_field: c(0x7F80_0000),
            max_scale: c((255 - e_min) << 23),
            to_code: _mm_cvtsi32_si128(g.shift as i32),
            m_base: c(bias + ((255 - e_min) << man)),
            half: _mm512_set1_ps(f32::from_bits((127 - man) << 23)),
            clamp: c(bias + g.max + 1),
            max_abs: c((g.max << g.shift) + ((g.rebias as u32) << 23)),
            inexact_bit: c(if MODE == ODD { 0x81 } else { 0x80 }),
            b_under: c8(0x80 + g.min_normal_code),
            b_flushed: c8(0x80),
            b_mag: c8(0x7F),
            b_max: c8(g.max),
            b_sign: c8(1 << g.sign_shift),
            low_bytes: idx(|j| (4 * j) & 127),
            top_bytes: idx(|j| (4 * j + 3) & 127),
        }
    }
}

/// Byte counters of a run of blocks (each byte counts up to 255 elements at its position):
/// inexact, overflowing, underflowing, flushed; and a 32-bit lane counter of saturated ones.
struct Acc {
    bytes: [__m256i; 4],
    saturated: __m512i,
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

/// 16 elements: `y` their f32 bits (the operand), `ebits` the block's exponent in the f32
/// exponent field (`e << 23`, wrapping; 0 for NVFP4). Returns each lane's biased code
/// clamped at one above the largest magnitude with the inexact flag in its low byte's top bit
/// (inexact: rounded, or beyond the largest finite value), the saturated lanes counted into
/// `sat`.
#[inline]
#[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
fn encode16<const MODE: u8>(y: __m512i, ebits: __m512i, k: &Consts, sat: &mut __m512i) -> __m512i {
    let a = _mm512_and_si512(y, k.mag_mask);
    let nz = _mm512_test_epi32_mask(a, a);
    // the scaled magnitude (an integer subtraction from the exponent; 2^-100 below that)
    let av = _mm512_maskz_max_epi32(nz, _mm512_sub_epi32(a, ebits), k.tiny);
    let scale = _mm512_min_epu32(_mm512_andnot_si512(av, k.exp_field), k.max_scale);
    let s = _mm512_mul_ps(_mm512_castsi512_ps(av), _mm512_castsi512_ps(scale));
    let m = _mm512_castsi512_ps(_mm512_sub_epi32(
        k.m_base,
        _mm512_srl_epi32(scale, k.to_code),
    ));
    let sum = match MODE {
        RINT => _mm512_add_round_ps::<{ rc::NEAREST }>(s, m),
        ROUND => {
            _mm512_add_round_ps::<{ rc::ZERO }>(_mm512_add_round_ps::<{ rc::ZERO }>(s, k.half), m)
        }
        FLOOR => _mm512_mask_add_round_ps::<{ rc::UP }>(
            _mm512_add_round_ps::<{ rc::ZERO }>(s, m),
            _mm512_movepi32_mask(y),
            s,
            m,
        ),
        CEIL => _mm512_mask_add_round_ps::<{ rc::ZERO }>(
            _mm512_add_round_ps::<{ rc::UP }>(s, m),
            _mm512_movepi32_mask(y),
            s,
            m,
        ),
        _ => _mm512_add_round_ps::<{ rc::ZERO }>(s, m),
    };
    let rounded = _mm512_cmp_ps_mask::<_CMP_NEQ_OQ>(_mm512_sub_ps(sum, m), s);
    let beyond = _mm512_cmpgt_epi32_mask(av, k.max_abs);
    *sat = _mm512_mask_sub_epi32(*sat, beyond, *sat, _mm512_set1_epi32(-1));
    let code = _mm512_min_epu32(_mm512_castps_si512(sum), k.clamp);
    _mm512_mask_or_epi32(code, rounded | beyond, code, k.inexact_bit)
}

/// The code bytes of 32 lanes' bytes `b` (from [`encode16`]) with the sign bit on the lanes of
/// `sign`; the statuses of the lanes of `valid` counted into `acc`.
#[inline]
#[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
fn codes32(k: &Consts, b: __m256i, sign: __mmask32, valid: __mmask32, acc: &mut Acc) -> __m256i {
    let minus_one = _mm256_set1_epi8(-1);
    let count = |acc: &mut __m256i, m: __mmask32| {
        *acc = _mm256_mask_sub_epi8(*acc, m & valid, *acc, minus_one);
    };
    let mag = _mm256_and_si256(b, k.b_mag);
    count(&mut acc.bytes[0], _mm256_movepi8_mask(b));
    count(&mut acc.bytes[1], _mm256_cmpgt_epu8_mask(mag, k.b_max));
    count(&mut acc.bytes[2], _mm256_cmplt_epi8_mask(b, k.b_under));
    count(&mut acc.bytes[3], _mm256_cmpeq_epi8_mask(b, k.b_flushed));
    let mag = _mm256_min_epu8(mag, k.b_max);
    // the sign bit is above every magnitude: adding it sets it
    _mm256_mask_add_epi8(mag, sign, mag, k.b_sign)
}

/// Adds the byte counters into 64-bit sums and clears them.
#[inline]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
fn flush(acc: &mut Acc, sums: &mut [u64; 5]) {
    for (s, b) in sums.iter_mut().zip(acc.bytes.iter_mut()) {
        let w = _mm256_sad_epu8(*b, _mm256_setzero_si256());
        // SAFETY: a vector of four u64 lanes viewed as an array of them.
        let l: [u64; 4] = unsafe { std::mem::transmute(w) };
        *s += l.iter().sum::<u64>();
        *b = _mm256_setzero_si256();
    }
    // SAFETY: a vector of 16 u32 lanes viewed as an array of them.
    let l: [u32; 16] = unsafe { std::mem::transmute(acc.saturated) };
    sums[4] += l.iter().map(|&x| u64::from(x)).sum::<u64>();
    acc.saturated = _mm512_setzero_si512();
}

/// The codes of one block planned fast: its elements `v` (f32 bits; `v[1]` unused when `B` is
/// 16), `ebits` its exponent in the f32 exponent field (0 when `multiplies`, with `mul` the
/// multiplier), into `ob`, the statuses counted into `acc`.
#[inline]
#[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[allow(clippy::too_many_arguments)]
fn block_codes<const MODE: u8, const B: usize>(
    k: &Consts,
    v: [__m512i; 2],
    (ebits, mul, multiplies): (__m512i, f32, bool),
    ob: &mut [u8],
    packed: bool,
    acc: &mut Acc,
) {
    let valid: __mmask32 = if B == 32 { u32::MAX } else { 0xFFFF };
    let y = if multiplies {
        let mulv = _mm512_set1_ps(mul);
        let p = |xv: __m512i| _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(xv), mulv));
        [p(v[0]), p(v[1])]
    } else {
        v
    };
    let c0 = encode16::<MODE>(y[0], ebits, k, &mut acc.saturated);
    let c1 = if B == 32 {
        encode16::<MODE>(y[1], ebits, k, &mut acc.saturated)
    } else {
        c0
    };
    let b = _mm512_castsi512_si256(_mm512_permutex2var_epi8(c0, k.low_bytes, c1));
    let top = _mm512_castsi512_si256(_mm512_permutex2var_epi8(v[0], k.top_bytes, v[1]));
    let code = codes32(k, b, _mm256_movepi8_mask(top), valid, acc);
    if packed {
        // each u16 lane holds an even element's code and, 8 bits up, the odd one's
        let pair = _mm256_or_si256(code, _mm256_srli_epi16::<4>(code));
        let bytes = _mm256_cvtepi16_epi8(pair);
        if B == 32 {
            let dst = &mut ob[..16];
            // SAFETY: `dst` holds the 16 bytes stored.
            unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), bytes) };
        } else {
            let dst = &mut ob[..8];
            // SAFETY: `dst` holds the 8 bytes stored.
            unsafe { _mm_storel_epi64(dst.as_mut_ptr().cast(), bytes) };
        }
    } else if B == 32 {
        let dst = &mut ob[..32];
        // SAFETY: `dst` holds the 32 bytes stored.
        unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), code) };
    } else {
        let dst = &mut ob[..16];
        // SAFETY: `dst` holds the 16 bytes stored.
        unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), _mm256_castsi256_si128(code)) };
    }
}

/// Where a run's blocks put what is not a code: the first block's tile number, the run's
/// scale bytes (one per block), the tiles for the reference routine.
pub(super) type RunParts<'a> = (usize, &'a mut [u8], &'a mut Vec<usize>);

/// Rounds the full blocks of `B` elements in `x` (`x.len()` a multiple of `B`, `B` 16 or 32):
/// codes into `out` (one per byte, or two per byte when `packed`, `out` holding
/// `x.len()` or `x.len() / 2` bytes), each block's scale byte into `scales` (the reference
/// blocks' tiles, counted from `first`, into `redo`), the element statuses of the blocks
/// planned fast into `lanes`, the block counts into `stats`. MX blocks of 32 are planned 16
/// at a time in vectors ([`super::plan_avx512`]), the rest one at a time.
///
/// # Safety
/// The CPU must have AVX2, AVX-512 F, BW, VL, DQ and VBMI.
#[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vl,avx512dq,avx512vbmi")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn run<K: BlockKernel, const MODE: u8, const B: usize>(
    kernel: &K,
    g: &SmallFloat,
    x: &[u32],
    out: &mut [u8],
    packed: bool,
    (first, scales, redo): RunParts<'_>,
    lanes: &mut Lanes,
    stats: &mut BlockStats,
) {
    /// Blocks between two flushes of the byte counters.
    const FLUSH: usize = 255;
    let k = Consts::new::<MODE>(g);
    let z = _mm512_setzero_si512();
    let mut acc = Acc {
        bytes: [_mm256_setzero_si256(); 4],
        saturated: z,
    };
    let mut sums = [0u64; 5];
    let mut since_flush = 0;
    let multiplies = kernel.multiplies();
    let out_per_block = if packed { B / 2 } else { B };
    let rule = if B == 32 { kernel.mx_rule() } else { None };
    let blocks = (x.len() / B)
        .min(out.len() / out_per_block)
        .min(scales.len());
    let mut fast_elements = 0u64;
    let load = |j: usize| -> [__m512i; 2] {
        let p = x[B * j..B * j + B].as_ptr();
        // SAFETY: `p` points at the B ≥ 16 elements of block `j`: the loads read inside them.
        unsafe {
            [
                _mm512_loadu_si512(p.cast()),
                if B == 32 {
                    _mm512_loadu_si512(p.add(16).cast())
                } else {
                    z
                },
            ]
        }
    };
    let mut j = 0;
    while j < blocks {
        if let Some(r) = rule.as_ref().filter(|_| j + 16 <= blocks)
            && let Some(group) = x[B * j..B * j + 512].first_chunk::<512>()
        {
            // SAFETY: the CPU has the features `run` requires.
            let p = unsafe { plan16(r, amax16(group), stats) };
            let dst = &mut scales[j..j + 16];
            // SAFETY: `dst` holds the 16 bytes stored.
            unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), p.bytes) };
            for i in 0..16 {
                let ob = &mut out[(j + i) * out_per_block..(j + i + 1) * out_per_block];
                if p.fast & (1 << i) == 0 {
                    ob.fill(0);
                    if p.reference & (1 << i) != 0 {
                        redo.push(first + j + i);
                    }
                    continue;
                }
                let e = _mm512_set1_epi32(p.ebits[i]);
                block_codes::<MODE, B>(&k, load(j + i), (e, 1.0, false), ob, packed, &mut acc);
                fast_elements += B as u64;
                since_flush += 1;
                if since_flush == FLUSH {
                    flush(&mut acc, &mut sums);
                    since_flush = 0;
                }
            }
            j += 16;
            continue;
        }
        let v = load(j);
        let ob = &mut out[j * out_per_block..(j + 1) * out_per_block];
        let m = _mm512_max_epu32(
            _mm512_and_si512(v[0], k.mag_mask),
            _mm512_and_si512(v[1], k.mag_mask),
        );
        let plan = kernel.plan(_mm512_reduce_max_epu32(m), stats);
        let (byte, mul) = match plan {
            BlockPlan::Fast { byte, mul } => (byte, mul),
            BlockPlan::Zeros { byte } => {
                scales[j] = byte;
                ob.fill(0);
                j += 1;
                continue;
            }
            BlockPlan::Reference => {
                redo.push(first + j);
                ob.fill(0);
                j += 1;
                continue;
            }
        };
        scales[j] = byte;
        let ebits = if multiplies {
            z
        } else {
            let e = i32::from(byte) - 127;
            _mm512_set1_epi32((e as u32).wrapping_shl(23) as i32)
        };
        block_codes::<MODE, B>(&k, v, (ebits, mul, multiplies), ob, packed, &mut acc);
        fast_elements += B as u64;
        since_flush += 1;
        if since_flush == FLUSH {
            flush(&mut acc, &mut sums);
            since_flush = 0;
        }
        j += 1;
    }
    flush(&mut acc, &mut sums);
    for (one, s) in lanes.one.iter_mut().zip(sums) {
        *one += s;
    }
    lanes.total += fast_elements;
}
