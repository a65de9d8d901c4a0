//! Fused dequantisation to f32: per block, each element code decoded to its f32 value (a
//! table of 16 entries for e2m1, of 256 for the 8-bit and 6-bit elements, MXINT8's code / 64
//! folded in; the explicit AVX-512 and AVX2 kernels decode the 8-bit and 6-bit floats by
//! arithmetic, [`ByteDecode`]) and multiplied by the block's multiplier in f32 (MX:
//! 2^(byte - 127), an exact power of two, 2^-127 included as an f32 subnormal; NVFP4:
//! fl32(p × s), one per scale byte from a table of 256), written straight into the output,
//! in one pass split over threads.
//!
//! One IEEE multiplication of two exact f32 values is the exact product rounded once to
//! nearest-even, overflow to ±Inf: the reference's f32 value of an MX element, and NVFP4's
//! published f32 arithmetic. Where the product is not finite (a NaN scale or element code,
//! an overflow), the element's flat index and block go to the reference routine, whose NaN
//! bits are the definition.

use rayon::prelude::*;

use super::byte_decode::ByteDecode;
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
    /// The multiplier of each scale byte.
    mul_of: [f32; 256],
    /// The one-byte codes' arithmetic decode, when it gives `table`'s bits.
    arith: Option<ByteDecode>,
    /// e2m1's 8 magnitudes, when code `c | 8` is `-table[c]` for each.
    mags: Option<[f32; 8]>,
    scales: &'a [u8],
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
    let mut mul_of = [0f32; 256];
    for (byte, m) in mul_of.iter_mut().enumerate() {
        *m = if q.scheme == Scheme::Nvfp4 {
            let b = convert(byte as u64, Format::F8E4M3FN, Format::F32, &ieee);
            let s = f32::from_bits(b as u32);
            q.tensor_scale.map_or(s, |p| p * s)
        } else {
            match byte {
                0xFF => f32::NAN,
                0 => f32::from_bits(0x0040_0000),
                b => f32::from_bits((b as u32) << 23),
            }
        };
    }
    let packed = element == Format::F4E2M1;
    let arith = if q.scheme == Scheme::Mxint8 || packed {
        None
    } else {
        ByteDecode::new(element, &table)
    };
    let mags = table.first_chunk::<8>().copied().filter(|m| {
        packed
            && m.iter()
                .zip(&table[8..16])
                .all(|(a, b)| (a.to_bits() | 0x8000_0000) == b.to_bits())
    });
    let d = Decode {
        table,
        mul_of,
        arith,
        mags,
        scales: &q.scales,
        codes: &q.codes,
        packed,
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
        self.piece::<PORTABLE>(range, v)
    }

    /// [`Decode::piece`] compiled for AVX-512.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma,avx512f,avx512bw,avx512vl,avx512dq")]
    fn piece_avx512(&self, range: (usize, usize), v: &mut [f32]) -> Redo {
        self.piece::<AVX512>(range, v)
    }

    /// [`Decode::piece`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2,fma")]
    fn piece_avx2(&self, range: (usize, usize), v: &mut [f32]) -> Redo {
        self.piece::<AVX2>(range, v)
    }

    /// Tiles `t0..t1` into `v` in plain code: full blocks along the last axis in fixed-size
    /// loops (at `LEVEL` AVX2 or AVX-512, inlined into [`Decode::piece_avx2`] or
    /// [`Decode::piece_avx512`] only, by the explicit kernels of that level), the rest
    /// element by element.
    #[inline(always)]
    fn piece<const LEVEL: u8>(&self, (t0, t1): (usize, usize), v: &mut [f32]) -> Redo {
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
                let m = self.mul_of[usize::from(self.scales[tile])];
                let whole = if LEVEL == PORTABLE {
                    None
                } else {
                    self.vector_block::<LEVEL>(start, rows, m, out)
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
                let scales = &self.scales[tile * inner..(tile + 1) * inner];
                for (r, row) in out.chunks_exact_mut(inner).enumerate() {
                    let first = start + r * inner;
                    for (j, (o, &b)) in row.iter_mut().zip(scales).enumerate() {
                        let y = t[self.code(first + j)] * self.mul_of[usize::from(b)];
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

/// [`Decode::piece`]'s levels.
const PORTABLE: u8 = 0;
/// See [`PORTABLE`].
const AVX2: u8 = 1;
/// See [`PORTABLE`].
const AVX512: u8 = 2;

impl Decode<'_> {
    /// A full block along the last axis (first element `start`, `rows` long, multiplier `m`)
    /// by the explicit kernels of `LEVEL`: whether a product is not finite, `None` (nothing
    /// written) for a block they do not take. Reached only from [`Decode::piece_avx512`]
    /// (`LEVEL` AVX-512) and [`Decode::piece_avx2`] (AVX2).
    #[inline(always)]
    #[allow(clippy::needless_return)] // the return leaves the x86_64-only block
    fn vector_block<const LEVEL: u8>(
        &self,
        start: usize,
        rows: usize,
        m: f32,
        out: &mut [f32],
    ) -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        {
            use super::{dequantize_avx2 as v2, dequantize_avx512 as v512};
            if out.len() != rows {
                return None;
            }
            let t16 = self.table.first_chunk::<16>()?;
            let pair = start.is_multiple_of(2);
            // SAFETY: this runs inside `piece_avx512` (`LEVEL` AVX-512) or `piece_avx2`
            // (AVX2), which the driver calls only at that level, whose features the CPU has.
            return unsafe {
                match (LEVEL, self.packed, rows) {
                    (AVX512, true, 32) if pair => {
                        let c = self.codes.get(start / 2..)?.first_chunk::<16>()?;
                        Some(v512::packed_block::<16>(t16, c, m, out))
                    }
                    (AVX512, true, 16) if pair => {
                        let c = self.codes.get(start / 2..)?.first_chunk::<8>()?;
                        Some(v512::packed_block::<8>(t16, c, m, out))
                    }
                    (AVX512, false, 32) => {
                        let c = self.codes.get(start..)?.first_chunk::<32>()?;
                        Some(match &self.arith {
                            Some(d) => v512::arith_block::<32>(d, c, m, out),
                            None => v512::byte_block::<32>(&self.table, c, m, out),
                        })
                    }
                    (AVX2, true, 32) if pair => {
                        let c = self.codes.get(start / 2..)?.first_chunk::<16>()?;
                        Some(v2::packed_block::<16>(self.mags.as_ref()?, c, m, out))
                    }
                    (AVX2, true, 16) if pair => {
                        let c = self.codes.get(start / 2..)?.first_chunk::<8>()?;
                        Some(v2::packed_block::<8>(self.mags.as_ref()?, c, m, out))
                    }
                    (AVX2, false, 32) => {
                        let c = self.codes.get(start..)?.first_chunk::<32>()?;
                        Some(v2::arith_block::<32>(self.arith.as_ref()?, c, m, out))
                    }
                    _ => None,
                }
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
