//! Fast dequantisation: the element codes decoded to f32 by the bulk kernels, then each block
//! multiplied by its scale in f32 (split over threads for large tensors). Where that product
//! is not the reference's value rounded once (a NaN or infinite result, or, for an output
//! other than f32, an MX product that left f32's normal range), the element goes through
//! the reference routine.

use rayon::prelude::*;

use super::quantized::Quantized;
use super::scheme::Scheme;
use super::tiles::Tiles;
use crate::bulk::{BulkOptions, PARALLEL_THRESHOLD, Storage, cast_elements};
use crate::convert::convert;
use crate::format::Format;
use crate::policy::CastPolicy;

/// Smallest elements per parallel piece.
const MIN_PIECE: usize = 64 << 10;

/// 2^(byte - 127) for an e8m0 byte other than the NaN (2^-127 is an f32 subnormal).
fn e8m0_value(byte: u8) -> f32 {
    if byte == 0 {
        f32::from_bits(0x0040_0000)
    } else {
        f32::from_bits(u32::from(byte) << 23)
    }
}

/// Flat indices, each with its block, whose value the reference routine computes.
pub(crate) type Redo = Vec<(usize, usize)>;

/// The tensor's values in f32 as the fast path computes them, and the flat indices (with
/// their blocks) whose value must come from the reference routine; `None` when the bulk
/// kernels refuse (an unknown kernel switch).
pub(crate) fn values(q: &Quantized, to_f32: bool) -> Option<(Vec<f32>, Redo)> {
    let layout = &q.layout;
    let len = layout.len();
    let element = Storage::native(if q.scheme == Scheme::Mxint8 {
        Format::I8
    } else {
        q.scheme.element()
    });
    let mut values = vec![0f32; len];
    cast_elements(
        &q.codes,
        element,
        bytemuck::cast_slice_mut(&mut values),
        Storage::native(Format::F32),
        len,
        &CastPolicy::default(),
        &BulkOptions::default(),
    )
    .ok()?;
    let tiles = Tiles::new(layout);
    let piece = if len < PARALLEL_THRESHOLD {
        len.max(1)
    } else {
        (len / (rayon::current_num_threads().max(1) * 4)).max(MIN_PIECE)
    };
    let mut cuts = vec![0usize];
    while let Some(&t) = cuts.last().filter(|&&t| t < tiles.count) {
        cuts.push(tiles.next_cut(t, piece, false));
    }
    let mut pieces = Vec::with_capacity(cuts.len());
    let mut rest = values.as_mut_slice();
    for w in cuts.windows(2) {
        let n = tiles.elem_start(w[1]) - tiles.elem_start(w[0]);
        let (v, r) = std::mem::take(&mut rest).split_at_mut(n);
        rest = r;
        pieces.push((w[0], w[1], v));
    }
    let nvfp4_scales: Vec<f32> = (0..=255u8)
        .map(|c| {
            let bits = convert(
                u64::from(c),
                Format::F8E4M3FN,
                Format::F32,
                &CastPolicy::default(),
            );
            f32::from_bits(bits as u32)
        })
        .collect();
    let multiplier = |block: usize| -> f32 {
        let byte = q.scales.get(block).copied().unwrap_or(0xFF);
        if q.scheme == Scheme::Nvfp4 {
            let s = nvfp4_scales[usize::from(byte)];
            return match q.tensor_scale {
                Some(p) => p * s,
                None => s,
            };
        }
        if byte == 0xFF {
            return f32::NAN;
        }
        e8m0_value(byte)
    };
    // MXINT8 codes mean code / 64 (exact in f32 before the one rounding by the scale)
    let pre = if q.scheme == Scheme::Mxint8 {
        1.0 / 64.0
    } else {
        1.0
    };
    let check_normal = q.scheme.is_mx() && !to_f32;
    let redo: Vec<Redo> = pieces
        .into_par_iter()
        .map(|(t0, t1, v)| {
            let mut redo = Vec::new();
            let base = tiles.elem_start(t0);
            let inner = tiles.inner;
            if inner == 1 {
                contiguous(
                    &tiles,
                    (t0, t1),
                    v,
                    pre,
                    &multiplier,
                    check_normal,
                    &mut redo,
                );
                return redo;
            }
            let mut muls = Vec::with_capacity(inner);
            for t in t0..t1 {
                let start = tiles.elem_start(t) - base;
                let tile = &mut v[start..start + tiles.rows(t) * inner];
                muls.clear();
                muls.extend((0..inner).map(|i| multiplier(t * inner + i)));
                for (r, row) in tile.chunks_exact_mut(inner).enumerate() {
                    for (i, (x, &m)) in row.iter_mut().zip(&muls).enumerate() {
                        let (y, bad) = product(*x, pre, m, check_normal);
                        if bad {
                            redo.push((base + start + r * inner + i, t * inner + i));
                        }
                        *x = y;
                    }
                }
            }
            redo
        })
        .collect();
    Some((values, redo.concat()))
}

/// An element's value `x × pre × m` in f32, and whether the reference routine must give it
/// instead (a NaN or infinite product, or with `check_normal` one that left f32's normal
/// range, so that it is not exact).
#[inline(always)]
fn product(x: f32, pre: f32, m: f32, check_normal: bool) -> (f32, bool) {
    let y = (x * pre) * m;
    let bits = y.to_bits();
    let non_finite = bits & 0x7F80_0000 == 0x7F80_0000;
    let out_of_normal = bits & 0x7F80_0000 == 0 && x != 0.0;
    (y, non_finite | (check_normal & out_of_normal))
}

/// Tiles `t0..t1` of a layout blocked along its last axis (one block per tile, contiguous,
/// the piece's values `v`), at the best instruction-set level here.
fn contiguous(
    tiles: &Tiles,
    range: (usize, usize),
    v: &mut [f32],
    pre: f32,
    multiplier: &(dyn Fn(usize) -> f32 + Sync),
    check_normal: bool,
    redo: &mut Redo,
) {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::bulk::SimdLevel;
        match SimdLevel::best() {
            // SAFETY: `best` names a level only when the CPU has its features.
            SimdLevel::Avx512 => unsafe {
                contiguous_avx512(tiles, range, v, pre, multiplier, check_normal, redo)
            },
            // SAFETY: as above.
            SimdLevel::Avx2 => unsafe {
                contiguous_avx2(tiles, range, v, pre, multiplier, check_normal, redo)
            },
            SimdLevel::Portable => {
                contiguous_portable(tiles, range, v, pre, multiplier, check_normal, redo)
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    contiguous_portable(tiles, range, v, pre, multiplier, check_normal, redo);
}

/// [`contiguous_portable`] compiled for AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,avx512f,avx512bw,avx512vl")]
fn contiguous_avx512(
    tiles: &Tiles,
    range: (usize, usize),
    v: &mut [f32],
    pre: f32,
    multiplier: &(dyn Fn(usize) -> f32 + Sync),
    check_normal: bool,
    redo: &mut Redo,
) {
    contiguous_portable(tiles, range, v, pre, multiplier, check_normal, redo);
}

/// [`contiguous_portable`] compiled for AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn contiguous_avx2(
    tiles: &Tiles,
    range: (usize, usize),
    v: &mut [f32],
    pre: f32,
    multiplier: &(dyn Fn(usize) -> f32 + Sync),
    check_normal: bool,
    redo: &mut Redo,
) {
    contiguous_portable(tiles, range, v, pre, multiplier, check_normal, redo);
}

/// [`contiguous`] in plain code: the position along the axis counted, one multiplier per
/// block, the block scanned again only when one of its products needs the reference.
#[inline(always)]
fn contiguous_portable(
    tiles: &Tiles,
    (t0, t1): (usize, usize),
    v: &mut [f32],
    pre: f32,
    multiplier: &(dyn Fn(usize) -> f32 + Sync),
    check_normal: bool,
    redo: &mut Redo,
) {
    let (block, n, nb) = (tiles.block, tiles.n, tiles.nb);
    let base = tiles.elem_start(t0);
    let mut kk = t0 % nb;
    let mut pos = 0;
    for t in t0..t1 {
        let rows = if kk + 1 == nb { n - kk * block } else { block };
        let m = multiplier(t);
        let x = &mut v[pos..pos + rows];
        let mut any = false;
        for e in x.iter_mut() {
            let (y, bad) = product(*e, pre, m, check_normal);
            any |= bad;
            *e = y;
        }
        if any {
            for (j, e) in x.iter().enumerate() {
                // the products again, from the values now held: redo what needs it
                let bits = e.to_bits();
                let non_finite = bits & 0x7F80_0000 == 0x7F80_0000;
                let small = bits & 0x7F80_0000 == 0;
                if non_finite || (check_normal && small) {
                    redo.push((base + pos + j, t));
                }
            }
        }
        pos += rows;
        kk += 1;
        if kk == nb {
            kk = 0;
        }
    }
}
