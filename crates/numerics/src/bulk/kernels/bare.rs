//! The hardware conversion alone, for `npusim bench` (a ceiling, not a cast): f32 → f16, bf16
//! and i8, f16 / bf16 → f32 by the fewest instructions of a level, with no status counted and
//! no cast policy (NaN, overflow and, for i8, out-of-range values come out as the instruction
//! gives them). It is what a library that converts with no status and no policy runs (torch's
//! `.to` does), so the bench can say how much of a cast's time its status and policy take.
//! Split over threads, streamed past the cache and aligned as the casts are.
//!
//! | pair | AVX-512 | AVX2 | portable |
//! |---|---|---|---|
//! | f32 → f16 | `vcvtps2ph` zmm, to nearest even | `vcvtps2ph` ymm | bit arithmetic, to nearest even |
//! | f32 → bf16 | `vcvtne2ps2bf16` where the CPU has AVX-512 BF16 (f32 subnormals read as zero), else the rounding add and a word permute | the rounding add, shift, pack | the rounding add and shift |
//! | f32 → i8 | `vcvtps2dq` to nearest even, two saturating packs, a dword permute | the same on ymm | the same rule |
//! | f16 → f32 | `vcvtph2ps` zmm | `vcvtph2ps` ymm | bit arithmetic |
//! | bf16 → f32 | `vpmovzxwd`, shift | the same on ymm | shift |
//!
//! f32 → i8 gives what `vcvtps2dq` and the saturating packs give: the nearest integer (ties to
//! even) clamped to [−128, 127], and −128 for NaN and for values at or above 2^31 (+∞ too:
//! the instruction's "integer indefinite"), at every level.

use crate::bulk::Storage;
use crate::bulk::kernels::simd::{SimdLevel, on_x86_64};
use crate::bulk::kernels::stream;
use crate::format::Format;
use crate::status::StatusCounts;

/// Whole steps of `step` elements of `sw` source and `dw` destination bytes each, that both
/// `src` and `dst` hold (the vector loops' trip count at every level).
#[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
pub(crate) fn steps(src: &[u8], dst: &[u8], sw: usize, dw: usize, step: usize) -> usize {
    (src.len() / sw).min(dst.len() / dw) / step
}

/// One of the conversions that have a bare form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Bare {
    /// f32 → f16, to nearest even.
    F32F16,
    /// f32 → bf16, to nearest even.
    F32Bf16,
    /// f32 → i8, to nearest even, saturating as the hardware does.
    F32I8,
    /// f16 → f32.
    F16F32,
    /// bf16 → f32.
    Bf16F32,
}

impl Bare {
    /// The bare conversion from `s` to `d`, if there is one.
    pub(crate) fn new(s: Format, d: Format) -> Option<Bare> {
        match (s, d) {
            (Format::F32, Format::F16) => Some(Bare::F32F16),
            (Format::F32, Format::BF16) => Some(Bare::F32Bf16),
            (Format::F32, Format::I8) => Some(Bare::F32I8),
            (Format::F16, Format::F32) => Some(Bare::F16F32),
            (Format::BF16, Format::F32) => Some(Bare::Bf16F32),
            _ => None,
        }
    }

    /// Bytes per source element and per destination element.
    fn widths(self) -> (usize, usize) {
        match self {
            Bare::F32F16 | Bare::F32Bf16 => (4, 2),
            Bare::F32I8 => (4, 1),
            Bare::F16F32 | Bare::Bf16F32 => (2, 4),
        }
    }

    /// Converts the `n` elements of one piece at `level`: the output streamed past the cache
    /// from its first 64-byte boundary when it has at least `stream_threshold` bytes (as
    /// [`stream::split`] does for the casts), else the f32 side's first 64-byte boundary
    /// reached element by element before the vector loop.
    pub(crate) fn run(
        self,
        level: SimdLevel,
        src: &[u8],
        dst: &mut [u8],
        n: usize,
        stream_threshold: usize,
    ) {
        let (sw, dw) = self.widths();
        let s = Storage::native(match sw {
            4 => Format::F32,
            _ => Format::F16,
        });
        let d = Storage::native(match dw {
            4 => Format::F32,
            2 => Format::F16,
            _ => Format::I8,
        });
        stream::split(s, d, src, dst, n, stream_threshold, |x, y, m, streamed| {
            self.piece(level, &x[..sw * m], &mut y[..dw * m], streamed);
            StatusCounts::default()
        });
    }

    /// One piece: without `stream`, the elements before the f32 side's first 64-byte boundary
    /// one by one; the vector loop of `level` over whole steps; the rest one by one.
    fn piece(self, level: SimdLevel, src: &[u8], dst: &mut [u8], stream: bool) {
        let (sw, dw) = self.widths();
        let n = src.len() / sw;
        let head = if stream {
            0
        } else {
            let f32_side = if sw == 4 {
                src.as_ptr() as usize
            } else {
                dst.as_ptr() as usize
            };
            if f32_side.is_multiple_of(4) {
                ((64 - f32_side % 64) % 64 / 4).min(n)
            } else {
                0
            }
        };
        let (hx, x) = src.split_at(sw * head);
        let (hy, y) = dst.split_at_mut(dw * head);
        self.scalar(hx, hy);
        let done = self.vector(level, x, y, stream);
        self.scalar(&x[sw * done..], &mut y[dw * done..]);
    }

    /// The vector loop of `level` over the whole steps of `src`; returns the elements done.
    fn vector(self, level: SimdLevel, src: &[u8], dst: &mut [u8], stream: bool) -> usize {
        use crate::bulk::kernels::simd::{avx2_present, avx512_present, avx512bf16_present};
        if level == SimdLevel::Avx512 && avx512_present() {
            let bf16 = avx512bf16_present();
            return on_x86_64!(
                // SAFETY: the CPU has the AVX-512 level (checked above) and, where `bf16` is
                // set, AVX-512 BF16; with `stream`, `dst` starts on a 64-byte boundary
                // (`stream::split`).
                unsafe {
                    crate::bulk::kernels::x86_avx512::bare::convert(self, bf16, src, dst, stream)
                },
                0
            );
        }
        if level >= SimdLevel::Avx2 && avx2_present() {
            return on_x86_64!(
                // SAFETY: the CPU has the AVX2 level (checked above); with `stream`, `dst`
                // starts on a 64-byte boundary (`stream::split`).
                unsafe { crate::bulk::kernels::x86_avx2::bare::convert(self, src, dst, stream) },
                0
            );
        }
        0
    }

    /// The portable conversion of every element of `src` into `dst`.
    pub(crate) fn scalar(self, src: &[u8], dst: &mut [u8]) {
        match self {
            Bare::F32F16 | Bare::F32Bf16 => {
                let f = if self == Bare::F32F16 {
                    f32_to_f16
                } else {
                    f32_to_bf16
                };
                for (x, y) in src.chunks_exact(4).zip(dst.chunks_exact_mut(2)) {
                    let c = f(u32::from_le_bytes([x[0], x[1], x[2], x[3]]));
                    y.copy_from_slice(&c.to_le_bytes());
                }
            }
            Bare::F32I8 => {
                for (x, y) in src.chunks_exact(4).zip(dst.iter_mut()) {
                    *y = f32_to_i8(f32::from_le_bytes([x[0], x[1], x[2], x[3]]));
                }
            }
            Bare::F16F32 | Bare::Bf16F32 => {
                let f = if self == Bare::F16F32 {
                    f16_to_f32
                } else {
                    bf16_to_f32
                };
                for (x, y) in src.chunks_exact(2).zip(dst.chunks_exact_mut(4)) {
                    y.copy_from_slice(&f(u16::from_le_bytes([x[0], x[1]])).to_le_bytes());
                }
            }
        }
    }
}

/// The f16 code of f32 code `x` to nearest even (NaN: a quiet NaN).
pub(crate) fn f32_to_f16(x: u32) -> u16 {
    let sign = ((x >> 16) & 0x8000) as u16;
    let a = x & 0x7FFF_FFFF;
    let m = if a >= 0x4780_0000 {
        // 2^16 and above, ±Inf, NaN
        if a > 0x7F80_0000 { 0x7E00 } else { 0x7C00 }
    } else if a < 0x3880_0000 {
        // below 2^-14: adding 0.5 rounds to the f16 subnormal quantum 2^-24 in the low bits
        (f32::from_bits(a) + 0.5)
            .to_bits()
            .wrapping_sub(0x3F00_0000)
    } else {
        // rebias, round the 13 dropped bits to nearest even (a carry reaches the exponent)
        (a.wrapping_sub(112 << 23) + 0xFFF + ((a >> 13) & 1)) >> 13
    } as u16;
    sign | m
}

/// The bf16 code of f32 code `x` by the rounding add to nearest even on the low 16 bits (a NaN
/// whose payload is in those bits alone can become ±Inf; an all-ones code wraps).
pub(crate) fn f32_to_bf16(x: u32) -> u16 {
    (x.wrapping_add(0x7FFF + ((x >> 16) & 1)) >> 16) as u16
}

/// The i8 code of `x` as `vcvtps2dq` (to nearest even) and saturating packs give it: clamped
/// to [−128, 127], −128 for NaN and for values at or above 2^31.
pub(crate) fn f32_to_i8(x: f32) -> u8 {
    if x.is_nan() || x >= 2_147_483_648.0 {
        return 0x80;
    }
    (x.round_ties_even() as i32).clamp(-128, 127) as i8 as u8
}

/// The f32 code of f16 code `h` (exact; NaN payloads kept).
pub(crate) fn f16_to_f32(h: u16) -> u32 {
    let h = u32::from(h);
    let mut o = (h & 0x7FFF) << 13;
    let exp = o & 0x0F80_0000;
    o += (127 - 15) << 23;
    if exp == 0x0F80_0000 {
        // Inf / NaN: the top exponent
        o += (128 - 16) << 23;
    } else if exp == 0 {
        // subnormal: 2^-14 (1 + m / 1024) − 2^-14, exact in f32
        o += 1 << 23;
        o = (f32::from_bits(o) - f32::from_bits(113 << 23)).to_bits();
    }
    o | (h & 0x8000) << 16
}

/// The f32 code of bf16 code `h`.
pub(crate) fn bf16_to_f32(h: u16) -> u32 {
    u32::from(h) << 16
}

#[cfg(test)]
mod tests {
    use super::*;

    /// f32 codes of every class: zeros, f32 subnormals, f16 subnormals and normals with ties
    /// and near-ties on the dropped bits, the overflow boundary, ±Inf, and random codes.
    fn f32_codes() -> Vec<u32> {
        let mut v = vec![0, 1, 0x7F_FFFF, 0x80_0000, 0x7F7F_FFFF, 0x7F80_0000];
        for e in 100u32..=160 {
            for low in [
                0, 1, 0xFFF, 0x1000, 0x1001, 0x2000, 0x3000, 0x7FFF, 0x8000, 0x8001, 0x1_8000,
                0x7F_FFFF,
            ] {
                v.push((e << 23) | low);
            }
        }
        let mut s = 0x9E37_79B9_7F4A_7C15u64;
        for _ in 0..20_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            v.push((s >> 32) as u32);
        }
        let neg: Vec<u32> = v.iter().map(|c| c | 0x8000_0000).collect();
        v.extend(neg);
        v
    }

    /// Whether the hardware may differ from the scalar rule on source code `c` (its bytes):
    /// NaN for f32 → f16 and f16 → f32 (the instructions keep or quiet payloads their own
    /// way), and f32 subnormals and NaN for f32 → bf16 by `vcvtne2ps2bf16` (`hardware_bf16`).
    fn skipped(bare: Bare, hardware_bf16: bool, c: &[u8]) -> bool {
        match (bare, c.len()) {
            (Bare::F32F16 | Bare::F32Bf16, 4) => {
                let a = u32::from_le_bytes([c[0], c[1], c[2], c[3]]) & 0x7FFF_FFFF;
                let nan = a > 0x7F80_0000;
                match bare {
                    Bare::F32F16 => nan,
                    _ => hardware_bf16 && (nan || a < 0x80_0000),
                }
            }
            (Bare::F16F32, 2) => u16::from_le_bytes([c[0], c[1]]) & 0x7FFF > 0x7C00,
            _ => false,
        }
    }

    /// The scalar rules equal the f32 arithmetic they stand for (f16 to nearest even against
    /// the widening of the result and its neighbours is tested against the reference in the
    /// integration tests); here the vector loops of every level the machine has equal the
    /// scalar rules on whole steps at several offsets, streamed or not, the AVX-512 bf16
    /// conversion both with and without AVX-512 BF16, on every code but those [`skipped`] names.
    #[test]
    fn the_vector_loops_equal_the_scalar_rules() {
        let codes = f32_codes();
        let f32_bytes: Vec<u8> = codes.iter().flat_map(|c| c.to_le_bytes()).collect();
        let h16: Vec<u8> = (0..=u16::MAX).flat_map(|c| c.to_le_bytes()).collect();
        for bare in [
            Bare::F32F16,
            Bare::F32Bf16,
            Bare::F32I8,
            Bare::F16F32,
            Bare::Bf16F32,
        ] {
            let (sw, dw) = bare.widths();
            let all = if sw == 4 { &f32_bytes } else { &h16 };
            for off in [0usize, 1, 5, 16] {
                let src = &all[sw * off..];
                let n = src.len() / sw;
                let mut want = vec![0u8; dw * n];
                bare.scalar(src, &mut want);
                for level in SimdLevel::available() {
                    for stream in [false, true] {
                        // a 64-byte aligned destination for the streamed stores
                        let mut buf = vec![0u8; dw * n + 64];
                        let at = buf.as_ptr().align_offset(64);
                        let dst = &mut buf[at..at + dw * n];
                        let done = bare.vector(level, src, dst, stream);
                        bare.scalar(&src[sw * done..], &mut dst[dw * done..]);
                        for i in 0..n {
                            let (g, w) = (&dst[dw * i..dw * (i + 1)], &want[dw * i..dw * (i + 1)]);
                            let c = &src[sw * i..sw * (i + 1)];
                            let hardware_bf16 = level == SimdLevel::Avx512
                                && crate::bulk::kernels::simd::avx512bf16_present();
                            if skipped(bare, hardware_bf16, c) {
                                continue;
                            }
                            assert_eq!(
                                g, w,
                                "{bare:?} {level:?} stream {stream} off {off} code {c:02x?}"
                            );
                        }
                    }
                }
            }
        }
        // the AVX-512 rounding-add route of f32 → bf16, which a CPU with AVX-512 BF16 does not
        // take in `vector`
        if crate::bulk::kernels::simd::avx512_present() {
            let n = codes.len();
            let mut want = vec![0u8; 2 * n];
            Bare::F32Bf16.scalar(&f32_bytes, &mut want);
            let mut got = vec![0u8; 2 * n];
            let done = on_x86_64!(
                // SAFETY: the CPU has the AVX-512 level (checked above); not streamed.
                unsafe {
                    crate::bulk::kernels::x86_avx512::bare::convert(
                        Bare::F32Bf16,
                        false,
                        &f32_bytes,
                        &mut got,
                        false,
                    )
                },
                0
            );
            assert_eq!(done, n / 32 * 32);
            assert_eq!(got[..2 * done], want[..2 * done]);
        }
    }

    /// The portable f16 ↔ f32 rules against f32 arithmetic: every f16 code widens to a value
    /// that narrows back to it (NaN: a NaN), and the narrowing of an f32 between two adjacent
    /// f16 values is the nearer one, ties to the even code.
    #[test]
    fn the_portable_f16_rules_round_trip_and_round_to_nearest_even() {
        for h in 0..=u16::MAX {
            let w = f16_to_f32(h);
            if h & 0x7C00 == 0x7C00 && h & 0x3FF != 0 {
                assert!(f32::from_bits(w).is_nan(), "{h:#06x}");
                continue;
            }
            assert_eq!(f32_to_f16(w), h, "{h:#06x} -> {w:#010x}");
            // the midpoint to the next code up (by magnitude) rounds to the even one of the two
            if h & 0x7FFF < 0x7BFF {
                let (a, b) = (f32::from_bits(w), f32::from_bits(f16_to_f32(h + 1)));
                let mid = ((f64::from(a) + f64::from(b)) / 2.0) as f32;
                let even = if h & 1 == 0 { h } else { h + 1 };
                assert_eq!(f32_to_f16(mid.to_bits()), even, "{h:#06x} midpoint");
            }
        }
    }
}
