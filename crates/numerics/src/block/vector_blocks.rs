//! The vector block kernel's driver: a batch of tiles of a layout blocked along its last axis
//! cut into runs of full blocks, each run rounded by the explicit SIMD kernel of the call's
//! level ([`super::vector_avx512`], [`super::vector_avx2`]) straight into the output (codes
//! one per byte, or packed two per byte in registers), and the short tail block of each row
//! by the fused element step one element at a time.

use super::fast::{BlockKernel, BlockPlan, Context, Scratch};
use super::fast_fused::fused_partial;
use super::fused_element::{CEIL, FLOOR, Lanes, ODD, RINT, ROUND, SmallFloat, TRUNC};
use super::stats::BlockStats;
use crate::bulk::SimdLevel;

impl<K: BlockKernel> Context<'_, K> {
    /// Whether the vector kernel serves this call: an AVX2 or AVX-512 level, blocks of 16 or
    /// 32 along the last axis, and (for packed codes) an even axis length, so that every block
    /// starts on a whole byte.
    pub(super) fn vector_serves(&self) -> bool {
        let t = &self.tiles;
        cfg!(target_arch = "x86_64")
            && self.level != SimdLevel::Portable
            && t.inner == 1
            && (t.block == 32 || t.block == 16)
            && (!self.packed || t.n.is_multiple_of(2))
    }

    /// Plans and rounds tiles `t0..t1` (elements `bits`, when [`Context::vector_serves`]):
    /// codes into `out` (the batch's own bytes, packed when the call's codes are), the scale
    /// bytes into `scales` (the batch's own, one per tile), blocks for the reference routine
    /// into `s.redo`, element flags into `lanes`, block counts into `stats`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn vector_batch(
        &self,
        g: &SmallFloat,
        mode: u8,
        range: (usize, usize),
        bits: &[u32],
        (out, scales): (&mut [u8], &mut [u8]),
        s: &mut Scratch,
        lanes: &mut Lanes,
        stats: &mut BlockStats,
    ) {
        let io = (bits, out, scales);
        match mode {
            RINT => self.vector_at::<RINT>(g, range, io, s, lanes, stats),
            ROUND => self.vector_at::<ROUND>(g, range, io, s, lanes, stats),
            FLOOR => self.vector_at::<FLOOR>(g, range, io, s, lanes, stats),
            CEIL => self.vector_at::<CEIL>(g, range, io, s, lanes, stats),
            TRUNC => self.vector_at::<TRUNC>(g, range, io, s, lanes, stats),
            _ => self.vector_at::<ODD>(g, range, io, s, lanes, stats),
        }
    }

    /// [`Context::vector_batch`] in mode `MODE`.
    fn vector_at<const MODE: u8>(
        &self,
        g: &SmallFloat,
        (t0, t1): (usize, usize),
        (bits, out, scales): (&[u32], &mut [u8], &mut [u8]),
        s: &mut Scratch,
        lanes: &mut Lanes,
        stats: &mut BlockStats,
    ) {
        let tiles = self.tiles;
        let (block, n, nb) = (tiles.block, tiles.n, tiles.nb.max(1));
        let per = if self.packed { 2 } else { 1 };
        let tail = n % block != 0;
        let mut t = t0;
        let mut pos = 0;
        while t < t1 {
            let row_end = t - t % nb + nb;
            // without a tail every block is full and the next row's follow on: one run
            let run_end = if tail { (row_end - 1).min(t1) } else { t1 };
            if run_end > t {
                let m = (run_end - t) * block;
                let x = &bits[pos..pos + m];
                let o = &mut out[pos / per..(pos + m) / per];
                let sc = &mut scales[t - t0..run_end - t0];
                self.vector_run::<MODE>(g, x, o, (t, sc, &mut s.redo), lanes, stats);
                pos += m;
                t = run_end;
            }
            if t < t1 && tail && t % nb == nb - 1 {
                let rows = n - (nb - 1) * block;
                let mut c = [0u8; 32];
                let c = &mut c[..rows];
                let p = fused_partial::<K, MODE>(
                    self.kernel,
                    g,
                    &bits[pos..pos + rows],
                    c,
                    lanes,
                    stats,
                );
                if self.packed {
                    for (o, pair) in out[pos / 2..(pos + rows) / 2].iter_mut().zip(c.chunks(2)) {
                        *o = (pair[0] & 0x0F) | (pair.get(1).copied().unwrap_or(0) << 4);
                    }
                } else {
                    out[pos..pos + rows].copy_from_slice(c);
                }
                match p {
                    BlockPlan::Fast { byte, .. } | BlockPlan::Zeros { byte } => {
                        scales[t - t0] = byte;
                    }
                    BlockPlan::Reference => s.redo.push(t),
                }
                pos += rows;
                t += 1;
            }
        }
    }

    /// One run of full blocks at the call's level.
    fn vector_run<const MODE: u8>(
        &self,
        g: &SmallFloat,
        x: &[u32],
        out: &mut [u8],
        parts: (usize, &mut [u8], &mut Vec<usize>),
        lanes: &mut Lanes,
        stats: &mut BlockStats,
    ) {
        let (k, packed) = (self.kernel, self.packed);
        #[cfg(target_arch = "x86_64")]
        {
            use super::{vector_avx2, vector_avx512};
            // SAFETY: the level was resolved from the levels the kernels may use here, which
            // the CPU has; `vector_serves` excludes the portable level.
            unsafe {
                match (self.level, self.tiles.block) {
                    (SimdLevel::Avx512, 32) => {
                        vector_avx512::run::<K, MODE, 32>(k, g, x, out, packed, parts, lanes, stats)
                    }
                    (SimdLevel::Avx512, _) => {
                        vector_avx512::run::<K, MODE, 16>(k, g, x, out, packed, parts, lanes, stats)
                    }
                    (_, 32) => {
                        vector_avx2::run::<K, MODE, 32>(k, g, x, out, packed, parts, lanes, stats)
                    }
                    _ => vector_avx2::run::<K, MODE, 16>(k, g, x, out, packed, parts, lanes, stats),
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = (k, packed, g, x, out, parts, lanes, stats);
    }
}
