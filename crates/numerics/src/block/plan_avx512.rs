//! The MX block plan for 16 blocks of 32 elements in one AVX-512 vector: the 16 amaxes by a
//! transpose-free reduction tree (each block's two vectors folded by one `vpmaxud`, then 15
//! two-source shuffles and maxima fold 16 vectors into one whose lane `j` is block `j`'s
//! amax), then the scale rule (FLOOR, CEIL, EVEN, RCEIL), the e8m0 bytes, the blocks'
//! exponents and their counts on 16 lanes at once, by the same integer and f32 steps as
//! [`MxKernel::plan`](super::fast_mx::MxKernel) takes for one block.

use std::arch::x86_64::*;

use super::fast_mx::MxRule;
use super::mx::E8M0_NAN;
use super::scale_rule::ScaleRule;
use super::stats::BlockStats;

/// The plans of 16 blocks.
pub(super) struct Plan16 {
    /// Each block's exponent `e` in the f32 exponent field (`e << 23`, wrapping): the
    /// element step's operand.
    pub(super) ebits: [i32; 16],
    /// The 16 scale bytes (a reference block's byte is meaningless: the routine writes it).
    pub(super) bytes: __m128i,
    /// The blocks whose elements the element step rounds (bit `j` for block `j`).
    pub(super) fast: u16,
    /// The blocks for the reference routine.
    pub(super) reference: u16,
}

/// The amaxes (f32 bits of the largest magnitude, a NaN's or ±Inf's at or above
/// `0x7F80_0000`) of the 16 blocks of 32 elements in `x`, lane `j` for block `j`.
///
/// # Safety
/// The CPU must have AVX-512 F.
#[inline]
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn amax16(x: &[u32; 512]) -> __m512i {
    let mag = _mm512_set1_epi32(0x7FFF_FFFF);
    let m: [__m512i; 16] = std::array::from_fn(|j| {
        // SAFETY: `x` holds 512 elements; block `j` is the 32 from 32j.
        let (a, b) = unsafe {
            (
                _mm512_loadu_si512(x.as_ptr().add(32 * j).cast()),
                _mm512_loadu_si512(x.as_ptr().add(32 * j + 16).cast()),
            )
        };
        _mm512_max_epu32(_mm512_and_si512(a, mag), _mm512_and_si512(b, mag))
    });
    // 8 vectors: lanes 0-7 block 2k's partial maxima, lanes 8-15 block 2k + 1's
    let l1: [__m512i; 8] = std::array::from_fn(|k| {
        let (a, b) = (m[2 * k], m[2 * k + 1]);
        _mm512_max_epu32(
            _mm512_shuffle_i32x4::<0x44>(a, b),
            _mm512_shuffle_i32x4::<0xEE>(a, b),
        )
    });
    // 4 vectors: 128-bit lane i holds block 4k + i's 4 partial maxima
    let l2: [__m512i; 4] = std::array::from_fn(|k| {
        let (c, d) = (l1[2 * k], l1[2 * k + 1]);
        _mm512_max_epu32(
            _mm512_shuffle_i32x4::<0x88>(c, d),
            _mm512_shuffle_i32x4::<0xDD>(c, d),
        )
    });
    // 2 vectors: 128-bit lane i holds 2 partials of block 8k + i, then 2 of 8k + 4 + i
    let l3: [__m512i; 2] = std::array::from_fn(|k| {
        let (e, f) = (l2[2 * k], l2[2 * k + 1]);
        _mm512_max_epu32(_mm512_unpacklo_epi64(e, f), _mm512_unpackhi_epi64(e, f))
    });
    // one vector: 128-bit lane i holds blocks i, 4 + i, 8 + i, 12 + i
    let (g, h) = (_mm512_castsi512_ps(l3[0]), _mm512_castsi512_ps(l3[1]));
    let last = _mm512_max_epu32(
        _mm512_castps_si512(_mm512_shuffle_ps::<0x88>(g, h)),
        _mm512_castps_si512(_mm512_shuffle_ps::<0xDD>(g, h)),
    );
    // block j is at lane 4 (j % 4) + j / 4
    let order = _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15);
    _mm512_permutexvar_epi32(order, last)
}

/// The plans of 16 blocks whose amaxes are `amax` (from [`amax16`]) under `r`, their counts
/// added to `stats` (the reference blocks' left to the routine).
///
/// # Safety
/// The CPU must have AVX-512 F, BW, VL and DQ.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512dq")]
pub(super) unsafe fn plan16(r: &MxRule, amax: __m512i, stats: &mut BlockStats) -> Plan16 {
    let c = |v: i32| _mm512_set1_epi32(v);
    let special = _mm512_cmpge_epu32_mask(amax, c(0x7F80_0000));
    let zero = _mm512_cmpeq_epi32_mask(amax, _mm512_setzero_si512());
    let biased = _mm512_srli_epi32::<23>(amax);
    let in_range = _mm512_cmpge_epu32_mask(biased, c(r.amax_exp.0 as i32))
        & _mm512_cmple_epu32_mask(biased, c(r.amax_exp.1 as i32));
    let mant = _mm512_and_si512(amax, c(0x007F_FFFF));
    let up = |cond: __mmask16, e: __m512i| _mm512_mask_sub_epi32(e, cond, e, c(-1));
    let e = match r.rule {
        ScaleRule::Floor => _mm512_sub_epi32(biased, c(127 + r.emax)),
        ScaleRule::Ceil => up(
            _mm512_test_epi32_mask(mant, mant),
            _mm512_sub_epi32(biased, c(127 + r.emax)),
        ),
        ScaleRule::Even => {
            // R(amax) reaches the next binade iff the top man + 1 mantissa bits are ones
            let top = _mm512_srlv_epi32(mant, c(22 - r.man as i32));
            let ones = c((1 << (r.man + 1)) - 1);
            up(
                _mm512_cmpeq_epi32_mask(top, ones),
                _mm512_sub_epi32(biased, c(127 + r.emax)),
            )
        }
        ScaleRule::Rceil => {
            // fl32(amax / max_normal): one correctly rounded division, then an exact power
            // of two (the quotient is a normal f32 for the blocks in range)
            let q = _mm512_div_ps(_mm512_castsi512_ps(amax), _mm512_set1_ps(r.max_sig));
            let p = f32::from_bits(((127 - r.max_exp) as u32) << 23);
            let d = _mm512_castps_si512(_mm512_mul_ps(q, _mm512_set1_ps(p)));
            let dm = _mm512_and_si512(d, c(0x007F_FFFF));
            up(
                _mm512_test_epi32_mask(dm, dm),
                _mm512_sub_epi32(_mm512_srli_epi32::<23>(d), c(127)),
            )
        }
    };
    // the multiplier 2^(shift - e) and whether the amax scaled by it saturates
    let mul = _mm512_slli_epi32::<23>(_mm512_sub_epi32(c(r.shift + 127), e));
    let top = _mm512_mul_ps(_mm512_castsi512_ps(amax), _mm512_castsi512_ps(mul));
    let saturates = in_range & _mm512_cmp_ps_mask::<_CMP_GT_OQ>(top, _mm512_set1_ps(r.max_scaled));
    let mut scaled = in_range;
    if r.saturating_is_reference {
        scaled &= !saturates;
    }
    let fast = scaled | zero;
    let reference = !(fast | special);
    // bytes: e + 127 for the scaled blocks, 0 for zero blocks, the NaN byte for NaN blocks
    let byte = _mm512_maskz_add_epi32(scaled, e, c(127));
    let byte = _mm512_mask_mov_epi32(byte, special, c(i32::from(E8M0_NAN)));
    let mut ebits = [0i32; 16];
    let eb = _mm512_slli_epi32::<23>(_mm512_sub_epi32(byte, c(127)));
    // SAFETY: `ebits` holds the 16 lanes stored.
    unsafe { _mm512_storeu_si512(ebits.as_mut_ptr().cast(), eb) };
    let count = |m: __mmask16| u64::from(m.count_ones());
    stats.blocks += count(fast | special);
    stats.nan_blocks += count(special);
    stats.zero_blocks += count(zero);
    stats.blocks_with_saturated_elements += count(saturates & scaled);
    Plan16 {
        ebits,
        bytes: _mm512_cvtepi32_epi8(byte),
        fast,
        reference,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::block::fast::{BlockKernel, BlockPlan};
    use crate::block::fast_mx::MxKernel;
    use crate::block::scheme::Scheme;
    use crate::policy::CastPolicy;

    fn avx512_here() -> bool {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512bw")
            && std::arch::is_x86_feature_detected!("avx512vl")
            && std::arch::is_x86_feature_detected!("avx512dq")
    }

    /// Amaxes at every kind of edge: zeros, NaN and ±Inf bits, subnormals, binade edges and
    /// one ulp around them, the integer rules' range limits, f32's top.
    fn amaxes() -> Vec<u32> {
        let mut v = vec![0, 1, 0x7F80_0000, 0x7FC0_0000, 0x7FFF_FFFF, 0x7F7F_FFFF];
        for biased in [
            1u32, 39, 40, 41, 100, 126, 127, 128, 135, 200, 229, 230, 231,
        ] {
            for mant in [0u32, 1, 0x0040_0000, 0x0060_0000, 0x0070_0000, 0x0078_0000] {
                let b = (biased << 23) | mant;
                v.extend([b, b - 1, b + 1, b | 0x007F_FFFF]);
            }
        }
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..2000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push((s as u32) & 0x7FFF_FFFF);
        }
        v
    }

    #[test]
    fn amax16_is_each_blocks_largest_magnitude() {
        if !avx512_here() {
            return;
        }
        let mut s = 0x1234_5678u32;
        for round in 0..200 {
            let x: [u32; 512] = std::array::from_fn(|_| {
                s ^= s << 13;
                s ^= s >> 17;
                s ^= s << 5;
                if round % 3 == 0 { s >> (s % 31) } else { s }
            });
            // SAFETY: AVX-512 F is here.
            let v = unsafe { amax16(&x) };
            // SAFETY: a vector of 16 u32 lanes viewed as an array of them.
            let got: [u32; 16] = unsafe { std::mem::transmute(v) };
            let want: [u32; 16] = std::array::from_fn(|j| {
                x[32 * j..32 * j + 32]
                    .iter()
                    .fold(0, |m, &b| m.max(b & 0x7FFF_FFFF))
            });
            assert_eq!(got, want, "round {round}");
        }
    }

    #[test]
    fn plan16_is_the_scalar_plan_of_every_block() {
        if !avx512_here() {
            return;
        }
        let amaxes = amaxes();
        for scheme in Scheme::ALL.into_iter().filter(|s| s.is_mx()) {
            for rule in ScaleRule::ALL {
                let k = MxKernel::new(scheme, rule, CastPolicy::default(), (0, 0));
                let Some(r) = k.mx_rule() else {
                    panic!("{scheme} has no rule");
                };
                for group in amaxes.chunks(16) {
                    let mut a = [0u32; 16];
                    a[..group.len()].copy_from_slice(group);
                    let mut sv = BlockStats::default();
                    // SAFETY: the features are here; `a` is 16 lanes.
                    let p = unsafe { plan16(&r, _mm512_loadu_si512(a.as_ptr().cast()), &mut sv) };
                    // SAFETY: 16 bytes viewed as an array of them.
                    let bytes: [u8; 16] = unsafe { std::mem::transmute(p.bytes) };
                    let mut ss = BlockStats::default();
                    for (j, &amax) in a.iter().enumerate() {
                        let what = format!("{scheme} {rule} amax {amax:#x}");
                        let bit = 1u16 << j;
                        match k.plan(amax, &mut ss) {
                            BlockPlan::Fast { byte, .. } => {
                                assert!(p.fast & bit != 0 && p.reference & bit == 0, "{what}");
                                assert_eq!(bytes[j], byte, "{what}");
                                let e = i32::from(byte) - 127;
                                assert_eq!(p.ebits[j], (e as u32).wrapping_shl(23) as i32);
                            }
                            BlockPlan::Zeros { byte } => {
                                assert!(p.fast & bit == 0 && p.reference & bit == 0, "{what}");
                                assert_eq!(bytes[j], byte, "{what}");
                            }
                            BlockPlan::Reference => {
                                assert!(p.fast & bit == 0 && p.reference & bit != 0, "{what}");
                            }
                        }
                    }
                    assert_eq!(sv, ss, "{scheme} {rule} {group:x?}");
                }
            }
        }
    }
}
