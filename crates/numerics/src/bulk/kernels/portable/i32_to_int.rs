//! i32 → integers of 2 to 64 bits (2- and 4-bit ones packed or one per byte), every
//! deterministic mode and policy. An i32 is an integer, so no mode rounds it: a value in the
//! destination's range is stored exactly; one beyond it is out of range (overflow and inexact)
//! and becomes the bound on its side (saturated) or keeps its low bits (wrapped, as the
//! reference's two's complement of the negated magnitude does). Per element that is a clamp
//! (or nothing), a compare and a store of the low bits: a branchless loop over local blocks
//! that the compiler vectorises at each instruction-set level, with one count of the
//! out-of-range elements per block, from which every status count follows.

use crate::bulk::kernels::flags::BLOCK;
use crate::format::{Format, Kind};
use crate::policy::{CastPolicy, IntOverflow};
use crate::status::{Status, StatusCounts};

/// The integer destination of an i32 source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct I32Int {
    /// Smallest destination value, raised to `i32::MIN` when below it.
    lo: i32,
    /// Largest destination value, lowered to `i32::MAX` when above it.
    hi: i32,
    /// The code bits an i32 keeps (all of them, sign-extended, for 32 and 64 bits).
    mask: i32,
    /// Bytes per element when one per byte or wider (1, 2, 4 or 8).
    bytes: usize,
    /// Codes per byte: 1, or 2 (4-bit) or 4 (2-bit) when packed.
    per_byte: usize,
    /// Out-of-range values keep their low bits instead of saturating.
    wrap: bool,
}

impl I32Int {
    /// The kernel for i32 → `dst` (stored `per_byte` per byte) under `policy`, if `dst` is an
    /// integer format (every mode but the stochastic one, which [`super::select`] sends to the
    /// reference before this).
    pub(crate) fn new(dst: Format, per_byte: usize, policy: &CastPolicy) -> Option<I32Int> {
        let Kind::Int { signed } = dst.kind() else {
            return None;
        };
        let bits = dst.bits();
        let (lo, hi) = crate::encoding::int::range(bits, signed);
        let clamp = |v: i128| v.clamp(i128::from(i32::MIN), i128::from(i32::MAX)) as i32;
        let bytes = dst.unpacked_bytes();
        let fits = matches!((per_byte, bits), (1, _) | (2, 4) | (4, 2));
        if !fits || !matches!(bytes, 1 | 2 | 4 | 8) {
            return None;
        }
        Some(I32Int {
            lo: clamp(lo),
            hi: clamp(hi),
            mask: if bits >= 32 {
                -1
            } else {
                ((1u32 << bits) - 1) as i32
            },
            bytes,
            per_byte,
            wrap: policy.int_overflow == IntOverflow::Wrap,
        })
    }

    /// The code (its low bits; sign-extended when wider than 32 bits) of `v`, and whether `v`
    /// is out of range.
    #[inline(always)]
    fn convert<const WRAP: bool>(&self, v: i32) -> (i32, bool) {
        let out = (v < self.lo) | (v > self.hi);
        let c = if WRAP { v } else { v.max(self.lo).min(self.hi) };
        (c & self.mask, out)
    }

    /// Casts `n` little-endian i32 codes into `dst`, counting statuses.
    #[inline(always)]
    pub(crate) fn run(&self, src: &[u8], dst: &mut [u8], n: usize) -> StatusCounts {
        let out = match (self.wrap, self.per_byte, self.bytes) {
            (false, 1, 1) => self.codes::<u8, false>(src, dst, n),
            (false, 1, 2) => self.codes::<u16, false>(src, dst, n),
            (false, 1, 4) => self.codes::<u32, false>(src, dst, n),
            (false, 1, _) => self.codes::<u64, false>(src, dst, n),
            (true, 1, 1) => self.codes::<u8, true>(src, dst, n),
            (true, 1, 2) => self.codes::<u16, true>(src, dst, n),
            (true, 1, 4) => self.codes::<u32, true>(src, dst, n),
            (true, 1, _) => self.codes::<u64, true>(src, dst, n),
            (false, 2, _) => self.packed::<2, false>(src, dst, n),
            (false, _, _) => self.packed::<4, false>(src, dst, n),
            (true, 2, _) => self.packed::<2, true>(src, dst, n),
            (true, _, _) => self.packed::<4, true>(src, dst, n),
        };
        counts(n as u64, out, self.wrap)
    }

    /// One block: `inp` (i32 codes) into `codes`; the out-of-range count.
    #[inline(always)]
    fn block<C: Code, const WRAP: bool>(&self, inp: &[i32], codes: &mut [C]) -> u32 {
        let mut out = 0u32;
        for (x, y) in inp.iter().zip(codes.iter_mut()) {
            let (c, o) = self.convert::<WRAP>(i32::from_le(*x));
            *y = C::from_i32_le(c);
            out += u32::from(o);
        }
        out
    }

    /// `n` codes of type `C` (one element each); the out-of-range count.
    #[inline(always)]
    fn codes<C: Code, const WRAP: bool>(&self, src: &[u8], dst: &mut [u8], n: usize) -> u64 {
        let w = std::mem::size_of::<C>();
        let mut inp = [0i32; BLOCK];
        let mut codes = [C::default(); BLOCK];
        let mut out = 0u64;
        for (s, d) in src[..4 * n]
            .chunks(4 * BLOCK)
            .zip(dst[..w * n].chunks_mut(w * BLOCK))
        {
            let m = s.len() / 4;
            // Aligned buffers are read and written in place; others through the local arrays.
            let k = match (
                bytemuck::try_cast_slice::<u8, i32>(s),
                bytemuck::try_cast_slice_mut::<u8, C>(d),
            ) {
                (Ok(x), Ok(y)) => self.block::<C, WRAP>(x, y),
                _ => {
                    bytemuck::cast_slice_mut::<i32, u8>(&mut inp[..m]).copy_from_slice(s);
                    let k = self.block::<C, WRAP>(&inp[..m], &mut codes[..m]);
                    d.copy_from_slice(bytemuck::cast_slice(&codes[..m]));
                    k
                }
            };
            out += u64::from(k);
        }
        out
    }

    /// `n` sub-byte codes, `P` per byte (element 0 in the lowest bits; the unused high bits
    /// of a last partial byte zero); the out-of-range count.
    #[inline(always)]
    fn packed<const P: usize, const WRAP: bool>(
        &self,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
    ) -> u64 {
        let bits = 8 / P;
        let mut inp = [0i32; BLOCK];
        let mut codes = [0u8; BLOCK];
        let mut out = 0u64;
        for (s, d) in src[..4 * n]
            .chunks(4 * BLOCK)
            .zip(dst[..n.div_ceil(P)].chunks_mut(BLOCK / P))
        {
            let m = s.len() / 4;
            let k = match bytemuck::try_cast_slice::<u8, i32>(s) {
                Ok(x) => self.block::<u8, WRAP>(x, &mut codes[..m]),
                Err(_) => {
                    bytemuck::cast_slice_mut::<i32, u8>(&mut inp[..m]).copy_from_slice(s);
                    self.block::<u8, WRAP>(&inp[..m], &mut codes[..m])
                }
            };
            out += u64::from(k);
            // only in the last block: its padding codes are zero
            let full = m.div_ceil(P) * P;
            codes[m..full].fill(0);
            for (y, p) in d.iter_mut().zip(codes[..full].chunks_exact(P)) {
                *y = p
                    .iter()
                    .enumerate()
                    .fold(0u8, |a, (j, &c)| a | (c << (bits * j)));
            }
        }
        out
    }
}

/// The status counts of `n` results of which `out` were out of range: those are overflow,
/// inexact and wrapped or saturated; the others exact.
fn counts(n: u64, out: u64, wrap: bool) -> StatusCounts {
    let mut counts = StatusCounts {
        total: n,
        exact: n - out,
        ..StatusCounts::default()
    };
    let kept = if wrap {
        Status::WRAPPED
    } else {
        Status::SATURATED
    };
    for flag in [Status::OVERFLOW, Status::INEXACT, kept] {
        if let Some(slot) = counts.flags.get_mut(flag.bits().trailing_zeros() as usize) {
            *slot += out;
        }
    }
    counts
}

/// A destination code type: `u8`, `u16`, `u32` or `u64`, stored little-endian.
trait Code: bytemuck::Pod + Default {
    /// The low bits of `c` (sign-extended for `u64`), in little-endian byte order.
    fn from_i32_le(c: i32) -> Self;
}

impl Code for u8 {
    #[inline(always)]
    fn from_i32_le(c: i32) -> u8 {
        c as u8
    }
}

impl Code for u16 {
    #[inline(always)]
    fn from_i32_le(c: i32) -> u16 {
        (c as u16).to_le()
    }
}

impl Code for u32 {
    #[inline(always)]
    fn from_i32_le(c: i32) -> u32 {
        (c as u32).to_le()
    }
}

impl Code for u64 {
    #[inline(always)]
    fn from_i32_le(c: i32) -> u64 {
        (i64::from(c) as u64).to_le()
    }
}

impl crate::bulk::kernels::SliceKernel for I32Int {
    #[inline(always)]
    fn cast(
        &self,
        level: crate::bulk::kernels::simd::SimdLevel,
        src: &[u8],
        s: crate::bulk::Storage,
        dst: &mut [u8],
        d: crate::bulk::Storage,
        n: usize,
        _stream: bool,
    ) -> StatusCounts {
        let _ = (level, s, d);
        self.run(src, dst, n)
    }
}
