//! 32- and 64-bit sources (f32, i32, u32, f64, i64, u64) against the independent oracle: random
//! bit patterns from a fixed-seed PRNG of our own, plus every boundary value of every
//! destination (max, max ± half ulp, the tie above max, the smallest values and their halves,
//! every tie of the 8/4-bit formats, sampled ties of the 16-bit formats, integer range ends,
//! f32 ties and range ends for f64 → f32, ±0, ±Inf, NaNs with payloads, f32/f64 subnormals),
//! each to every destination format, every deterministic mode and the three policies.
//!
//! Random patterns per source: 2^16 for f32, 2^15 for i32 and u32 and 2^14 for f64, i64 and u64
//! by default, a quick check; with `NPUSIM_SWEEP_LOG2=L` set, 2^L, 2^(L-1) and 2^(L-2) (the
//! full sweep: `NPUSIM_SWEEP_LOG2=24`). Every pattern goes to each of the 29 formats under 7
//! modes and 3 policies: about 120 million conversions by default, 1.9 billion at L = 20.
//! Half of the random patterns are raw bits,
//! half are "value-shaped" (exponent or magnitude near the small formats' ranges) so that the
//! rounding of the narrow destinations is exercised, not only their overflow.

use crate::oracle;

use std::time::Instant;

use npusim_numerics::Format;
use oracle::{Tally, mask, rand_at};
use rayon::prelude::*;

use crate::sweep::sweep_log2;

/// The log2 count of the f32 sweep by default: a quick check.
const QUICK_LOG2: u32 = 16;

/// The log2 count of the f32 sweep (the 32-bit integers take half as many, the 64-bit sources a
/// quarter): [`QUICK_LOG2`], or `NPUSIM_SWEEP_LOG2`.
fn log2_count() -> u32 {
    sweep_log2(QUICK_LOG2)
}

/// The i-th random source code: even i raw bits, odd i value-shaped.
fn random_code(src: Format, seed: u64, i: u64) -> u64 {
    let r = rand_at(seed, i);
    if i.is_multiple_of(2) {
        return r & mask(src);
    }
    let r2 = rand_at(seed ^ 0x5555, i);
    match src {
        Format::F32 => {
            // sign, exponent in [-40, 24] (f32 field 87..151), random mantissa
            let e = 87 + (r2 % 65);
            (r & 0x807F_FFFF) | (e << 23)
        }
        Format::F64 => {
            // exponent in [-160, 140]: covers the e8m0 and f32 subnormal ranges
            let e = 1023 - 160 + (r2 % 301);
            (r & 0x800F_FFFF_FFFF_FFFF) | (e << 52)
        }
        // integers: random magnitude of random width, random sign
        _ => {
            let shift = r2 % width(src) as u64;
            let v = (r >> 1) >> (63 - (width(src) as u64 - 1)).min(63) >> shift;
            let v = if r & 1 == 1 {
                (v as i64).wrapping_neg() as u64
            } else {
                v
            };
            v & mask(src)
        }
    }
}

fn width(f: Format) -> u32 {
    oracle::width(f)
}

fn sweep(src: Format, log2: u32, seed: u64) -> Tally {
    let t0 = Instant::now();
    let n = 1u64 << log2;
    let boundary = oracle::boundary_codes(src);
    let chunk = 1u64 << 12;
    let random = (0..n.div_ceil(chunk))
        .into_par_iter()
        .map(|k| {
            let mut t = Tally::default();
            for i in k * chunk..((k + 1) * chunk).min(n) {
                let code = random_code(src, seed, i);
                oracle::check_code_all(src, code, &Format::ALL, &mut t);
            }
            t
        })
        .reduce(Tally::default, Tally::merge);
    let nb = boundary.len();
    let edges = boundary
        .par_chunks(256)
        .map(|cs| {
            let mut t = Tally::default();
            for &code in cs {
                oracle::check_code_all(src, code, &Format::ALL, &mut t);
            }
            t
        })
        .reduce(Tally::default, Tally::merge);
    let total = random.merge(edges);
    println!(
        "{src}: {n} random + {nb} boundary codes -> {} conversions checked in {:.1?}",
        total.checked,
        t0.elapsed()
    );
    // every pair is checked except ±Inf → itself under the saturating policy (identity casts,
    // see exhaustive_small.rs)
    let all = (n + nb as u64) * Format::ALL.len() as u64 * oracle::MODES.len() as u64 * 3;
    assert!(total.checked <= all && total.checked + 1000 > all);
    total
}

#[test]
fn f32_sources() {
    sweep(Format::F32, log2_count(), 0xF32).assert_clean("f32 sources");
}

#[test]
fn i32_sources() {
    sweep(Format::I32, log2_count().saturating_sub(1), 0x132).assert_clean("i32 sources");
}

#[test]
fn u32_sources() {
    sweep(Format::U32, log2_count().saturating_sub(1), 0xD32).assert_clean("u32 sources");
}

#[test]
fn f64_sources() {
    sweep(Format::F64, log2_count().saturating_sub(2), 0xF64).assert_clean("f64 sources");
}

#[test]
fn i64_sources() {
    sweep(Format::I64, log2_count().saturating_sub(2), 0x164).assert_clean("i64 sources");
}

#[test]
fn u64_sources() {
    sweep(Format::U64, log2_count().saturating_sub(2), 0xD64).assert_clean("u64 sources");
}

/// Every source of this file is a format wider than 16 bits (the rest are swept exhaustively
/// in `exhaustive_small.rs`), and every such format is swept here.
#[test]
fn every_wide_format_is_swept() {
    let wide: Vec<Format> = Format::ALL
        .into_iter()
        .filter(|&f| oracle::width(f) > 16)
        .collect();
    assert_eq!(
        wide,
        [
            Format::F64,
            Format::F32,
            Format::I32,
            Format::I64,
            Format::U32,
            Format::U64
        ]
    );
}

/// The boundary lists really contain what the sweep relies on (so a generator bug that drops
/// them makes this test fail rather than silently weakening the sweep).
#[test]
fn boundary_lists_cover_the_critical_values() {
    let f32s = oracle::boundary_codes(Format::F32);
    for want in [
        464.0f32,
        480.0,
        65520.0,
        65504.0,
        57344.0,
        61440.0,
        40960.0,
        7.0,
        5.0,
        0.25,
        0.125,
        // e4m3 / e4m3fnuz, e4m3b11fnuz, e3m4, e2m3, e3m2: max and the tie above max
        240.0,
        248.0,
        30.0,
        31.0,
        15.5,
        15.75,
        7.5,
        7.75,
        28.0,
        30.0,
        // the smallest values of e4m3fnuz, e5m2fnuz, b11fnuz and e3m4, and half of them
        2f32.powi(-10),
        2f32.powi(-11),
        2f32.powi(-17),
        2f32.powi(-18),
        2f32.powi(-13),
        2f32.powi(-14),
        2f32.powi(-6),
        2f32.powi(-7),
    ] {
        for x in [want, -want] {
            assert!(f32s.contains(&u64::from(x.to_bits())), "f32 {x}");
        }
    }
    // sampled 16-bit ties: f16 0x3BFF/0x3C00 (1 - 2^-12), f16 0x3C00/0x3C01, bf16 0x3F80/0x3F81
    for tie in [
        1.0 - 2f32.powi(-12),
        1.0 + 2f32.powi(-11),
        1.0 + 2f32.powi(-8),
    ] {
        assert!(f32s.contains(&u64::from(tie.to_bits())), "tie {tie}");
    }
    // 2^-127 (e8m0 min) and the e8m0 tie 1.5·2^-127, and f32 subnormal neighbours
    assert!(f32s.contains(&0x0040_0000));
    assert!(f32s.contains(&0x0060_0000));
    assert!(f32s.contains(&0x0060_0001) && f32s.contains(&0x005F_FFFF));
    assert!(f32s.contains(&0x7F80_0001) && f32s.contains(&0xFFC0_0000));
    let f64s = oracle::boundary_codes(Format::F64);
    // f32 max + half ulp (the f32 tie above max), and one f64 ulp either side
    let tie = (f64::from(f32::MAX) + 2f64.powi(128)) / 2.0;
    for d in [-1i64, 0, 1] {
        let c = (tie.to_bits() as i64 + d) as u64;
        assert!(f64s.contains(&c) && f64s.contains(&(c | 1 << 63)));
    }
    // u64: range ends, and the f64 / f32 ties just below 2^64 and just above 2^63
    let u64s = oracle::boundary_codes(Format::U64);
    for v in [
        u64::MAX,
        u64::MAX - 1,
        0,
        1,
        u64::MAX - 1023,
        u64::MAX - 1024,
        u64::MAX - (1 << 39) + 1,
        (1 << 63) + 1024,
        (1 << 63) + (1 << 39),
        (1 << 53) + 1,
        (1 << 24) + 1,
        3 << 62,
    ] {
        assert!(u64s.contains(&v), "u64 {v:#x}");
    }
    let i64s = oracle::boundary_codes(Format::I64);
    for v in [i64::MIN, i64::MAX, -(1i64 << 53) - 1, (1 << 62) + (1 << 9)] {
        assert!(i64s.contains(&(v as u64)), "i64 {v:#x}");
    }
    let i32s = oracle::boundary_codes(Format::I32);
    for v in [i32::MAX, i32::MIN, 16777217, -16777217, 65520, 65519] {
        assert!(i32s.contains(&u64::from(v as u32)), "i32 {v}");
    }
}
