//! AscendC element types and their numerics formats.

use std::fmt;
use std::str::FromStr;

use npusim_numerics::Format;

use crate::error::AscendError;

/// An AscendC element type (`half`, `float`, `int4b_t`, `fp8_e4m3fn_t`, ...).
///
/// ```
/// use npusim_ascend::DType;
/// let t: DType = "bfloat16_t".parse().unwrap();
/// assert_eq!(t, DType::BFloat16);
/// assert_eq!(t.to_string(), "bfloat16_t");
/// assert_eq!(DType::Int4.size_bits(), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    /// `float`
    Float,
    /// `half`
    Half,
    /// `bfloat16_t`
    BFloat16,
    /// `hifloat8_t`
    HiFloat8,
    /// `fp8_e4m3fn_t`
    Fp8E4M3,
    /// `fp8_e5m2_t`
    Fp8E5M2,
    /// `fp8_e8m0_t`
    Fp8E8M0,
    /// `fp4x2_e2m1_t` (two per byte)
    Fp4E2M1,
    /// `fp4x2_e1m2_t` (two per byte)
    Fp4E1M2,
    /// `int4b_t` (LocalTensor API) / `int4x2_t` (Reg API), two per byte
    Int4,
    /// `int8_t`
    Int8,
    /// `uint8_t`
    UInt8,
    /// `int16_t`
    Int16,
    /// `uint16_t`
    UInt16,
    /// `int32_t`
    Int32,
    /// `uint32_t`
    UInt32,
    /// `int64_t`
    Int64,
}

impl DType {
    /// Every type.
    pub const ALL: [DType; 17] = [
        DType::Float,
        DType::Half,
        DType::BFloat16,
        DType::HiFloat8,
        DType::Fp8E4M3,
        DType::Fp8E5M2,
        DType::Fp8E8M0,
        DType::Fp4E2M1,
        DType::Fp4E1M2,
        DType::Int4,
        DType::Int8,
        DType::UInt8,
        DType::Int16,
        DType::UInt16,
        DType::Int32,
        DType::UInt32,
        DType::Int64,
    ];

    /// The numerics format of one element.
    pub const fn format(self) -> Format {
        match self {
            DType::Float => Format::F32,
            DType::Half => Format::F16,
            DType::BFloat16 => Format::BF16,
            DType::HiFloat8 => Format::HiF8,
            DType::Fp8E4M3 => Format::F8E4M3FN,
            DType::Fp8E5M2 => Format::F8E5M2,
            DType::Fp8E8M0 => Format::F8E8M0,
            DType::Fp4E2M1 => Format::F4E2M1,
            DType::Fp4E1M2 => Format::F4E1M2,
            DType::Int4 => Format::I4,
            DType::Int8 => Format::I8,
            DType::UInt8 => Format::U8,
            DType::Int16 => Format::I16,
            DType::UInt16 => Format::U16,
            DType::Int32 => Format::I32,
            DType::UInt32 => Format::U32,
            DType::Int64 => Format::I64,
        }
    }

    /// The type whose numerics format is `f`, if AscendC has one.
    pub fn from_format(f: Format) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.format() == f)
    }

    /// The AscendC spelling.
    pub const fn name(self) -> &'static str {
        match self {
            DType::Float => "float",
            DType::Half => "half",
            DType::BFloat16 => "bfloat16_t",
            DType::HiFloat8 => "hifloat8_t",
            DType::Fp8E4M3 => "fp8_e4m3fn_t",
            DType::Fp8E5M2 => "fp8_e5m2_t",
            DType::Fp8E8M0 => "fp8_e8m0_t",
            DType::Fp4E2M1 => "fp4x2_e2m1_t",
            DType::Fp4E1M2 => "fp4x2_e1m2_t",
            DType::Int4 => "int4b_t",
            DType::Int8 => "int8_t",
            DType::UInt8 => "uint8_t",
            DType::Int16 => "int16_t",
            DType::UInt16 => "uint16_t",
            DType::Int32 => "int32_t",
            DType::UInt32 => "uint32_t",
            DType::Int64 => "int64_t",
        }
    }

    /// Element width in bits (4 for the two-per-byte types).
    pub const fn size_bits(self) -> u32 {
        self.format().bits()
    }

    /// Whether two elements share a byte.
    pub const fn is_4bit(self) -> bool {
        self.size_bits() == 4
    }

    /// Whether this is a floating-point type.
    pub const fn is_float(self) -> bool {
        self.format().is_float()
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = AscendError;
    /// Accepts AscendC spellings (`half`, `int4x2_t`, `fp4_e2m1`, ...) and every numerics name.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let t = s.trim();
        let unknown = || AscendError::UnknownDType {
            name: t.to_string(),
            valid: DType::ALL.map(|d| d.name()).join(" "),
        };
        let format = Format::parse_name(t).map_err(|_| unknown())?;
        DType::from_format(format).ok_or_else(unknown)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_parses_from_its_ascend_name() {
        for d in DType::ALL {
            assert_eq!(d.name().parse::<DType>().ok(), Some(d));
            assert_eq!(DType::from_format(d.format()), Some(d));
        }
        assert_eq!("int4x2_t".parse::<DType>().ok(), Some(DType::Int4));
        assert_eq!("fp4_e1m2".parse::<DType>().ok(), Some(DType::Fp4E1M2));
        assert!("f64".parse::<DType>().is_err());
    }
}
