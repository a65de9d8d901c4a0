//! The block-scaled schemes: element format, block size and scale format of each.

use std::fmt;
use std::str::FromStr;

use super::error::BlockError;
use crate::format::Format;

/// A block-scaled format: OCP MX v1.0 (32 elements, e8m0 scale) or NVIDIA's NVFP4
/// (16 e2m1 elements, e4m3 block scale, f32 tensor scale).
///
/// ```
/// use npusim_numerics::block::Scheme;
/// let s: Scheme = "mxfp6-e2m3".parse().unwrap();
/// assert_eq!((s.block_size(), s.to_string()), (32, "mxfp6-e2m3".to_string()));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Scheme {
    /// MXFP4: e2m1 elements.
    Mxfp4,
    /// MXFP6 with e2m3 elements.
    Mxfp6E2m3,
    /// MXFP6 with e3m2 elements.
    Mxfp6E3m2,
    /// MXFP8 with e4m3 elements.
    Mxfp8E4m3,
    /// MXFP8 with e5m2 elements.
    Mxfp8E5m2,
    /// MXINT8: 8-bit two's complement elements with an implicit 2^-6.
    Mxint8,
    /// NVFP4: e2m1 elements, 16 per block, e4m3 block scales, one f32 tensor scale.
    Nvfp4,
}

impl Scheme {
    /// Every scheme, in display order.
    pub const ALL: [Scheme; 7] = [
        Scheme::Mxfp4,
        Scheme::Mxfp6E2m3,
        Scheme::Mxfp6E3m2,
        Scheme::Mxfp8E4m3,
        Scheme::Mxfp8E5m2,
        Scheme::Mxint8,
        Scheme::Nvfp4,
    ];

    /// Canonical name.
    pub const fn name(self) -> &'static str {
        match self {
            Scheme::Mxfp4 => "mxfp4",
            Scheme::Mxfp6E2m3 => "mxfp6-e2m3",
            Scheme::Mxfp6E3m2 => "mxfp6-e3m2",
            Scheme::Mxfp8E4m3 => "mxfp8-e4m3",
            Scheme::Mxfp8E5m2 => "mxfp8-e5m2",
            Scheme::Mxint8 => "mxint8",
            Scheme::Nvfp4 => "nvfp4",
        }
    }

    /// The element format (`i8` for MXINT8, whose codes mean code / 64).
    pub const fn element(self) -> Format {
        match self {
            Scheme::Mxfp4 | Scheme::Nvfp4 => Format::F4E2M1,
            Scheme::Mxfp6E2m3 => Format::F6E2M3FN,
            Scheme::Mxfp6E3m2 => Format::F6E3M2FN,
            Scheme::Mxfp8E4m3 => Format::F8E4M3FN,
            Scheme::Mxfp8E5m2 => Format::F8E5M2,
            Scheme::Mxint8 => Format::I8,
        }
    }

    /// The format of the per-block scale: e8m0 for MX, e4m3fn for NVFP4.
    pub const fn scale_format(self) -> Format {
        match self {
            Scheme::Nvfp4 => Format::F8E4M3FN,
            _ => Format::F8E8M0,
        }
    }

    /// Elements per block: 32 (MX) or 16 (NVFP4).
    pub const fn block_size(self) -> usize {
        match self {
            Scheme::Nvfp4 => 16,
            _ => 32,
        }
    }

    /// Whether this is an OCP MX scheme (e8m0 scales).
    pub const fn is_mx(self) -> bool {
        !matches!(self, Scheme::Nvfp4)
    }

    /// Bytes that `count` element codes take: e2m1 codes are packed two per byte (element
    /// 2i in the low nibble), every other element takes one byte (fp6 in the low 6 bits).
    pub const fn code_bytes(self, count: usize) -> usize {
        match self.element() {
            Format::F4E2M1 => count.div_ceil(2),
            _ => count,
        }
    }

    /// Parses a name, case-insensitive, `_` accepted for `-`.
    pub fn parse_name(s: &str) -> Result<Scheme, BlockError> {
        let l = s.trim().to_ascii_lowercase().replace('_', "-");
        Scheme::ALL
            .into_iter()
            .find(|x| x.name() == l)
            .ok_or_else(|| BlockError::UnknownScheme {
                name: s.to_string(),
                valid: Scheme::ALL.map(Scheme::name).join(" "),
            })
    }
}

impl fmt::Display for Scheme {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Scheme {
    type Err = BlockError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Scheme::parse_name(s)
    }
}
