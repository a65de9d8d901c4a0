//! Fused dequantisation to f32: per block, each element code looked up in a table of its f32
//! values (16 entries for e2m1, 256 for the 8-bit and 6-bit elements; MXINT8's code / 64
//! folded in) and multiplied by the block's multiplier in f32 (MX: 2^(byte - 127), an exact
//! power of two, 2^-127 included as an f32 subnormal; NVFP4: fl32(p × s)), written straight
//! into the output, in one pass split over threads.
//!
//! One IEEE multiplication of two exact f32 values is the exact product rounded once to
//! nearest-even, overflow to ±Inf: the reference's f32 value of an MX element, and NVFP4's
//! published f32 arithmetic. Where the product is not finite (a NaN scale or element code,
//! an overflow), the element's flat index and block go to the reference routine, whose NaN
//! bits are the definition.

use rayon::prelude::*;

use super::fast_dequantize::Redo;
use super::quantized::Quantized;
use super::scheme::Scheme;
use super::tiles::Tiles;
use crate::bulk::{PARALLEL_THRESHOLD, SimdLevel};
use crate::convert::convert;
use crate::format::Format;
use crate::policy::CastPolicy;

/// Smallest elements per parallel piece.
const MIN_PIECE: usize = 64 << 10;

/// What every piece reads.
struct Decode<'a> {
    /// The f32 value of every element code (times 1/64 for MXINT8).
    table: [f32; 256],
    /// The multiplier of each block.
    muls: &'a [f32],
    codes: &'a [u8],
    packed: bool,
    tiles: Tiles,
}

/// Writes the f32 values of `q` into `out` (one per element) at `level`, and returns the
/// flat indices (with their blocks) the reference routine must give instead.
pub(crate) fn dequantize_f32(q: &Quantized, out: &mut [f32], level: SimdLevel) -> Redo {
    let layout = &q.layout;
    let len = layout.len();
    let ieee = CastPolicy::default();
    let element = q.scheme.element();
    let mut table = [0f32; 256];
    let codes_in_table = if element == Format::F4E2M1 { 16 } else { 256 };
    for (c, v) in table.iter_mut().enumerate().take(codes_in_table) {
        *v = if q.scheme == Scheme::Mxint8 {
            f32::from(c as u8 as i8) / 64.0
        } else {
            let code = c as u64 & element.code_mask();
            f32::from_bits(convert(code, element, Format::F32, &ieee) as u32)
        };
    }
    let e4m3: Vec<f32> = (0..=255u8)
        .map(|c| {
            let b = convert(u64::from(c), Format::F8E4M3FN, Format::F32, &ieee);
            f32::from_bits(b as u32)
        })
        .collect();
    let muls: Vec<f32> = q
        .scales
        .iter()
        .map(|&byte| {
            if q.scheme == Scheme::Nvfp4 {
                let s = e4m3[usize::from(byte)];
                return q.tensor_scale.map_or(s, |p| p * s);
            }
            match byte {
                0xFF => f32::NAN,
                0 => f32::from_bits(0x0040_0000),
                b => f32::from_bits(u32::from(b) << 23),
            }
        })
        .collect();
    let d = Decode {
        table,
        muls: &muls,
        codes: &q.codes,
        packed: element == Format::F4E2M1,
        tiles: Tiles::new(layout),
    };
    let tiles = d.tiles;
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
    let mut rest = out;
    for w in cuts.windows(2) {
        let n = tiles.elem_start(w[1]) - tiles.elem_start(w[0]);
        let (v, r) = std::mem::take(&mut rest).split_at_mut(n);
        rest = r;
        pieces.push((w[0], w[1], v));
    }
    let redo: Vec<Redo> = pieces
        .into_par_iter()
        .map(|(t0, t1, v)| d.piece_at(level, (t0, t1), v))
        .collect();
    redo.concat()
}

impl Decode<'_> {
    /// The code of element `i` (flat index).
    #[inline(always)]
    fn code(&self, i: usize) -> usize {
        if self.packed {
            usize::from((self.codes[i / 2] >> (4 * (i & 1))) & 0x0F)
        } else {
            usize::from(self.codes[i])
        }
    }

    /// Tiles `t0..t1` into `v` (their values) at `level`.
    fn piece_at(&self, level: SimdLevel, range: (usize, usize), v: &mut [f32]) -> Redo {
        #[cfg(target_arch = "x86_64")]
        match level {
            // SAFETY: the level was resolved from the levels the kernels may use here, which
            // the CPU has.
            SimdLevel::Avx512 => return unsafe { self.piece_avx512(range, v) },
            // SAFETY: as above.
            SimdLevel::Avx2 => return unsafe { self.piece_avx2(range, v) },
            SimdLevel::Portable => {}
        }
        let _ = level;
        self.piece::<false>(range, v)
    }

    /// [`Decode::piece`] compiled for AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vl,avx512dq")]
    fn piece_avx512(&self, range: (usize, usize), v: &mut [f32]) -> Redo {
        self.piece::<true>(range, v)
    }

    /// [`Decode::piece`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn piece_avx2(&self, range: (usize, usize), v: &mut [f32]) -> Redo {
        self.piece::<false>(range, v)
    }

    /// Tiles `t0..t1` into `v` in plain code: full blocks along the last axis in fixed-size
    /// loops (with `AVX512`, inlined into [`Decode::piece_avx512`] only, by the explicit
    /// kernels of [`super::dequantize_avx512`]), the rest element by element.
    #[inline(always)]
    fn piece<const AVX512: bool>(&self, (t0, t1): (usize, usize), v: &mut [f32]) -> Redo {
        let tiles = self.tiles;
        let base = tiles.elem_start(t0);
        let mut redo = Vec::new();
        let t = &self.table;
        for tile in t0..t1 {
            let rows = tiles.rows(tile);
            let start = tiles.elem_start(tile);
            let inner = tiles.inner;
            let out = &mut v[start - base..start - base + rows * inner];
            let mut any = false;
            if inner == 1 {
                let m = self.muls[tile];
                let whole = if AVX512 {
                    self.vector_block(start, rows, m, out)
                } else {
                    None
                };
                let whole = whole.or_else(|| match (self.packed, rows) {
                    (true, 32) if start.is_multiple_of(2) => {
                        packed_block::<16>(t, self.codes.get(start / 2..), m, out)
                    }
                    (true, 16) if start.is_multiple_of(2) => {
                        packed_block::<8>(t, self.codes.get(start / 2..), m, out)
                    }
                    (false, 32) => byte_block::<32>(t, self.codes.get(start..), m, out),
                    _ => None,
                });
                match whole {
                    Some(bad) => any = bad,
                    None => {
                        for (j, o) in out.iter_mut().enumerate() {
                            let y = t[self.code(start + j)] * m;
                            any |= !y.is_finite();
                            *o = y;
                        }
                    }
                }
            } else {
                let muls = &self.muls[tile * inner..(tile + 1) * inner];
                for (r, row) in out.chunks_exact_mut(inner).enumerate() {
                    let first = start + r * inner;
                    for (j, (o, &m)) in row.iter_mut().zip(muls).enumerate() {
                        let y = t[self.code(first + j)] * m;
                        any |= !y.is_finite();
                        *o = y;
                    }
                }
            }
            if any {
                for (j, o) in out.iter().enumerate() {
                    if !o.is_finite() {
                        redo.push((start + j, tile * inner + j % inner));
                    }
                }
            }
        }
        redo
    }
}

impl Decode<'_> {
    /// A full block along the last axis (first element `start`, `rows` long, multiplier `m`)
    /// by the AVX-512 kernels: whether a product is not finite, `None` (nothing written) for
    /// a block they do not take. Reached only from [`Decode::piece_avx512`].
    #[inline(always)]
    #[allow(clippy::needless_return)] // the return leaves the x86_64-only block
    fn vector_block(&self, start: usize, rows: usize, m: f32, out: &mut [f32]) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        {
            use super::dequantize_avx512::{byte_block, packed_block};
            if out.len() != rows {
                return None;
            }
            let t16 = self.table.first_chunk::<16>()?;
            // SAFETY: this runs inside `piece_avx512`, which the driver calls only at the
            // AVX-512 level, whose features the CPU has.
            return match (self.packed, rows) {
                (true, 32) if start.is_multiple_of(2) => {
                    let c = self.codes.get(start / 2..)?.first_chunk::<16>()?;
                    Some(unsafe { packed_block::<16>(t16, c, m, out) })
                }
                (true, 16) if start.is_multiple_of(2) => {
                    let c = self.codes.get(start / 2..)?.first_chunk::<8>()?;
                    Some(unsafe { packed_block::<8>(t16, c, m, out) })
                }
                (false, 32) => {
                    let c = self.codes.get(start..)?.first_chunk::<32>()?;
                    Some(unsafe { byte_block::<32>(&self.table, c, m, out) })
                }
                _ => None,
            };
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let _ = (start, rows, m, out);
            None
        }
    }
}

/// A full block of `2 × H` packed e2m1 codes (the `H` bytes at the start of `codes`) times
/// `m` into `out`: whether a product is not finite, `None` (nothing written) when the
/// buffers are shorter than a block.
#[inline(always)]
fn packed_block<const H: usize>(
    t: &[f32; 256],
    codes: Option<&[u8]>,
    m: f32,
    out: &mut [f32],
) -> Option<bool> {
    let (c, o) = (codes?.get(..H)?, out.get_mut(..2 * H)?);
    let mut bad = 0u32;
    for (pair, &b) in o.chunks_exact_mut(2).zip(c) {
        let lo = t[usize::from(b & 0x0F)] * m;
        let hi = t[usize::from(b >> 4)] * m;
        bad |= u32::from(lo.to_bits() & 0x7F80_0000 == 0x7F80_0000);
        bad |= u32::from(hi.to_bits() & 0x7F80_0000 == 0x7F80_0000);
        pair[0] = lo;
        pair[1] = hi;
    }
    Some(bad != 0)
}

/// A full block of `B` one-byte codes times `m` into `out`: whether a product is not
/// finite, `None` (nothing written) when the buffers are shorter than a block.
#[inline(always)]
fn byte_block<const B: usize>(
    t: &[f32; 256],
    codes: Option<&[u8]>,
    m: f32,
    out: &mut [f32],
) -> Option<bool> {
    let (c, o) = (codes?.get(..B)?, out.get_mut(..B)?);
    let mut bad = 0u32;
    for (y, &b) in o.iter_mut().zip(c) {
        let v = t[usize::from(b)] * m;
        bad |= u32::from(v.to_bits() & 0x7F80_0000 == 0x7F80_0000);
        *y = v;
    }
    Some(bad != 0)
}
