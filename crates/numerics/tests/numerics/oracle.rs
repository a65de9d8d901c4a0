//! Independent reference model ("oracle") for npusim-numerics casts.
//!
//! Written from the written specification of the formats and rounding rules only, never from
//! the library's `round.rs`, `convert.rs` or `encoding/*`. Nothing here shares bit tricks with
//! the library: float destinations of at most 16 bits are rounded by listing *every* value of
//! the destination, sorting them and picking a neighbour; 32/64-bit float destinations use the
//! exact value (when it is representable) or `rustc_apfloat`; integer destinations use f64 /
//! i128 arithmetic.
//!
//! Shared by several test modules of this program (each uses it as `crate::oracle`), so not
//! every item is used.
#![allow(dead_code)]

use std::cmp::Ordering;
use std::sync::OnceLock;

use npusim_numerics::{CastPolicy, Format, RoundMode};
use rustc_apfloat::ieee::{Double, Single};
use rustc_apfloat::{Float, FloatConvert, Round, Status};

// ---------------------------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------------------------

/// The exact value of a code, as the oracle sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Val {
    /// Not a number. `payload` is the mantissa field left-aligned in 64 bits (0 for e8m0 and
    /// hif8, which have no mantissa field in their NaN code); `None` when unknown.
    Nan { neg: bool, payload: Option<u64> },
    /// ±Infinity.
    Inf { neg: bool },
    /// A finite value equal to `hi + lo` exactly. `lo` is 0 except for 64-bit integers that do
    /// not fit 53 bits. The sign of a zero is the sign of `hi`.
    Fin { hi: f64, lo: f64 },
}

impl Val {
    pub fn fin(v: f64) -> Val {
        Val::Fin { hi: v, lo: 0.0 }
    }

    /// Whether the value is negative (sign bit for zeros and NaNs).
    pub fn neg(&self) -> bool {
        match *self {
            Val::Nan { neg, .. } | Val::Inf { neg } => neg,
            Val::Fin { hi, lo } => {
                if hi == 0.0 && lo == 0.0 {
                    hi.is_sign_negative()
                } else {
                    hi < 0.0 || (hi == 0.0 && lo < 0.0)
                }
            }
        }
    }

    /// Exact comparison of a finite value with an f64.
    pub fn cmp_f64(&self, v: f64) -> Ordering {
        match *self {
            Val::Fin { hi, lo } => match hi.partial_cmp(&v).expect("finite") {
                Ordering::Equal => lo.partial_cmp(&0.0).expect("finite"),
                o => o,
            },
            _ => panic!("cmp_f64 on a non-finite value"),
        }
    }
}

/// 2^k exactly, for -1074 <= k <= 1023.
pub fn pow2(k: i32) -> f64 {
    assert!((-1074..=1023).contains(&k), "pow2({k})");
    if k >= -1022 {
        f64::from_bits(((k + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (k + 1074))
    }
}

/// Storage width of a format (hard-coded from the spec, not read from the library).
pub fn width(f: Format) -> u32 {
    use Format::*;
    match f {
        F64 | I64 | U64 => 64,
        F32 | I32 | U32 => 32,
        F16 | BF16 | I16 | U16 => 16,
        F8E4M3FN | F8E4M3 | F8E4M3FNUZ | F8E5M2 | F8E5M2FNUZ | F8E4M3B11FNUZ | F8E3M4 | F8E8M0
        | HiF8 | I8 | U8 => 8,
        F6E2M3FN | F6E3M2FN => 6,
        F4E2M1 | F4E1M2 | I4 | U4 => 4,
        I2 | U2 => 2,
    }
}

pub fn mask(f: Format) -> u64 {
    let w = width(f);
    if w == 64 { u64::MAX } else { (1u64 << w) - 1 }
}

pub fn is_int(f: Format) -> bool {
    use Format::*;
    matches!(
        f,
        I2 | I4 | I8 | I16 | I32 | I64 | U2 | U4 | U8 | U16 | U32 | U64
    )
}

pub fn int_signed(f: Format) -> bool {
    use Format::*;
    matches!(f, I2 | I4 | I8 | I16 | I32 | I64)
}

/// Every format of the library, in table order, filtered by the oracle's own width table (the
/// list of formats comes from the library; everything about them from the oracle).
pub fn formats_up_to(bits: u32) -> Vec<Format> {
    Format::ALL
        .into_iter()
        .filter(|&f| width(f) <= bits)
        .collect()
}

/// (exponent bits, mantissa bits, bias) of the IEEE-with-Inf formats.
pub fn ieee_params(f: Format) -> Option<(u32, u32, i32)> {
    use Format::*;
    match f {
        F64 => Some((11, 52, 1023)),
        F32 => Some((8, 23, 127)),
        F16 => Some((5, 10, 15)),
        BF16 => Some((8, 7, 127)),
        F8E5M2 => Some((5, 2, 15)),
        F8E4M3 => Some((4, 3, 7)),
        F8E3M4 => Some((3, 4, 3)),
        _ => None,
    }
}

/// Which codes of a sign / exponent / mantissa format are special (from the format definitions).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Style {
    /// IEEE: all-ones exponent is ±Inf (mantissa 0) or NaN.
    Ieee,
    /// "fn" (e4m3fn): no Inf; NaN only when exponent and mantissa are all ones.
    Fn,
    /// "fnuz" (e4m3fnuz, e5m2fnuz, e4m3b11fnuz): no Inf, no -0; the code of -0 (sign bit
    /// alone, 0x80) is the only NaN. Every other code, all-ones exponent included, is finite.
    Fnuz,
    /// fp6/fp4 "fn": every code is finite.
    Finite,
}

/// sign / exponent / mantissa decode, with the special codes of `style`.
fn decode_sem(code: u64, e: u32, m: u32, bias: i32, style: Style) -> Val {
    let neg = (code >> (e + m)) & 1 == 1;
    let ex = (code >> m) & ((1u64 << e) - 1);
    let man = code & ((1u64 << m) - 1);
    let all_e = (1u64 << e) - 1;
    let nan = Val::Nan {
        neg,
        // the mantissa field is the payload
        payload: Some(man << (64 - m)),
    };
    match style {
        Style::Ieee if ex == all_e => return if man == 0 { Val::Inf { neg } } else { nan },
        Style::Fn if ex == all_e && man == (1u64 << m) - 1 => return nan,
        // The NaN's sign bit is what makes it a NaN: like hif8's 0x80 it has no sign of its own,
        // and no mantissa field. Treated as an unsigned (positive) NaN without payload bits.
        Style::Fnuz if code == 1u64 << (e + m) => {
            return Val::Nan {
                neg: false,
                payload: Some(0),
            };
        }
        // every other code is a number (fnuz: the all-ones exponent too; fp6: every code)
        _ => {}
    }
    let mag = if ex == 0 {
        man as f64 * pow2(1 - bias - m as i32)
    } else {
        ((1u64 << m) + man) as f64 * pow2(ex as i32 - bias - m as i32)
    };
    Val::fin(if neg { -mag } else { mag })
}

/// HiFloat8 magnitude of a positive code 0x01..=0x7F except 0x6F (from the spec's table).
fn hif8_mag(c: u64) -> f64 {
    let c = c as i32;
    let m8 = |base: f64, m: i32| base * (1.0 + m as f64 / 8.0);
    match c {
        0x01..=0x07 => pow2(c - 23),
        0x08..=0x0F => m8(1.0, c - 0x08),
        0x10..=0x17 => m8(2.0, c - 0x10),
        0x18..=0x1F => m8(0.5, c - 0x18),
        0x20..=0x27 => m8(4.0, c - 0x20),
        0x28..=0x2F => m8(8.0, c - 0x28),
        0x30..=0x37 => m8(0.25, c - 0x30),
        0x38..=0x3F => m8(0.125, c - 0x38),
        0x40..=0x4F => {
            let i = c - 0x40;
            pow2(4 + i / 4) * (1.0 + (i % 4) as f64 / 4.0)
        }
        0x50..=0x5F => {
            let i = c - 0x50;
            pow2(-4 - i / 4) * (1.0 + (i % 4) as f64 / 4.0)
        }
        0x60..=0x6E => {
            let i = c - 0x60;
            pow2(8 + i / 2) * (1.0 + (i % 2) as f64 / 2.0)
        }
        0x70..=0x7F => {
            let i = c - 0x70;
            pow2(-8 - i / 2) * (1.0 + (i % 2) as f64 / 2.0)
        }
        _ => unreachable!("hif8 code {c:#x}"),
    }
}

const E2M1: [f64; 8] = [0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 6.0];
const E1M2: [f64; 8] = [0.0, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75];

/// The oracle's own decoder: the exact value of the low `width(f)` bits of `code`.
pub fn decode(f: Format, code: u64) -> Val {
    use Format::*;
    let code = code & mask(f);
    match f {
        F64 => decode_sem(code, 11, 52, 1023, Style::Ieee),
        F32 => decode_sem(code, 8, 23, 127, Style::Ieee),
        F16 => decode_sem(code, 5, 10, 15, Style::Ieee),
        BF16 => decode_sem(code, 8, 7, 127, Style::Ieee),
        F8E5M2 => decode_sem(code, 5, 2, 15, Style::Ieee),
        F8E4M3 => decode_sem(code, 4, 3, 7, Style::Ieee),
        F8E3M4 => decode_sem(code, 3, 4, 3, Style::Ieee),
        F8E4M3FN => decode_sem(code, 4, 3, 7, Style::Fn),
        F8E4M3FNUZ => decode_sem(code, 4, 3, 8, Style::Fnuz),
        F8E5M2FNUZ => decode_sem(code, 5, 2, 16, Style::Fnuz),
        F8E4M3B11FNUZ => decode_sem(code, 4, 3, 11, Style::Fnuz),
        F6E2M3FN => decode_sem(code, 2, 3, 1, Style::Finite),
        F6E3M2FN => decode_sem(code, 3, 2, 3, Style::Finite),
        F8E8M0 => {
            if code == 0xFF {
                // no sign and no mantissa field: an unsigned NaN without payload bits
                Val::Nan {
                    neg: false,
                    payload: Some(0),
                }
            } else {
                Val::fin(pow2(code as i32 - 127))
            }
        }
        HiF8 => match code {
            0x00 => Val::fin(0.0),
            // The spec lists 0x80 as "NaN" without a sign (0x80|c is negative only for the
            // non-zero magnitudes c): like e8m0's NaN it is treated as an unsigned, positive NaN.
            0x80 => Val::Nan {
                neg: false,
                payload: Some(0),
            },
            0x6F => Val::Inf { neg: false },
            0xEF => Val::Inf { neg: true },
            c if c & 0x80 != 0 => Val::fin(-hif8_mag(c & 0x7F)),
            c => Val::fin(hif8_mag(c)),
        },
        F4E2M1 | F4E1M2 => {
            let t = if f == F4E2M1 { &E2M1 } else { &E1M2 };
            let mag = t[(code & 7) as usize];
            Val::fin(if code & 8 != 0 { -mag } else { mag })
        }
        I2 | I4 | I8 | I16 | I32 | I64 => {
            let w = width(f);
            let v = ((code << (64 - w)) as i64) >> (64 - w);
            from_i128(v as i128)
        }
        U2 | U4 | U8 | U16 | U32 | U64 => from_i128(code as i128),
    }
}

/// An integer as `hi + lo` (exact for |v| < 2^106).
pub fn from_i128(v: i128) -> Val {
    let hi = v as f64;
    if hi.abs() >= 1.7e38 {
        panic!("from_i128 out of range");
    }
    let lo = (v - hi as i128) as f64;
    debug_assert_eq!(hi as i128 + lo as i128, v);
    Val::Fin { hi, lo }
}

// ---------------------------------------------------------------------------------------------
// Policies and modes
// ---------------------------------------------------------------------------------------------

/// The three policies under test.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pol {
    /// `CastPolicy::new`: IEEE floats, integers saturate.
    Ieee,
    /// `CastPolicy::saturating`: float overflow and ±Inf clamp, integers clamp.
    Sat,
    /// `CastPolicy::non_saturating`: IEEE floats, integers wrap.
    Wrap,
}

pub const POLS: [Pol; 3] = [Pol::Ieee, Pol::Sat, Pol::Wrap];

impl Pol {
    pub fn policy(self, m: RoundMode) -> CastPolicy {
        match self {
            Pol::Ieee => CastPolicy::new(m),
            Pol::Sat => CastPolicy::saturating(m),
            Pol::Wrap => CastPolicy::non_saturating(m),
        }
    }
    fn float_sat(self) -> bool {
        self == Pol::Sat
    }
    fn int_wrap(self) -> bool {
        self == Pol::Wrap
    }
}

/// The deterministic modes under test (`None` is expected to behave as `Rint`).
pub const MODES: [RoundMode; 7] = [
    RoundMode::Rint,
    RoundMode::Round,
    RoundMode::Floor,
    RoundMode::Ceil,
    RoundMode::Trunc,
    RoundMode::Odd,
    RoundMode::None,
];

/// The rustc_apfloat rounding that equals a mode (`Odd` is derived from `TowardZero`).
pub fn apfloat_round(m: RoundMode) -> Round {
    match m {
        RoundMode::Rint | RoundMode::None => Round::NearestTiesToEven,
        RoundMode::Round => Round::NearestTiesToAway,
        RoundMode::Floor => Round::TowardNegative,
        RoundMode::Ceil => Round::TowardPositive,
        RoundMode::Trunc | RoundMode::Odd => Round::TowardZero,
        RoundMode::Hybrid => panic!("hybrid is not deterministic"),
    }
}

// ---------------------------------------------------------------------------------------------
// Destination tables (float formats of at most 16 bits)
// ---------------------------------------------------------------------------------------------

/// Every finite value of a small float format, sorted, with the two virtual values beyond ±max.
pub struct Table {
    pub fmt: Format,
    /// (value, code, is_virtual) sorted by value; one entry for zero (+0's code).
    pub entries: Vec<(f64, u64, bool)>,
    pub virt: f64,
    pub max_code: u64,
    /// Code of -max (None for e8m0).
    pub neg_max_code: Option<u64>,
    /// Code of the negative zero, if the format has one.
    pub neg_zero: Option<u64>,
    pub pos_zero: Option<u64>,
}

/// The value one step above max, per the spec ("max + ulp(max)").
fn virtual_value(f: Format) -> f64 {
    use Format::*;
    match f {
        F16 => 65536.0,
        BF16 => pow2(128 - 1) * 2.0,
        F8E4M3FN => 480.0,
        F8E5M2 => 65536.0,
        // max 1.875·2^7 = 240 (e4m3: exponent 0b1110, bias 7; e4m3fnuz: 0b1111, bias 8)
        F8E4M3 | F8E4M3FNUZ => 256.0,
        F8E5M2FNUZ => 65536.0, // max 1.75·2^15 = 57344
        F8E4M3B11FNUZ => 32.0, // max 1.875·2^4 = 30
        F8E3M4 => 16.0,        // max 1.9375·2^3 = 15.5
        F6E2M3FN => 8.0,       // max 1.875·2^2 = 7.5
        F6E3M2FN => 32.0,      // max 1.75·2^4 = 28
        F8E8M0 => pow2(127) * 2.0,
        HiF8 => 49152.0,
        F4E2M1 => 8.0,
        F4E1M2 => 2.0,
        _ => panic!("no table for {f}"),
    }
}

fn build_table(f: Format) -> Table {
    assert!(!is_int(f) && width(f) <= 16);
    let mut entries = Vec::new();
    let mut neg_zero = None;
    let mut pos_zero = None;
    for code in 0..=mask(f) {
        if let Val::Fin { hi, lo } = decode(f, code) {
            assert_eq!(lo, 0.0);
            if hi == 0.0 {
                if hi.is_sign_negative() {
                    neg_zero = Some(code);
                    continue;
                }
                pos_zero = Some(code);
            }
            entries.push((hi, code, false));
        }
    }
    entries.sort_by(|a, b| a.0.partial_cmp(&b.0).expect("finite"));
    for w in entries.windows(2) {
        assert!(w[0].0 < w[1].0, "{f}: duplicate value {}", w[0].0);
    }
    let (max, max_code, _) = *entries.last().expect("nonempty");
    let virt = virtual_value(f);
    assert!(virt > max);
    let signed = entries[0].0 < 0.0;
    let neg_max_code = if signed {
        let (min, c, _) = entries[0];
        assert_eq!(min, -max, "{f}: asymmetric");
        Some(c)
    } else {
        None
    };
    if let Some(c) = neg_max_code {
        entries.insert(0, (-virt, c + 1, true));
    }
    entries.push((virt, max_code + 1, true));
    Table {
        fmt: f,
        entries,
        virt,
        max_code,
        neg_max_code,
        neg_zero,
        pos_zero,
    }
}

pub fn table(f: Format) -> &'static Table {
    static TABLES: OnceLock<Vec<Table>> = OnceLock::new();
    let all = TABLES.get_or_init(|| small_floats().into_iter().map(build_table).collect());
    all.iter().find(|t| t.fmt == f).expect("small float")
}

/// Float formats of at most 16 bits (those the brute-force tables cover), in table order.
pub fn small_floats() -> Vec<Format> {
    formats_up_to(16)
        .into_iter()
        .filter(|&f| !is_int(f))
        .collect()
}

/// Whether a format is one of [`small_floats`].
pub fn is_small_float(f: Format) -> bool {
    !is_int(f) && width(f) <= 16
}

impl Table {
    fn max(&self, neg: bool) -> u64 {
        if neg {
            self.neg_max_code.expect("signed format")
        } else {
            self.max_code
        }
    }

    fn zero(&self, neg: bool) -> u64 {
        match self.fmt {
            Format::F8E8M0 => 0x00, // no zero: the smallest scale 2^-127
            Format::HiF8 => 0x00,
            // fnuz: no -0, a negative value that rounds to zero gives +0
            Format::F8E4M3FNUZ | Format::F8E5M2FNUZ | Format::F8E4M3B11FNUZ => {
                assert!(self.neg_zero.is_none());
                self.pos_zero.expect("+0")
            }
            _ => {
                if neg {
                    self.neg_zero.expect("-0")
                } else {
                    self.pos_zero.expect("+0")
                }
            }
        }
    }

    /// What an overflowing value becomes under IEEE rules: ±Inf, else NaN, else ±max.
    fn ovf(&self, neg: bool) -> u64 {
        let s = |c: u64, sign: u64| if neg { c | sign } else { c };
        match self.fmt {
            Format::F16 => s(0x7C00, 0x8000),
            Format::BF16 => s(0x7F80, 0x8000),
            Format::F8E5M2 => s(0x7C, 0x80),
            Format::F8E4M3 => s(0x78, 0x80), // S.1111.000
            Format::F8E3M4 => s(0x70, 0x80), // S.111.0000
            Format::HiF8 => s(0x6F, 0x80),
            Format::F8E4M3FN => s(0x7F, 0x80),
            // fnuz: no Inf; the one NaN, whatever the sign
            Format::F8E4M3FNUZ | Format::F8E5M2FNUZ | Format::F8E4M3B11FNUZ => 0x80,
            Format::F8E8M0 => 0xFF,
            Format::F4E2M1 | Format::F4E1M2 | Format::F6E2M3FN | Format::F6E3M2FN => self.max(neg),
            f => panic!("{f}"),
        }
    }

    fn overflow(&self, mode: RoundMode, neg: bool, pol: Pol) -> u64 {
        if pol.float_sat() {
            return self.max(neg);
        }
        match mode {
            RoundMode::Trunc | RoundMode::Odd => self.max(neg),
            RoundMode::Floor => {
                if neg {
                    self.ovf(true)
                } else {
                    self.max(false)
                }
            }
            RoundMode::Ceil => {
                if neg {
                    self.max(true)
                } else {
                    self.ovf(false)
                }
            }
            _ => self.ovf(neg),
        }
    }

    /// Rounds a finite value by neighbour search.
    pub fn round(&self, x: Val, mode: RoundMode, pol: Pol) -> u64 {
        self.pick(&self.locate(x), mode, pol)
    }

    /// Where a finite value falls among the destination's values (independent of the mode).
    pub fn locate(&self, x: Val) -> Loc {
        let Val::Fin { hi, lo } = x else {
            panic!("finite only")
        };
        let neg = x.neg();
        if hi == 0.0 && lo == 0.0 {
            return Loc::Fixed(self.zero(neg));
        }
        if self.fmt == Format::F8E8M0 {
            if neg {
                return Loc::Fixed(0xFF);
            }
            if x.cmp_f64(pow2(-127)) == Ordering::Less {
                return Loc::Fixed(0x00);
            }
        }
        if x.cmp_f64(self.virt) != Ordering::Less || x.cmp_f64(-self.virt) != Ordering::Greater {
            return Loc::Overflow { neg };
        }
        let e = &self.entries;
        let i = e.partition_point(|&(v, _, _)| x.cmp_f64(v) == Ordering::Greater);
        assert!(i < e.len(), "{}: {x:?} outside the table", self.fmt);
        if x.cmp_f64(e[i].0) == Ordering::Equal {
            let (v, c, virt) = e[i];
            assert!(!virt);
            return Loc::Fixed(if v == 0.0 { self.zero(neg) } else { c });
        }
        assert!(i > 0, "{}: {x:?} below the table", self.fmt);
        let lo_e = e[i - 1];
        let hi_e = e[i];
        assert!(
            (lo_e.1 & 1) != (hi_e.1 & 1),
            "{}: neighbours {:#x} {:#x} have the same code parity",
            self.fmt,
            lo_e.1,
            hi_e.1
        );
        let mid = (lo_e.0 + hi_e.0) / 2.0;
        assert!(mid > lo_e.0 && mid < hi_e.0, "midpoint not exact");
        Loc::Between {
            lo: lo_e,
            hi: hi_e,
            vs_mid: x.cmp_f64(mid),
            neg,
        }
    }

    /// Applies a mode and policy to a located value.
    pub fn pick(&self, loc: &Loc, mode: RoundMode, pol: Pol) -> u64 {
        let (lo_e, hi_e, vs_mid, neg) = match *loc {
            Loc::Fixed(c) => return c,
            Loc::Overflow { neg } => return self.overflow(mode, neg, pol),
            Loc::Between {
                lo,
                hi,
                vs_mid,
                neg,
            } => (lo, hi, vs_mid, neg),
        };
        let (even, odd) = if lo_e.1 & 1 == 0 {
            (lo_e, hi_e)
        } else {
            (hi_e, lo_e)
        };
        let chosen = match mode {
            RoundMode::Rint | RoundMode::None => match vs_mid {
                Ordering::Less => lo_e,
                Ordering::Greater => hi_e,
                Ordering::Equal => even,
            },
            RoundMode::Round => match vs_mid {
                Ordering::Less => lo_e,
                Ordering::Greater => hi_e,
                Ordering::Equal => {
                    if neg {
                        lo_e
                    } else {
                        hi_e
                    }
                }
            },
            RoundMode::Floor => lo_e,
            RoundMode::Ceil => hi_e,
            RoundMode::Trunc => {
                if neg {
                    hi_e
                } else {
                    lo_e
                }
            }
            RoundMode::Odd => odd,
            RoundMode::Hybrid => panic!("hybrid"),
        };
        if chosen.2 {
            return self.overflow(mode, neg, pol);
        }
        if chosen.0 == 0.0 {
            self.zero(neg)
        } else {
            chosen.1
        }
    }
}

/// Where a finite value falls in a destination table.
#[derive(Clone, Copy, Debug)]
pub enum Loc {
    /// The result does not depend on the mode or policy (exact, zero, e8m0 specials).
    Fixed(u64),
    /// At or beyond the virtual value above max.
    Overflow { neg: bool },
    /// Strictly between two adjacent entries (either may be virtual).
    Between {
        lo: (f64, u64, bool),
        hi: (f64, u64, bool),
        vs_mid: Ordering,
        neg: bool,
    },
}

// ---------------------------------------------------------------------------------------------
// The expected result of a cast
// ---------------------------------------------------------------------------------------------

/// What a conversion must produce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expect {
    /// Exactly this code.
    Code(u64),
    /// A NaN of an IEEE-style destination with this sign and, when known, this exact code
    /// (quiet bit set, top payload bits kept).
    Nan { neg: bool, code: Option<u64> },
}

/// How a library result compares with an expectation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Ok,
    /// A NaN of the right sign whose payload differs from the expected payload.
    NanPayload,
    Wrong,
}

impl Expect {
    pub fn check(&self, dst: Format, got: u64) -> Verdict {
        match *self {
            Expect::Code(c) => {
                if c == got {
                    Verdict::Ok
                } else {
                    Verdict::Wrong
                }
            }
            Expect::Nan { neg, code } => match decode(dst, got) {
                Val::Nan { neg: n, .. } if n == neg => match code {
                    Some(c) if c != got => Verdict::NanPayload,
                    _ => Verdict::Ok,
                },
                _ => Verdict::Wrong,
            },
        }
    }
}

/// A NaN of an IEEE destination (f64 f32 f16 bf16 e5m2).
fn ieee_nan(dst: Format, neg: bool, payload: Option<u64>) -> Expect {
    let (e, m, _) = ieee_params(dst).expect("ieee dst");
    let sign = if neg { 1u64 << (e + m) } else { 0 };
    let exp = ((1u64 << e) - 1) << m;
    let code = payload.map(|p| sign | exp | (p >> (64 - m)) | (1u64 << (m - 1)));
    Expect::Nan { neg, code }
}

fn ieee_inf(dst: Format, neg: bool) -> u64 {
    let (e, m, _) = ieee_params(dst).expect("ieee dst");
    let sign = if neg { 1u64 << (e + m) } else { 0 };
    sign | (((1u64 << e) - 1) << m)
}

fn int_range(dst: Format) -> (i128, i128) {
    let w = width(dst);
    if int_signed(dst) {
        (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1)
    } else {
        (0, (1i128 << w) - 1)
    }
}

fn int_code(dst: Format, v: i128) -> u64 {
    (v as u64) & mask(dst)
}

/// Rounds an f64 to an integer-valued f64 under a mode.
pub fn round_to_int(x: f64, mode: RoundMode) -> f64 {
    match mode {
        RoundMode::Rint | RoundMode::None => x.round_ties_even(),
        RoundMode::Round => x.round(),
        RoundMode::Floor => x.floor(),
        RoundMode::Ceil => x.ceil(),
        RoundMode::Trunc => x.trunc(),
        RoundMode::Odd => {
            if x.fract() == 0.0 {
                x
            } else {
                let f = x.floor();
                if (f as i64) & 1 != 0 { f } else { f + 1.0 }
            }
        }
        RoundMode::Hybrid => panic!("hybrid"),
    }
}

/// Low 64 bits of the two's complement of an integer-valued f64 of any size.
fn f64_int_low_bits(r: f64) -> u64 {
    if r.abs() < 1.0e30 {
        return (r as i128) as u64;
    }
    let bits = r.abs().to_bits();
    let e = ((bits >> 52) & 0x7FF) as i32 - 1075;
    let m = (bits & ((1u64 << 52) - 1)) | (1u64 << 52);
    assert!(e > 0);
    let mag = if e >= 64 { 0 } else { m.wrapping_shl(e as u32) };
    if r < 0.0 { mag.wrapping_neg() } else { mag }
}

fn int_expect(x: Val, dst: Format, mode: RoundMode, pol: Pol) -> u64 {
    let (min, max) = int_range(dst);
    match x {
        Val::Nan { .. } => 0,
        Val::Inf { neg } => int_code(dst, if neg { min } else { max }),
        Val::Fin { hi, lo } => {
            if lo != 0.0 {
                // a 64-bit integer source: already an integer
                let v = hi as i128 + lo as i128;
                return if pol.int_wrap() {
                    int_code(dst, v)
                } else {
                    int_code(dst, v.clamp(min, max))
                };
            }
            let r = round_to_int(hi, mode);
            if pol.int_wrap() {
                f64_int_low_bits(r) & mask(dst)
            } else if r.abs() >= 1.0e30 {
                int_code(dst, if r < 0.0 { min } else { max })
            } else {
                int_code(dst, (r as i128).clamp(min, max))
            }
        }
    }
}

/// Rounds a finite value to f32/f64 with rustc_apfloat, then applies the policy.
fn wide_float_expect(x: Val, dst: Format, mode: RoundMode, pol: Pol) -> u64 {
    let Val::Fin { hi, lo } = x else {
        panic!("finite")
    };
    let round = apfloat_round(mode);
    let (bits, status) = if dst == Format::F64 {
        let r = if lo != 0.0 {
            Double::from_i128_r(hi as i128 + lo as i128, round)
        } else {
            rustc_apfloat::StatusAnd {
                status: Status::OK,
                value: Double::from_bits(hi.to_bits() as u128),
            }
        };
        (r.value.to_bits() as u64, r.status)
    } else {
        let r = if lo != 0.0 {
            Single::from_i128_r(hi as i128 + lo as i128, round)
        } else {
            let mut loses = false;
            let d = Double::from_bits(hi.to_bits() as u128);
            FloatConvert::<Single>::convert_r(d, round, &mut loses)
        };
        (r.value.to_bits() as u64, r.status)
    };
    let inexact = status.contains(Status::INEXACT);
    let (sign, inf, max) = if dst == Format::F64 {
        (
            1u64 << 63,
            0x7FF0_0000_0000_0000u64,
            0x7FEF_FFFF_FFFF_FFFFu64,
        )
    } else {
        (1u64 << 31, 0x7F80_0000u64, 0x7F7F_FFFFu64)
    };
    let mut code = bits;
    // (apfloat gives zero results the sign of the value.) Round to odd: TowardZero, then set
    // the last bit when inexact; it never reaches Inf because the truncated max is odd.
    if mode == RoundMode::Odd && inexact {
        code |= 1;
    }
    if pol.float_sat() && (code & !sign) == inf {
        code = (code & sign) | max;
    }
    code
}

/// The oracle: what `convert(code of x, src, dst, policy(mode))` must return.
pub fn expect(x: Val, dst: Format, mode: RoundMode, pol: Pol) -> Expect {
    use Format::*;
    if is_int(dst) {
        return Expect::Code(int_expect(x, dst, mode, pol));
    }
    match x {
        Val::Nan { neg, payload } => match dst {
            F64 | F32 | F16 | BF16 | F8E5M2 | F8E4M3 | F8E3M4 => ieee_nan(dst, neg, payload),
            F8E4M3FN => Expect::Code(if neg { 0xFF } else { 0x7F }),
            // fnuz: the one NaN code, whatever the sign
            F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ => Expect::Code(0x80),
            HiF8 => Expect::Code(0x80),
            F8E8M0 => Expect::Code(0xFF),
            // no NaN in the format: +0
            F4E2M1 | F4E1M2 | F6E2M3FN | F6E3M2FN => Expect::Code(0x0),
            I2 | I4 | I8 | I16 | I32 | I64 | U2 | U4 | U8 | U16 | U32 | U64 => unreachable!(),
        },
        Val::Inf { neg } => {
            let sat = pol.float_sat();
            let code = match dst {
                F64 | F32 | F16 | BF16 | F8E5M2 | F8E4M3 | F8E3M4 => {
                    if sat {
                        max_code_of(dst, neg)
                    } else {
                        ieee_inf(dst, neg)
                    }
                }
                // no Inf: like an overflow (NaN), or ±max when saturating
                F8E4M3FN | F8E4M3FNUZ | F8E5M2FNUZ | F8E4M3B11FNUZ => {
                    if sat {
                        table(dst).max(neg)
                    } else {
                        table(dst).ovf(neg)
                    }
                }
                F4E2M1 | F4E1M2 | F6E2M3FN | F6E3M2FN => table(dst).max(neg),
                HiF8 => match (neg, sat) {
                    (false, false) => 0x6F,
                    (true, false) => 0xEF,
                    (false, true) => 0x6E,
                    (true, true) => 0xEE,
                },
                F8E8M0 => {
                    if neg || !sat {
                        0xFF
                    } else {
                        0xFE
                    }
                }
                I2 | I4 | I8 | I16 | I32 | I64 | U2 | U4 | U8 | U16 | U32 | U64 => unreachable!(),
            };
            Expect::Code(code)
        }
        Val::Fin { hi, lo } => match dst {
            // Representable values convert exactly whatever the mode: `as` is exact then.
            F64 if lo == 0.0 => Expect::Code(hi.to_bits()),
            F32 if lo == 0.0 && f64::from(hi as f32) == hi => {
                Expect::Code(u64::from((hi as f32).to_bits()))
            }
            F64 | F32 => Expect::Code(wide_float_expect(x, dst, mode, pol)),
            _ => Expect::Code(table(dst).round(x, mode, pol)),
        },
    }
}

/// `expect` for every policy (outer, `POLS` order) and mode (inner, `MODES` order); the
/// neighbour search of a table destination is done once.
pub fn expect_all(x: Val, dst: Format) -> [[Expect; 7]; 3] {
    let mut out = [[Expect::Code(0); 7]; 3];
    if matches!(x, Val::Fin { .. }) && is_small_float(dst) {
        let t = table(dst);
        let loc = t.locate(x);
        for (p, pol) in POLS.iter().enumerate() {
            for (m, mode) in MODES.iter().enumerate() {
                out[p][m] = Expect::Code(t.pick(&loc, *mode, *pol));
            }
        }
    } else if matches!(x, Val::Fin { .. }) && matches!(dst, Format::F32 | Format::F64) {
        // rounding does not depend on the policy; only saturation of an overflow does
        for (m, mode) in MODES.iter().enumerate() {
            let ieee = expect(x, dst, *mode, Pol::Ieee);
            let Expect::Code(c) = ieee else {
                unreachable!()
            };
            let sign = 1u64 << (width(dst) - 1);
            let sat = if (c & !sign) == ieee_inf(dst, false) {
                Expect::Code(max_code_of(dst, c & sign != 0))
            } else {
                ieee
            };
            out[0][m] = ieee;
            out[1][m] = sat;
            out[2][m] = ieee;
        }
        debug_assert_eq!(POLS, [Pol::Ieee, Pol::Sat, Pol::Wrap]);
    } else {
        for (p, pol) in POLS.iter().enumerate() {
            for (m, mode) in MODES.iter().enumerate() {
                out[p][m] = expect(x, dst, *mode, *pol);
            }
        }
    }
    out
}

fn max_code_of(dst: Format, neg: bool) -> u64 {
    match dst {
        Format::F64 => 0x7FEF_FFFF_FFFF_FFFF | if neg { 1 << 63 } else { 0 },
        Format::F32 => 0x7F7F_FFFF | if neg { 1 << 31 } else { 0 },
        f => table(f).max(neg),
    }
}

// ---------------------------------------------------------------------------------------------
// Checking
// ---------------------------------------------------------------------------------------------

/// Tallies of one sweep.
#[derive(Default, Debug)]
pub struct Tally {
    pub checked: u64,
    pub wrong: u64,
    pub nan_payload: u64,
    pub examples: Vec<String>,
    /// Disagreements per "src -> dst (kind)" group.
    pub groups: std::collections::BTreeMap<String, u64>,
}

impl Tally {
    pub fn merge(mut self, other: Tally) -> Tally {
        self.checked += other.checked;
        self.wrong += other.wrong;
        self.nan_payload += other.nan_payload;
        for (k, v) in other.groups {
            *self.groups.entry(k).or_default() += v;
        }
        for e in other.examples {
            if self.examples.len() < 40 {
                self.examples.push(e);
            }
        }
        self
    }

    pub fn record(&mut self, v: Verdict, what: impl FnOnce() -> String) {
        self.record_in(v, "", what)
    }

    pub fn record_in(&mut self, v: Verdict, group: &str, what: impl FnOnce() -> String) {
        self.checked += 1;
        if v != Verdict::Ok && !group.is_empty() {
            let kind = if v == Verdict::NanPayload {
                "NaN payload"
            } else {
                "wrong"
            };
            *self.groups.entry(format!("{group} ({kind})")).or_default() += 1;
        }
        match v {
            Verdict::Ok => {}
            Verdict::NanPayload => {
                self.nan_payload += 1;
                if self.examples.len() < 40 {
                    self.examples.push(format!("NaN payload: {}", what()));
                }
            }
            Verdict::Wrong => {
                self.wrong += 1;
                if self.examples.len() < 40 {
                    self.examples.push(what());
                }
            }
        }
    }

    /// Panics with examples when anything disagreed.
    pub fn assert_clean(&self, name: &str) {
        if self.wrong != 0 || self.nan_payload != 0 {
            let groups: Vec<String> = self
                .groups
                .iter()
                .map(|(k, v)| format!("  {k}: {v}"))
                .collect();
            panic!(
                "{name}: {} wrong, {} NaN-payload differences out of {} checked; by group:\n{}\nfirst ones:\n{}",
                self.wrong,
                self.nan_payload,
                self.checked,
                groups.join("\n"),
                self.examples.join("\n")
            );
        }
    }
}

/// Checks one source code against every destination, deterministic mode and policy
/// (identity casts relaxed as in [`check_code_with`]).
pub fn check_code_all(src: Format, code: u64, dsts: &[Format], tally: &mut Tally) {
    let x = decode(src, code);
    for &dst in dsts {
        // identity casts: see `check_code_with` and the ignored strict identity test
        check_code_with(src, code, x, dst, tally, src == dst);
    }
}

/// Checks one (source code, destination) over every deterministic mode and policy.
pub fn check_code(src: Format, code: u64, x: Val, dst: Format, tally: &mut Tally) {
    check_code_with(src, code, x, dst, tally, false)
}

/// Like [`check_code`]. With `relax_identity` (only for `src == dst`), the two points where
/// the library's identity casts return the code unchanged instead of following the spec are
/// not checked: ±Inf under the saturating policy is skipped, and a NaN only has to be a NaN
/// of the same sign (a signalling NaN is not quieted). The strict version of the identity
/// check is the ignored test `identity_casts_follow_the_spec_strictly`.
pub fn check_code_with(
    src: Format,
    code: u64,
    x: Val,
    dst: Format,
    tally: &mut Tally,
    relax_identity: bool,
) {
    assert!(!relax_identity || src == dst);
    let all = expect_all(x, dst);
    for (p, pol) in POLS.into_iter().enumerate() {
        for (m, mode) in MODES.into_iter().enumerate() {
            let mut want = all[p][m];
            if relax_identity {
                if matches!(x, Val::Inf { .. }) && pol == Pol::Sat {
                    continue;
                }
                if let Expect::Nan { neg, .. } = want {
                    want = Expect::Nan { neg, code: None };
                }
            }
            let got = npusim_numerics::convert(code, src, dst, &pol.policy(mode));
            let v = want.check(dst, got);
            let group = if v == Verdict::Ok {
                String::new()
            } else {
                format!("{src} -> {dst} {}", kind_of(&x))
            };
            tally.record_in(v, &group, || {
                format!(
                    "{src} {code:#x} ({x:?}) -> {dst} mode {mode:?} policy {pol:?}: want {want:x?} got {got:#x}"
                )
            });
        }
    }
}

/// A coarse name of a value's class, for grouping disagreements.
pub fn kind_of(x: &Val) -> &'static str {
    match x {
        Val::Nan { .. } => "NaN",
        Val::Inf { .. } => "Inf",
        Val::Fin { hi, lo } if *hi == 0.0 && *lo == 0.0 => "zero",
        Val::Fin { .. } => "finite",
    }
}

// ---------------------------------------------------------------------------------------------
// PRNG
// ---------------------------------------------------------------------------------------------

/// splitmix64: a fixed-seed generator of our own.
#[derive(Clone)]
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

/// The i-th pseudo-random value of stream `seed` (random access, for parallel chunks).
pub fn rand_at(seed: u64, i: u64) -> u64 {
    let mut s = SplitMix(seed ^ i.wrapping_mul(0xD1B5_4A32_D192_ED03));
    s.next_u64();
    s.next_u64()
}

// ---------------------------------------------------------------------------------------------
// Boundary values
// ---------------------------------------------------------------------------------------------

/// Positive values around which casts change behaviour: for every destination, its max, the
/// virtual value above it, the tie just above max, 1.5·max and 2·max, its smallest values and
/// half / ¾ of the smallest, every value and every tie between adjacent values of the 8- and
/// 4-bit formats, and a sample of those for the 16-bit formats; integer range ends with their
/// half-way points; f32 range ends and f32 ties (for f64 → f32).
pub fn interesting_values() -> Vec<f64> {
    let mut v = vec![
        1.0,
        0.5,
        1.5,
        2.5,
        3.0,
        0.1,
        1.0 / 3.0,
        100.0,
        1000.0,
        1.0e6,
        1.0e10,
        1.0e20,
        1.0e30,
        1.0e-10,
        1.0e-30,
        1.0e-40,
        1.0e-45,
        1.0e300,
        1.0e-300,
    ];
    for f in small_floats() {
        let t = table(f);
        let pos_entries: Vec<(f64, u64)> = t
            .entries
            .iter()
            .filter(|e| !e.2 && e.0 > 0.0)
            .map(|e| (e.0, e.1))
            .collect();
        let pos: Vec<f64> = pos_entries.iter().map(|e| e.0).collect();
        // mantissa field width of the 16-bit formats, for sampling their ties
        let man_bits = match f {
            Format::F16 => 10,
            Format::BF16 => 7,
            _ => 0,
        };
        let max = *pos.last().expect("max");
        let smallest = pos[0];
        v.extend([
            max,
            t.virt,
            (max + t.virt) / 2.0,
            1.5 * max,
            2.0 * max,
            4.0 * max,
            smallest / 2.0,
            smallest * 0.75,
            smallest / 4.0,
            (smallest + pos[1]) / 2.0,
        ]);
        let dense = pos.len() <= 256;
        for (i, w) in pos.windows(2).enumerate() {
            // 16-bit formats: ties whose lower neighbour has mantissa 0, 1, M-1 or M (the
            // largest) in every binade, the first and last 64, and every 29th
            let man = pos_entries[i].1 & ((1u64 << man_bits) - 1);
            let top = (1u64 << man_bits) - 1;
            let keep =
                dense || i < 64 || i + 64 > pos.len() || i % 29 == 0 || man <= 1 || man + 1 >= top;
            if keep {
                v.push(w[0]);
                v.push((w[0] + w[1]) / 2.0);
            }
        }
    }
    for bits in [2u32, 4, 8, 16, 32, 64] {
        let max = pow2(bits as i32 - 1) - 1.0; // (for 64 bits: rounds to 2^63)
        let umax = pow2(bits as i32) - 1.0;
        for m in [max, max + 1.0, umax, umax + 1.0] {
            v.extend([m, m - 0.5, m + 0.5, m + 1.5, m - 1.5]);
        }
    }
    v.extend([
        0.5,
        1.5,
        2.5,
        0.25,
        0.75,
        pow2(63),
        pow2(64),
        pow2(100),
        pow2(1000),
    ]);
    // f32: range ends and ties
    let f32max = f64::from(f32::MAX);
    v.extend([
        f32max,
        pow2(128),
        (f32max + pow2(128)) / 2.0,
        pow2(-126),
        pow2(-149),
        pow2(-150),
        3.0 * pow2(-150),
        pow2(-151),
    ]);
    let mut e = -149;
    while e <= 104 {
        for k in [0u64, 1, (1 << 23) - 2, (1 << 23) - 1] {
            // tie between consecutive f32 values (2^23 + k)·2^e and (2^23 + k + 1)·2^e
            v.push(((1u64 << 23) + k) as f64 * pow2(e) + pow2(e - 1));
        }
        e += 7;
    }
    v.retain(|x| x.is_finite() && *x > 0.0);
    v.sort_by(|a, b| a.partial_cmp(b).expect("finite"));
    v.dedup();
    v
}

/// Source codes of a 32/64-bit float or integer format around the interesting values (both
/// signs, one source ulp either side), plus the special codes.
pub fn boundary_codes(src: Format) -> Vec<u64> {
    let vals = interesting_values();
    let mut out: Vec<u64> = Vec::new();
    match src {
        Format::F32 => {
            for &x in &vals {
                let near = x as f32;
                let mut cs = vec![near.to_bits()];
                if f64::from(near) != x {
                    // both neighbours of an unrepresentable value
                    let b = near.to_bits();
                    cs.extend([b.wrapping_sub(1), b + 1]);
                }
                for c in cs {
                    // (wrapping: below 2^-150 `near` is +0 and its lower neighbour wraps; the
                    // filter drops it)
                    for d in [c.wrapping_sub(1), c, c.wrapping_add(1)] {
                        if d < 0x7F80_0001 {
                            out.extend([u64::from(d), u64::from(d | 0x8000_0000)]);
                        }
                    }
                }
            }
            for c in [
                0u32,
                1,
                2,
                3,
                0x40_0000,
                0x40_0001,
                0x3F_FFFF,
                0x7F_FFFF,
                0x80_0000,
                0x7F80_0000,
                0x7FC0_0000,
                0x7F80_0001,
                0x7FA0_0000,
                0x7FFF_FFFF,
                0x7FC0_0001,
                0x7F81_2345,
                0x7FBF_FFFF,
                0x7F7F_FFFF,
            ] {
                out.extend([u64::from(c), u64::from(c | 0x8000_0000)]);
            }
        }
        Format::F64 => {
            for &x in &vals {
                let b = x.to_bits();
                let f = x as f32;
                let fb = f64::from(f).to_bits();
                for c in [b, fb] {
                    for d in [c.wrapping_sub(1), c, c + 1] {
                        if d < 0x7FF0_0000_0000_0001 {
                            out.extend([d, d | (1 << 63)]);
                        }
                    }
                }
                // one f32 ulp either side
                if f.is_finite() {
                    for g in [f.to_bits().wrapping_sub(1), f.to_bits() + 1] {
                        let y = f64::from(f32::from_bits(g));
                        if y.is_finite() {
                            out.extend([y.to_bits(), (-y).to_bits()]);
                        }
                    }
                }
            }
            for c in [
                0u64,
                1,
                2,
                0x000F_FFFF_FFFF_FFFF,
                0x0010_0000_0000_0000,
                0x7FEF_FFFF_FFFF_FFFF,
                0x7FF0_0000_0000_0000,
                0x7FF8_0000_0000_0000,
                0x7FF0_0000_0000_0001,
                0x7FF4_0000_0000_0000,
                0x7FF7_FFFF_FFFF_FFFF,
                0x7FFF_FFFF_FFFF_FFFF,
                0x7FF8_0000_0000_0001,
                0x7FF8_1234_5678_9ABC,
            ] {
                out.extend([c, c | (1 << 63)]);
            }
        }
        Format::I32 | Format::I64 | Format::U32 | Format::U64 | Format::I16 | Format::U16 => {
            let (min, max) = int_range(src);
            for &x in &vals {
                if x > 1.0e20 {
                    continue;
                }
                for r in [x.floor(), x.ceil()] {
                    let r = r as i128;
                    for d in [r - 1, r, r + 1] {
                        for s in [d, -d] {
                            if (min..=max).contains(&s) {
                                out.push(int_code(src, s));
                            }
                        }
                    }
                }
            }
            for s in [min, min + 1, max, max - 1, 0, 1, -1] {
                if (min..=max).contains(&s) {
                    out.push(int_code(src, s));
                }
            }
            // Large integers at the ties of every float precision p (significand bits, hidden
            // bit included: e8m0 1, e5m2 3, e4m3 and fp6 e2m3 4, e3m4 5, bf16 8, f16 11, f32 24,
            // f64 53): 2^k + 2^(k-p) just above a power of two and 2^(k+1) - 2^(k-p) just below
            // the next one, with one either side, both signs (the ones the f64 `vals` above
            // cannot reach exactly beyond 2^53).
            for p in [1i32, 3, 4, 5, 8, 11, 24, 53] {
                for k in p..64 {
                    let step = 1i128 << (k - p);
                    for t in [(1i128 << k) + step, (1i128 << (k + 1)) - step] {
                        for d in [t - 1, t, t + 1] {
                            for s in [d, -d] {
                                if (min..=max).contains(&s) {
                                    out.push(int_code(src, s));
                                }
                            }
                        }
                    }
                }
            }
        }
        f => panic!("boundary_codes: {f}"),
    }
    out.sort_unstable();
    out.dedup();
    out
}
