//! The fast block quantiser's driver: tiles split over rayon, each piece in cache-sized batches.
//! Per batch: the amax of every block from the f32 bits (f16 and bf16 widened exactly first),
//! the block's scale and multiplier from a [`BlockKernel`], the elements scaled into an f32
//! buffer, which the bulk kernels cast to the element format in one call (stochastic entropy
//! keyed by the flat index, as the reference routine keys it). Blocks the kernel does not
//! cover (a NaN, an amax outside the range its integer arithmetic handles) are cast as zeros,
//! taken out of the counts and redone by the reference routine, so every bit is the
//! reference's.

use rayon::prelude::*;

use super::fused_element::{Lanes, SmallFloat, mode_number};
use super::layout::BlockLayout;
use super::source::Source;
use super::stats::BlockStats;
use super::tiles::Tiles;
use crate::bulk::{
    BulkOptions, KernelChoice, PARALLEL_THRESHOLD, SimdLevel, Storage, cast_elements_with_status,
};
use crate::format::Format;
use crate::policy::CastPolicy;

/// Elements per batch: the scaled f32 buffer stays in the first-level caches.
const BATCH: usize = 8 << 10;
/// Smallest elements per parallel piece.
const MIN_PIECE: usize = 64 << 10;

/// What the fast path makes of one block.
#[derive(Clone, Copy, Debug)]
pub(crate) enum BlockPlan {
    /// Scale byte `byte`; the elements are `x × mul` (as [`BlockKernel::scale`] computes it)
    /// cast to the element format.
    Fast {
        /// The scale byte.
        byte: u8,
        /// The multiplier of the elements.
        mul: f32,
    },
    /// Scale byte `byte`; every element code 0, no element counted.
    Zeros {
        /// The scale byte.
        byte: u8,
    },
    /// Redo by the reference routine.
    Reference,
}

/// One block-scaled scheme's per-block arithmetic for the driver.
pub(crate) trait BlockKernel: Sync {
    /// The element storage the scaled values are cast to.
    fn element(&self) -> Storage;

    /// The plan of a block whose largest magnitude has the f32 bits `amax_bits` (a NaN's or
    /// ±Inf's at or above `0x7F80_0000`); counts the block in `stats` unless it is
    /// [`BlockPlan::Reference`].
    fn plan(&self, amax_bits: u32, stats: &mut BlockStats) -> BlockPlan;

    /// An element's scaled value, whose cast is the element code.
    fn scale(&self, x: u32, mul: f32) -> f32;

    /// The element format the fused step rounds to, when it serves this kernel's element
    /// (`None`: the scaled values go through the bulk cast).
    fn fused(&self) -> Option<SmallFloat>;

    /// Whether the fused step's operand is the element times the plan's multiplier in f32
    /// (NVFP4, with exponent 0), rather than the element's bits with the exponent of the
    /// scale byte (MX).
    fn multiplies(&self) -> bool;

    /// What the fused step rounds for element bits `x` of a block planned as
    /// [`BlockPlan::Fast`] with `byte` and `mul`: f32 bits `y` and an exponent `e`, the
    /// scaled value being `y × 2^-e` exactly.
    fn fused_operand(&self, x: u32, byte: u8, mul: f32) -> (u32, i32);

    /// The scale rule as plain numbers when it is an MX kernel's, for the vector plans that
    /// choose 16 blocks' scales at once (`None`: the blocks are planned one at a time).
    fn mx_rule(&self) -> Option<super::fast_mx::MxRule> {
        None
    }

    /// The reference routine on the block at flat indices `idx`: its codes into `codes`
    /// (flat index `i` at `codes[i - base]`), its counts into `stats`; returns the scale byte.
    fn reference(
        &self,
        src: &Source<'_>,
        idx: &[usize],
        codes: (&mut [u8], usize),
        stats: &mut BlockStats,
    ) -> u8;
}

/// Quantises `src` laid out as `layout` with `kernel` at the instruction-set level `kernels`
/// resolves to (chosen once here), writing every byte of `codes` and `scales` (the caller
/// checked their lengths); returns the counts, or `None` when the fast path does not apply
/// (an f64 source, an odd `first_index` with packed codes, the reference routine chosen, the
/// bulk kernels refusing), in which case the buffers hold nothing meaningful.
///
/// Elements of a deterministic rounding mode whose format the kernel's
/// [`BlockKernel::fused`] names are rounded by the fused step, block by block in registers;
/// the others (stochastic rounding, MXINT8) are scaled into a buffer and cast by the bulk
/// kernels.
pub(crate) fn quantize<K: BlockKernel>(
    kernel: &K,
    src: &Source<'_>,
    layout: &BlockLayout,
    policy: &CastPolicy,
    (seed, first_index): (u64, u64),
    kernels: KernelChoice,
    (codes, scales): (&mut [u8], &mut [u8]),
) -> Option<BlockStats> {
    if matches!(src, Source::F64(_)) || layout.is_empty() {
        return None;
    }
    let level = kernels.resolve()?;
    let fused = kernel.fused().zip(mode_number(policy.round));
    let element = kernel.element();
    let packed = element.per_byte() > 1;
    if packed && first_index % 2 == 1 {
        return None;
    }
    let tiles = Tiles::new(layout);
    let len = layout.len();
    let piece = if len < PARALLEL_THRESHOLD {
        len
    } else {
        (len / (rayon::current_num_threads().max(1) * 4)).max(MIN_PIECE)
    };
    let mut cuts = vec![0usize];
    while let Some(&t) = cuts.last().filter(|&&t| t < tiles.count) {
        cuts.push(tiles.next_cut(t, piece, packed));
    }
    if codes.len() != element.bytes_for(len) || scales.len() != layout.block_count() {
        return None;
    }
    let mut pieces = Vec::with_capacity(cuts.len());
    let (mut code_rest, mut scale_rest) = (codes, scales);
    for w in cuts.windows(2) {
        let (a, b) = (tiles.elem_start(w[0]), tiles.elem_start(w[1]));
        let code_len = element.bytes_for(b) - element.bytes_for(a);
        let (c, cr) = std::mem::take(&mut code_rest).split_at_mut(code_len);
        let (s, sr) = std::mem::take(&mut scale_rest).split_at_mut((w[1] - w[0]) * tiles.inner);
        (code_rest, scale_rest) = (cr, sr);
        pieces.push(((w[0], w[1]), c, s));
    }
    let ctx = Context {
        kernel,
        src,
        layout,
        tiles,
        policy,
        seed,
        first_index,
        packed,
        level,
        fused,
    };
    let results: Vec<Option<BlockStats>> = pieces
        .into_par_iter()
        .map(|(range, c, s)| ctx.piece(range, c, s))
        .collect();
    let mut stats = BlockStats::default();
    for r in results {
        stats.add(&r?);
    }
    Some(stats)
}

/// What every piece shares.
pub(super) struct Context<'a, K> {
    pub(super) kernel: &'a K,
    src: &'a Source<'a>,
    layout: &'a BlockLayout,
    pub(super) tiles: Tiles,
    policy: &'a CastPolicy,
    seed: u64,
    first_index: u64,
    /// Whether the codes are packed two per byte.
    pub(super) packed: bool,
    /// The instruction-set level of the loops.
    pub(super) level: SimdLevel,
    /// The fused step's element format and mode number, when it serves this call.
    pub(super) fused: Option<(SmallFloat, u8)>,
}

/// A piece's reusable buffers.
#[derive(Default)]
pub(super) struct Scratch {
    scaled: Vec<f32>,
    pub(super) amax: Vec<u32>,
    pub(super) plans: Vec<BlockPlan>,
    pub(super) redo: Vec<usize>,
    idx: Vec<usize>,
    ref_codes: Vec<u8>,
}

impl Scratch {
    /// Plans the `inner` blocks of tile `t` (one per column of `x`'s rows of `inner`
    /// elements): their amax, then each block's plan appended to `plans`, the reference ones
    /// noted in `redo`. Returns where the tile's plans start.
    pub(super) fn plan_columns<K: BlockKernel>(
        &mut self,
        k: &K,
        x: &[u32],
        (t, inner): (usize, usize),
        stats: &mut BlockStats,
    ) -> usize {
        self.amax.clear();
        self.amax.resize(inner, 0);
        for row in x.chunks_exact(inner) {
            for (m, &b) in self.amax.iter_mut().zip(row) {
                *m = (*m).max(b & 0x7FFF_FFFF);
            }
        }
        let first = self.plans.len();
        for (i, &m) in self.amax.iter().enumerate() {
            let p = k.plan(m, stats);
            if let BlockPlan::Reference = p {
                self.redo.push(t * inner + i);
            }
            self.plans.push(p);
        }
        first
    }
}

impl<K: BlockKernel> Context<'_, K> {
    /// Tiles `t0..t1` into `codes` and `scales` (the piece's own parts).
    fn piece(
        &self,
        (t0, t1): (usize, usize),
        codes: &mut [u8],
        scales: &mut [u8],
    ) -> Option<BlockStats> {
        let mut stats = BlockStats::default();
        let mut s = Scratch::default();
        let mut lanes = Lanes::default();
        let mut codes8 = Vec::new();
        let mut wide = Vec::new();
        let element = self.kernel.element();
        let (e0, s0) = (self.tiles.elem_start(t0), t0 * self.tiles.inner);
        let mut t = t0;
        while t < t1 {
            let next = self.tiles.next_cut(t, BATCH, self.packed).min(t1);
            let (a, b) = (self.tiles.elem_start(t), self.tiles.elem_start(next));
            let bits = self.bits(a, b, &mut wide)?;
            s.plans.clear();
            s.redo.clear();
            let code_range = element.bytes_for(a - e0)..element.bytes_for(b - e0);
            if let Some((g, mode)) = self.fused {
                // every code of the batch is written (zeros for blocks not planned Fast):
                // one per byte straight into the output, or into a buffer packed after
                let out = codes.get_mut(code_range)?;
                if self.vector_serves() {
                    // one block per tile: the batch's scales are its tiles' (written there)
                    let sc = scales.get_mut(t - s0..next - s0)?;
                    self.vector_batch(
                        &g,
                        mode,
                        (t, next),
                        bits,
                        (out, sc),
                        &mut s,
                        &mut lanes,
                        &mut stats,
                    );
                } else if self.packed {
                    if codes8.len() < b - a {
                        codes8.resize(b - a, 0);
                    }
                    let c = &mut codes8[..b - a];
                    self.fused_batch(
                        &g,
                        mode,
                        (t, next),
                        a,
                        bits,
                        c,
                        &mut s,
                        &mut lanes,
                        &mut stats,
                    );
                    for (o, pair) in out.iter_mut().zip(c.chunks(2)) {
                        *o = (pair[0] & 0x0F) | (pair.get(1).copied().unwrap_or(0) << 4);
                    }
                } else {
                    self.fused_batch(
                        &g,
                        mode,
                        (t, next),
                        a,
                        bits,
                        out,
                        &mut s,
                        &mut lanes,
                        &mut stats,
                    );
                }
                lanes.fold_into(&mut stats.elements);
                for (k, p) in s.plans.iter().enumerate() {
                    if let BlockPlan::Fast { byte, .. } | BlockPlan::Zeros { byte } = *p {
                        scales[t * self.tiles.inner + k - s0] = byte;
                    }
                }
                self.redo_blocks(&mut s, (a, e0, s0), codes, scales, &mut stats);
                t = next;
                continue;
            }
            // every element of the batch is written below (zeros for blocks not scaled)
            if s.scaled.len() < b - a {
                s.scaled.resize(b - a, 0.0);
            }
            if self.tiles.inner == 1 {
                self.contiguous(t, next, bits, &mut s, &mut stats);
            } else {
                for tile in t..next {
                    self.tile(tile, a, bits, &mut s, &mut stats);
                }
            }
            let opts = BulkOptions {
                seed: self.seed,
                first_index: self.first_index.wrapping_add(a as u64),
                parallel: false,
                kernels: KernelChoice::Fastest,
                ..BulkOptions::default()
            };
            let mut counts = cast_elements_with_status(
                bytemuck::cast_slice(&s.scaled[..b - a]),
                Storage::native(Format::F32),
                codes.get_mut(code_range)?,
                element,
                b - a,
                self.policy,
                &opts,
            )
            .ok()?;
            // the zeros cast for Zeros and Reference blocks
            let mut zeros = 0u64;
            for (k, p) in s.plans.iter().enumerate() {
                let block = t * self.tiles.inner + k;
                match *p {
                    BlockPlan::Fast { byte, .. } => scales[block - s0] = byte,
                    BlockPlan::Zeros { byte } => {
                        scales[block - s0] = byte;
                        zeros += self.layout.block_indices(block).count() as u64;
                    }
                    BlockPlan::Reference => {
                        zeros += self.layout.block_indices(block).count() as u64;
                    }
                }
            }
            counts.total -= zeros;
            counts.exact -= zeros;
            stats.elements.add(&counts);
            self.redo_blocks(&mut s, (a, e0, s0), codes, scales, &mut stats);
            t = next;
        }
        Some(stats)
    }

    /// The blocks of `s.redo` by the reference routine, into the piece's `codes` and
    /// `scales` (the batch starts at flat index `a`, the piece at element `e0` and scale
    /// `s0`).
    fn redo_blocks(
        &self,
        s: &mut Scratch,
        (a, e0, s0): (usize, usize, usize),
        codes: &mut [u8],
        scales: &mut [u8],
        stats: &mut BlockStats,
    ) {
        for &block in &s.redo {
            s.idx.clear();
            s.idx.extend(self.layout.block_indices(block));
            let end = s.idx.iter().max().map_or(a, |&i| i + 1);
            s.ref_codes.clear();
            s.ref_codes.resize(end - a, 0);
            scales[block - s0] =
                self.kernel
                    .reference(self.src, &s.idx, (&mut s.ref_codes, a), stats);
            for &i in &s.idx {
                let c = s.ref_codes[i - a];
                let j = i - e0;
                if self.packed {
                    let byte = &mut codes[j / 2];
                    *byte = if j % 2 == 0 {
                        (*byte & 0xF0) | (c & 0x0F)
                    } else {
                        (*byte & 0x0F) | (c << 4)
                    };
                } else {
                    codes[j] = c;
                }
            }
        }
    }

    /// The f32 bits of elements `a..b` (f16 and bf16 widened exactly into `wide`).
    fn bits<'s>(&'s self, a: usize, b: usize, wide: &'s mut Vec<u32>) -> Option<&'s [u32]> {
        match self.src {
            Source::F32(v) => Some(bytemuck::cast_slice(v.get(a..b)?)),
            Source::BF16(v) => {
                wide.clear();
                wide.extend(v.get(a..b)?.iter().map(|&h| u32::from(h) << 16));
                Some(wide)
            }
            Source::F16(v) => {
                wide.clear();
                wide.resize(b - a, 0);
                let opts = BulkOptions {
                    parallel: false,
                    ..BulkOptions::default()
                };
                crate::bulk::cast_elements(
                    bytemuck::cast_slice(v.get(a..b)?),
                    Storage::native(Format::F16),
                    bytemuck::cast_slice_mut(wide),
                    Storage::native(Format::F32),
                    b - a,
                    &CastPolicy::default(),
                    &opts,
                )
                .ok()?;
                Some(wide)
            }
            Source::F64(_) => None,
        }
    }

    /// Plans and scales tiles `t0..t1` of a layout blocked along its last axis (one block per
    /// tile, contiguous), whose elements are `bits`, at the best instruction-set level here.
    fn contiguous(
        &self,
        t0: usize,
        t1: usize,
        bits: &[u32],
        s: &mut Scratch,
        stats: &mut BlockStats,
    ) {
        #[cfg(target_arch = "x86_64")]
        {
            match self.level {
                // SAFETY: `best` names a level only when the CPU has its features.
                SimdLevel::Avx512 => {
                    return unsafe { self.contiguous_avx512(t0, t1, bits, s, stats) };
                }
                // SAFETY: as above.
                SimdLevel::Avx2 => return unsafe { self.contiguous_avx2(t0, t1, bits, s, stats) },
                SimdLevel::Portable => {}
            }
        }
        self.contiguous_portable(t0, t1, bits, s, stats);
    }

    /// [`Context::contiguous_portable`] compiled for AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
    fn contiguous_avx512(
        &self,
        t0: usize,
        t1: usize,
        bits: &[u32],
        s: &mut Scratch,
        stats: &mut BlockStats,
    ) {
        self.contiguous_portable(t0, t1, bits, s, stats);
    }

    /// [`Context::contiguous_portable`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    fn contiguous_avx2(
        &self,
        t0: usize,
        t1: usize,
        bits: &[u32],
        s: &mut Scratch,
        stats: &mut BlockStats,
    ) {
        self.contiguous_portable(t0, t1, bits, s, stats);
    }

    /// [`Context::contiguous`] in plain code (vectorised by the compiler for the level it is
    /// inlined into): the position along the axis is counted, not divided out per block, and
    /// full blocks go through fixed-size loops.
    #[inline(always)]
    fn contiguous_portable(
        &self,
        t0: usize,
        t1: usize,
        bits: &[u32],
        s: &mut Scratch,
        stats: &mut BlockStats,
    ) {
        let (block, n, nb) = (self.tiles.block, self.tiles.n, self.tiles.nb);
        let k = self.kernel;
        let mut kk = t0 % nb;
        let mut pos = 0;
        for t in t0..t1 {
            let rows = if kk + 1 == nb { n - kk * block } else { block };
            let x = &bits[pos..pos + rows];
            let y = &mut s.scaled[pos..pos + rows];
            let p = match block {
                32 if rows == 32 => fixed::<K, 32>(k, x, y, stats),
                16 if rows == 16 => fixed::<K, 16>(k, x, y, stats),
                _ => {
                    let amax = x.iter().fold(0u32, |m, &b| m.max(b & 0x7FFF_FFFF));
                    let p = k.plan(amax, stats);
                    if let BlockPlan::Fast { mul, .. } = p {
                        for (o, &b) in y.iter_mut().zip(x) {
                            *o = k.scale(b, mul);
                        }
                    } else {
                        y.fill(0.0);
                    }
                    p
                }
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
    }

    /// Plans and scales tile `t`, whose elements start at `bits[elem_start(t) - a]`.
    fn tile(&self, t: usize, a: usize, bits: &[u32], s: &mut Scratch, stats: &mut BlockStats) {
        let inner = self.tiles.inner;
        let rows = self.tiles.rows(t);
        let start = self.tiles.elem_start(t) - a;
        let x = &bits[start..start + rows * inner];
        let k = self.kernel;
        let first = s.plan_columns(k, x, (t, inner), stats);
        let y = &mut s.scaled[start..start + rows * inner];
        let plans = &s.plans[first..];
        for (out, row) in y.chunks_exact_mut(inner).zip(x.chunks_exact(inner)) {
            for ((o, &b), p) in out.iter_mut().zip(row).zip(plans) {
                *o = match *p {
                    BlockPlan::Fast { mul, .. } => k.scale(b, mul),
                    _ => 0.0,
                };
            }
        }
    }
}

/// One full block of `B` elements: its amax, plan and scaled values, in fixed-size loops.
#[inline(always)]
fn fixed<K: BlockKernel, const B: usize>(
    k: &K,
    x: &[u32],
    y: &mut [f32],
    stats: &mut BlockStats,
) -> BlockPlan {
    let Ok(x) = <&[u32; B]>::try_from(x) else {
        // not reached: the caller passes B elements; the reference routine is always right
        y.fill(0.0);
        return BlockPlan::Reference;
    };
    let Ok(y) = <&mut [f32; B]>::try_from(y) else {
        return BlockPlan::Reference;
    };
    let mut amax = 0u32;
    for &b in x {
        amax = amax.max(b & 0x7FFF_FFFF);
    }
    let p = k.plan(amax, stats);
    if let BlockPlan::Fast { mul, .. } = p {
        for (o, &b) in y.iter_mut().zip(x) {
            *o = k.scale(b, mul);
        }
    } else {
        y.fill(0.0);
    }
    p
}
