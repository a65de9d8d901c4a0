//! The vector block kernel at the AVX-512 level: runs of full blocks (32 elements for MX, 16
//! for NVFP4) along a contiguous axis, each block in one pass while it is in registers: the
//! amax by a vector max of the magnitudes' bits, the plan (scale byte, exponent) by the
//! scheme's scalar rule, each element's code by the integer rounding of
//! [`encode`](super::fused_element::encode) on 16 lanes (an NVFP4 element multiplied by the
//! scale's f32 reciprocal first), the codes narrowed to bytes or packed two per byte in
//! registers, the statuses counted per lane by masked adds.

use std::arch::x86_64::*;

use super::fast::{BlockKernel, BlockPlan};
use super::fused_element::{CEIL, FLOOR, Lanes, RINT, ROUND, SmallFloat, TRUNC};
use super::stats::BlockStats;

/// The element format's constants, broadcast.
struct Consts {
    one: __m512i,
    mag_mask: __m512i,
    man_mask: __m512i,
    hidden: __m512i,
    shift: __m512i,
    s_base: __m512i,
    normal_min: __m512i,
    max: __m512i,
    min_normal: __m512i,
    sign: __m512i,
    hi: __m512i,
    thirty_one: __m512i,
    /// `127 - bias`, a scalar: the rebias of the normal range moves with each block's `e`.
    rebias: i32,
}

impl Consts {
    #[target_feature(enable = "avx512f")]
    fn new(g: &SmallFloat) -> Consts {
        let c = |v: u32| _mm512_set1_epi32(v as i32);
        Consts {
            one: c(1),
            mag_mask: c(0x7FFF_FFFF),
            man_mask: c(0x007F_FFFF),
            hidden: c(0x0080_0000),
            shift: c(g.shift),
            s_base: c((g.shift as i32 + g.normal_min) as u32),
            normal_min: c(g.normal_min as u32),
            max: c(g.max),
            min_normal: c(g.min_normal_code),
            sign: c(1 << g.sign_shift),
            hi: c(1 << 16),
            thirty_one: c(31),
            rebias: g.rebias,
        }
    }
}

/// Per-lane status sums in [`Lanes`]' packed form, for lanes 0-15 and 16-31 of a block.
struct Acc {
    a: [__m512i; 2],
    b: [__m512i; 2],
    c: [__m512i; 2],
}

/// The codes of 16 elements `y × 2^-e` (`y` f32 bits), as [`encode`](super::fused_element::encode)
/// computes them lane by lane, the statuses added to `acc`'s group `grp`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
fn encode16<const MODE: u8>(y: __m512i, e: i32, k: &Consts, acc: &mut Acc, grp: usize) -> __m512i {
    let zero = _mm512_setzero_si512();
    let mag = _mm512_and_si512(y, k.mag_mask);
    let neg = _mm512_movepi32_mask(y);
    let ex = _mm512_srli_epi32::<23>(mag);
    let ey = _mm512_sub_epi32(_mm512_max_epi32(ex, k.one), _mm512_set1_epi32(e));
    let expos = _mm512_cmpgt_epi32_mask(ex, zero);
    let normal = expos & _mm512_cmpge_epi32_mask(ey, k.normal_min);
    let rebias = _mm512_set1_epi32(((k.rebias + e) as u32).wrapping_shl(23) as i32);
    let f_norm = _mm512_sub_epi32(mag, rebias);
    let m = _mm512_and_si512(mag, k.man_mask);
    let f_sub = _mm512_mask_or_epi32(m, expos, m, k.hidden);
    let s_sub = _mm512_min_epi32(_mm512_sub_epi32(k.s_base, ey), k.thirty_one);
    let f = _mm512_mask_blend_epi32(normal, f_sub, f_norm);
    let s = _mm512_mask_blend_epi32(normal, s_sub, k.shift);
    let q = _mm512_srlv_epi32(f, s);
    let p = _mm512_sllv_epi32(k.one, s);
    let r = _mm512_and_si512(f, _mm512_sub_epi32(p, k.one));
    let half = _mm512_srli_epi32::<1>(p);
    let nz = _mm512_test_epi32_mask(r, r);
    let inc: __mmask16 = match MODE {
        RINT => {
            _mm512_cmpgt_epu32_mask(r, half)
                | (_mm512_cmpeq_epi32_mask(r, half) & _mm512_test_epi32_mask(q, k.one))
        }
        ROUND => _mm512_cmpge_epu32_mask(r, half),
        FLOOR => nz & neg,
        CEIL => nz & !neg,
        TRUNC => 0,
        _ => nz & _mm512_testn_epi32_mask(q, k.one),
    };
    let n = _mm512_mask_add_epi32(q, inc, q, k.one);
    let over = _mm512_cmpgt_epu32_mask(n, k.max);
    let clamped = _mm512_min_epu32(n, k.max);
    let code = _mm512_mask_or_epi32(clamped, neg, clamped, k.sign);
    let inexact = nz | _mm512_cmpgt_epu32_mask(q, k.max);
    let saturated = over | (_mm512_cmpeq_epi32_mask(q, k.max) & nz);
    let flushed = _mm512_cmpeq_epi32_mask(n, zero) & _mm512_test_epi32_mask(mag, mag);
    let underflow = inexact & _mm512_cmplt_epu32_mask(n, k.min_normal);
    let a = _mm512_mask_add_epi32(acc.a[grp], inexact, acc.a[grp], k.one);
    acc.a[grp] = _mm512_mask_add_epi32(a, over, a, k.hi);
    let b = _mm512_mask_add_epi32(acc.b[grp], underflow, acc.b[grp], k.one);
    acc.b[grp] = _mm512_mask_add_epi32(b, flushed, b, k.hi);
    acc.c[grp] = _mm512_mask_add_epi32(acc.c[grp], saturated, acc.c[grp], k.one);
    code
}

/// Rounds the full blocks of `B` elements in `x` (`x.len()` a multiple of `B`, `B` 16 or 32):
/// codes into `out` (one per byte, or two per byte when `packed`, `out` holding
/// `x.len()` or `x.len() / 2` bytes), each block's plan appended to `plans`, the element
/// statuses of the blocks planned [`BlockPlan::Fast`] into `lanes`, the block counts into
/// `stats`.
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
    plans: &mut Vec<BlockPlan>,
    lanes: &mut Lanes,
    stats: &mut BlockStats,
) {
    let k = Consts::new(g);
    let z = _mm512_setzero_si512();
    let mut acc = Acc {
        a: [z; 2],
        b: [z; 2],
        c: [z; 2],
    };
    let multiplies = kernel.multiplies();
    let out_per_block = if packed { B / 2 } else { B };
    // byte 4j of the first vector's lanes, then of the second's (index 64 + 4j)
    let mut idx = [0u8; 64];
    for (j, b) in idx.iter_mut().enumerate().take(16) {
        *b = (4 * j) as u8;
    }
    for (j, b) in idx.iter_mut().enumerate().take(32).skip(16) {
        *b = 64 + 4 * (j as u8 - 16);
    }
    // SAFETY: 64 bytes read as a vector of them.
    let narrow = unsafe { _mm512_loadu_si512(idx.as_ptr().cast()) };
    let mut fast_elements = 0u64;
    for (xb, ob) in x.chunks_exact(B).zip(out.chunks_exact_mut(out_per_block)) {
        // SAFETY: `xb` holds B ≥ 16 elements: the loads read inside it.
        let v: [__m512i; 2] = unsafe {
            [
                _mm512_loadu_si512(xb.as_ptr().cast()),
                if B == 32 {
                    _mm512_loadu_si512(xb.as_ptr().add(16).cast())
                } else {
                    z
                },
            ]
        };
        let m = _mm512_max_epu32(
            _mm512_and_si512(v[0], k.mag_mask),
            _mm512_and_si512(v[1], k.mag_mask),
        );
        let amax = _mm512_reduce_max_epu32(m);
        let plan = kernel.plan(amax, stats);
        plans.push(plan);
        let BlockPlan::Fast { byte, mul } = plan else {
            ob.fill(0);
            continue;
        };
        fast_elements += B as u64;
        let e = if multiplies { 0 } else { i32::from(byte) - 127 };
        let mulv = _mm512_set1_ps(mul);
        let operand = |xv: __m512i| {
            if multiplies {
                _mm512_castps_si512(_mm512_mul_ps(_mm512_castsi512_ps(xv), mulv))
            } else {
                xv
            }
        };
        if B == 32 && !packed {
            // the low byte of each of the 32 lanes, in order, by one byte permute
            let c0 = encode16::<MODE>(operand(v[0]), e, &k, &mut acc, 0);
            let c1 = encode16::<MODE>(operand(v[1]), e, &k, &mut acc, 1);
            let bytes = _mm512_permutex2var_epi8(c0, narrow, c1);
            let dst = &mut ob[..32];
            // SAFETY: `dst` holds the 32 bytes stored.
            unsafe { _mm256_storeu_si256(dst.as_mut_ptr().cast(), _mm512_castsi512_si256(bytes)) };
            continue;
        }
        for (grp, &xv) in v.iter().enumerate().take(B / 16) {
            let code = encode16::<MODE>(operand(xv), e, &k, &mut acc, grp);
            if packed {
                // each u64 lane holds an even element's code and, 32 bits up, the odd one's
                let pair = _mm512_or_si512(code, _mm512_srli_epi64::<28>(code));
                let bytes = _mm512_cvtepi64_epi8(pair);
                let dst = &mut ob[grp * 8..grp * 8 + 8];
                // SAFETY: `dst` holds the 8 bytes stored.
                unsafe { _mm_storel_epi64(dst.as_mut_ptr().cast(), bytes) };
            } else {
                let bytes = _mm512_cvtepi32_epi8(code);
                let dst = &mut ob[grp * 16..grp * 16 + 16];
                // SAFETY: `dst` holds the 16 bytes stored.
                unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), bytes) };
            }
        }
    }
    let add = |dst: &mut [u32; 32], v: &[__m512i; 2]| {
        for (grp, &vv) in v.iter().enumerate() {
            // SAFETY: a vector of 16 u32 lanes viewed as an array of them.
            let l: [u32; 16] = unsafe { std::mem::transmute(vv) };
            for (d, s) in dst[grp * 16..grp * 16 + 16].iter_mut().zip(l) {
                *d += s;
            }
        }
    };
    add(&mut lanes.a, &acc.a);
    add(&mut lanes.b, &acc.b);
    add(&mut lanes.c, &acc.c);
    lanes.total += fast_elements;
}
