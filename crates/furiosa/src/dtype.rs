//! Scalar types of the RNGD stream, each tied to an npusim-numerics format.

use std::fmt;

use npusim_numerics::Format;

/// A scalar type a stream tensor can carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DType {
    /// 4-bit two's-complement integer.
    I4,
    /// OCP fp4 E2M1 (finite only, max ±6): the Fetch Adapter's table-lookup input.
    F4E2M1,
    /// 8-bit integer.
    I8,
    /// 16-bit integer.
    I16,
    /// 32-bit integer (Vector Engine and Cast Engine input).
    I32,
    /// fp8 E4M3 as Furiosa uses it: bias 7, no infinities, NaN `0x7f`/`0xff`, max ±448
    /// (npusim's `f8e4m3fn`).
    F8E4M3,
    /// fp8 E5M2 (IEEE-like, bias 15, with infinities).
    F8E5M2,
    /// IEEE binary16 (a Cast Engine output, per the Cast Engine page).
    F16,
    /// bfloat16.
    BF16,
    /// IEEE binary32 (Vector Engine and Cast Engine input).
    F32,
}

impl DType {
    /// Every type, smallest first.
    pub const ALL: [DType; 10] = [
        DType::I4,
        DType::F4E2M1,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::F8E4M3,
        DType::F8E5M2,
        DType::F16,
        DType::BF16,
        DType::F32,
    ];

    /// The numerics format holding the type's codes.
    pub const fn format(self) -> Format {
        match self {
            DType::I4 => Format::I4,
            DType::F4E2M1 => Format::F4E2M1,
            DType::I8 => Format::I8,
            DType::I16 => Format::I16,
            DType::I32 => Format::I32,
            DType::F8E4M3 => Format::F8E4M3FN,
            DType::F8E5M2 => Format::F8E5M2,
            DType::F16 => Format::F16,
            DType::BF16 => Format::BF16,
            DType::F32 => Format::F32,
        }
    }

    /// Width in bits.
    pub const fn bits(self) -> usize {
        self.format().bits() as usize
    }

    /// The name Furiosa's API uses (`i32`, `bf16`, `f8e4m3`, ...).
    pub const fn name(self) -> &'static str {
        match self {
            DType::I4 => "i4",
            DType::F4E2M1 => "f4e2m1",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::F8E4M3 => "f8e4m3",
            DType::F8E5M2 => "f8e5m2",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
        }
    }

    /// Parses a Furiosa type name (`i8`, `bf16`, `f8e4m3`, ...).
    pub fn parse(name: &str) -> Option<DType> {
        DType::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Elements of this type in `bytes` bytes (`bytes * 8 / bits`).
    pub const fn per_bytes(self, bytes: usize) -> usize {
        bytes * 8 / self.bits()
    }
}

impl<'de> serde::Deserialize<'de> for DType {
    /// A type by its name ([`DType::parse`]); an unknown name is an error listing the names.
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DType, D::Error> {
        let name = String::deserialize(d)?;
        DType::parse(&name).ok_or_else(|| {
            let names: Vec<&str> = DType::ALL.iter().map(|t| t.name()).collect();
            serde::de::Error::custom(format!(
                "unknown dtype `{name}` (one of {})",
                names.join(", ")
            ))
        })
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A Rust type naming a [`DType`], so calls read like the vendor's (`cast::<i8>(..)`).
pub trait Scalar {
    /// The stream type this Rust type names.
    const DTYPE: DType;
}

/// Marker for `i4` (Rust has no 4-bit integer).
#[derive(Clone, Copy, Debug)]
pub struct I4;
/// Marker for `f4e2m1`.
#[derive(Clone, Copy, Debug)]
pub struct F4E2M1;
/// Marker for `f8e4m3` (Furiosa's: max 448, no infinities).
#[derive(Clone, Copy, Debug)]
pub struct F8E4M3;
/// Marker for `f8e5m2`.
#[derive(Clone, Copy, Debug)]
pub struct F8E5M2;
/// Marker for `f16`.
#[derive(Clone, Copy, Debug)]
pub struct F16;
/// Marker for `bf16`.
#[derive(Clone, Copy, Debug)]
pub struct Bf16;

macro_rules! scalar {
    ($($t:ty => $d:ident),*) => { $(impl Scalar for $t { const DTYPE: DType = DType::$d; })* };
}
scalar!(I4 => I4, F4E2M1 => F4E2M1, i8 => I8, i16 => I16, i32 => I32, F8E4M3 => F8E4M3, F8E5M2 => F8E5M2,
    F16 => F16, Bf16 => BF16, f32 => F32);
