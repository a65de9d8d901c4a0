//! Every number format npusim models, as one table of constants.
//!
//! A [`Format`] is a plain enum; everything the rest of the crate needs to know about it
//! (bit width, how its bits encode a value, its aliases) lives in one row of [`FORMATS`].
//! The enum, [`FORMATS`] and [`Format::ALL`] are generated from the rows in `table.rs`, so
//! adding a format is adding one row there, plus its tests.

use std::fmt;
use std::str::FromStr;

use crate::error::NumericsError;
use crate::exact::Exact;

/// Generates [`Format`], [`FORMATS`] and [`Format::ALL`] from one list of rows
/// (`Variant = "name", bits, kind, [aliases], "summary";`).
macro_rules! format_table {
    ($(
        $(#[doc = $doc:literal])*
        $variant:ident = $name:literal, $bits:expr, $kind:expr, [$($alias:literal),* $(,)?], $summary:literal;
    )*) => {
        /// A number format: how a code of `bits()` bits stands for a value.
        ///
        /// ```
        /// use npusim_numerics::Format;
        /// let f: Format = "fp8_e4m3fn_t".parse().unwrap();
        /// assert_eq!(f, Format::F8E4M3FN);
        /// assert_eq!(f.to_string(), "f8e4m3fn");
        /// assert_eq!(f.bits(), 8);
        /// assert_eq!(f.max_finite(), 448.0);
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Format {
            $( $(#[doc = $doc])* $variant, )*
        }

        const COUNT: usize = [$(stringify!($variant)),*].len();

        /// The format table, in display order (the order of [`Format`]'s variants).
        pub const FORMATS: [$crate::format::FormatInfo; COUNT] = [
            $( $crate::format::FormatInfo {
                format: Format::$variant,
                name: $name,
                bits: $bits,
                kind: $kind,
                aliases: &[$($alias),*],
                summary: $summary,
            }, )*
        ];

        impl Format {
            /// Every format, in table order.
            pub const ALL: [Format; COUNT] = [$(Format::$variant),*];
        }
    };
}
pub(crate) use format_table;

mod table;
pub use table::*;

/// Which special codes a binary float format reserves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Specials {
    /// IEEE 754 style: the all-ones exponent holds ±Inf (mantissa 0) and NaNs (mantissa ≠ 0).
    Ieee,
    /// "fn" style (e4m3fn): no infinities; only the all-ones exponent *and* mantissa is NaN.
    NanOnlyAllOnes,
    /// Every code is a finite number (fp4, fp6): no Inf, no NaN.
    FiniteOnly,
    /// "fnuz" style (e4m3fnuz, e5m2fnuz, e4m3b11fnuz): no infinities and no negative zero; the
    /// negative-zero code (sign bit alone) is the only NaN.
    NanAtNegativeZero,
    /// Exponent-only unsigned scale (e8m0): code 0xFF is NaN, every other code 2^(code-bias); no zero.
    ExponentOnly,
}

/// Layout of a binary floating-point format: sign, exponent field, mantissa field.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BinarySpec {
    /// Width of the exponent field.
    pub exp_bits: u32,
    /// Width of the stored mantissa (fraction) field.
    pub man_bits: u32,
    /// Exponent bias.
    pub bias: i32,
    /// Whether the format has a sign bit.
    pub signed: bool,
    /// Which codes are reserved for Inf/NaN.
    pub specials: Specials,
}

impl BinarySpec {
    /// Unbiased exponent of the smallest normal number.
    pub const fn emin(&self) -> i32 {
        match self.specials {
            // e8m0 has no subnormals: biased exponent 0 is the normal 2^-bias.
            Specials::ExponentOnly => -self.bias,
            _ => 1 - self.bias,
        }
    }

    /// Largest biased exponent field of a finite number.
    pub const fn max_biased_exp(&self) -> u32 {
        let all_ones = (1u32 << self.exp_bits) - 1;
        match self.specials {
            Specials::Ieee | Specials::ExponentOnly => all_ones - 1,
            Specials::NanOnlyAllOnes | Specials::FiniteOnly | Specials::NanAtNegativeZero => {
                all_ones
            }
        }
    }

    /// Largest mantissa field of a finite number in the top binade.
    pub const fn max_top_mantissa(&self) -> u64 {
        let all_ones = (1u64 << self.man_bits) - 1;
        match self.specials {
            Specials::NanOnlyAllOnes => all_ones - 1,
            _ => all_ones,
        }
    }

    /// Unbiased exponent of the largest finite number.
    pub const fn emax(&self) -> i32 {
        self.max_biased_exp() as i32 - self.bias
    }

    /// Whether code patterns for subnormal numbers (and zero) exist.
    pub const fn has_subnormals(&self) -> bool {
        !matches!(self.specials, Specials::ExponentOnly)
    }
}

/// How a format's bits encode a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A binary floating-point format (sign, exponent, mantissa).
    Binary(BinarySpec),
    /// HiFloat8's tapered encoding (prefix-coded exponent width).
    HiF8,
    /// A two's complement (`signed`) or unsigned integer.
    Int {
        /// Whether the integer is two's complement signed.
        signed: bool,
    },
}

/// One row of the format table.
#[derive(Clone, Copy, Debug)]
pub struct FormatInfo {
    /// The format this row describes.
    pub format: Format,
    /// Canonical npusim name (CLI and `Display`).
    pub name: &'static str,
    /// Storage width in bits.
    pub bits: u32,
    /// How the bits encode a value.
    pub kind: Kind,
    /// Other accepted spellings: vendor (AscendC), ml_dtypes, torch, numpy, safetensors.
    pub aliases: &'static [&'static str],
    /// One-line description for `npusim formats`.
    pub summary: &'static str,
}

const fn int(signed: bool) -> Kind {
    Kind::Int { signed }
}

const fn binary(exp_bits: u32, man_bits: u32, bias: i32, specials: Specials) -> Kind {
    Kind::Binary(BinarySpec {
        exp_bits,
        man_bits,
        bias,
        signed: !matches!(specials, Specials::ExponentOnly),
        specials,
    })
}

impl Format {
    /// This format's row of [`FORMATS`].
    pub const fn info(self) -> &'static FormatInfo {
        &FORMATS[self as usize]
    }

    /// Canonical name.
    pub const fn name(self) -> &'static str {
        self.info().name
    }

    /// Storage width in bits.
    pub const fn bits(self) -> u32 {
        self.info().bits
    }

    /// How the bits encode a value.
    pub const fn kind(self) -> Kind {
        self.info().kind
    }

    /// Mask selecting the low `bits()` bits of a code.
    pub const fn code_mask(self) -> u64 {
        if self.bits() == 64 {
            u64::MAX
        } else {
            (1u64 << self.bits()) - 1
        }
    }

    /// Whether this format is narrower than a byte (2, 4 or 6 bits).
    pub const fn is_sub_byte(self) -> bool {
        self.bits() < 8
    }

    /// How many elements share a byte in the packed layout: 2 for 4-bit formats, 4 for 2-bit
    /// ones; `None` for formats that are never packed (6 bits and wider).
    ///
    /// ```
    /// use npusim_numerics::Format;
    /// assert_eq!(Format::I4.per_packed_byte(), Some(2));
    /// assert_eq!(Format::U2.per_packed_byte(), Some(4));
    /// assert_eq!(Format::F6E2M3FN.per_packed_byte(), None);
    /// ```
    pub const fn per_packed_byte(self) -> Option<usize> {
        match self.bits() {
            2 => Some(4),
            4 => Some(2),
            _ => None,
        }
    }

    /// Bytes one element occupies when stored one per byte (sub-byte formats take a whole byte).
    pub const fn unpacked_bytes(self) -> usize {
        if self.bits() < 8 {
            1
        } else {
            (self.bits() / 8) as usize
        }
    }

    /// Whether this is an integer format.
    pub const fn is_int(self) -> bool {
        matches!(self.kind(), Kind::Int { .. })
    }

    /// Whether this is a floating-point format (binary or HiF8).
    pub const fn is_float(self) -> bool {
        !self.is_int()
    }

    /// Whether negative values exist.
    pub const fn is_signed(self) -> bool {
        match self.kind() {
            Kind::Binary(b) => b.signed,
            Kind::HiF8 => true,
            Kind::Int { signed } => signed,
        }
    }

    /// Whether ±Inf codes exist.
    pub const fn has_inf(self) -> bool {
        match self.kind() {
            Kind::Binary(b) => matches!(b.specials, Specials::Ieee),
            Kind::HiF8 => true,
            Kind::Int { .. } => false,
        }
    }

    /// Whether NaN codes exist.
    pub const fn has_nan(self) -> bool {
        match self.kind() {
            Kind::Binary(b) => !matches!(b.specials, Specials::FiniteOnly),
            Kind::HiF8 => true,
            Kind::Int { .. } => false,
        }
    }

    /// Whether a negative zero code exists.
    pub const fn has_negative_zero(self) -> bool {
        match self.kind() {
            Kind::Binary(b) => {
                b.signed && b.has_subnormals() && !matches!(b.specials, Specials::NanAtNegativeZero)
            }
            Kind::HiF8 | Kind::Int { .. } => false,
        }
    }

    /// Mantissa (fraction) field width; `None` for integers and for HiF8, whose width varies.
    pub const fn man_bits(self) -> Option<u32> {
        match self.kind() {
            Kind::Binary(b) => Some(b.man_bits),
            _ => None,
        }
    }

    /// Exponent field width; `None` for integers and HiF8.
    pub const fn exp_bits(self) -> Option<u32> {
        match self.kind() {
            Kind::Binary(b) => Some(b.exp_bits),
            _ => None,
        }
    }

    /// Exponent bias; `None` for integers and HiF8 (whose exponent is sign-magnitude, unbiased).
    pub const fn bias(self) -> Option<i32> {
        match self.kind() {
            Kind::Binary(b) => Some(b.bias),
            _ => None,
        }
    }

    /// Code of the largest finite value.
    pub fn max_code(self) -> u64 {
        match self.kind() {
            Kind::Binary(b) => crate::encoding::binary::max_code(&b),
            Kind::HiF8 => crate::encoding::hif8::MAX_CODE as u64,
            Kind::Int { signed } => {
                if signed {
                    self.code_mask() >> 1
                } else {
                    self.code_mask()
                }
            }
        }
    }

    /// Code of the most negative finite value (0 for unsigned formats, the smallest scale for e8m0).
    pub fn min_code(self) -> u64 {
        match self.kind() {
            Kind::Binary(b) if b.signed => self.max_code() | (1u64 << (self.bits() - 1)),
            Kind::Binary(_) => 0,
            Kind::HiF8 => crate::encoding::hif8::MAX_CODE as u64 | 0x80,
            Kind::Int { signed: true } => 1u64 << (self.bits() - 1),
            Kind::Int { signed: false } => 0,
        }
    }

    /// Largest finite value, as f64 (exact for every format here; `u32::MAX` etc. for integers).
    pub fn max_finite(self) -> f64 {
        self.decode(self.max_code()).to_f64()
    }

    /// Most negative finite value, as f64.
    pub fn min_finite(self) -> f64 {
        self.decode(self.min_code()).to_f64()
    }

    /// Smallest positive normal value (1 for integers).
    pub fn min_normal(self) -> f64 {
        match self.kind() {
            Kind::Binary(b) if b.has_subnormals() => self.decode(1u64 << b.man_bits).to_f64(),
            Kind::Binary(_) => self.decode(0).to_f64(),
            Kind::HiF8 => self
                .decode(u64::from(crate::encoding::hif8::MIN_NORMAL_CODE))
                .to_f64(),
            Kind::Int { .. } => 1.0,
        }
    }

    /// Smallest positive value (subnormal where the format has them; 1 for integers).
    pub fn min_positive(self) -> f64 {
        match self.kind() {
            Kind::Binary(b) if b.has_subnormals() => self.decode(1).to_f64(),
            Kind::Binary(_) => self.decode(0).to_f64(),
            Kind::HiF8 => self.decode(1).to_f64(),
            Kind::Int { .. } => 1.0,
        }
    }

    /// Decodes a code of this format to its exact value (the low `bits()` bits are used).
    pub fn decode(self, code: u64) -> Exact {
        crate::exact::decode(code, self)
    }

    /// Parses a name: canonical, an alias, case-insensitive, with an optional
    /// `torch.`, `np.`, `numpy.` or `ml_dtypes.` prefix.
    pub fn parse_name(name: &str) -> Result<Format, NumericsError> {
        let lower = name.trim().to_ascii_lowercase();
        let stripped = ["np.", "numpy.", "ml_dtypes.", "jnp."]
            .iter()
            .find_map(|p| lower.strip_prefix(p))
            .unwrap_or(&lower);
        let torchless = stripped.strip_prefix("torch.").unwrap_or(stripped);
        for info in &FORMATS {
            if info.name == stripped
                || info
                    .aliases
                    .iter()
                    .any(|a| *a == stripped || a.strip_prefix("torch.") == Some(torchless))
            {
                return Ok(info.format);
            }
        }
        Err(NumericsError::UnknownFormat {
            name: name.to_string(),
            valid: Format::ALL
                .iter()
                .map(|f| f.name())
                .collect::<Vec<_>>()
                .join(" "),
        })
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = NumericsError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Format::parse_name(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_rows_are_in_enum_order() {
        for (i, f) in Format::ALL.iter().enumerate() {
            assert_eq!(FORMATS[i].format, *f);
            assert_eq!(*f as usize, i);
        }
    }

    #[test]
    fn every_name_and_alias_parses_back() {
        for info in &FORMATS {
            assert_eq!(Format::parse_name(info.name).ok(), Some(info.format));
            for a in info.aliases {
                assert_eq!(Format::parse_name(a).ok(), Some(info.format), "{a}");
                assert_eq!(
                    Format::parse_name(&a.to_uppercase()).ok(),
                    Some(info.format),
                    "{a}"
                );
            }
        }
        assert_eq!(
            Format::parse_name("ml_dtypes.bfloat16").ok(),
            Some(Format::BF16)
        );
        assert_eq!(Format::parse_name("np.float16").ok(), Some(Format::F16));
    }

    #[test]
    fn unknown_name_lists_valid_ones() {
        let err = Format::parse_name("f7e0").unwrap_err().to_string();
        assert!(err.contains("f7e0"), "{err}");
        assert!(
            err.contains("f8e4m3fn") && err.contains("hif8") && err.contains("u32"),
            "{err}"
        );
    }

    #[test]
    fn constants_match_the_format_definitions() {
        assert_eq!(Format::F16.max_finite(), 65504.0);
        assert_eq!(
            Format::BF16.max_finite(),
            f64::from(f32::from_bits(0x7f7f_0000))
        );
        assert_eq!(Format::F8E4M3FN.max_finite(), 448.0);
        assert_eq!(Format::F8E5M2.max_finite(), 57344.0);
        assert_eq!(Format::F8E8M0.max_finite(), 2f64.powi(127));
        assert_eq!(Format::F8E8M0.min_positive(), 2f64.powi(-127));
        assert_eq!(Format::HiF8.max_finite(), 32768.0);
        assert_eq!(Format::HiF8.min_positive(), 2f64.powi(-22));
        assert_eq!(Format::F4E2M1.max_finite(), 6.0);
        assert_eq!(Format::F4E1M2.max_finite(), 1.75);
        assert_eq!(Format::F4E1M2.min_positive(), 0.25);
        assert_eq!(Format::F4E2M1.min_positive(), 0.5);
        assert_eq!(Format::F8E4M3FN.min_positive(), 2f64.powi(-9));
        assert_eq!(Format::F8E5M2.min_positive(), 2f64.powi(-16));
        assert_eq!(Format::F8E4M3FN.min_normal(), 2f64.powi(-6));
        assert_eq!(Format::I4.max_finite(), 7.0);
        assert_eq!(Format::I4.min_finite(), -8.0);
        assert_eq!(Format::U32.max_finite(), 4294967295.0);
        assert_eq!(Format::I64.min_finite(), -(2f64.powi(63)));
        assert_eq!(Format::F8E4M3FN.min_finite(), -448.0);
        assert_eq!(Format::F32.max_finite(), f64::from(f32::MAX));
        assert_eq!(Format::F64.max_finite(), f64::MAX);
        assert_eq!(Format::F64.min_positive(), f64::from_bits(1));
        assert_eq!(Format::F64.min_normal(), f64::MIN_POSITIVE);
        assert_eq!(Format::F32.min_positive(), f64::from(f32::from_bits(1)));
        assert_eq!(Format::HiF8.min_normal(), 2f64.powi(-15));
        assert_eq!(Format::F8E8M0.min_normal(), 2f64.powi(-127));
    }

    #[test]
    fn ml_dtypes_formats_have_their_published_constants() {
        let p = |e: i32| 2f64.powi(e);
        // (format, max finite, min normal, min positive, Inf, NaN, -0)
        let rows = [
            (Format::F8E4M3, 240.0, p(-6), p(-9), true, true, true),
            (Format::F8E4M3FNUZ, 240.0, p(-7), p(-10), false, true, false),
            (
                Format::F8E5M2FNUZ,
                57344.0,
                p(-15),
                p(-17),
                false,
                true,
                false,
            ),
            (
                Format::F8E4M3B11FNUZ,
                30.0,
                p(-10),
                p(-13),
                false,
                true,
                false,
            ),
            (Format::F8E3M4, 15.5, p(-2), p(-6), true, true, true),
            (Format::F6E2M3FN, 7.5, 1.0, 0.125, false, false, true),
            (Format::F6E3M2FN, 28.0, 0.25, 0.0625, false, false, true),
        ];
        for (f, max, min_normal, min_positive, inf, nan, neg_zero) in rows {
            assert_eq!(f.max_finite(), max, "{f}");
            assert_eq!(f.min_finite(), -max, "{f}");
            assert_eq!(f.min_normal(), min_normal, "{f}");
            assert_eq!(f.min_positive(), min_positive, "{f}");
            assert_eq!(
                (f.has_inf(), f.has_nan(), f.has_negative_zero()),
                (inf, nan, neg_zero),
                "{f}"
            );
        }
        assert!(Format::F8E4M3FNUZ.decode(0x80).is_nan());
        assert_eq!(Format::F8E4M3.decode(0x78), Exact::Inf { negative: false });
        assert_eq!(Format::I2.min_finite(), -2.0);
        assert_eq!(Format::I2.max_finite(), 1.0);
        assert_eq!(Format::U2.max_finite(), 3.0);
        assert_eq!(Format::U4.max_finite(), 15.0);
        assert_eq!(Format::U64.max_finite(), 18446744073709551615.0);
        assert_eq!(Format::F6E2M3FN.bits(), 6);
        assert_eq!(
            Format::parse_name("ml_dtypes.float6_e3m2fn").ok(),
            Some(Format::F6E3M2FN)
        );
    }
}
