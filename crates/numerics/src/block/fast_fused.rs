//! The fused block kernel: per block, in one pass over its elements while they are in
//! registers, the amax from the bits, the plan (scale byte and exponent from the kernel's
//! integer rule), and each element scaled by the exact power of two and rounded to its code
//! by [`encode`] (NVFP4: multiplied by the f32 reciprocal of its scale first, as published).
//!
//! Written once in branch-free Rust; [`Context::fused_batch`] runs it compiled for the
//! call's instruction-set level (AVX-512, AVX2, or the baseline target), where the compiler
//! vectorises the per-block loops over 32 (or 16) elements. The rounding mode is a constant
//! of each compiled copy.

use super::fast::{BlockKernel, BlockPlan, Context, Scratch};
use super::fused_element::{CEIL, FLOOR, Lanes, ODD, RINT, ROUND, SmallFloat, TRUNC, encode};
use super::stats::BlockStats;
use crate::bulk::SimdLevel;

/// Where a batch's tiles and elements are: tiles `t0..t1`, the first element's flat index.
pub(super) type Span = ((usize, usize), usize);

impl<K: BlockKernel> Context<'_, K> {
    /// Plans and rounds tiles `t0..t1` (first flat index `a`, element bits `bits`): one code
    /// per byte into `c`, the plans into `s.plans`, blocks for the reference routine into
    /// `s.redo`, the element flags into `lanes`, the block counts into `stats`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fused_batch(
        &self,
        g: &SmallFloat,
        mode: u8,
        range: (usize, usize),
        a: usize,
        bits: &[u32],
        c: &mut [u8],
        s: &mut Scratch,
        lanes: &mut Lanes,
        stats: &mut BlockStats,
    ) {
        let span = (range, a);
        let io = (bits, c);
        match mode {
            RINT => self.fused_at::<RINT>(g, span, io, s, lanes, stats),
            ROUND => self.fused_at::<ROUND>(g, span, io, s, lanes, stats),
            FLOOR => self.fused_at::<FLOOR>(g, span, io, s, lanes, stats),
            CEIL => self.fused_at::<CEIL>(g, span, io, s, lanes, stats),
            TRUNC => self.fused_at::<TRUNC>(g, span, io, s, lanes, stats),
            _ => self.fused_at::<ODD>(g, span, io, s, lanes, stats),
        }
    }

    /// [`Context::fused_batch`] in mode `MODE`, at the call's level.
    fn fused_at<const MODE: u8>(
        &self,
        g: &SmallFloat,
        span: Span,
        io: (&[u32], &mut [u8]),
        s: &mut Scratch,
        lanes: &mut Lanes,
        stats: &mut BlockStats,
    ) {
        #[cfg(target_arch = "x86_64")]
        match self.level {
            // SAFETY: the level was resolved from the levels the kernels may use here, which
            // the CPU has.
            SimdLevel::Avx512 => {
                return unsafe { self.fused_avx512::<MODE>(g, span, io, s, lanes, stats) };
            }
            // SAFETY: as above.
            SimdLevel::Avx2 => {
                return unsafe { self.fused_avx2::<MODE>(g, span, io, s, lanes, stats) };
            }
            SimdLevel::Portable => {}
        }
        self.fused_portable::<MODE>(g, span, io, s, lanes, stats);
    }

    /// [`Context::fused_portable`] compiled for AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vl,avx512dq")]
    fn fused_avx512<const MODE: u8>(
        &self,
        g: &SmallFloat,
        span: Span,
        io: (&[u32], &mut [u8]),
        s: &mut Scratch,
        lanes: &mut Lanes,
        stats: &mut BlockStats,
    ) {
        self.fused_portable::<MODE>(g, span, io, s, lanes, stats);
    }

    /// [`Context::fused_portable`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn fused_avx2<const MODE: u8>(
        &self,
        g: &SmallFloat,
        span: Span,
        io: (&[u32], &mut [u8]),
        s: &mut Scratch,
        lanes: &mut Lanes,
        stats: &mut BlockStats,
    ) {
        self.fused_portable::<MODE>(g, span, io, s, lanes, stats);
    }

    /// The batch in plain code: along the last axis block by block (full blocks of 32 or 16
    /// in fixed-size loops), along another axis tile by tile (the amax of each column's
    /// block, then row by row).
    #[inline(always)]
    fn fused_portable<const MODE: u8>(
        &self,
        g: &SmallFloat,
        ((t0, t1), a): Span,
        (bits, codes): (&[u32], &mut [u8]),
        s: &mut Scratch,
        lanes: &mut Lanes,
        stats: &mut BlockStats,
    ) {
        let k = self.kernel;
        let tiles = self.tiles;
        if tiles.inner == 1 {
            let (block, n, nb) = (tiles.block, tiles.n, tiles.nb);
            let mut kk = t0 % nb;
            let mut pos = 0;
            for t in t0..t1 {
                let rows = if kk + 1 == nb { n - kk * block } else { block };
                let x = &bits[pos..pos + rows];
                let c = &mut codes[pos..pos + rows];
                let p = match block {
                    32 if rows == 32 => fused_fixed::<K, MODE, 32>(k, g, x, c, lanes, stats),
                    16 if rows == 16 => fused_fixed::<K, MODE, 16>(k, g, x, c, lanes, stats),
                    _ => fused_partial::<K, MODE>(k, g, x, c, lanes, stats),
                };
                if let BlockPlan::Reference = p {
                    s.redo.push(t);
                }
                s.plans.push(p);
                pos += rows;
                kk += 1;
                if kk == nb {
                    kk = 0;
                }
            }
            return;
        }
        let inner = tiles.inner;
        for t in t0..t1 {
            let rows = tiles.rows(t);
            let start = tiles.elem_start(t) - a;
            let x = &bits[start..start + rows * inner];
            let c = &mut codes[start..start + rows * inner];
            let first = s.plan_columns(k, x, (t, inner), stats);
            let plans = &s.plans[first..];
            for (out, row) in c.chunks_exact_mut(inner).zip(x.chunks_exact(inner)) {
                for ((o, &b), p) in out.iter_mut().zip(row).zip(plans) {
                    *o = match *p {
                        BlockPlan::Fast { byte, mul } => {
                            let (y, e) = k.fused_operand(b, byte, mul);
                            let r = encode::<MODE>(y, e, g);
                            lanes.add_one(r);
                            r.0 as u8
                        }
                        _ => 0,
                    };
                }
            }
        }
    }
}

/// One block of any length (a tail block): amax, plan, and codes into `c`, one per byte,
/// element by element.
#[inline(always)]
pub(super) fn fused_partial<K: BlockKernel, const MODE: u8>(
    k: &K,
    g: &SmallFloat,
    x: &[u32],
    c: &mut [u8],
    lanes: &mut Lanes,
    stats: &mut BlockStats,
) -> BlockPlan {
    let amax = x.iter().fold(0u32, |m, &b| m.max(b & 0x7FFF_FFFF));
    let p = k.plan(amax, stats);
    if let BlockPlan::Fast { byte, mul } = p {
        for (o, &b) in c.iter_mut().zip(x) {
            let (y, e) = k.fused_operand(b, byte, mul);
            let r = encode::<MODE>(y, e, g);
            *o = r.0 as u8;
            lanes.add_one(r);
        }
    } else {
        c.fill(0);
    }
    p
}

/// One full block of `B` elements: amax, plan, and codes into `c`, in fixed-size loops.
#[inline(always)]
fn fused_fixed<K: BlockKernel, const MODE: u8, const B: usize>(
    k: &K,
    g: &SmallFloat,
    x: &[u32],
    c: &mut [u8],
    lanes: &mut Lanes,
    stats: &mut BlockStats,
) -> BlockPlan {
    let (Ok(x), Ok(c)) = (<&[u32; B]>::try_from(x), <&mut [u8; B]>::try_from(c)) else {
        // not reached: the caller passes B elements; the reference routine is always right
        return BlockPlan::Reference;
    };
    let mut amax = 0u32;
    for &b in x {
        amax = amax.max(b & 0x7FFF_FFFF);
    }
    let p = k.plan(amax, stats);
    if let BlockPlan::Fast { byte, mul } = p {
        for i in 0..B {
            let (y, e) = k.fused_operand(x[i], byte, mul);
            let (code, fa, fb, fc) = encode::<MODE>(y, e, g);
            c[i] = code as u8;
            lanes.a[i % 32] += fa;
            lanes.b[i % 32] += fb;
            lanes.c[i % 32] += fc;
        }
        lanes.total += B as u64;
    } else {
        c.fill(0);
    }
    p
}
