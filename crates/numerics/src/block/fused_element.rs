//! The element step of the fused block kernel: an f32 value times an exact power of two,
//! rounded to a small binary float (e2m1, e2m3, e3m2, e4m3fn, e5m2) with integer operations
//! only, saturating at the max normal, with the statuses the reference routine gives.
//!
//! For f32 bits `y` and a block exponent `e` (the value is `y × 2^-e`), the element's code
//! magnitude before rounding is a fixed-point number: in the element's normal range the f32
//! bits with the exponent rebiased (`y - ((127 - bias + e) << 23)`, shifted right by
//! `23 - man`), below it the significand shifted right by one more bit per binade. The
//! discarded bits decide the rounding; a carry runs into the exponent as the codes are
//! ordered. Every step is branch-free so that the loops it is inlined into vectorise.

use crate::format::Format;
use crate::round::RoundMode;
use crate::status::StatusCounts;

/// Round to nearest, ties to even (and `none`).
pub(crate) const RINT: u8 = 0;
/// Round to nearest, ties away from zero.
pub(crate) const ROUND: u8 = 1;
/// Toward −∞.
pub(crate) const FLOOR: u8 = 2;
/// Toward +∞.
pub(crate) const CEIL: u8 = 3;
/// Toward zero.
pub(crate) const TRUNC: u8 = 4;
/// Round to odd.
pub(crate) const ODD: u8 = 5;

/// The fused step's number for a rounding mode; `None` for stochastic rounding, which the
/// bulk cast serves.
pub(crate) fn mode_number(mode: RoundMode) -> Option<u8> {
    match mode {
        RoundMode::Rint | RoundMode::None => Some(RINT),
        RoundMode::Round => Some(ROUND),
        RoundMode::Floor => Some(FLOOR),
        RoundMode::Ceil => Some(CEIL),
        RoundMode::Trunc => Some(TRUNC),
        RoundMode::Odd => Some(ODD),
        RoundMode::Hybrid => None,
    }
}

/// A small binary float with subnormals and a sign bit, as the element step needs it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SmallFloat {
    /// `23 - man`: the f32 mantissa bits below the element's in its normal range.
    pub(super) shift: u32,
    /// `127 - bias`: f32's exponent bias above the element's.
    pub(super) rebias: i32,
    /// Biased f32 exponent of the element's smallest normal (`128 - bias`).
    pub(super) normal_min: i32,
    /// Code of the smallest normal magnitude (`1 << man`).
    pub(super) min_normal_code: u32,
    /// Code of the largest finite magnitude.
    pub(super) max: u32,
    /// Position of the sign bit.
    pub(super) sign_shift: u32,
}

impl SmallFloat {
    /// The element format `f`, when it is one the step serves (e2m1, e2m3, e3m2, e4m3fn,
    /// e5m2).
    pub(crate) fn new(f: Format) -> Option<SmallFloat> {
        if !matches!(
            f,
            Format::F4E2M1
                | Format::F6E2M3FN
                | Format::F6E3M2FN
                | Format::F8E4M3FN
                | Format::F8E5M2
        ) {
            return None;
        }
        let man = f.man_bits()?;
        let bias = f.bias()?;
        Some(SmallFloat {
            shift: 23 - man,
            rebias: 127 - bias,
            normal_min: 128 - bias,
            min_normal_code: 1 << man,
            max: u32::try_from(f.max_code()).ok()?,
            sign_shift: f.bits() - 1,
        })
    }
}

/// The code of `y × 2^-e` (`y` the bits of a finite f32) rounded in mode `MODE` and clamped
/// to the max normal, and its status flags packed for counting: `inexact | overflow << 16`,
/// `underflow | flushed << 16`, `saturated` (each 0 or 1).
///
/// `e` must exceed `bias - 127` of the element (an f32 subnormal `y` then scales below the
/// element's smallest normal): the MX blocks the fast path plans have `e ≥ -103`, NVFP4's 0.
#[inline(always)]
pub(crate) fn encode<const MODE: u8>(y: u32, e: i32, g: &SmallFloat) -> (u32, u32, u32, u32) {
    let mag = y & 0x7FFF_FFFF;
    let neg = y >> 31;
    let ex = (mag >> 23) as i32;
    let ey = ex.max(1) - e;
    let normal = (ex > 0) & (ey >= g.normal_min);
    let f_norm = mag.wrapping_sub(((g.rebias + e) as u32) << 23);
    let f_sub = (mag & 0x007F_FFFF) | (u32::from(ex > 0) << 23);
    let s_sub = (g.shift as i32 + (g.normal_min - ey)).min(31) as u32;
    let f = if normal { f_norm } else { f_sub };
    let s = if normal { g.shift } else { s_sub };
    let q = f >> s;
    let r = f & ((1u32 << s) - 1);
    let half = 1u32 << (s - 1);
    let nz = u32::from(r != 0);
    let inc = match MODE {
        RINT => u32::from(r > half) | (u32::from(r == half) & q),
        ROUND => u32::from(r >= half),
        FLOOR => nz & neg,
        CEIL => nz & (neg ^ 1),
        TRUNC => 0,
        _ => nz & !q & 1,
    };
    let n = q + inc;
    let over = u32::from(n > g.max);
    let code = (if over != 0 { g.max } else { n }) | (neg << g.sign_shift);
    let inexact = nz | u32::from(q > g.max);
    let saturated = over | (u32::from(q == g.max) & nz);
    let flushed = u32::from(n == 0) & u32::from(mag != 0);
    let underflow = inexact & u32::from(n < g.min_normal_code);
    (
        code,
        inexact | (over << 16),
        underflow | (flushed << 16),
        saturated,
    )
}

/// Per-lane sums of the packed flags of [`encode`], for blocks of up to 32 elements (lane =
/// position in the block), folded into [`StatusCounts`] after each batch: each 16-bit field
/// holds up to 65 535 blocks.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Lanes {
    /// `inexact | overflow << 16` per lane.
    pub a: [u32; 32],
    /// `underflow | flushed << 16` per lane.
    pub b: [u32; 32],
    /// `saturated` per lane.
    pub c: [u32; 32],
    /// Flags of elements outside full blocks: inexact, overflow, underflow, flushed,
    /// saturated.
    pub one: [u64; 5],
    /// Elements counted.
    pub total: u64,
}

impl Lanes {
    /// Adds one element's flags (for elements outside full blocks; no lane limit).
    #[inline(always)]
    pub(crate) fn add_one(&mut self, (_, fa, fb, fc): (u32, u32, u32, u32)) {
        self.one[0] += u64::from(fa & 0xFFFF);
        self.one[1] += u64::from(fa >> 16);
        self.one[2] += u64::from(fb & 0xFFFF);
        self.one[3] += u64::from(fb >> 16);
        self.one[4] += u64::from(fc);
        self.total += 1;
    }

    /// Adds the counts into `counts` and clears them.
    pub(crate) fn fold_into(&mut self, counts: &mut StatusCounts) {
        let sum = |v: &[u32; 32], hi: bool| -> u64 {
            v.iter()
                .map(|&x| u64::from(if hi { x >> 16 } else { x & 0xFFFF }))
                .sum()
        };
        let inexact = sum(&self.a, false) + self.one[0];
        counts.total += self.total;
        counts.exact += self.total - inexact;
        counts.flags[0] += inexact;
        counts.flags[1] += sum(&self.a, true) + self.one[1];
        counts.flags[2] += sum(&self.b, false) + self.one[2];
        counts.flags[3] += sum(&self.b, true) + self.one[3];
        counts.flags[4] += self.c.iter().map(|&x| u64::from(x)).sum::<u64>() + self.one[4];
        *self = Lanes::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::convert::round_exact;
    use crate::exact::Exact;
    use crate::policy::CastPolicy;
    use crate::status::Status;

    /// The step against the reference rounding on f32 values around every element binade,
    /// times powers of two, in every deterministic mode, flags included.
    #[test]
    fn encode_is_the_reference_rounding() {
        let formats = [
            Format::F4E2M1,
            Format::F6E2M3FN,
            Format::F6E3M2FN,
            Format::F8E4M3FN,
            Format::F8E5M2,
        ];
        let modes = [
            (RoundMode::Rint, RINT),
            (RoundMode::Round, ROUND),
            (RoundMode::Floor, FLOOR),
            (RoundMode::Ceil, CEIL),
            (RoundMode::Trunc, TRUNC),
            (RoundMode::Odd, ODD),
        ];
        let mut seeds = 0x1234_5678_u32;
        for f in formats {
            let g = SmallFloat::new(f).unwrap();
            for (mode, number) in modes {
                let policy = CastPolicy::saturating(mode);
                for e in [-103, -20, -3, 0, 5, 100] {
                    for binade in -30..20i32 {
                        for k in 0..40u32 {
                            seeds ^= seeds << 13;
                            seeds ^= seeds >> 17;
                            seeds ^= seeds << 5;
                            let frac = match k {
                                0 => 0,
                                1 => 0x007F_FFFF,
                                2..=8 => (k - 2) << 20 | 0x0008_0000,
                                _ => seeds & 0x007F_FFFF,
                            };
                            let biased = binade + e + 127;
                            if !(1..=254).contains(&biased) {
                                continue;
                            }
                            let y = ((seeds & 0x8000_0000) | ((biased as u32) << 23)) | frac;
                            check(f, &g, mode, number, &policy, y, e);
                        }
                    }
                    // zeros and f32 subnormals
                    for y in [0u32, 0x8000_0000, 1, 0x8000_0001, 0x007F_FFFF] {
                        check(f, &g, mode, number, &policy, y, e);
                    }
                }
            }
        }
    }

    fn check(
        f: Format,
        g: &SmallFloat,
        mode: RoundMode,
        number: u8,
        p: &CastPolicy,
        y: u32,
        e: i32,
    ) {
        let (code, fa, fb, fc) = match number {
            RINT => encode::<RINT>(y, e, g),
            ROUND => encode::<ROUND>(y, e, g),
            FLOOR => encode::<FLOOR>(y, e, g),
            CEIL => encode::<CEIL>(y, e, g),
            TRUNC => encode::<TRUNC>(y, e, g),
            _ => encode::<ODD>(y, e, g),
        };
        let x = match Format::F32.decode(u64::from(y)) {
            Exact::Finite { negative, sig, exp } => Exact::finite(negative, sig, exp - e),
            other => other,
        };
        let r = round_exact(&x, f, p, 0);
        let flag = |s: Status| u32::from(r.status.contains(s));
        let want = (
            r.code as u32,
            flag(Status::INEXACT) | flag(Status::OVERFLOW) << 16,
            flag(Status::UNDERFLOW) | flag(Status::FLUSHED_TO_ZERO) << 16,
            flag(Status::SATURATED),
        );
        assert_eq!((code, fa, fb, fc), want, "{f} {mode:?} y={y:#010x} e={e}");
    }
}
