//! Furiosa's conversion rules (the Cast Engine's, as npusim models them) as a cast profile handed
//! to npusim-numerics.
//!
//! Each legal Cast Engine pair has a numerics [`CastPolicy`] for its regular values; the few
//! rules a policy cannot say (a canonical NaN code, bf16's flush of f32 subnormals, f8e5m2's
//! clamped subnormal rounding) are decided here first, on the input's class, and are listed
//! per pair:
//!
//! | pair | rule |
//! |---|---|
//! | i32 → i16, i8, i4 | two's-complement wrap (keep the low bits, sign-extend) |
//! | f32 → bf16 | NaN → `0x7fc0`; f32 subnormal → signed zero; RNE; overflow → ±∞ |
//! | f32 → f8e4m3 | NaN → `0x7f`; RNE; overflow and ±∞ saturate to ±448 |
//! | f32 → f8e5m2 | NaN → `0x7e`; ±∞ kept; normals round half away from zero; overflow → ±∞; below 2^−14: `min(round_half_away(|x|·2^16), 3)` with the sign |
//! | f32 → f16 | IEEE: RNE, overflow → ±∞, NaN stays NaN (quiet, sign and top payload kept), subnormals kept — npusim's choice, switchable ([`CastProfile::f16`]); no vendor rule is published |

use npusim_numerics::{CastPolicy, IntOverflow, Overflow, RoundMode, cast_from_f32, convert};

use crate::DType;

/// The Cast Engine's conversion rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CastProfile {
    /// Policy of f32 → f16 (named only by the Cast Engine page; default IEEE
    /// round-to-nearest-even).
    pub f16: CastPolicy,
}

impl Default for CastProfile {
    fn default() -> CastProfile {
        CastProfile {
            f16: CastPolicy::new(RoundMode::Rint),
        }
    }
}

/// The legal Cast Engine pairs (the Cast Engine page, its precision-lowering table).
pub const CAST_PAIRS: [(DType, DType); 7] = [
    (DType::I32, DType::I4),
    (DType::I32, DType::I8),
    (DType::I32, DType::I16),
    (DType::F32, DType::F8E5M2),
    (DType::F32, DType::F8E4M3),
    (DType::F32, DType::F16),
    (DType::F32, DType::BF16),
];

/// Whether the Cast Engine converts `src` to `dst`.
pub fn is_cast_pair(src: DType, dst: DType) -> bool {
    CAST_PAIRS.contains(&(src, dst))
}

impl CastProfile {
    /// The numerics policy used for the regular values of `src → dst` (`None` for a pair the
    /// Cast Engine does not take).
    pub fn policy(&self, src: DType, dst: DType) -> Option<CastPolicy> {
        if !is_cast_pair(src, dst) {
            return None;
        }
        Some(match dst {
            DType::I4 | DType::I8 | DType::I16 => CastPolicy {
                int_overflow: IntOverflow::Wrap,
                ..CastPolicy::new(RoundMode::Rint)
            },
            DType::BF16 => CastPolicy::new(RoundMode::Rint),
            DType::F8E4M3 => CastPolicy::saturating(RoundMode::Rint),
            DType::F8E5M2 => CastPolicy {
                overflow: Overflow::Ieee,
                ..CastPolicy::new(RoundMode::Round)
            },
            _ => self.f16,
        })
    }

    /// Converts one code of `src` into a code of `dst` (`None` for a pair the Cast Engine does
    /// not take).
    pub fn convert(&self, code: u64, src: DType, dst: DType) -> Option<u64> {
        let policy = self.policy(src, dst)?;
        if src == DType::F32 {
            let bits = (code & 0xffff_ffff) as u32;
            let sign = bits >> 31;
            let exp = (bits >> 23) & 0xff;
            let man = bits & 0x7f_ffff;
            let is_nan = exp == 0xff && man != 0;
            match dst {
                DType::BF16 if is_nan => return Some(0x7fc0),
                DType::BF16 if exp == 0 => return Some(u64::from(sign) << 15),
                DType::F8E4M3 if is_nan => return Some(0x7f),
                DType::F8E5M2 if is_nan => return Some(0x7e),
                DType::F8E5M2 if exp != 0xff => {
                    let x = f64::from(f32::from_bits(bits)).abs();
                    if x < 2f64.powi(-14) {
                        let m = (x * 2f64.powi(16)).round().min(3.0) as u64;
                        return Some((u64::from(sign) << 7) | m);
                    }
                }
                _ => {}
            }
        }
        Some(convert(code, src.format(), dst.format(), &policy))
    }
}

/// Elements converted per call of the bulk cast: below the numerics crate's parallel threshold,
/// so a Cast Engine run stays on its caller's thread, and small enough to stay in cache.
const BLOCK: usize = 4096;

impl CastProfile {
    /// [`CastProfile::convert`] of every 32-bit code of `words` into `out` (one code each, of
    /// at most 16 bits): integers keep their low bits; floats go through the numerics crate's
    /// bulk cast under [`CastProfile::policy`], and the inputs a rule of this profile decides
    /// first (NaN, zero and subnormal, and for f8e5m2 everything below 2^−14) through
    /// [`CastProfile::convert`] one by one. `None` for a pair the Cast Engine does not take.
    pub fn convert_words(
        &self,
        words: &[u32],
        src: DType,
        dst: DType,
        out: &mut [u16],
    ) -> Option<()> {
        let policy = self.policy(src, dst)?;
        if src != DType::F32 {
            let mask = dst.format().code_mask() as u32;
            out.iter_mut()
                .zip(words)
                .for_each(|(o, &w)| *o = (w & mask) as u16);
            return Some(());
        }
        let width = dst.bits() / 8;
        let mut floats = Vec::with_capacity(BLOCK);
        let mut bytes = vec![0u8; BLOCK * width];
        for (words, out) in words.chunks(BLOCK).zip(out.chunks_mut(BLOCK)) {
            floats.clear();
            floats.extend(words.iter().map(|&w| f32::from_bits(w)));
            let bytes = &mut bytes[..words.len() * width];
            let bulk = cast_from_f32(&floats, dst.format(), bytes, &policy).is_ok();
            if width == 1 {
                out.iter_mut()
                    .zip(bytes.iter())
                    .for_each(|(o, &b)| *o = u16::from(b));
            } else {
                let pairs = bytes.chunks_exact(2);
                out.iter_mut()
                    .zip(pairs)
                    .for_each(|(o, b)| *o = u16::from_le_bytes([b[0], b[1]]));
            }
            let low = if dst == DType::F8E5M2 { 127 - 14 } else { 1 };
            for (o, &w) in out.iter_mut().zip(words) {
                let exp = (w >> 23) & 0xff;
                if !bulk || exp == 0xff || exp < low {
                    *o = self.convert(u64::from(w), src, dst)? as u16;
                }
            }
        }
        Some(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32c(x: f32) -> u64 {
        u64::from(x.to_bits())
    }

    fn cast_f32(x: f32, dst: DType) -> u64 {
        CastProfile::default()
            .convert(f32c(x), DType::F32, dst)
            .expect("legal pair")
    }

    fn cast_bits(bits: u32, dst: DType) -> u64 {
        CastProfile::default()
            .convert(u64::from(bits), DType::F32, dst)
            .expect("legal pair")
    }

    fn cast_i32(x: i32, dst: DType) -> i64 {
        let code = CastProfile::default()
            .convert(u64::from(x as u32), DType::I32, dst)
            .expect("legal pair");
        let bits = dst.bits() as u32;
        ((code << (64 - bits)) as i64) >> (64 - bits)
    }

    #[test]
    fn integer_narrowing_wraps_g28() {
        for (x, want) in [(200, -56), (128, -128), (-129, 127), (1_000_000, 64)] {
            assert_eq!(cast_i32(x, DType::I8), want, "{x} -> i8");
        }
        for (x, want) in [(40000, -25536), (65536, 0)] {
            assert_eq!(cast_i32(x, DType::I16), want, "{x} -> i16");
        }
        for (x, want) in [
            (7, 7),
            (8, -8),
            (15, -1),
            (16, 0),
            (-9, 7),
            (-8, -8),
            (100, 4),
        ] {
            assert_eq!(cast_i32(x, DType::I4), want, "{x} -> i4");
        }
    }

    #[test]
    fn f32_to_bf16_g25() {
        let t = |x: f32, want: u64| assert_eq!(cast_f32(x, DType::BF16), want, "{x:e}");
        t(1.0 + 2f32.powi(-8), 0x3f80);
        t(1.0 + 3.0 * 2f32.powi(-8), 0x3f82);
        t(1.0 + 1.5 * 2f32.powi(-8), 0x3f81);
        assert_eq!(cast_bits(0x7fa0_0001, DType::BF16), 0x7fc0);
        assert_eq!(cast_bits(0xffc0_0000, DType::BF16), 0x7fc0);
        t(f32::MIN_POSITIVE / 2.0, 0x0000);
        t(-f32::MIN_POSITIVE / 2.0, 0x8000);
        t(f32::MAX, 0x7f80);
        t(f32::INFINITY, 0x7f80);
        t(-0.0, 0x8000);
        t(3.011_718_8, 0x4041);
        t(3.389_531_4e38, 0x7f7f);
    }

    #[test]
    fn f32_to_f8e4m3_saturates_g26() {
        let t = |x: f32, want: u64| assert_eq!(cast_f32(x, DType::F8E4M3), want, "{x:e}");
        t(1.0, 0x38);
        t(448.0, 0x7e);
        t(464.0, 0x7e);
        t(500.0, 0x7e);
        t(f32::INFINITY, 0x7e);
        t(f32::NEG_INFINITY, 0xfe);
        assert_eq!(cast_bits(0x7fc0_0000, DType::F8E4M3), 0x7f);
        assert_eq!(cast_bits(0xffc0_0000, DType::F8E4M3), 0x7f);
        t(2f32.powi(-9), 0x01);
        t(2f32.powi(-10), 0x00);
        t(1.5 * 2f32.powi(-10), 0x01);
        t(2.5 * 2f32.powi(-9), 0x02);
        t(3.5 * 2f32.powi(-9), 0x04);
        t(1.0625, 0x38);
        t(1.1875, 0x3a);
        t(-1.5, 0xbc);
        t(0.1, 0x1d);
        t(240.0, 0x77);
        t(-0.0, 0x80);
    }

    #[test]
    fn f32_to_f8e5m2_rounds_half_up_g27() {
        let t = |x: f32, want: u64| assert_eq!(cast_f32(x, DType::F8E5M2), want, "{x:e}");
        t(1.0, 0x3c);
        t(1.125, 0x3d);
        t(1.375, 0x3e);
        t(-1.125, 0xbd);
        t(57344.0, 0x7b);
        t(61439.0, 0x7b);
        t(61440.0, 0x7c);
        t(65536.0, 0x7c);
        t(f32::INFINITY, 0x7c);
        assert_eq!(cast_bits(0x7fc0_0000, DType::F8E5M2), 0x7e);
        assert_eq!(cast_bits(0xffc0_0000, DType::F8E5M2), 0x7e);
        t(2f32.powi(-16), 0x01);
        t(1.5 * 2f32.powi(-16), 0x02);
        t(0.5 * 2f32.powi(-16), 0x01);
        t(3.6 * 2f32.powi(-16), 0x03);
        t(2f32.powi(-14), 0x04);
        t(-0.0, 0x80);
        t(0.1, 0x2e);
    }

    #[test]
    fn f32_to_f16_is_ieee_and_switchable() {
        let t = |x: f32, want: u64| assert_eq!(cast_f32(x, DType::F16), want, "{x:e}");
        t(1.0, 0x3c00);
        t(1.0 + 2f32.powi(-11), 0x3c00);
        t(1.0 + 3.0 * 2f32.powi(-11), 0x3c02);
        t(65520.0, 0x7c00);
        t(2f32.powi(-24), 0x0001);
        t(-0.0, 0x8000);
        assert_eq!(cast_bits(0xffc0_0000, DType::F16), 0xfe00);
        let sat = CastProfile {
            f16: CastPolicy::saturating(RoundMode::Rint),
        };
        assert_eq!(sat.convert(f32c(1e6), DType::F32, DType::F16), Some(0x7bff));
    }

    #[test]
    fn only_the_seed_pairs_exist() {
        let p = CastProfile::default();
        for src in DType::ALL {
            for dst in DType::ALL {
                let legal = matches!(
                    (src, dst),
                    (DType::I32, DType::I4 | DType::I8 | DType::I16)
                        | (
                            DType::F32,
                            DType::F8E5M2 | DType::F8E4M3 | DType::F16 | DType::BF16
                        )
                );
                assert_eq!(p.convert(0, src, dst).is_some(), legal, "{src} -> {dst}");
            }
        }
    }
}
