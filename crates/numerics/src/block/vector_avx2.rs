//! The vector block kernel at the AVX2 level: [`super::vector_avx512`]'s pass on 8 lanes, with
//! compare vectors for masks, the codes narrowed by saturating packs (one per byte) or
//! byte shuffles (two per byte), the statuses counted per lane by vector subtractions.

use std::arch::x86_64::*;

use super::fast::{BlockKernel, BlockPlan};
use super::fused_element::{CEIL, FLOOR, Lanes, RINT, ROUND, SmallFloat, TRUNC};
use super::stats::BlockStats;

/// The element format's constants, broadcast.
struct Consts {
    one: __m256i,
    ones: __m256i,
    mag_mask: __m256i,
    man_mask: __m256i,
    hidden: __m256i,
    shift: __m256i,
    s_base: __m256i,
    normal_min_less1: __m256i,
    max: __m256i,
    min_normal: __m256i,
    sign: __m256i,
    hi: __m256i,
    thirty_one: __m256i,
    /// `127 - bias`, a scalar: the rebias of the normal range moves with each block's `e`.
    rebias: i32,
}

impl Consts {
    #[target_feature(enable = "avx2")]
    fn new(g: &SmallFloat) -> Consts {
        let c = |v: u32| _mm256_set1_epi32(v as i32);
        Consts {
            one: c(1),
            ones: c(u32::MAX),
            mag_mask: c(0x7FFF_FFFF),
            man_mask: c(0x007F_FFFF),
            hidden: c(0x0080_0000),
            shift: c(g.shift),
            s_base: c((g.shift as i32 + g.normal_min) as u32),
            normal_min_less1: c((g.normal_min - 1) as u32),
            max: c(g.max),
            min_normal: c(g.min_normal_code),
            sign: c(1 << g.sign_shift),
            hi: c(1 << 16),
            thirty_one: c(31),
            rebias: g.rebias,
        }
    }
}

/// Per-lane status sums in [`Lanes`]' packed form, 8 lanes a vector, 32 lanes.
struct Acc {
    a: [__m256i; 4],
    b: [__m256i; 4],
    c: [__m256i; 4],
}

/// The codes of 8 elements `y × 2^-e` (`y` f32 bits), as
/// [`encode`](super::fused_element::encode) computes them lane by lane, the statuses added to
/// `acc`'s vector `grp`. Every value below 2^31 is compared as signed.
#[inline]
#[target_feature(enable = "avx2")]
fn encode8<const MODE: u8>(y: __m256i, e: i32, k: &Consts, acc: &mut Acc, grp: usize) -> __m256i {
    let zero = _mm256_setzero_si256();
    let mag = _mm256_and_si256(y, k.mag_mask);
    let neg = _mm256_srai_epi32::<31>(y);
    let ex = _mm256_srli_epi32::<23>(mag);
    let ey = _mm256_sub_epi32(_mm256_max_epi32(ex, k.one), _mm256_set1_epi32(e));
    let expos = _mm256_cmpgt_epi32(ex, zero);
    let normal = _mm256_and_si256(expos, _mm256_cmpgt_epi32(ey, k.normal_min_less1));
    let rebias = _mm256_set1_epi32(((k.rebias + e) as u32).wrapping_shl(23) as i32);
    let f_norm = _mm256_sub_epi32(mag, rebias);
    let f_sub = _mm256_or_si256(
        _mm256_and_si256(mag, k.man_mask),
        _mm256_and_si256(expos, k.hidden),
    );
    let s_sub = _mm256_min_epi32(_mm256_sub_epi32(k.s_base, ey), k.thirty_one);
    let f = _mm256_blendv_epi8(f_sub, f_norm, normal);
    let s = _mm256_blendv_epi8(s_sub, k.shift, normal);
    let q = _mm256_srlv_epi32(f, s);
    let p = _mm256_sllv_epi32(k.one, s);
    let r = _mm256_and_si256(f, _mm256_sub_epi32(p, k.one));
    let half = _mm256_srli_epi32::<1>(p);
    let z = _mm256_cmpeq_epi32(r, zero);
    let nz = _mm256_xor_si256(z, k.ones);
    let q_odd = _mm256_cmpeq_epi32(_mm256_and_si256(q, k.one), k.one);
    let inc = match MODE {
        RINT => _mm256_or_si256(
            _mm256_cmpgt_epi32(r, half),
            _mm256_and_si256(_mm256_cmpeq_epi32(r, half), q_odd),
        ),
        ROUND => _mm256_xor_si256(_mm256_cmpgt_epi32(half, r), k.ones),
        FLOOR => _mm256_andnot_si256(z, neg),
        CEIL => _mm256_xor_si256(_mm256_or_si256(z, neg), k.ones),
        TRUNC => zero,
        _ => _mm256_andnot_si256(_mm256_or_si256(z, q_odd), k.ones),
    };
    let n = _mm256_sub_epi32(q, inc);
    let over = _mm256_cmpgt_epi32(n, k.max);
    let code = _mm256_or_si256(_mm256_min_epi32(n, k.max), _mm256_and_si256(neg, k.sign));
    let inexact = _mm256_or_si256(nz, _mm256_cmpgt_epi32(q, k.max));
    let saturated = _mm256_or_si256(over, _mm256_and_si256(_mm256_cmpeq_epi32(q, k.max), nz));
    let flushed = _mm256_andnot_si256(_mm256_cmpeq_epi32(mag, zero), _mm256_cmpeq_epi32(n, zero));
    let underflow = _mm256_and_si256(inexact, _mm256_cmpgt_epi32(k.min_normal, n));
    acc.a[grp] = _mm256_add_epi32(
        _mm256_sub_epi32(acc.a[grp], inexact),
        _mm256_and_si256(over, k.hi),
    );
    acc.b[grp] = _mm256_add_epi32(
        _mm256_sub_epi32(acc.b[grp], underflow),
        _mm256_and_si256(flushed, k.hi),
    );
    acc.c[grp] = _mm256_sub_epi32(acc.c[grp], saturated);
    code
}

/// The byte shuffles that gather the packed byte of each 64-bit lane of the `j`-th of two
/// vectors to bytes `4j..4j + 4` (two from each 128-bit half, OR-ed together after).
#[inline]
#[target_feature(enable = "avx2")]
fn pack_index(j: usize) -> __m256i {
    let mut idx = [-1i8; 32];
    idx[4 * j] = 0;
    idx[4 * j + 1] = 8;
    idx[16 + 4 * j + 2] = 0;
    idx[16 + 4 * j + 3] = 8;
    // SAFETY: an array of 32 bytes viewed as a vector of them.
    unsafe { std::mem::transmute::<[i8; 32], __m256i>(idx) }
}

/// Rounds the full blocks of `B` elements in `x` as [`super::vector_avx512::run`] does, 8
/// lanes at a time.
///
/// # Safety
/// The CPU must have AVX2.
#[target_feature(enable = "avx2,fma")]
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn run<K: BlockKernel, const MODE: u8, const B: usize>(
    kernel: &K,
    g: &SmallFloat,
    x: &[u32],
    out: &mut [u8],
    packed: bool,
    (first, scales, redo): super::vector_avx512::RunParts<'_>,
    lanes: &mut Lanes,
    stats: &mut BlockStats,
) {
    let k = Consts::new(g);
    let z = _mm256_setzero_si256();
    let mut acc = Acc {
        a: [z; 4],
        b: [z; 4],
        c: [z; 4],
    };
    let idx = [pack_index(0), pack_index(1)];
    let order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    let multiplies = kernel.multiplies();
    let out_per_block = if packed { B / 2 } else { B };
    let mut fast_elements = 0u64;
    let blocks = x.chunks_exact(B).zip(out.chunks_exact_mut(out_per_block));
    for (t, ((xb, ob), sc)) in blocks.zip(scales.iter_mut()).enumerate() {
        let mut v = [z; 4];
        for (j, vj) in v.iter_mut().enumerate().take(B / 8) {
            // SAFETY: `xb` holds B elements, 8 of them from 8j.
            *vj = unsafe { _mm256_loadu_si256(xb.as_ptr().add(8 * j).cast()) };
        }
        let mut m = _mm256_and_si256(v[0], k.mag_mask);
        for &vj in &v[1..B / 8] {
            m = _mm256_max_epu32(m, _mm256_and_si256(vj, k.mag_mask));
        }
        let h = _mm_max_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256::<1>(m));
        let h = _mm_max_epu32(h, _mm_shuffle_epi32::<0b01_00_11_10>(h));
        let h = _mm_max_epu32(h, _mm_shuffle_epi32::<0b10_11_00_01>(h));
        let amax = _mm_cvtsi128_si32(h) as u32;
        let (byte, mul) = match kernel.plan(amax, stats) {
            BlockPlan::Fast { byte, mul } => (byte, mul),
            BlockPlan::Zeros { byte } => {
                *sc = byte;
                ob.fill(0);
                continue;
            }
            BlockPlan::Reference => {
                redo.push(first + t);
                ob.fill(0);
                continue;
            }
        };
        *sc = byte;
        fast_elements += B as u64;
        let e = if multiplies { 0 } else { i32::from(byte) - 127 };
        let mulv = _mm256_set1_ps(mul);
        let mut codes = [z; 4];
        for (j, cj) in codes.iter_mut().enumerate().take(B / 8) {
            let y = if multiplies {
                _mm256_castps_si256(_mm256_mul_ps(_mm256_castsi256_ps(v[j]), mulv))
            } else {
                v[j]
            };
            *cj = encode8::<MODE>(y, e, &k, &mut acc, j);
        }
        // 16 elements (two vectors) at a time
        for (h2, pair) in codes[..B / 8].chunks_exact(2).enumerate() {
            if packed {
                let mut all = z;
                for (j, &c) in pair.iter().enumerate() {
                    let p = _mm256_or_si256(c, _mm256_srli_epi64::<28>(c));
                    all = _mm256_or_si256(all, _mm256_shuffle_epi8(p, idx[j]));
                }
                let bytes = _mm_or_si128(
                    _mm256_castsi256_si128(all),
                    _mm256_extracti128_si256::<1>(all),
                );
                let dst = &mut ob[h2 * 8..h2 * 8 + 8];
                // SAFETY: `dst` holds the 8 bytes stored.
                unsafe { _mm_storel_epi64(dst.as_mut_ptr().cast(), bytes) };
            } else {
                let w = _mm256_packus_epi32(pair[0], pair[1]);
                let b = _mm256_packus_epi16(w, w);
                let b = _mm256_permutevar8x32_epi32(b, order);
                let dst = &mut ob[h2 * 16..h2 * 16 + 16];
                // SAFETY: `dst` holds the 16 bytes stored.
                unsafe { _mm_storeu_si128(dst.as_mut_ptr().cast(), _mm256_castsi256_si128(b)) };
            }
        }
    }
    let add = |dst: &mut [u32; 32], v: &[__m256i; 4]| {
        for (grp, &vv) in v.iter().enumerate() {
            // SAFETY: a vector of 8 u32 lanes viewed as an array of them.
            let l: [u32; 8] = unsafe { std::mem::transmute::<__m256i, [u32; 8]>(vv) };
            for (d, s) in dst[grp * 8..grp * 8 + 8].iter_mut().zip(l) {
                *d += s;
            }
        }
    };
    add(&mut lanes.a, &acc.a);
    add(&mut lanes.b, &acc.b);
    add(&mut lanes.c, &acc.c);
    lanes.total += fast_elements;
}
