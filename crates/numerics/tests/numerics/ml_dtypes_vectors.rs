//! npusim against the recorded ml_dtypes 0.6.0 / numpy 2.4.6 cast vectors in
//! `tests/vectors/ml_dtypes/` (see its README.md and manifest.json).
//!
//! Every (src, dst) file is compared with `convert(code, src, dst, &CastPolicy::new(Rint))`.
//! Where the two differ, the difference must fall into exactly one of the NAMED classes below,
//! each a documented ml_dtypes behaviour that departs from the npusim spec; in every class
//! npusim must also equal the independent oracle (`tests/oracle`), i.e. follow the spec. Any
//! difference outside the classes fails the test. Classes that the vectors are known to
//! contain must have a nonzero count, so the test notices if ml_dtypes' behaviour changes
//! when the vectors are regenerated.

use crate::oracle;

use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;

use npusim_numerics::{CastPolicy, Format, RoundMode, convert};
use oracle::{Expect, Pol, Val, decode, expect, pow2};

/// The classes of ml_dtypes-vs-npusim differences.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Class {
    /// (a) e8m0 rounding: ml_dtypes rounds a positive value to the nearest power of two with
    /// ties UP (away from zero, RNA: 3.0 → 4.0 = 0x81), and rounds every subnormal f32/bf16
    /// input in (2^-127, 2^-126) up to 0x01 (2^-126) even below the 1.5·2^-127 midpoint, and
    /// maps values ≥ 1.5·2^127 to NaN 0xFF; npusim rounds ties to the EVEN CODE (3.0 → 2.0 =
    /// 0x80; 1.5·2^127 → 0xFE) and rounds subnormals to nearest.
    E8m0Rounding,
    /// (b) e8m0 specials: ml_dtypes maps ±0 to NaN 0xFF; npusim maps ±0 to 0x00 (2^-127, the
    /// smallest scale; e8m0 has no zero). (Negative values, NaN and +Inf are NaN 0xFF in both.)
    E8m0Zero,
    /// (c) NaN → f4e2m1: ml_dtypes gives a zero with the sign FLIPPED (+NaN → 0x8 = -0,
    /// -NaN → 0x0); npusim gives +0 (0x0) for every NaN.
    NanToF4e2m1,
    /// (d) double rounding: ml_dtypes narrows f64 to every float format but f16 and f32 (bf16,
    /// every f8, f6 and f4), and u64 to every float format, through f32 (round to f32 first,
    /// then to the destination); npusim rounds once. The ml_dtypes result must equal the spec
    /// (or, for e8m0, ml_dtypes' own e8m0 rule) applied to the f32-rounded value.
    DoubleRoundingViaF32,
    /// (e) NaN payload: both results are NaNs of the same sign but with different payloads
    /// (ml_dtypes does not set the quiet bit on f32/f64 → f16 and f16/bf16 → f32, or drops the
    /// payload; npusim sets the quiet bit and keeps the top payload bits).
    NanPayload,
    /// (f) NaN → f6e2m3fn / f6e3m2fn: as for fp4, ml_dtypes gives a zero with the sign FLIPPED
    /// (+NaN → 0x20 = -0, -NaN → 0x00); npusim gives +0 (0x00) for every NaN (a format without
    /// NaN gets +0).
    NanToFp6,
    /// (g) the fnuz NaN's sign: the one NaN code 0x80 of f8e4m3fnuz, f8e5m2fnuz and
    /// f8e4m3b11fnuz is the code of -0, and ml_dtypes reads its sign bit as the NaN's sign:
    /// it becomes a NEGATIVE NaN (f32 0xFFC00000, f16 0xFE00, e4m3fn 0xFF, ...). npusim decodes
    /// it as an unsigned NaN, like hif8's 0x80 (its sign bit is what makes it a NaN), so it
    /// becomes the positive quiet NaN (f32 0x7FC00000).
    FnuzNanSign,
    /// (h) float → int2 / uint2 / uint4: ml_dtypes' intN cast is a C cast, truncating toward
    /// zero and keeping the low bits (1.5 → 1, 3.0 → i2 -1, -1.0 → u2 3), and ±Inf gives 0
    /// (the x86 conversion's INT_MIN, whose low bits are 0). npusim's default policy rounds to
    /// nearest even and saturates (1.5 → 2 → i2 1, -1.0 → u2 0, +Inf → max). ml_dtypes equals
    /// the spec under `CastPolicy::non_saturating(Trunc)` for every finite value.
    IntTruncWrap,
}

const ALL_CLASSES: [Class; 8] = [
    Class::E8m0Rounding,
    Class::E8m0Zero,
    Class::NanToF4e2m1,
    Class::DoubleRoundingViaF32,
    Class::NanPayload,
    Class::NanToFp6,
    Class::FnuzNanSign,
    Class::IntTruncWrap,
];

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/ml_dtypes")
}

fn gunzip(name: &str) -> Vec<u8> {
    let f = std::fs::File::open(dir().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(f)
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    out
}

/// The vectors' format names are npusim's canonical names.
fn fmt(name: &str) -> Format {
    let f: Format = name
        .parse()
        .unwrap_or_else(|e| panic!("vector format {name}: {e}"));
    assert_eq!(f.name(), name, "vector file names use canonical names");
    f
}

/// Bytes per element in the files (sub-byte formats one per byte, in the low bits).
fn elem_bytes(f: Format) -> usize {
    match oracle::width(f) {
        64 => 8,
        32 => 4,
        16 => 2,
        _ => 1,
    }
}

fn read_codes(bytes: &[u8], f: Format) -> Vec<u64> {
    let w = elem_bytes(f);
    assert_eq!(bytes.len() % w, 0);
    bytes
        .chunks_exact(w)
        .map(|c| {
            let mut a = [0u8; 8];
            a[..w].copy_from_slice(c);
            let v = u64::from_le_bytes(a);
            if oracle::width(f) < 8 {
                assert_eq!(
                    v >> oracle::width(f),
                    0,
                    "high bits of a sub-byte element must be 0"
                );
            }
            v
        })
        .collect()
}

/// The `count` recorded in manifest.json for a file (a small hand parser: no JSON crate).
fn manifest_count(manifest: &str, file: &str) -> usize {
    let at = manifest
        .find(&format!("\"{file}\": {{"))
        .unwrap_or_else(|| panic!("{file} not in manifest"));
    let rest = &manifest[at..];
    let c = rest.find("\"count\":").expect("count") + "\"count\":".len();
    rest[c..]
        .trim_start()
        .split(|ch: char| !ch.is_ascii_digit())
        .next()
        .expect("digits")
        .parse()
        .expect("count")
}

/// The spec result (the oracle) under `CastPolicy::new(Rint)`.
fn spec(x: Val, dst: Format) -> Expect {
    expect(x, dst, RoundMode::Rint, Pol::Ieee)
}

fn spec_ok(x: Val, dst: Format, got: u64) -> bool {
    spec(x, dst).check(dst, got) == oracle::Verdict::Ok
}

/// ml_dtypes' own float8_e8m0fnu cast of a value, as measured (README "f8e8m0"): NaN, ±0,
/// negatives and ±Inf → 0xFF; (0, 2^-127] → 0x00; (2^-127, 2^-126) → 0x01; otherwise the
/// nearest power of two with ties up, ≥ 1.5·2^127 → 0xFF.
fn ml_e8m0(x: Val) -> u64 {
    match x {
        Val::Fin { hi, lo } => {
            assert_eq!(lo, 0.0);
            if hi <= 0.0 {
                0xFF
            } else if hi <= pow2(-127) {
                0x00
            } else if hi < pow2(-126) {
                0x01
            } else {
                match expect(x, Format::F8E8M0, RoundMode::Round, Pol::Ieee) {
                    Expect::Code(c) => c,
                    e => panic!("{e:?}"),
                }
            }
        }
        _ => 0xFF,
    }
}

/// Which class explains `ml != npusim` for input `x`, if any.
fn classify(src: Format, x: Val, dst: Format, ml: u64, np: u64) -> Option<Class> {
    // npusim must follow the spec in every explained class
    if !spec_ok(x, dst, np) {
        return None;
    }
    if let (Val::Nan { neg: a, .. }, Val::Nan { neg: b, .. }) = (decode(dst, ml), decode(dst, np)) {
        if is_fnuz(src) && matches!(x, Val::Nan { .. }) {
            // ml_dtypes: the NaN a negative NaN (without payload) would give
            let negative = Val::Nan {
                neg: true,
                payload: Some(0),
            };
            let as_negative = spec(negative, dst).check(dst, ml) != oracle::Verdict::Wrong;
            return (a && !b && as_negative).then_some(Class::FnuzNanSign);
        }
        return (a == b).then_some(Class::NanPayload);
    }
    if matches!(dst, Format::I2 | Format::U2 | Format::U4) {
        let c_cast = match x {
            Val::Fin { .. } => {
                expect(x, dst, RoundMode::Trunc, Pol::Wrap) == oracle::Expect::Code(ml)
            }
            Val::Inf { .. } => ml == 0,
            Val::Nan { .. } => false,
        };
        return c_cast.then_some(Class::IntTruncWrap);
    }
    if matches!(dst, Format::F6E2M3FN | Format::F6E3M2FN)
        && let Val::Nan { neg, .. } = x
    {
        let flipped = if neg { 0x00 } else { 0x20 };
        return (ml == flipped && np == 0x00).then_some(Class::NanToFp6);
    }
    if dst == Format::F4E2M1
        && let Val::Nan { neg, .. } = x
    {
        let flipped = if neg { 0x0 } else { 0x8 };
        return (ml == flipped && np == 0x0).then_some(Class::NanToF4e2m1);
    }
    if dst == Format::F8E8M0
        && let Val::Fin { hi, lo } = x
        && hi == 0.0
        && lo == 0.0
    {
        return (ml == 0xFF && np == 0x00).then_some(Class::E8m0Zero);
    }
    let through_f32 = match src {
        Format::F64 => oracle::is_small_float(dst) && dst != Format::F16,
        Format::U64 => dst != Format::F32,
        _ => false,
    };
    if through_f32 && let Val::Fin { .. } = x {
        // x rounded to f32 (nearest even), by the oracle
        let Expect::Code(y32) = spec(x, Format::F32) else {
            unreachable!("finite")
        };
        let y = decode(Format::F32, y32);
        if y != x {
            let via_f32 = if dst == Format::F8E8M0 {
                ml == ml_e8m0(y)
            } else {
                spec(y, dst).check(dst, ml) == oracle::Verdict::Ok
            };
            if via_f32 {
                return Some(Class::DoubleRoundingViaF32);
            }
        }
    }
    if dst == Format::F8E8M0 && ml == ml_e8m0(x) {
        return Some(Class::E8m0Rounding);
    }
    None
}

fn is_fnuz(f: Format) -> bool {
    matches!(
        f,
        Format::F8E4M3FNUZ | Format::F8E5M2FNUZ | Format::F8E4M3B11FNUZ
    )
}

#[test]
fn npusim_matches_ml_dtypes_except_for_named_classes() {
    let manifest = std::fs::read_to_string(dir().join("manifest.json")).expect("manifest");
    let f32_inputs = read_codes(&gunzip("f32_inputs.bin.gz"), Format::F32);
    let f64_inputs = read_codes(&gunzip("f64_inputs.bin.gz"), Format::F64);
    let u64_inputs = read_codes(&gunzip("u64_inputs.bin.gz"), Format::U64);
    assert_eq!(f32_inputs.len(), 275_052);
    assert_eq!(f64_inputs.len(), 93_158);
    assert_eq!(u64_inputs.len(), 11_255);
    let mut names: Vec<String> = std::fs::read_dir(dir())
        .expect("vector dir")
        .map(|e| e.expect("entry").file_name().into_string().expect("utf8"))
        .filter(|n| n.contains("__") && n.ends_with(".bin.gz"))
        .collect();
    names.sort();
    assert_eq!(names.len(), 299, "vector files");
    // every format of ml_dtypes that npusim has is covered, as a source and a destination
    let mut covered = std::collections::BTreeSet::new();
    for name in &names {
        let (s, d) = name
            .trim_end_matches(".bin.gz")
            .split_once("__")
            .expect("src__dst");
        covered.insert(fmt(s));
        covered.insert(fmt(d));
    }
    let missing: Vec<Format> = Format::ALL
        .into_iter()
        .filter(|f| !covered.contains(f))
        .collect();
    // not in ml_dtypes: hif8 and e1m2; not generated: the numpy integers i32, i64, u32
    assert_eq!(
        missing,
        [
            Format::HiF8,
            Format::F4E1M2,
            Format::I32,
            Format::I64,
            Format::U32
        ]
    );

    let mut per_class: BTreeMap<Class, u64> = BTreeMap::new();
    let mut per_pair: BTreeMap<String, u64> = BTreeMap::new();
    let mut per_src: BTreeMap<Format, u64> = BTreeMap::new();
    let mut unexplained = Vec::new();
    let mut n_unexplained = 0u64;
    let mut agree = 0u64;
    let mut total = 0u64;
    for name in &names {
        let stem = name.trim_end_matches(".bin.gz");
        let (s, d) = stem.split_once("__").expect("src__dst");
        let (src, dst) = (fmt(s), fmt(d));
        let inputs: Vec<u64> = match src {
            Format::F32 => f32_inputs.clone(),
            Format::F64 => f64_inputs.clone(),
            Format::U64 => u64_inputs.clone(),
            _ => (0..=oracle::mask(src)).collect(),
        };
        let outputs = read_codes(&gunzip(name), dst);
        assert_eq!(outputs.len(), inputs.len(), "{name}");
        assert_eq!(outputs.len(), manifest_count(&manifest, name), "{name}");
        let policy = CastPolicy::new(RoundMode::Rint);
        *per_src.entry(src).or_default() += outputs.len() as u64;
        for (&code, &ml) in inputs.iter().zip(&outputs) {
            total += 1;
            let np = convert(code, src, dst, &policy);
            if np == ml {
                agree += 1;
                continue;
            }
            let x = decode(src, code);
            match classify(src, x, dst, ml, np) {
                Some(c) => {
                    *per_class.entry(c).or_default() += 1;
                    *per_pair.entry(format!("{stem} {c:?}")).or_default() += 1;
                }
                None => {
                    n_unexplained += 1;
                    if unexplained.len() < 30 {
                        unexplained.push(format!(
                            "{src} {code:#x} ({x:?}) -> {dst}: ml_dtypes {ml:#x}, npusim {np:#x}, spec {:x?}",
                            spec(x, dst)
                        ));
                    }
                }
            }
        }
    }
    println!(
        "ml_dtypes vectors: {total} casts in {} files, {agree} identical",
        names.len()
    );
    for (f, n) in &per_src {
        println!("  from {f}: {n} casts");
    }
    for c in ALL_CLASSES {
        println!("  class {c:?}: {}", per_class.get(&c).copied().unwrap_or(0));
    }
    for (k, v) in &per_pair {
        println!("    {k}: {v}");
    }
    assert!(
        n_unexplained == 0,
        "{n_unexplained} differences outside the named classes:\n{}",
        unexplained.join("\n")
    );
    // Every class is known to occur in the 0.6.0 vectors; a zero count means ml_dtypes changed.
    for c in ALL_CLASSES {
        assert!(
            per_class.get(&c).copied().unwrap_or(0) > 0,
            "class {c:?} no longer occurs: ml_dtypes behaviour changed? update the classes"
        );
    }
    // Pin a few documented examples exactly (README "Measured ml_dtypes behaviour").
    let f64_idx = |bits: u64| f64_inputs.iter().position(|&c| c == bits);
    if let Some(i) = f64_idx(0x4059_0000_0000_0001) {
        let out = read_codes(&gunzip("f64__f8e4m3fn.bin.gz"), Format::F8E4M3FN);
        assert_eq!(out[i], 0x6C, "ml_dtypes double rounding example");
        let np = convert(
            0x4059_0000_0000_0001,
            Format::F64,
            Format::F8E4M3FN,
            &CastPolicy::new(RoundMode::Rint),
        );
        assert_eq!(np, 0x6D);
    }
    let u8_e8m0 = read_codes(&gunzip("u8__f8e8m0.bin.gz"), Format::F8E8M0);
    assert_eq!(u8_e8m0[3], 0x81, "ml_dtypes: u8 3 -> e8m0 ties up");
    assert_eq!(
        convert(
            3,
            Format::U8,
            Format::F8E8M0,
            &CastPolicy::new(RoundMode::Rint)
        ),
        0x80
    );
    assert_eq!(u8_e8m0[0], 0xFF, "ml_dtypes: 0 -> e8m0 NaN");
    let rint = CastPolicy::new(RoundMode::Rint);
    // (f) NaN → fp6: ml_dtypes flips the sign into a zero, npusim gives +0
    let qnan = f32_inputs
        .iter()
        .position(|&c| c == 0x7FC0_0000)
        .expect("qNaN");
    let e2m3 = read_codes(&gunzip("f32__f6e2m3fn.bin.gz"), Format::F6E2M3FN);
    assert_eq!(e2m3[qnan], 0x20, "ml_dtypes: +NaN -> fp6 -0");
    assert_eq!(
        convert(0x7FC0_0000, Format::F32, Format::F6E2M3FN, &rint),
        0x00
    );
    // (g) the fnuz NaN 0x80: ml_dtypes a negative NaN, npusim the positive quiet NaN
    let fnuz = read_codes(&gunzip("f8e4m3fnuz__f32.bin.gz"), Format::F32);
    assert_eq!(fnuz[0x80], 0xFFC0_0000, "ml_dtypes: fnuz NaN -> -NaN");
    assert_eq!(
        convert(0x80, Format::F8E4M3FNUZ, Format::F32, &rint),
        0x7FC0_0000
    );
    // and the other way every NaN is 0x80 in both, and -0 / tiny negatives are +0
    let to_fnuz = read_codes(&gunzip("f32__f8e4m3fnuz.bin.gz"), Format::F8E4M3FNUZ);
    let neg_zero = f32_inputs
        .iter()
        .position(|&c| c == 0x8000_0000)
        .expect("-0");
    let neg_nan = f32_inputs
        .iter()
        .position(|&c| c == 0xFFC0_0000)
        .expect("-NaN");
    assert_eq!((to_fnuz[neg_zero], to_fnuz[neg_nan]), (0x00, 0x80));
    // (h) f32 -1.0 → u2: ml_dtypes wraps to 3, npusim saturates to 0
    let minus_one = f32_inputs
        .iter()
        .position(|&c| c == 0xBF80_0000)
        .expect("-1");
    let u2 = read_codes(&gunzip("f32__u2.bin.gz"), Format::U2);
    assert_eq!(u2[minus_one], 3, "ml_dtypes: -1.0 -> u2 wraps");
    assert_eq!(convert(0xBF80_0000, Format::F32, Format::U2, &rint), 0);
    // (d) u64 2^40 + 2^32 + 1 → bf16: through f32 it is the tie 2^40 + 2^32, which rounds to
    // even 2^40 (0x5380); rounded once it is above the tie: 2^40 + 2^33 (0x5381)
    let big = (1u64 << 40) + (1 << 32) + 1;
    let i = u64_inputs
        .iter()
        .position(|&c| c == big)
        .expect("u64 bf16 tie + 1");
    let bf16 = read_codes(&gunzip("u64__bf16.bin.gz"), Format::BF16);
    assert_eq!(bf16[i], 0x5380, "ml_dtypes: u64 -> bf16 through f32");
    assert_eq!(convert(big, Format::U64, Format::BF16, &rint), 0x5381);
}
