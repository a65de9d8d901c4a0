//! Independent HiFloat8 (HiF8) reference encoder, swept against the library.
//!
//! The reference below is transcribed from the written vendor algorithm (CAST_ROUND = ties
//! away, and the literal CAST_HYBRID pseudocode) and works directly on the f32 / f16 bit
//! patterns: it shares no code with the library's generic rounding routine. The tests compare
//! it bit for bit with `npusim_numerics::convert` / `convert_with_entropy`:
//!
//! 1. all 65536 f16 codes under TA NO_SAT, TA SAT and literal HYBRID (plus every 2-bit threshold);
//! 2. f32: 2^22 random bit patterns by default (`NPUSIM_SWEEP_LOG2` sets the log2 count; 24 for
//!    the full sweep), random
//!    values inside HiF8's range, and a boundary set (every HiF8 value, midpoints, ±ulp, …);
//! 3. verbatim spot checks;
//! 4. decode of all 256 codes against an independent decoder, and encode(decode(c)) == c.

use std::time::Instant;

use npusim_numerics::{
    CastPolicy, Format, InfRule, NanRule, Overflow, RoundMode, Stochastic, StochasticCompare,
    convert, convert_with_entropy,
};
use rayon::prelude::*;

// ---------------------------------------------------------------------------------------------
// Reference
// ---------------------------------------------------------------------------------------------

/// A source value split per the algorithm: sign, unbiased exponent `ev` = floor(log2|x|) and the
/// `w` fraction bits below the leading one (f16 subnormals normalised first).
#[derive(Clone, Copy, Debug)]
enum Src {
    Nan,
    Inf { neg: bool },
    Zero,
    Fin { neg: bool, ev: i32, f: u32 },
}

/// Source format parameters: fraction width `w` and HYBRID comparison width `b`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct SrcFmt {
    w: u32,
    b: u32,
    fmt: Format,
}

const F32: SrcFmt = SrcFmt {
    w: 23,
    b: 14,
    fmt: Format::F32,
};
const F16: SrcFmt = SrcFmt {
    w: 10,
    b: 2,
    fmt: Format::F16,
};

fn split_f32(bits: u32) -> Src {
    let neg = bits >> 31 == 1;
    let exp = (bits >> 23) & 0xFF;
    let frac = bits & 0x7F_FFFF;
    match exp {
        0xFF if frac != 0 => Src::Nan,
        0xFF => Src::Inf { neg },
        0 if frac == 0 => Src::Zero,
        0 => {
            // subnormal: frac × 2^-149; leading one at bit p
            let p = 31 - frac.leading_zeros();
            let f = (frac << (23 - p)) & 0x7F_FFFF;
            Src::Fin {
                neg,
                ev: -149 + p as i32,
                f,
            }
        }
        _ => Src::Fin {
            neg,
            ev: exp as i32 - 127,
            f: frac,
        },
    }
}

fn split_f16(bits: u16) -> Src {
    let bits = u32::from(bits);
    let neg = bits >> 15 == 1;
    let exp = (bits >> 10) & 0x1F;
    let frac = bits & 0x3FF;
    match exp {
        0x1F if frac != 0 => Src::Nan,
        0x1F => Src::Inf { neg },
        0 if frac == 0 => Src::Zero,
        0 => {
            // subnormal: frac × 2^-24, normalised
            let p = 31 - frac.leading_zeros();
            let f = (frac << (10 - p)) & 0x3FF;
            Src::Fin {
                neg,
                ev: -24 + p as i32,
                f,
            }
        }
        _ => Src::Fin {
            neg,
            ev: exp as i32 - 15,
            f: frac,
        },
    }
}

/// The literal HYBRID threshold: fp32 f[13:0]; fp16 {f[0], 1}.
fn literal_thr(src: Src, sf: SrcFmt) -> u32 {
    let f = match src {
        Src::Fin { f, .. } => f,
        _ => 0,
    };
    if sf.w == 23 {
        f & 0x3FFF
    } else {
        ((f & 1) << 1) | 1
    }
}

fn split(code: u32, sf: SrcFmt) -> Src {
    if sf.w == 23 {
        split_f32(code)
    } else {
        split_f16(code as u16)
    }
}

fn mbits(ev: i32) -> u32 {
    match ev.unsigned_abs() {
        0..=3 => 3,
        4..=7 => 2,
        _ => 1,
    }
}

/// Positive HiF8 code of 2^e × (1 + m/2^mbits(e)), −15 ≤ e ≤ 15.
fn hif8_code(e: i32, m: u32) -> u8 {
    let a = e.unsigned_abs();
    let es = u32::from(e < 0);
    let c = match a {
        0 => 0x08 | m,
        1 => 0x10 | es << 3 | m,
        2..=3 => 0x20 | es << 4 | (a - 2) << 3 | m,
        4..=7 => 0x40 | es << 4 | (a - 4) << 2 | m,
        8..=15 => 0x60 | es << 4 | (a - 8) << 1 | m,
        _ => unreachable!("exponent {e}"),
    };
    c as u8
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// CAST_ROUND (ties away).
    Ta,
    /// CAST_HYBRID with the given threshold.
    Hybrid(u32),
}

/// Reference encoder. Returns the code and the algorithm step that produced it.
fn ref_encode(src: Src, sf: SrcFmt, sat: bool, mode: Mode) -> (u8, &'static str) {
    let (w, b) = (sf.w, sf.b);
    let ovf = |neg: bool| (u8::from(neg) << 7) | if sat { 0x6E } else { 0x6F };
    match src {
        Src::Nan => (if sat { 0x00 } else { 0x80 }, "1 NaN"),
        Src::Inf { neg } => (ovf(neg), "2 Inf"),
        Src::Zero => (0x00, "3 zero"),
        Src::Fin { neg, ev, f } => {
            let s = u8::from(neg) << 7;
            if ev > 15 {
                return (ovf(neg), "2 Ev>15");
            }
            if ev < -23 {
                return (0x00, "3 Ev<-23");
            }
            if ev == -23 {
                let carry = match mode {
                    Mode::Ta => true,
                    Mode::Hybrid(thr) => ((1 << (b - 1)) | (f >> (w - b + 1))) >= thr,
                };
                return if carry {
                    (s | 0x01, "4 Ev=-23")
                } else {
                    (0x00, "4 Ev=-23 (no carry)")
                };
            }
            if ev <= -16 {
                let carry = match mode {
                    Mode::Ta => f >> (w - 1) == 1,
                    Mode::Hybrid(thr) => (f >> (w - b)) >= thr,
                };
                let e = ev + i32::from(carry);
                return if e <= -16 {
                    (s | (e + 23) as u8, "5 denormal band")
                } else {
                    (s | 0x7E, "5 denormal band -> 2^-15")
                };
            }
            // -15 <= ev <= 15
            let mb = mbits(ev);
            let dw = w - mb; // discarded width
            let mut m = f >> dw;
            let disc = f & ((1 << dw) - 1);
            let carry = match mode {
                Mode::Hybrid(thr) if ev.unsigned_abs() >= 4 => (disc >> (dw - b)) >= thr,
                _ => (disc >> (dw - 1)) & 1 == 1,
            };
            let mut e = ev;
            if carry {
                m += 1;
                if m == 1 << mb {
                    m = 0;
                    e += 1;
                }
            }
            if e > 15 || (e == 15 && m >= 1) {
                return (ovf(neg), "7 overflow after rounding");
            }
            (s | hif8_code(e, m), "6 normal")
        }
    }
}

/// Independent decoder from the format definition.
fn ref_decode(c: u8) -> f64 {
    if c == 0x00 {
        return 0.0;
    }
    if c == 0x80 {
        return f64::NAN;
    }
    let sign = if c & 0x80 != 0 { -1.0 } else { 1.0 };
    let r = c & 0x7F;
    if r == 0x6F {
        return sign * f64::INFINITY;
    }
    // (|E| or denormal marker, es, mantissa, mbits)
    let (mag_e, es, m, mb): (i32, u8, u8, i32) = if r & 0x60 == 0x60 {
        (8 + i32::from((r >> 1) & 7), (r >> 4) & 1, r & 1, 1)
    } else if r & 0x60 == 0x40 {
        (4 + i32::from((r >> 2) & 3), (r >> 4) & 1, r & 3, 2)
    } else if r & 0x60 == 0x20 {
        (2 + i32::from((r >> 3) & 1), (r >> 4) & 1, r & 7, 3)
    } else if r & 0x10 != 0 {
        (1, (r >> 3) & 1, r & 7, 3)
    } else if r & 0x08 != 0 {
        (0, 0, r & 7, 3)
    } else {
        // denormal 0x01..0x07: 2^(m-23)
        return sign * 2f64.powi(i32::from(r) - 23);
    };
    let e = if es == 1 { -mag_e } else { mag_e };
    sign * 2f64.powi(e) * (1.0 + f64::from(m) / 2f64.powi(mb))
}

// ---------------------------------------------------------------------------------------------
// Library side
// ---------------------------------------------------------------------------------------------

fn pol_nosat() -> CastPolicy {
    CastPolicy::new(RoundMode::Round)
}

fn pol_sat() -> CastPolicy {
    CastPolicy {
        round: RoundMode::Round,
        overflow: Overflow::Saturate,
        inf: InfRule::Saturate,
        nan: NanRule::Zero,
        ..CastPolicy::default()
    }
}

fn pol_hybrid(sf: SrcFmt) -> CastPolicy {
    CastPolicy {
        round: RoundMode::Hybrid,
        stochastic: Stochastic {
            bits: sf.b as _,
            compare: StochasticCompare::GreaterOrEqual,
        },
        ..CastPolicy::default()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Case {
    TaNoSat,
    TaSat,
    /// Literal HYBRID: threshold from the input bits.
    HybridLiteral,
    /// HYBRID with an explicit threshold.
    HybridThr(u32),
}

const LITERAL_CASES: [Case; 3] = [Case::TaNoSat, Case::TaSat, Case::HybridLiteral];

#[derive(Clone, Debug)]
struct Mismatch {
    input: u32,
    case: Case,
    thr: u32,
    expected: u8,
    got: u64,
    step: &'static str,
}

fn check_one(code: u32, sf: SrcFmt, case: Case) -> Option<Mismatch> {
    let src = split(code, sf);
    let (thr, (expected, step), got) = match case {
        Case::TaNoSat => (
            0,
            ref_encode(src, sf, false, Mode::Ta),
            convert(u64::from(code), sf.fmt, Format::HiF8, &pol_nosat()),
        ),
        Case::TaSat => (
            0,
            ref_encode(src, sf, true, Mode::Ta),
            convert(u64::from(code), sf.fmt, Format::HiF8, &pol_sat()),
        ),
        Case::HybridLiteral | Case::HybridThr(_) => {
            let thr = match case {
                Case::HybridThr(t) => t,
                _ => literal_thr(src, sf),
            };
            (
                thr,
                ref_encode(src, sf, false, Mode::Hybrid(thr)),
                convert_with_entropy(
                    u64::from(code),
                    sf.fmt,
                    Format::HiF8,
                    &pol_hybrid(sf),
                    thr as _,
                ),
            )
        }
    };
    (u64::from(expected) != got).then_some(Mismatch {
        input: code,
        case,
        thr,
        expected,
        got,
        step,
    })
}

/// Checks every input under every case in parallel; returns (checked, mismatch count, first few).
fn sweep(inputs: &[u32], sf: SrcFmt, cases: &[Case]) -> (u64, u64, Vec<Mismatch>) {
    inputs
        .par_chunks(1 << 14)
        .map(|chunk| {
            let mut n = 0u64;
            let mut bad = 0u64;
            let mut first = Vec::new();
            for &c in chunk {
                for &case in cases {
                    n += 1;
                    if let Some(m) = check_one(c, sf, case) {
                        bad += 1;
                        if first.len() < 8 {
                            first.push(m);
                        }
                    }
                }
            }
            (n, bad, first)
        })
        .reduce(
            || (0, 0, Vec::new()),
            |mut a, b| {
                a.0 += b.0;
                a.1 += b.1;
                if a.2.len() < 32 {
                    a.2.extend(b.2);
                    a.2.truncate(32);
                }
                a
            },
        )
}

fn report(name: &str, sf: SrcFmt, (n, bad, first): (u64, u64, Vec<Mismatch>)) {
    println!("{name}: {n} conversions checked, {bad} mismatches");
    for m in &first {
        let w = if sf.w == 23 { 8 } else { 4 };
        println!(
            "  MISMATCH input=0x{:0w$X} ({:e}) case={:?} thr=0x{:X} expected=0x{:02X} got=0x{:02X} step={}",
            m.input,
            if sf.w == 23 {
                f64::from(f32::from_bits(m.input))
            } else {
                f64::from(half::f16::from_bits(m.input as u16))
            },
            m.case,
            m.thr,
            m.expected,
            m.got,
            m.step,
        );
    }
    assert_eq!(bad, 0, "{name}: {bad} mismatches against the reference");
}

// ---------------------------------------------------------------------------------------------
// PRNG and input sets
// ---------------------------------------------------------------------------------------------

fn splitmix64(state: u64) -> u64 {
    let mut z = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The i-th random draw of stream `seed` (counter-based, so generation parallelises).
fn rand_at(seed: u64, i: u64) -> u64 {
    splitmix64(seed ^ i.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// The log2 count of the f32 random sweep by default: a quick check.
const QUICK_LOG2: u32 = 22;

/// The log2 count of the f32 random sweep: [`QUICK_LOG2`], or `NPUSIM_SWEEP_LOG2`.
fn sweep_log2() -> u32 {
    crate::sweep::sweep_log2(QUICK_LOG2)
}

/// Every finite HiF8 value (both signs), as f64, sorted, deduplicated.
fn hif8_values() -> Vec<f64> {
    let mut v: Vec<f64> = (0..=255u8)
        .map(ref_decode)
        .filter(|x| x.is_finite())
        .collect();
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

fn f32_boundaries() -> Vec<u32> {
    let mut out: Vec<u32> = Vec::new();
    let push_pm = |out: &mut Vec<u32>, x: f32| {
        for y in [x, -x] {
            let b = y.to_bits();
            out.push(b);
            out.push(b.wrapping_add(1));
            out.push(b.wrapping_sub(1));
        }
    };
    let mut vals: Vec<f64> = hif8_values().into_iter().filter(|&x| x >= 0.0).collect();
    // the "next value" after max (Inf pattern position) for the overflow midpoint
    vals.push(1.25 * 32768.0);
    vals.push(1.5 * 32768.0);
    for &x in &vals {
        push_pm(&mut out, x as f32);
    }
    for pair in vals.windows(2) {
        let mid = (pair[0] + pair[1]) / 2.0; // exact in f64 and f32
        assert_eq!(f64::from(mid as f32), mid);
        push_pm(&mut out, mid as f32);
        // arithmetic midpoint ± several ulps
        let b = (mid as f32).to_bits();
        for d in 2..=4u32 {
            out.push(b + d);
            out.push(b - d);
            out.push((b + d) | 0x8000_0000);
            out.push((b - d) | 0x8000_0000);
        }
    }
    for x in [
        2f32.powi(-23),
        1.5 * 2f32.powi(-23),
        2f32.powi(-22),
        2f32.powi(-24),
        1.5 * 2f32.powi(-24),
        40960.0,
        32768.0,
        49152.0,
        65504.0,
        65536.0,
        1e6,
        f32::MAX,
        f32::MIN_POSITIVE,
        0.0,
        f32::INFINITY,
    ] {
        push_pm(&mut out, x);
    }
    // NaNs
    out.extend([
        0x7FC0_0000,
        0xFFC0_0000,
        0x7F80_0001,
        0xFF80_0001,
        0x7FBF_FFFF,
        0x7FFF_FFFF,
        0xFFFF_FFFF,
        0x7FA0_0000,
    ]);
    // f32 subnormals
    for fr in [
        1u32, 2, 3, 0x3F_FFFF, 0x40_0000, 0x40_0001, 0x7F_FFFE, 0x7F_FFFF, 0x12_3456,
    ] {
        out.push(fr);
        out.push(fr | 0x8000_0000);
    }
    // every exponent near HiF8's range × structured fraction patterns
    for exp in 0u32..=255 {
        let ev = exp as i32 - 127;
        if !(-30..=20).contains(&ev) && exp != 0 && exp != 255 {
            continue;
        }
        let mut pats: Vec<u32> = vec![0, 0x7F_FFFF];
        for k in 0..23 {
            pats.push(1 << k); // single bit
            pats.push(0x7F_FFFF << k & 0x7F_FFFF); // top bits set
            pats.push(0x7F_FFFF >> k); // low bits set
            pats.push((1 << k) - 1); // low k bits
            pats.push(0x7F_FFFF ^ (1 << k));
        }
        for p in pats {
            for s in [0, 0x8000_0000] {
                out.push(s | exp << 23 | p);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

// ---------------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------------

#[test]
fn f16_exhaustive() {
    let all: Vec<u32> = (0..=0xFFFFu32).collect();
    let t = Instant::now();
    report(
        "f16 exhaustive TA NO_SAT / TA SAT / HYBRID literal",
        F16,
        sweep(&all, F16, &LITERAL_CASES),
    );
    // every possible 2-bit threshold too
    report(
        "f16 exhaustive HYBRID thr 0..3",
        F16,
        sweep(
            &all,
            F16,
            &[
                Case::HybridThr(0),
                Case::HybridThr(1),
                Case::HybridThr(2),
                Case::HybridThr(3),
            ],
        ),
    );
    println!("f16 exhaustive: {:?}", t.elapsed());
}

#[test]
fn f32_boundaries_sweep() {
    let b = f32_boundaries();
    println!("f32 boundary set: {} inputs", b.len());
    report(
        "f32 boundaries TA NO_SAT / TA SAT / HYBRID literal",
        F32,
        sweep(&b, F32, &LITERAL_CASES),
    );
    // boundaries under a spread of explicit thresholds (0, 1, 0x2000, 0x3FFF, …)
    let cases: Vec<Case> = [0u32, 1, 0x1FFF, 0x2000, 0x2001, 0x3FFE, 0x3FFF]
        .into_iter()
        .map(Case::HybridThr)
        .collect();
    report(
        "f32 boundaries HYBRID explicit thresholds",
        F32,
        sweep(&b, F32, &cases),
    );
}

#[test]
fn f32_random_sweep() {
    let log2 = sweep_log2();
    let n = 1u64 << log2;
    let t = Instant::now();
    let inputs: Vec<u32> = (0..n)
        .into_par_iter()
        .map(|i| rand_at(0x4849_4638_0001, i) as u32)
        .collect();
    report(
        &format!("f32 random 2^{log2} bit patterns TA NO_SAT / TA SAT / HYBRID literal"),
        F32,
        sweep(&inputs, F32, &LITERAL_CASES),
    );
    let t_random = t.elapsed();

    // random values whose exponent lies in or near HiF8's range (2^-26 .. 2^17), both signs,
    // with an independent random HYBRID threshold as well
    let t2 = Instant::now();
    let m = n >> 2;
    let inputs: Vec<u32> = (0..m)
        .into_par_iter()
        .map(|i| {
            let r = rand_at(0x4849_4638_0002, i);
            let ev = (r >> 32) % 44; // 0..43 -> -26..17
            let exp = (127 - 26 + ev) as u32;
            (r as u32 & 0x807F_FFFF) | exp << 23
        })
        .collect();
    report(
        &format!(
            "f32 in-range random 2^{} TA NO_SAT / TA SAT / HYBRID literal",
            log2.saturating_sub(2)
        ),
        F32,
        sweep(&inputs, F32, &LITERAL_CASES),
    );
    let (cnt, bad, first) = inputs
        .par_iter()
        .enumerate()
        .map(|(i, &c)| {
            let thr = (rand_at(0x4849_4638_0003, i as u64) & 0x3FFF) as u32;
            match check_one(c, F32, Case::HybridThr(thr)) {
                Some(mm) => (1u64, 1u64, vec![mm]),
                None => (1, 0, Vec::new()),
            }
        })
        .reduce(
            || (0, 0, Vec::new()),
            |mut a, b| {
                a.0 += b.0;
                a.1 += b.1;
                if a.2.len() < 32 {
                    a.2.extend(b.2);
                }
                a
            },
        );
    report(
        "f32 in-range random HYBRID random thresholds",
        F32,
        (cnt, bad, first),
    );
    println!(
        "timing: 2^{log2} random x3 modes {:?}; in-range 2^{} x4 {:?}; threads {}",
        t_random,
        log2.saturating_sub(2),
        t2.elapsed(),
        rayon::current_num_threads()
    );
}

fn f32_ta(x: f32, sat: bool) -> u64 {
    let p = if sat { pol_sat() } else { pol_nosat() };
    convert(u64::from(x.to_bits()), Format::F32, Format::HiF8, &p)
}

fn f32_hyb(x: f32) -> u64 {
    let b = x.to_bits();
    let thr = literal_thr(split_f32(b), F32);
    convert_with_entropy(
        u64::from(b),
        Format::F32,
        Format::HiF8,
        &pol_hybrid(F32),
        thr as _,
    )
}

fn f16_hyb(x: f32) -> u64 {
    let b = half::f16::from_f32(x).to_bits();
    assert_eq!(half::f16::from_bits(b).to_f32(), x, "{x} not exact in f16");
    let thr = literal_thr(split_f16(b), F16);
    convert_with_entropy(
        u64::from(b),
        Format::F16,
        Format::HiF8,
        &pol_hybrid(F16),
        thr as _,
    )
}

#[test]
fn spot_checks() {
    // (input, NO_SAT, SAT): the same code under both unless listed.
    let both: &[(f32, u64)] = &[
        (1.75, 0x0E),
        (14.0, 0x2E),
        (0.5, 0x18),
        (-1.0, 0x88),
        (17.0, 0x40),
        (18.0, 0x41),
        (32768.0, 0x6E),
        (40959.0, 0x6E),
        (2f32.powi(-22), 0x01),
        (2f32.powi(-23), 0x01),
        (2f32.powi(-24), 0x00),
        (1.144_409_179_687_5e-5_f64 as f32, 0x07), // 1.5 * 2^-17, exact
        (2.288_818_359_375e-5_f64 as f32, 0x7E),   // 1.5 * 2^-16, exact
        (1.0625, 0x09),
        (15.5, 0x40),
        (-0.0, 0x00),
    ];
    for &(x, want) in both {
        for sat in [false, true] {
            assert_eq!(f32_ta(x, sat), want, "TA sat={sat} {x}");
            let (r, _) = ref_encode(split_f32(x.to_bits()), F32, sat, Mode::Ta);
            assert_eq!(u64::from(r), want, "reference TA sat={sat} {x}");
        }
    }
    for (x, ns, s) in [
        (40960.0f32, 0x6F, 0x6E),
        (1e6, 0x6F, 0x6E),
        (f32::NAN, 0x80, 0x00),
    ] {
        assert_eq!(f32_ta(x, false), ns, "TA NO_SAT {x}");
        assert_eq!(f32_ta(x, true), s, "TA SAT {x}");
        let src = split_f32(x.to_bits());
        assert_eq!(u64::from(ref_encode(src, F32, false, Mode::Ta).0), ns);
        assert_eq!(u64::from(ref_encode(src, F32, true, Mode::Ta).0), s);
    }
    // HYBRID literal
    assert_eq!(half::f16::from_f32(16.0).to_bits(), 0x4C00);
    for (x, want) in [(16.0f32, 0x40), (17.0, 0x41), (18.0, 0x41), (1.0625, 0x09)] {
        assert_eq!(f16_hyb(x), want, "HYBRID half {x}");
        let b = half::f16::from_f32(x).to_bits();
        let src = split_f16(b);
        let r = ref_encode(src, F16, false, Mode::Hybrid(literal_thr(src, F16))).0;
        assert_eq!(u64::from(r), want, "reference HYBRID half {x}");
    }
    for (x, want) in [(16.0f32, 0x41), (17.0, 0x41)] {
        assert_eq!(f32_hyb(x), want, "HYBRID float {x}");
        let src = split_f32(x.to_bits());
        let r = ref_encode(src, F32, false, Mode::Hybrid(literal_thr(src, F32))).0;
        assert_eq!(u64::from(r), want, "reference HYBRID float {x}");
    }
}

#[test]
fn decode_all_codes_and_roundtrip() {
    let mut finite = 0;
    for c in 0..=255u8 {
        let want = ref_decode(c);
        let got = Format::HiF8.decode(u64::from(c)).to_f64();
        if want.is_nan() {
            assert!(got.is_nan(), "code 0x{c:02X}: expected NaN, got {got}");
            continue;
        }
        assert_eq!(
            got.to_bits(),
            want.to_bits(),
            "code 0x{c:02X}: expected {want:e}, got {got:e}"
        );
        if !want.is_finite() {
            continue;
        }
        finite += 1;
        // every finite HiF8 value is exact in f32 and in f16 (2^-22 .. 2^15)
        let x = want as f32;
        assert_eq!(f64::from(x), want);
        for sat in [false, true] {
            assert_eq!(
                f32_ta(x, sat),
                u64::from(c),
                "encode(decode(0x{c:02X})) f32 sat={sat}"
            );
            assert_eq!(
                ref_encode(split_f32(x.to_bits()), F32, sat, Mode::Ta).0,
                c,
                "reference encode(decode(0x{c:02X}))"
            );
        }
        let h = half::f16::from_f64(want);
        assert_eq!(h.to_f64(), want);
        let p = pol_nosat();
        assert_eq!(
            convert(u64::from(h.to_bits()), Format::F16, Format::HiF8, &p),
            u64::from(c),
            "encode(decode(0x{c:02X})) f16"
        );
        // and HiF8 -> f32 through the library
        let back = convert(u64::from(c), Format::HiF8, Format::F32, &p);
        assert_eq!(
            f32::from_bits(back as u32).to_bits(),
            x.to_bits(),
            "0x{c:02X} -> f32"
        );
    }
    // 256 codes minus NaN and ±Inf; 0x00 is the only zero
    assert_eq!(finite, 253);
    println!("decode: 256 codes checked, {finite} finite round-trips");
}

/// All 2^32 f32 bit patterns under TA NO_SAT, TA SAT and literal HYBRID (a few minutes on two
/// cores). Run with `cargo test -p npusim-numerics --release --test numerics -- hif8_reference --ignored`.
#[test]
#[ignore = "exhaustive f32 sweep: minutes"]
fn f32_exhaustive() {
    let t = Instant::now();
    let (n, bad, first) = (0u32..1 << 16)
        .into_par_iter()
        .map(|hi| {
            let chunk: Vec<u32> = (0..=0xFFFFu32).map(|lo| hi << 16 | lo).collect();
            let mut n = 0u64;
            let mut bad = 0u64;
            let mut first = Vec::new();
            for &c in &chunk {
                for case in LITERAL_CASES {
                    n += 1;
                    if let Some(m) = check_one(c, F32, case) {
                        bad += 1;
                        if first.len() < 8 {
                            first.push(m);
                        }
                    }
                }
            }
            (n, bad, first)
        })
        .reduce(
            || (0, 0, Vec::new()),
            |mut a, b| {
                a.0 += b.0;
                a.1 += b.1;
                if a.2.len() < 32 {
                    a.2.extend(b.2);
                    a.2.truncate(32);
                }
                a
            },
        );
    report(
        "f32 exhaustive TA NO_SAT / TA SAT / HYBRID literal",
        F32,
        (n, bad, first),
    );
    println!("f32 exhaustive: {:?}", t.elapsed());
}
