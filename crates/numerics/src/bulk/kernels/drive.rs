//! The loops every f32-source kernel shares. Per block of [`BLOCK`] elements: copy the f32
//! codes into a local array (in place instead when the buffers are aligned), apply a branchless per-element function giving (code, raw status
//! bits) from local array to local arrays, copy the codes out at the destination width (or two
//! per byte, packed), and count the statuses ([`flags`]). Fixed-size local arrays leave the
//! compiler nothing to prove about bounds or aliasing, so the middle loop vectorises.

use crate::bulk::kernels::flags::{self, BLOCK};
use crate::status::StatusCounts;

/// A per-element cast of an f32 code: the destination code and the raw status bits. An
/// implementation's `apply` must be `#[inline(always)]` so that the loops here inline it (and
/// vectorise it) at every instruction-set level.
pub(crate) trait F32Element {
    /// Code and raw status bits of the f32 code `x`.
    fn apply(&self, x: u32) -> (u32, u16);
}

/// A destination code type: `u8`, `u16` or `u32`, stored little-endian.
pub(crate) trait Code: bytemuck::Pod + Default {
    /// The low bits of `c`, in little-endian byte order.
    fn from_u32_le(c: u32) -> Self;
}

impl Code for u8 {
    #[inline(always)]
    fn from_u32_le(c: u32) -> u8 {
        c as u8
    }
}

impl Code for u16 {
    #[inline(always)]
    fn from_u32_le(c: u32) -> u16 {
        (c as u16).to_le()
    }
}

impl Code for u32 {
    #[inline(always)]
    fn from_u32_le(c: u32) -> u32 {
        c.to_le()
    }
}

/// Applies `f` to one block: `inp` (f32 codes) into `codes` and `st`.
#[inline(always)]
fn block<C: Code>(f: &impl F32Element, inp: &[u32], codes: &mut [C], st: &mut [u16]) {
    for ((x, c), t) in inp.iter().zip(codes.iter_mut()).zip(st.iter_mut()) {
        let (code, status) = f.apply(u32::from_le(*x));
        *c = C::from_u32_le(code);
        *t = status;
    }
}

/// Casts `n` little-endian f32 codes into little-endian codes of type `C` by `f`.
#[inline(always)]
pub(crate) fn f32_to_codes<C: Code>(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    f: &impl F32Element,
) -> StatusCounts {
    let w = std::mem::size_of::<C>();
    let mut counts = StatusCounts::default();
    let mut inp = [0u32; BLOCK];
    let mut codes = [C::default(); BLOCK];
    let mut st = [0u16; BLOCK];
    for (s, d) in src[..4 * n]
        .chunks(4 * BLOCK)
        .zip(dst[..w * n].chunks_mut(w * BLOCK))
    {
        let m = s.len() / 4;
        // Aligned buffers are read and written in place; others through the local arrays.
        match (
            bytemuck::try_cast_slice::<u8, u32>(s),
            bytemuck::try_cast_slice_mut::<u8, C>(d),
        ) {
            (Ok(x), Ok(y)) => block(f, x, y, &mut st[..m]),
            _ => {
                bytemuck::cast_slice_mut::<u32, u8>(&mut inp[..m]).copy_from_slice(s);
                block(f, &inp[..m], &mut codes[..m], &mut st[..m]);
                d.copy_from_slice(bytemuck::cast_slice(&codes[..m]));
            }
        }
        flags::count(&st[..m], &mut counts);
    }
    counts
}

/// Casts `n` little-endian f32 codes into 4-bit codes by `f`, two per byte (element 0 in the
/// low nibble; an odd count leaves the last high nibble zero).
#[inline(always)]
pub(crate) fn f32_to_nibbles(
    src: &[u8],
    dst: &mut [u8],
    n: usize,
    f: &impl F32Element,
) -> StatusCounts {
    let mut counts = StatusCounts::default();
    let mut inp = [0u32; BLOCK];
    let mut codes = [0u8; BLOCK];
    let mut st = [0u16; BLOCK];
    for (s, d) in src[..4 * n]
        .chunks(4 * BLOCK)
        .zip(dst[..n.div_ceil(2)].chunks_mut(BLOCK / 2))
    {
        let m = s.len() / 4;
        match bytemuck::try_cast_slice::<u8, u32>(s) {
            Ok(x) => block(f, x, &mut codes[..m], &mut st[..m]),
            Err(_) => {
                bytemuck::cast_slice_mut::<u32, u8>(&mut inp[..m]).copy_from_slice(s);
                block(f, &inp[..m], &mut codes[..m], &mut st[..m]);
            }
        }
        if m % 2 == 1 {
            // only in the last block: its padding nibble is zero
            codes[m] = 0;
        }
        for (y, p) in d.iter_mut().zip(codes[..m.div_ceil(2) * 2].chunks_exact(2)) {
            *y = (p[0] & 0xF) | (p[1] << 4);
        }
        flags::count(&st[..m], &mut counts);
    }
    counts
}
