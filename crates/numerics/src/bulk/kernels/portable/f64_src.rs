//! f64 and i32 → the binary floats of at most 16 bits the [`crate::bulk::kernels::portable::f32_float`] kernel serves
//! (f16, bf16, fp8, fp6, fp4), every deterministic mode and policy: each f64 (each i32, by way
//! of its exact f64 value) is first rounded to f32 by round-to-odd (exact integer arithmetic
//! on the bit pattern), then the block goes through the f32 kernel. Round-to-odd keeps every rounding decision of the narrower format:
//! a value that f32 cannot hold maps to the odd f32 neighbour strictly between the same two
//! f32 values, so it lies between the same two destination values (whose f32 codes are even,
//! as the destination keeps at most 10 mantissa bits and an f32 subnormal range 16 bits finer
//! than its own), is a tie only when the value is, and is inexact exactly when the value is.
//! A block holding a NaN (whose payload f32 cannot carry) or a finite value beyond the f32
//! range (whose overflow status depends on how far beyond it is: bf16 rounds the largest f32
//! down to its own largest value without overflow under `floor`, but not 1e300) takes the
//! reference routine. Tested bit for bit against the reference.

use crate::bulk::kernels::flags::BLOCK;
#[cfg(doc)]
use crate::bulk::kernels::portable::f32_float::FloatDst;
use crate::status::StatusCounts;

/// f64 or i32 → small float, through round-to-odd f32 codes and a [`FloatDst`] kernel.
pub(crate) struct F64Float;

/// The source formats that go through round-to-odd f32 codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WideSource {
    /// f64 codes.
    F64,
    /// i32 codes (every i32 is exact in f64, and none is beyond the f32 range).
    I32,
}

impl WideSource {
    /// Bytes per source element.
    pub(crate) const fn bytes(self) -> usize {
        match self {
            WideSource::F64 => 8,
            WideSource::I32 => 4,
        }
    }
}

/// The f32 code of the f64 code `x` rounded to odd (toward zero, then the last bit set when
/// inexact); `None` for NaN and for finite values of at least 2^128 (beyond the f32 range,
/// where the destination's overflow status depends on how far beyond its range they are).
/// (The plain statement of the rule, which the tests hold the block loop's form to.)
#[cfg(test)]
fn round_to_odd_f32(x: u64) -> Option<u32> {
    let sign = ((x >> 63) as u32) << 31;
    let abs = x & 0x7FFF_FFFF_FFFF_FFFF;
    if abs > 0x7FF0_0000_0000_0000 {
        return None;
    }
    if abs == 0x7FF0_0000_0000_0000 {
        return Some(sign | 0x7F80_0000);
    }
    let e = (abs >> 52) as i64 - 1023 + 127; // the f32 biased exponent
    let bits = if e >= 255 {
        return None;
    } else if e >= 1 {
        let sticky = u32::from(abs & 0x1FFF_FFFF != 0);
        ((e as u32) << 23) | ((abs >> 29) as u32 & 0x7F_FFFF) | sticky
    } else {
        let implicit = if abs >> 52 == 0 { 0 } else { 1u64 << 52 };
        let sig = (abs & 0x000F_FFFF_FFFF_FFFF) | implicit;
        let shift = (30 - e) as u64; // 29 bits dropped for a normal, plus 1 - e
        let (q, rest) = if shift >= 64 {
            (0, sig)
        } else {
            (sig >> shift, sig & ((1u64 << shift) - 1))
        };
        q as u32 | u32::from(rest != 0)
    };
    Some(sign | bits)
}

/// The f32 code of the f64 code `x` rounded to odd (toward zero, then the last bit set when
/// inexact), without branches for the block loop, and whether `x` is NaN, ±Inf or a finite
/// value of at least 2^128 (then the code is meaningless and the block takes the reference).
#[inline(always)]
fn round_to_odd_branchless(x: u64) -> (u32, bool) {
    let sign = ((x >> 63) as u32) << 31;
    let abs = x & 0x7FFF_FFFF_FFFF_FFFF;
    let beyond = abs >= 0x47F0_0000_0000_0000; // 2^128, Inf and NaN included
    let exp = abs >> 52;
    let e = exp as i64 - 1023 + 127;
    let normal =
        ((e as u32) << 23) | ((abs >> 29) as u32 & 0x7F_FFFF) | u32::from(abs & 0x1FFF_FFFF != 0);
    let implicit = if exp == 0 { 0 } else { 1u64 << 52 };
    let sig = (abs & 0x000F_FFFF_FFFF_FFFF) | implicit;
    // (a significand of 53 bits shifted by 63 or more is gone either way)
    let shift = (30 - e.min(1)).min(63) as u64;
    let rest = sig & ((1u64 << shift) - 1);
    let sub = (sig >> shift) as u32 | u32::from(rest != 0);
    (sign | if e >= 1 { normal } else { sub }, beyond)
}

/// A block of f64 codes into round-to-odd f32 codes, as a [`crate::bulk::kernels::simd::Job`] (so that the
/// loop is compiled at the cast's instruction-set level): whether any needs the reference.
struct OddBlock<'a> {
    source: WideSource,
    src: &'a [u8],
    out: &'a mut [u32],
}

impl crate::bulk::kernels::simd::Job for OddBlock<'_> {
    type Output = bool;
    #[inline(always)]
    fn run(self) -> bool {
        // the codes copied into a local array first: whole-word loads in the loop
        let mut codes = [0u64; BLOCK];
        let m = self.out.len().min(BLOCK);
        if self.source == WideSource::I32 {
            let mut ints = [0i32; BLOCK];
            bytemuck::cast_slice_mut::<i32, u8>(&mut ints[..m]).copy_from_slice(&self.src[..4 * m]);
            for (c, &x) in codes[..m].iter_mut().zip(&ints[..m]) {
                *c = (f64::from(i32::from_le(x))).to_bits().to_le();
            }
        } else {
            bytemuck::cast_slice_mut::<u64, u8>(&mut codes[..m])
                .copy_from_slice(&self.src[..8 * m]);
        }
        let mut bad = false;
        for (&x, y) in codes[..m].iter().zip(self.out.iter_mut()) {
            let (c, b) = round_to_odd_branchless(u64::from_le(x));
            *y = c.to_le();
            bad |= b;
        }
        bad
    }
}

impl F64Float {
    /// Casts `n` little-endian `source` codes of `src` into `dst` at `level`, block by block: the
    /// round-to-odd f32 codes of a block through `f32_kernel`, a block holding a NaN or a
    /// value beyond f32 through `reference` (both given the block's source or f32 codes, its
    /// part of `dst`, its start and length). `out_bytes(i)` is the destination byte offset of
    /// element `i` (a multiple of the block length, or the end).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn run(
        level: crate::bulk::kernels::simd::SimdLevel,
        source: WideSource,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        out_bytes: impl Fn(usize) -> usize,
        mut f32_kernel: impl FnMut(&[u8], &mut [u8], usize) -> StatusCounts,
        mut reference: impl FnMut(&[u8], &mut [u8], usize, usize) -> StatusCounts,
    ) -> StatusCounts {
        let mut counts = StatusCounts::default();
        let mut f32s = [0u32; BLOCK];
        let mut start = 0;
        while start < n {
            let m = BLOCK.min(n - start);
            let w = source.bytes();
            let block = &src[w * start..w * (start + m)];
            // at the AVX2 level and above, the explicit loop (`x86_avx2::f64_odd`)
            let explicit = if level >= crate::bulk::kernels::simd::SimdLevel::Avx2 {
                crate::bulk::kernels::simd::on_x86_64!(
                    crate::bulk::kernels::x86_avx2::f64_odd::round_to_odd(
                        source,
                        block,
                        &mut f32s[..m]
                    ),
                    None
                )
            } else {
                None
            };
            let needs_reference = explicit.unwrap_or_else(|| {
                let job = OddBlock {
                    source,
                    src: block,
                    out: &mut f32s[..m],
                };
                crate::bulk::kernels::simd::run_at(level, job)
            });
            let out = &mut dst[out_bytes(start)..out_bytes(start + m)];
            let got = if needs_reference {
                reference(block, out, start, m)
            } else {
                f32_kernel(bytemuck::cast_slice(&f32s[..m]), out, m)
            };
            counts.add(&got);
            start += m;
        }
        counts
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Round-to-odd by the definition: toward zero in f64 arithmetic, then the last bit.
    fn by_definition(x: f64) -> u32 {
        let t = x as f32; // nearest
        let toward_zero = if (t as f64).abs() > x.abs() {
            f32::from_bits(t.to_bits() - 1)
        } else {
            t
        };
        let exact = toward_zero as f64 == x;
        toward_zero.to_bits() | u32::from(!exact)
    }

    #[test]
    fn round_to_odd_equals_the_definition() {
        let mut x = 0x1234_5678_9ABC_DEF1u64;
        let mut codes = vec![0u64, 1, 0x000F_FFFF_FFFF_FFFF, 0x0010_0000_0000_0000];
        for f in [
            1.0f64,
            1.5,
            3.4e38,
            1e-40,
            1e-45,
            2f64.powi(-149),
            2f64.powi(-150),
        ] {
            codes.push(f.to_bits());
            codes.push(f.to_bits() + 1);
            codes.push(f.to_bits() - 1);
        }
        for _ in 0..100_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            // exponents around the f32 range
            let e = 1023 - 160 + (x >> 53) % 300;
            codes.push((x & 0x800F_FFFF_FFFF_FFFF) | (e << 52));
        }
        for c in codes {
            let f = f64::from_bits(c);
            if f.abs() >= 2f64.powi(128) {
                assert_eq!(round_to_odd_f32(c), None, "{c:#018x}");
                assert!(round_to_odd_branchless(c).1, "{c:#018x}");
                continue;
            }
            if f.abs() > f64::from(f32::MAX) {
                let want = (c >> 63 << 31) as u32 | 0x7F7F_FFFF;
                assert_eq!(round_to_odd_f32(c), Some(want), "{c:#018x}");
                assert_eq!(round_to_odd_branchless(c), (want, false));
                continue;
            }
            assert_eq!(round_to_odd_f32(c), Some(by_definition(f)), "{c:#018x}");
            assert_eq!(
                round_to_odd_branchless(c),
                (by_definition(f), false),
                "{c:#018x}"
            );
        }
        assert_eq!(round_to_odd_f32(0x7FF8_0000_0000_0000), None);
        for c in [
            0x7FF8_0000_0000_0000u64,
            0x7FF0_0000_0000_0000,
            0x47F0_0000_0000_0000,
        ] {
            assert!(round_to_odd_branchless(c).1);
        }
        assert_eq!(round_to_odd_f32(0xFFF0_0000_0000_0000), Some(0xFF80_0000));
    }
}
