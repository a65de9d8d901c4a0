//! Exhaustive check of every code of every small source format (at most 16 bits) against the
//! independent brute-force oracle in `tests/oracle`, for every destination format, every
//! deterministic rounding mode (plus `None`, which must equal `Rint`) and the three standard
//! policies; and a check of the library's `Format::decode` against the oracle's own decoder.

use crate::oracle;

use std::time::Instant;

use npusim_numerics::{CastPolicy, Exact, Format, convert};
use oracle::{Tally, Val, decode, mask, pow2};
use rayon::prelude::*;

/// Every small source format of the sweep: every format of the library whose width (in the
/// oracle's own width table) is at most 16 bits.
fn sources() -> Vec<Format> {
    oracle::formats_up_to(16)
}

/// The exact value of a library `Exact::Finite` as an f64 (exact for every format of at most
/// 16 bits).
fn exact_to_f64(negative: bool, sig: u64, exp: i32) -> f64 {
    if sig == 0 {
        return if negative { -0.0 } else { 0.0 };
    }
    let tz = sig.trailing_zeros();
    let (sig, exp) = (sig >> tz, exp + tz as i32);
    assert!(sig < 1 << 53, "significand too wide: {sig:#x}");
    let a = exp / 2;
    let mag = sig as f64 * pow2(a) * pow2(exp - a);
    if negative { -mag } else { mag }
}

#[test]
fn library_decode_matches_the_oracle_decoder_for_every_small_code() {
    let mut n = 0u64;
    for f in Format::ALL {
        if oracle::width(f) > 16 {
            continue;
        }
        assert_eq!(f.bits(), oracle::width(f), "{f} width");
        for code in 0..=mask(f) {
            let mine = decode(f, code);
            let lib = f.decode(code);
            n += 1;
            match (mine, lib) {
                (
                    Val::Nan { neg, payload },
                    Exact::Nan {
                        negative,
                        payload: lp,
                    },
                ) => {
                    assert_eq!(neg, negative, "{f} {code:#x}: NaN sign");
                    // the payload is the mantissa field where the NaN code has one (e8m0, hif8
                    // and the fnuz formats' 0x80 have none)
                    if !matches!(
                        f,
                        Format::F8E8M0
                            | Format::HiF8
                            | Format::F8E4M3FNUZ
                            | Format::F8E5M2FNUZ
                            | Format::F8E4M3B11FNUZ
                    ) {
                        assert_eq!(payload, Some(lp), "{f} {code:#x}: NaN payload");
                    }
                }
                (Val::Inf { neg }, Exact::Inf { negative }) => {
                    assert_eq!(neg, negative, "{f} {code:#x}: Inf sign")
                }
                (Val::Fin { hi, lo }, Exact::Finite { negative, sig, exp }) => {
                    assert_eq!(lo, 0.0);
                    let v = exact_to_f64(negative, sig, exp);
                    assert!(
                        v == hi && v.is_sign_negative() == hi.is_sign_negative(),
                        "{f} {code:#x}: oracle {hi:e}, library {v:e} ({lib:?})"
                    );
                }
                _ => panic!("{f} {code:#x}: oracle {mine:?}, library {lib:?}"),
            }
        }
    }
    // The oracle decoder itself, against the independent `half` crate and std.
    for code in 0..=0xFFFFu16 {
        let h = f64::from(half::f16::from_bits(code));
        let b = f64::from(half::bf16::from_bits(code));
        for (fmt, want) in [(Format::F16, h), (Format::BF16, b)] {
            match decode(fmt, u64::from(code)) {
                Val::Fin { hi, .. } => assert!(
                    hi == want && hi.is_sign_negative() == want.is_sign_negative(),
                    "{fmt} {code:#x}"
                ),
                Val::Inf { neg } => assert!(want.is_infinite() && neg == (want < 0.0)),
                Val::Nan { neg, .. } => assert!(want.is_nan() && neg == want.is_sign_negative()),
            }
        }
    }
    let mut rng = oracle::SplitMix(7);
    for _ in 0..100_000 {
        let c = rng.next_u64();
        for (fmt, code, want) in [
            (Format::F64, c, f64::from_bits(c)),
            (
                Format::F32,
                c & 0xFFFF_FFFF,
                f64::from(f32::from_bits(c as u32)),
            ),
        ] {
            match decode(fmt, code) {
                Val::Fin { hi, .. } => assert_eq!(hi.to_bits(), want.to_bits(), "{fmt} {code:#x}"),
                Val::Inf { .. } => assert!(want.is_infinite()),
                Val::Nan { .. } => assert!(want.is_nan()),
            }
        }
    }
    println!("decode: {n} small codes agree with the oracle decoder");
    // A few spec anchor values, so a wrong oracle table cannot agree with a wrong library.
    let val = |f: Format, c: u64| match decode(f, c) {
        Val::Fin { hi, .. } => hi,
        v => panic!("{v:?}"),
    };
    assert_eq!(val(Format::F8E4M3FN, 0x7E), 448.0);
    assert_eq!(val(Format::F8E4M3FN, 0x01), pow2(-9));
    assert_eq!(val(Format::F8E5M2, 0x7B), 57344.0);
    assert_eq!(val(Format::HiF8, 0x6E), 32768.0);
    assert_eq!(val(Format::HiF8, 0x01), pow2(-22));
    assert_eq!(val(Format::HiF8, 0x08), 1.0);
    assert_eq!(val(Format::HiF8, 0x4F), 224.0);
    assert_eq!(val(Format::F8E8M0, 0x7F), 1.0);
    assert_eq!(val(Format::F4E2M1, 0x7), 6.0);
    assert_eq!(val(Format::F4E1M2, 0x7), 1.75);
    assert_eq!(val(Format::I4, 0x8), -8.0);
    // the ml_dtypes formats, from their published definitions
    let nan = |f: Format, c: u64| matches!(decode(f, c), Val::Nan { .. });
    let inf = |f: Format, c: u64| matches!(decode(f, c), Val::Inf { .. });
    assert_eq!(val(Format::F8E4M3, 0x77), 240.0);
    assert_eq!(val(Format::F8E4M3, 0x08), pow2(-6));
    assert_eq!(val(Format::F8E4M3, 0x01), pow2(-9));
    assert!(inf(Format::F8E4M3, 0x78) && inf(Format::F8E4M3, 0xF8));
    assert!((0x79..=0x7F).all(|c| nan(Format::F8E4M3, c)));
    assert_eq!(val(Format::F8E3M4, 0x6F), 15.5);
    assert_eq!(val(Format::F8E3M4, 0x10), 0.25);
    assert_eq!(val(Format::F8E3M4, 0x01), pow2(-6));
    assert!(inf(Format::F8E3M4, 0x70) && nan(Format::F8E3M4, 0x71));
    assert_eq!(val(Format::F8E4M3FNUZ, 0x7F), 240.0);
    assert_eq!(val(Format::F8E4M3FNUZ, 0x08), pow2(-7));
    assert_eq!(val(Format::F8E4M3FNUZ, 0x01), pow2(-10));
    assert_eq!(val(Format::F8E4M3FNUZ, 0xFF), -240.0);
    assert_eq!(val(Format::F8E5M2FNUZ, 0x7F), 57344.0);
    assert_eq!(val(Format::F8E5M2FNUZ, 0x04), pow2(-15));
    assert_eq!(val(Format::F8E5M2FNUZ, 0x01), pow2(-17));
    assert_eq!(val(Format::F8E4M3B11FNUZ, 0x7F), 30.0);
    assert_eq!(val(Format::F8E4M3B11FNUZ, 0x01), pow2(-13));
    assert_eq!(val(Format::F8E4M3B11FNUZ, 0x58), 1.0);
    for f in [
        Format::F8E4M3FNUZ,
        Format::F8E5M2FNUZ,
        Format::F8E4M3B11FNUZ,
    ] {
        assert!(nan(f, 0x80), "{f}");
        assert_eq!((0..=0xFF).filter(|&c| nan(f, c)).count(), 1, "{f}");
        assert_eq!((0..=0xFF).filter(|&c| inf(f, c)).count(), 0, "{f}");
    }
    assert_eq!(val(Format::F6E2M3FN, 0x1F), 7.5);
    assert_eq!(val(Format::F6E2M3FN, 0x3F), -7.5);
    assert_eq!(val(Format::F6E2M3FN, 0x01), 0.125);
    assert_eq!(val(Format::F6E2M3FN, 0x08), 1.0);
    assert_eq!(val(Format::F6E3M2FN, 0x1F), 28.0);
    assert_eq!(val(Format::F6E3M2FN, 0x01), 0.0625);
    assert_eq!(val(Format::F6E3M2FN, 0x04), 0.25);
    assert!(val(Format::F6E3M2FN, 0x20).is_sign_negative());
    assert_eq!(val(Format::I2, 0x2), -2.0);
    assert_eq!(val(Format::I2, 0x3), -1.0);
    assert_eq!(val(Format::U2, 0x3), 3.0);
    assert_eq!(val(Format::U4, 0xF), 15.0);
    assert_eq!(
        decode(Format::U64, u64::MAX),
        Val::Fin {
            hi: pow2(64),
            lo: -1.0
        }
    );
}

/// Splits every small source into chunks of 4096 codes.
fn work_items() -> Vec<(Format, u64, u64)> {
    let mut items = Vec::new();
    for src in sources() {
        let n = mask(src) + 1;
        let mut c = 0;
        while c < n {
            items.push((src, c, (c + 4096).min(n)));
            c += 4096;
        }
    }
    items
}

/// Every code of every small source to every *other* format (identity casts are below),
/// under every deterministic mode and the three policies, bit-exact (NaN payloads included:
/// quiet bit set, top payload bits kept, for IEEE-style sources and destinations).
#[test]
fn every_small_code_to_every_format_every_mode_every_policy() {
    let t0 = Instant::now();
    let tally = work_items()
        .par_iter()
        .map(|&(src, a, b)| {
            let mut t = Tally::default();
            for code in a..b {
                let x = decode(src, code);
                for dst in Format::ALL {
                    if dst != src {
                        oracle::check_code(src, code, x, dst, &mut t);
                    }
                }
            }
            t
        })
        .reduce(Tally::default, Tally::merge);
    let others = Format::ALL.len() as u64 - 1;
    println!(
        "exhaustive small sources: {} conversions checked ({} sources x {others} other destinations x {} modes x {} policies) in {:.1?}",
        tally.checked,
        sources().len(),
        oracle::MODES.len(),
        oracle::POLS.len(),
        t0.elapsed()
    );
    for src in sources() {
        println!("  {src}: {} codes", mask(src) + 1);
    }
    let codes: u64 = sources().iter().map(|&s| mask(s) + 1).sum();
    assert_eq!(
        tally.checked,
        codes * others * oracle::MODES.len() as u64 * 3
    );
    tally.assert_clean("exhaustive small sources");
}

/// Identity casts (src == dst) of every small code: finite values and zeros come back
/// unchanged, ±Inf under the IEEE policies stays ±Inf, NaN stays a NaN of the same sign.
/// Two spec points do not apply to identity casts, which are copies (±Inf under the
/// saturating policy stays ±Inf; a signalling NaN is not quieted): see the test below.
#[test]
fn identity_casts_of_every_small_code() {
    let tally = work_items()
        .par_iter()
        .map(|&(src, a, b)| {
            let mut t = Tally::default();
            for code in a..b {
                oracle::check_code_with(src, code, decode(src, code), src, &mut t, true);
            }
            t
        })
        .reduce(Tally::default, Tally::merge);
    println!("identity casts: {} conversions checked", tally.checked);
    assert!(tally.checked > 5_000_000);
    tally.assert_clean("identity casts");
}

/// A cast to the same format is a copy, by definition (see `convert`'s documentation): the
/// code comes back unchanged under every mode and policy — ±Inf is not saturated and a
/// signalling NaN is not quieted, exactly as `cast_elements` copies the bytes of equal storages.
#[test]
fn identity_casts_are_copies_under_every_policy() {
    let mut checked = 0u64;
    for src in sources() {
        for code in 0..=mask(src) {
            for mode in npusim_numerics::RoundMode::ALL {
                for policy in [
                    CastPolicy::new(mode),
                    CastPolicy::saturating(mode),
                    CastPolicy::non_saturating(mode),
                ] {
                    assert_eq!(
                        convert(code, src, src, &policy),
                        code,
                        "{src} {code:#x} {policy:?}"
                    );
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 5_000_000);
}

/// The oracle itself against hand-computed results from the written spec, so that the oracle
/// and the library cannot silently agree on a wrong rule.
#[test]
fn oracle_self_check_against_hand_computed_spec_values() {
    use Format::*;
    use npusim_numerics::RoundMode::*;
    use oracle::{Expect, Pol, expect};
    let c = |x: f64, dst: Format, m, p| match expect(Val::fin(x), dst, m, p) {
        Expect::Code(c) => c,
        e => panic!("{e:?}"),
    };
    let ieee = Pol::Ieee;
    // f16: the tie above max goes to the even code, the virtual 0x7C00 (= Inf)
    assert_eq!(c(65520.0, F16, Rint, ieee), 0x7C00);
    assert_eq!(c(65519.0, F16, Rint, ieee), 0x7BFF);
    assert_eq!(c(65520.0, F16, Trunc, ieee), 0x7BFF);
    assert_eq!(c(-65520.0, F16, Floor, ieee), 0xFC00);
    assert_eq!(c(-65520.0, F16, Ceil, ieee), 0xFBFF);
    assert_eq!(c(65520.0, F16, Ceil, ieee), 0x7C00);
    assert_eq!(c(65505.0, F16, Odd, ieee), 0x7BFF);
    assert_eq!(c(1.0e9, F16, Rint, Pol::Sat), 0x7BFF);
    assert_eq!(c(-1.0e9, F16, Ceil, ieee), 0xFBFF);
    assert_eq!(c(pow2(-25), F16, Rint, ieee), 0x0000);
    assert_eq!(c(-pow2(-25), F16, Rint, ieee), 0x8000);
    assert_eq!(c(-pow2(-25), F16, Round, ieee), 0x8001);
    assert_eq!(c(pow2(-26), F16, Odd, ieee), 0x0001);
    assert_eq!(c(1.0 + pow2(-11), F16, Rint, ieee), 0x3C00);
    assert_eq!(c(1.0 + 3.0 * pow2(-11), F16, Rint, ieee), 0x3C02);
    // e4m3fn: 464 is the tie between 448 (0x7E, even) and the virtual 480 (0x7F)
    assert_eq!(c(464.0, F8E4M3FN, Rint, ieee), 0x7E);
    assert_eq!(c(465.0, F8E4M3FN, Rint, ieee), 0x7F);
    assert_eq!(c(-465.0, F8E4M3FN, Rint, ieee), 0xFF);
    assert_eq!(c(464.0, F8E4M3FN, Round, ieee), 0x7F);
    assert_eq!(c(1000.0, F8E4M3FN, Rint, Pol::Sat), 0x7E);
    assert_eq!(c(450.0, F8E4M3FN, Odd, ieee), 0x7E);
    assert_eq!(c(1000.0, F8E4M3FN, Ceil, ieee), 0x7F);
    assert_eq!(c(1000.0, F8E4M3FN, Floor, ieee), 0x7E);
    assert_eq!(c(pow2(-10), F8E4M3FN, Rint, ieee), 0x00);
    assert_eq!(c(3.0 * pow2(-10), F8E4M3FN, Rint, ieee), 0x02);
    // e8m0: ties go to the even code, not up; no zero, no sign
    assert_eq!(c(3.0, F8E8M0, Rint, ieee), 0x80);
    assert_eq!(c(6.0, F8E8M0, Rint, ieee), 0x82);
    assert_eq!(c(3.0, F8E8M0, Round, ieee), 0x81);
    assert_eq!(c(3.0, F8E8M0, Odd, ieee), 0x81);
    assert_eq!(c(0.0, F8E8M0, Rint, ieee), 0x00);
    assert_eq!(c(-0.0, F8E8M0, Rint, ieee), 0x00);
    assert_eq!(c(pow2(-130), F8E8M0, Ceil, ieee), 0x00);
    assert_eq!(c(-1.0, F8E8M0, Rint, Pol::Sat), 0xFF);
    assert_eq!(c(1.5 * pow2(127), F8E8M0, Rint, ieee), 0xFE);
    assert_eq!(c(1.75 * pow2(127), F8E8M0, Rint, ieee), 0xFF);
    assert_eq!(c(1.75 * pow2(127), F8E8M0, Rint, Pol::Sat), 0xFE);
    assert_eq!(c(1.75 * pow2(127), F8E8M0, Odd, ieee), 0xFE);
    // hif8
    assert_eq!(c(40960.0, HiF8, Rint, ieee), 0x6E);
    assert_eq!(c(40960.0, HiF8, Round, ieee), 0x6F);
    assert_eq!(c(-40960.0, HiF8, Round, ieee), 0xEF);
    assert_eq!(c(40960.0, HiF8, Round, Pol::Sat), 0x6E);
    assert_eq!(c(1.0625, HiF8, Rint, ieee), 0x08);
    assert_eq!(c(1.0625, HiF8, Round, ieee), 0x09);
    assert_eq!(c(1.1875, HiF8, Rint, ieee), 0x0A);
    assert_eq!(c(pow2(-23), HiF8, Rint, ieee), 0x00);
    assert_eq!(c(-pow2(-23), HiF8, Round, ieee), 0x81);
    assert_eq!(c(-pow2(-23), HiF8, Trunc, ieee), 0x00);
    assert_eq!(c(3.0 * pow2(-17), HiF8, Rint, ieee), 0x7E); // tie 2^-16 (0x07) / 2^-15 (0x7E)
    assert_eq!(c(240.0, HiF8, Rint, ieee), 0x60); // tie 224 (0x4F) / 256 (0x60)
    assert_eq!(c(240.0, HiF8, Odd, ieee), 0x4F);
    // fp4
    assert_eq!(c(5.0, F4E2M1, Rint, ieee), 0x6);
    assert_eq!(c(7.0, F4E2M1, Rint, ieee), 0x7);
    assert_eq!(c(-100.0, F4E2M1, Floor, ieee), 0xF);
    assert_eq!(c(0.25, F4E2M1, Rint, ieee), 0x0);
    assert_eq!(c(-0.25, F4E2M1, Rint, ieee), 0x8);
    assert_eq!(c(0.2, F4E2M1, Odd, ieee), 0x1);
    assert_eq!(c(2.5, F4E2M1, Rint, ieee), 0x4);
    assert_eq!(c(2.5, F4E2M1, Round, ieee), 0x5);
    assert_eq!(c(0.375, F4E1M2, Rint, ieee), 0x2);
    assert_eq!(c(1.875, F4E1M2, Rint, ieee), 0x7);
    assert_eq!(c(-0.1, F4E1M2, Ceil, ieee), 0x8);
    // integers
    assert_eq!(c(2.5, I8, Rint, ieee), 2);
    assert_eq!(c(2.5, I8, Round, ieee), 3);
    assert_eq!(c(2.5, I8, Odd, ieee), 3);
    assert_eq!(c(-2.5, I8, Odd, ieee), 0xFD);
    assert_eq!(c(-2.5, I8, Floor, ieee), 0xFD);
    assert_eq!(c(300.0, U8, Rint, ieee), 255);
    assert_eq!(c(300.0, U8, Rint, Pol::Wrap), 44);
    assert_eq!(c(-1.0, U8, Rint, ieee), 0);
    assert_eq!(c(-1.0, U8, Rint, Pol::Wrap), 0xFF);
    assert_eq!(c(8.0, I4, Rint, Pol::Sat), 7);
    assert_eq!(c(8.0, I4, Rint, Pol::Wrap), 8);
    assert_eq!(c(255.5, U8, Rint, Pol::Wrap), 0);
    assert_eq!(c(pow2(70) + pow2(20), I64, Rint, Pol::Wrap), 1 << 20);
    assert_eq!(c(pow2(70), I64, Rint, Pol::Wrap), 0);
    assert_eq!(c(pow2(60) + pow2(20), I32, Rint, Pol::Wrap), 1 << 20);
    assert_eq!(c(-pow2(63), I64, Rint, ieee), 1 << 63);
    assert_eq!(c(pow2(63), I64, Rint, ieee), (1 << 63) - 1);
    assert_eq!(c(pow2(63), I64, Rint, Pol::Wrap), 1 << 63);
    // e4m3 (IEEE-like, max 240 = 0x77, odd): 248 ties to the even virtual 256 = Inf 0x78
    assert_eq!(c(248.0, F8E4M3, Rint, ieee), 0x78);
    assert_eq!(c(247.0, F8E4M3, Rint, ieee), 0x77);
    assert_eq!(c(248.0, F8E4M3, Rint, Pol::Sat), 0x77);
    assert_eq!(c(248.0, F8E4M3, Odd, ieee), 0x77);
    assert_eq!(c(-248.0, F8E4M3, Floor, ieee), 0xF8);
    assert_eq!(c(-248.0, F8E4M3, Ceil, ieee), 0xF7);
    assert_eq!(c(-pow2(-10), F8E4M3, Rint, ieee), 0x80);
    // e3m4 (max 15.5 = 0x6F): 15.75 → Inf 0x70
    assert_eq!(c(15.75, F8E3M4, Rint, ieee), 0x70);
    assert_eq!(c(15.75, F8E3M4, Trunc, ieee), 0x6F);
    assert_eq!(c(0.25 + pow2(-7), F8E3M4, Rint, ieee), 0x10); // tie 0x10/0x11 → even
    assert_eq!(c(3.0 * pow2(-7), F8E3M4, Rint, ieee), 0x02); // tie 2^-6 / 2^-5 → even
    // fnuz: overflow and -Inf give the one NaN 0x80, a negative value rounding to zero +0
    assert_eq!(c(248.0, F8E4M3FNUZ, Rint, ieee), 0x80);
    assert_eq!(c(-248.0, F8E4M3FNUZ, Rint, ieee), 0x80);
    assert_eq!(c(244.0, F8E4M3FNUZ, Rint, ieee), 0x7F);
    assert_eq!(c(-1000.0, F8E4M3FNUZ, Rint, Pol::Sat), 0xFF);
    assert_eq!(c(-1000.0, F8E4M3FNUZ, Floor, ieee), 0x80);
    assert_eq!(c(-1000.0, F8E4M3FNUZ, Ceil, ieee), 0xFF);
    assert_eq!(c(-pow2(-11), F8E4M3FNUZ, Rint, ieee), 0x00);
    assert_eq!(c(-pow2(-11), F8E4M3FNUZ, Round, ieee), 0x81);
    assert_eq!(c(-pow2(-12), F8E4M3FNUZ, Floor, ieee), 0x81);
    assert_eq!(c(-pow2(-12), F8E4M3FNUZ, Ceil, ieee), 0x00);
    assert_eq!(c(-0.0, F8E4M3FNUZ, Rint, ieee), 0x00);
    assert_eq!(c(61440.0, F8E5M2FNUZ, Rint, ieee), 0x80);
    assert_eq!(c(61439.0, F8E5M2FNUZ, Rint, ieee), 0x7F);
    assert_eq!(c(-pow2(-18), F8E5M2FNUZ, Rint, ieee), 0x00);
    assert_eq!(c(31.0, F8E4M3B11FNUZ, Rint, ieee), 0x80);
    assert_eq!(c(30.5, F8E4M3B11FNUZ, Rint, ieee), 0x7F);
    assert_eq!(c(100.0, F8E4M3B11FNUZ, Floor, ieee), 0x7F);
    assert_eq!(c(1.0, F8E4M3B11FNUZ, Rint, ieee), 0x58);
    // fp6: finite only, overflow clamps
    assert_eq!(c(7.75, F6E2M3FN, Rint, ieee), 0x1F);
    assert_eq!(c(-100.0, F6E2M3FN, Floor, ieee), 0x3F);
    assert_eq!(c(-0.0625, F6E2M3FN, Rint, ieee), 0x20);
    assert_eq!(c(0.0625, F6E2M3FN, Round, ieee), 0x01);
    assert_eq!(c(1.0625, F6E2M3FN, Rint, ieee), 0x08);
    assert_eq!(c(26.0, F6E3M2FN, Rint, ieee), 0x1E);
    assert_eq!(c(30.0, F6E3M2FN, Rint, ieee), 0x1F);
    assert_eq!(c(1000.0, F6E3M2FN, Ceil, ieee), 0x1F);
    assert_eq!(c(pow2(-5), F6E3M2FN, Rint, ieee), 0x00);
    assert_eq!(c(3.0 * pow2(-5), F6E3M2FN, Rint, ieee), 0x02);
    // 2-, 4- and 64-bit integers
    assert_eq!(c(1.5, I2, Rint, ieee), 1);
    assert_eq!(c(1.5, I2, Rint, Pol::Wrap), 2);
    assert_eq!(c(-2.5, I2, Rint, ieee), 2);
    assert_eq!(c(-3.0, I2, Rint, Pol::Sat), 2);
    assert_eq!(c(-3.0, I2, Rint, Pol::Wrap), 1);
    assert_eq!(c(3.5, U2, Rint, ieee), 3);
    assert_eq!(c(3.5, U2, Rint, Pol::Wrap), 0);
    assert_eq!(c(-1.0, U2, Rint, Pol::Wrap), 3);
    assert_eq!(c(-1.0, U2, Rint, ieee), 0);
    assert_eq!(c(15.5, U4, Rint, ieee), 15);
    assert_eq!(c(15.5, U4, Rint, Pol::Wrap), 0);
    assert_eq!(c(14.5, U4, Odd, ieee), 15);
    assert_eq!(c(pow2(64), U64, Rint, ieee), u64::MAX);
    assert_eq!(c(pow2(64), U64, Rint, Pol::Wrap), 0);
    assert_eq!(c(pow2(64) + pow2(12), U64, Rint, Pol::Wrap), 1 << 12);
    assert_eq!(c(-1.0, U64, Rint, Pol::Wrap), u64::MAX);
    assert_eq!(c(-1.0, U64, Rint, ieee), 0);
    assert_eq!(c(pow2(63), U64, Rint, ieee), 1 << 63);
    let inf = |neg, dst, p| match expect(Val::Inf { neg }, dst, Rint, p) {
        Expect::Code(c) => c,
        e => panic!("{e:?}"),
    };
    assert_eq!(inf(true, I16, Pol::Wrap), 0x8000);
    assert_eq!(inf(false, U32, Pol::Wrap), 0xFFFF_FFFF);
    assert_eq!(inf(false, F8E4M3FN, ieee), 0x7F);
    assert_eq!(inf(true, F8E4M3FN, Pol::Sat), 0xFE);
    assert_eq!(inf(false, F8E8M0, Pol::Sat), 0xFE);
    assert_eq!(inf(true, F8E8M0, Pol::Sat), 0xFF);
    assert_eq!(inf(true, F4E2M1, ieee), 0xF);
    assert_eq!(inf(false, F16, Pol::Sat), 0x7BFF);
    let nan = Val::Nan {
        neg: true,
        payload: Some(1 << 62),
    };
    assert_eq!(
        expect(nan, F16, Rint, ieee),
        Expect::Nan {
            neg: true,
            code: Some(0xFF00)
        }
    );
    assert_eq!(expect(nan, F4E2M1, Rint, ieee), Expect::Code(0));
    assert_eq!(expect(nan, HiF8, Rint, ieee), Expect::Code(0x80));
    assert_eq!(expect(nan, F8E4M3FN, Rint, ieee), Expect::Code(0xFF));
    assert_eq!(expect(nan, I32, Rint, ieee), Expect::Code(0));
    assert_eq!(inf(false, U64, ieee), u64::MAX);
    assert_eq!(inf(true, I2, Pol::Wrap), 2);
    assert_eq!(inf(false, F8E4M3, ieee), 0x78);
    assert_eq!(inf(true, F8E3M4, Pol::Sat), 0xEF);
    assert_eq!(inf(false, F8E4M3FNUZ, ieee), 0x80);
    assert_eq!(inf(true, F8E5M2FNUZ, ieee), 0x80);
    assert_eq!(inf(true, F8E4M3B11FNUZ, Pol::Sat), 0xFF);
    assert_eq!(inf(true, F6E2M3FN, ieee), 0x3F);
    assert_eq!(inf(false, F6E3M2FN, Pol::Sat), 0x1F);
    assert_eq!(
        expect(nan, F8E4M3, Rint, ieee),
        Expect::Nan {
            neg: true,
            code: Some(0xFE)
        }
    );
    assert_eq!(
        expect(nan, F8E3M4, Rint, ieee),
        Expect::Nan {
            neg: true,
            code: Some(0xFC)
        }
    );
    for fnuz in [F8E4M3FNUZ, F8E5M2FNUZ, F8E4M3B11FNUZ] {
        assert_eq!(expect(nan, fnuz, Rint, ieee), Expect::Code(0x80));
        assert_eq!(expect(nan, fnuz, Rint, Pol::Sat), Expect::Code(0x80));
    }
    assert_eq!(expect(nan, F6E2M3FN, Rint, ieee), Expect::Code(0));
    assert_eq!(expect(nan, F6E3M2FN, Rint, Pol::Sat), Expect::Code(0));
    assert_eq!(expect(nan, U2, Rint, Pol::Wrap), Expect::Code(0));
}
