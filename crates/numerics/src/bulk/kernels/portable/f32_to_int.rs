//! f32 → integers of at most 32 bits under the deterministic modes except `odd`: exact f32
//! round-to-integral arithmetic, then the range rule, computed branchlessly for every element
//! (every candidate result, then a select) so that the loop vectorises. Results and statuses
//! equal the reference routine's (tested over random codes and every boundary class per
//! destination, mode and policy).

use crate::bulk::kernels::drive::{self, F32Element};
use crate::policy::IntOverflow;
use crate::round::RoundMode;
use crate::status::{Status, StatusCounts};

const INEXACT: u16 = Status::INEXACT.bits();
const OVERFLOW: u16 = Status::OVERFLOW.bits();
const FLUSHED: u16 = Status::FLUSHED_TO_ZERO.bits();
const SATURATED: u16 = Status::SATURATED.bits();
const WRAPPED: u16 = Status::WRAPPED.bits();
const INVALID: u16 = Status::INVALID.bits();

use crate::bulk::kernels::mode;
use crate::bulk::kernels::simd::{SimdLevel, on_x86_64};

/// The integer destination.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntDst {
    /// Smallest value.
    pub lo: i64,
    /// Largest value.
    pub hi: i64,
    /// Bytes per element (1, 2 or 4) when not packed.
    pub bytes: usize,
    /// Bits per code (4, 8, 16 or 32).
    pub bits: u32,
    /// 4-bit codes two per byte.
    pub packed: bool,
    /// Saturate or wrap out-of-range values.
    pub overflow: IntOverflow,
    /// The rounding mode (not `odd`, not `hybrid`).
    pub mode: RoundMode,
}

impl IntDst {
    /// Whether the explicit SIMD loops serve this destination (4-, 8- or 16-bit, every mode
    /// but `odd`).
    pub(crate) fn simd_serves(&self) -> bool {
        matches!(self.bits, 4 | 8 | 16)
            && matches!(
                self.mode,
                RoundMode::Rint
                    | RoundMode::None
                    | RoundMode::Round
                    | RoundMode::Floor
                    | RoundMode::Ceil
                    | RoundMode::Trunc
            )
    }

    /// Whether the AVX2 loop casts (the bulk of) a slice at `level` on this machine.
    pub(crate) fn avx2_at(&self, level: SimdLevel) -> bool {
        level >= SimdLevel::Avx2 && level.is_available() && self.simd_serves()
    }

    /// Whether the AVX-512 loop casts (the bulk of) a slice at `level` on this machine.
    pub(crate) fn avx512_at(&self, level: SimdLevel) -> bool {
        level.runs_avx512() && self.simd_serves()
    }

    /// `x` truncated towards zero, by clearing its fraction bits (exact; ±Inf and NaN stay).
    #[inline(always)]
    fn trunc(bits: u32) -> f32 {
        let e = (bits >> 23) & 0xFF;
        let keep = if e < 127 {
            0x8000_0000
        } else if e < 150 {
            !((1u32 << (150 - e)) - 1)
        } else {
            u32::MAX
        };
        f32::from_bits(bits & keep)
    }

    /// The low 32 bits (two's complement) of the integral finite f32 `r`, from its bit
    /// pattern: the significand shifted into place, then the sign. Branchless integer
    /// arithmetic with per-lane shifts, so that it vectorises (a float → int cast would not).
    #[inline(always)]
    fn low32(r: f32) -> u32 {
        let bits = r.to_bits();
        let e = (bits >> 23) & 0xFF;
        let sig = (bits & 0x7F_FFFF) | if e == 0 { 0 } else { 0x80_0000 };
        let up = e.wrapping_sub(150);
        let down = 150u32.wrapping_sub(e);
        let mag = if e >= 150 {
            if up < 32 { sig << up } else { 0 }
        } else if down < 32 {
            sig >> down
        } else {
            0
        };
        if bits >> 31 == 1 {
            mag.wrapping_neg()
        } else {
            mag
        }
    }

    /// `x` rounded to an integral value by mode `M`, in exact f32 arithmetic (no libm call,
    /// no float → int cast): the truncation `t` and the fraction `x - t` are exact; from
    /// 2^23 on, and for ±Inf and NaN, `t` is `x` and the fraction is 0 or NaN (no step).
    #[inline(always)]
    fn round<const M: u8>(x: f32) -> f32 {
        let t = Self::trunc(x.to_bits());
        let f = x - t;
        let odd = Self::low32(t) & 1 == 1;
        let (up, down) = match M {
            mode::TRUNC => (false, false),
            mode::FLOOR => (false, f < 0.0),
            mode::CEIL => (f > 0.0, false),
            mode::NEAREST_AWAY => (f >= 0.5, f <= -0.5),
            _ => (f > 0.5 || (f == 0.5 && odd), f < -0.5 || (f == -0.5 && odd)),
        };
        t + if up { 1.0 } else { 0.0 } - if down { 1.0 } else { 0.0 }
    }

    /// The code (two's complement in `W` bytes) and raw status bits of one f32 code.
    #[inline(always)]
    fn convert<const M: u8, const W: usize, const WRAP: bool>(&self, bits: u32) -> (u32, u16) {
        if W < 4 {
            self.convert_narrow::<M, WRAP>(bits)
        } else {
            self.convert_wide::<M, WRAP>(bits)
        }
    }

    /// [`IntDst::convert`] for 8- and 16-bit destinations, all in f32 and i32 arithmetic (their
    /// bounds are exact in f32).
    #[inline(always)]
    fn convert_narrow<const M: u8, const WRAP: bool>(&self, bits: u32) -> (u32, u16) {
        let x = f32::from_bits(bits);
        let r = Self::round::<M>(x);
        let (lo, hi) = (self.lo as f32, self.hi as f32);
        let nan = x.is_nan();
        let inf = x.is_infinite();
        let above = r > hi;
        let out_of_range = above | (r < lo);
        let saturated = if above { self.hi } else { self.lo } as i32;
        // In range, and wrapped (the low bits of the rounded integer), the code comes from
        // the bit pattern of `r`; ±Inf and out-of-range values that do not wrap saturate.
        let value = if out_of_range & !(WRAP & !inf) {
            saturated as u32
        } else {
            Self::low32(r)
        };
        let mask = (1u32 << self.bits.min(31)) - 1;
        let code = if nan { 0 } else { value & mask };
        let flag = |b: bool, f: u16| if b { f } else { 0 };
        let inexact = flag(r != x, INEXACT);
        let in_range_st =
            inexact | flag((r == 0.0) & (x != 0.0), FLUSHED) | flag((x > hi) | (x < lo), SATURATED);
        let overflow = OVERFLOW | INEXACT | if WRAP { WRAPPED } else { SATURATED };
        let status = if nan {
            INVALID | INEXACT
        } else if inf {
            SATURATED | INEXACT
        } else if out_of_range {
            inexact | overflow
        } else {
            in_range_st
        };
        (code, status)
    }

    /// [`IntDst::convert`] for 32-bit destinations, whose bounds need f64.
    #[inline(always)]
    fn convert_wide<const M: u8, const WRAP: bool>(&self, bits: u32) -> (u32, u16) {
        let x = f32::from_bits(bits);
        let r = Self::round::<M>(x);
        let (lo, hi) = (self.lo as f64, self.hi as f64);
        let (xf, rf) = (f64::from(x), f64::from(r));
        let nan = x.is_nan();
        let inf = x.is_infinite();
        let above = rf > hi;
        let out_of_range = above || rf < lo;
        let in_range = rf as i64;
        let saturated = if above { self.hi } else { self.lo };
        // |r| ≥ 2^55 is a multiple of 2^32: its low 32 bits are zero.
        let wrapped = if WRAP && rf.abs() < 36_028_797_018_963_968.0 {
            rf as i64
        } else {
            0
        };
        let value = if !out_of_range {
            in_range
        } else if WRAP && !inf {
            wrapped
        } else {
            saturated
        };
        let code = if nan { 0 } else { value as u32 };
        let inexact = if r != x { INEXACT } else { 0 };
        let mut in_range_st = inexact;
        if rf == 0.0 && xf != 0.0 {
            in_range_st |= FLUSHED;
        }
        if xf > hi || xf < lo {
            in_range_st |= SATURATED;
        }
        let overflow = OVERFLOW | INEXACT | if WRAP { WRAPPED } else { SATURATED };
        let status = if nan {
            INVALID | INEXACT
        } else if inf {
            SATURATED | INEXACT
        } else if out_of_range {
            inexact | overflow
        } else {
            in_range_st
        };
        (code, status)
    }

    #[inline(always)]
    fn run_w<const M: u8, const W: usize, C: drive::Code>(
        &self,
        src: &[u8],
        out: &mut [u8],
        n: usize,
    ) -> StatusCounts {
        match (self.overflow == IntOverflow::Wrap, self.packed) {
            (true, false) => drive::f32_to_codes::<C>(src, out, n, &Typed::<M, W, true>(*self)),
            (false, false) => drive::f32_to_codes::<C>(src, out, n, &Typed::<M, W, false>(*self)),
            (true, true) => drive::f32_to_nibbles(src, out, n, &Typed::<M, W, true>(*self)),
            (false, true) => drive::f32_to_nibbles(src, out, n, &Typed::<M, W, false>(*self)),
        }
    }

    #[inline(always)]
    fn run_m<const M: u8>(&self, src: &[u8], out: &mut [u8], n: usize) -> StatusCounts {
        match self.bytes {
            1 => self.run_w::<M, 1, u8>(src, out, n),
            2 => self.run_w::<M, 2, u16>(src, out, n),
            _ => self.run_w::<M, 4, u32>(src, out, n),
        }
    }

    /// Casts `n` little-endian f32 codes into `bytes`-byte integers, counting statuses.
    #[inline(always)]
    pub(crate) fn run(&self, src: &[u8], out: &mut [u8], n: usize) -> StatusCounts {
        match self.mode {
            RoundMode::Round => self.run_m::<{ mode::NEAREST_AWAY }>(src, out, n),
            RoundMode::Floor => self.run_m::<{ mode::FLOOR }>(src, out, n),
            RoundMode::Ceil => self.run_m::<{ mode::CEIL }>(src, out, n),
            RoundMode::Trunc => self.run_m::<{ mode::TRUNC }>(src, out, n),
            _ => self.run_m::<{ mode::NEAREST_EVEN }>(src, out, n),
        }
    }
}

/// An [`IntDst`] with its mode, width and overflow rule as type parameters.
struct Typed<const M: u8, const W: usize, const WRAP: bool>(IntDst);

impl<const M: u8, const W: usize, const WRAP: bool> F32Element for Typed<M, W, WRAP> {
    #[inline(always)]
    fn apply(&self, x: u32) -> (u32, u16) {
        self.0.convert::<M, W, WRAP>(x)
    }
}

impl crate::bulk::kernels::SliceKernel for IntDst {
    #[inline(always)]
    fn cast(
        &self,
        level: SimdLevel,
        src: &[u8],
        s: crate::bulk::Storage,
        dst: &mut [u8],
        d: crate::bulk::Storage,
        n: usize,
        stream: bool,
    ) -> crate::status::StatusCounts {
        let _ = (s, d);
        if level == SimdLevel::Avx512
            && let Some(counts) = on_x86_64!(
                crate::bulk::kernels::x86_avx512::f32_to_int::run(self, src, dst, n, stream),
                None
            )
        {
            crate::bulk::kernels::plan::ran("f32-int-avx512");
            return counts;
        }
        if level >= SimdLevel::Avx2
            && let Some(counts) = on_x86_64!(
                crate::bulk::kernels::x86_avx2::f32_to_int::run(self, src, dst, n, stream),
                None
            )
        {
            crate::bulk::kernels::plan::ran("f32-int-avx2");
            return counts;
        }
        let _ = stream;
        crate::bulk::kernels::plan::ran("f32-int");
        self.run(src, dst, n)
    }
}
