//! One OCP MX block: the shared e8m0 scale by a [`ScaleRule`], then each element cast.

use super::scale_rule::{ElementGrid, ScaleRule};
use super::scheme::Scheme;
use super::source::Source;
use super::stats::BlockStats;
use crate::bulk::entropy;
use crate::convert::round_exact;
use crate::exact::Exact;
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::status::Status;

/// The e8m0 byte of a NaN scale.
pub(crate) const E8M0_NAN: u8 = 0xFF;
/// The smallest and largest e8m0 exponents.
pub(crate) const E8M0_MIN_EXP: i32 = -127;
/// See [`E8M0_MIN_EXP`].
pub(crate) const E8M0_MAX_EXP: i32 = 127;

/// The element grid of an MX scheme (MXINT8: values k / 64, |k| ≤ 127).
pub(crate) fn grid(scheme: Scheme) -> ElementGrid {
    if scheme == Scheme::Mxint8 {
        return ElementGrid {
            emax: 0,
            man: 6,
            max_sig: 127,
            max_exp: -6,
        };
    }
    let f = scheme.element();
    let max = f.decode(f.max_code());
    let (sig, exp) = match max {
        Exact::Finite { sig, exp, .. } => (sig, exp),
        _ => (1, 0),
    };
    let tz = sig.trailing_zeros();
    ElementGrid {
        emax: max.binade().unwrap_or(0),
        man: f.man_bits().unwrap_or(0),
        max_sig: sig >> tz,
        max_exp: exp + tz as i32,
    }
}

/// The value `code × 2^e` of an element code (MXINT8 codes mean code / 64).
pub(crate) fn element_value(scheme: Scheme, code: u8, e: i32) -> Exact {
    let shift = if scheme == Scheme::Mxint8 { -6 } else { 0 };
    match scheme.element().decode(u64::from(code)) {
        Exact::Finite { negative, sig, exp } => Exact::finite(negative, sig, exp + e + shift),
        other => other,
    }
}

/// Quantises the block at `idx`: writes its codes into `codes` (one per element, flat index
/// `i` at `codes[i - base]`) and returns the scale byte.
#[allow(clippy::too_many_arguments)]
pub(crate) fn quantize_block(
    src: &Source<'_>,
    idx: &[usize],
    scheme: Scheme,
    rule: ScaleRule,
    policy: &CastPolicy,
    (seed, first_index): (u64, u64),
    (codes, base): (&mut [u8], usize),
    stats: &mut BlockStats,
) -> u8 {
    stats.blocks += 1;
    let mut amax = 0.0f64;
    for &i in idx {
        let v = src.value(i);
        if !v.is_finite() {
            // The spec: a NaN scale makes the block NaN; ±Inf has no e8m0 scale (our reading).
            stats.nan_blocks += 1;
            for &j in idx {
                codes[j - base] = 0;
            }
            return E8M0_NAN;
        }
        amax = amax.max(v.abs());
    }
    let g = grid(scheme);
    let e = match rule.exponent(&Exact::from_f64(amax), &g) {
        None => {
            stats.zero_blocks += 1;
            E8M0_MIN_EXP
        }
        Some(e) if e < E8M0_MIN_EXP => {
            stats.scale_underflow += 1;
            E8M0_MIN_EXP
        }
        Some(e) if e > E8M0_MAX_EXP => {
            stats.scale_saturated += 1;
            E8M0_MAX_EXP
        }
        Some(e) => e,
    };
    let (dst, shift) = if scheme == Scheme::Mxint8 {
        (Format::I8, 6)
    } else {
        (scheme.element(), 0)
    };
    let mut saturated = false;
    for &i in idx {
        let x = match src.exact(i) {
            Exact::Finite { negative, sig, exp } => Exact::finite(negative, sig, exp - e + shift),
            other => other,
        };
        let mut r = round_exact(
            &x,
            dst,
            policy,
            entropy(seed, first_index.wrapping_add(i as u64)),
        );
        if scheme == Scheme::Mxint8 && r.code == 0x80 {
            // MXINT8 is symmetric: -2.0 (0x80) is clamped to -127/64.
            r.code = 0x81;
            r.status = r.status | Status::SATURATED | Status::INEXACT;
        }
        saturated |= r.status.contains(Status::SATURATED);
        stats.elements.record(r.status);
        codes[i - base] = r.code as u8;
    }
    if saturated {
        stats.blocks_with_saturated_elements += 1;
    }
    (e + 127) as u8
}
