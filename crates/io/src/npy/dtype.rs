//! What a `.npy` dtype string means to npusim, and which one npusim writes.

use crate::packing::is_nibble;
use npusim_numerics::Format;
use npyz::{TypeChar, TypeStr};

use crate::error::IoError;

/// What an `.npy` dtype says about its elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NpyDtype {
    /// A standard numpy dtype with an npusim format.
    Standard(Format),
    /// Elements of this many bytes whose format the file does not say (`<V2`, `<V1`, and
    /// ml_dtypes' `<f1`).
    Opaque {
        /// Bytes per element.
        bytes: usize,
        /// What usually writes this dtype, for the error message.
        hint: &'static str,
        /// The source formats such files usually hold, for the error message.
        formats: &'static [Format],
    },
}

/// Maps a numpy type string (either byte order) to what npusim can do with it.
pub(super) fn classify(ts: &TypeStr, descr: &str, ml_e5m2: bool) -> Result<NpyDtype, IoError> {
    let size = ts.num_bytes().unwrap_or(0);
    let standard = match (ts.type_char(), size) {
        (TypeChar::Float, 8) => Some(Format::F64),
        (TypeChar::Float, 4) => Some(Format::F32),
        (TypeChar::Float, 2) => Some(Format::F16),
        (TypeChar::Int, 1) => Some(Format::I8),
        (TypeChar::Int, 2) => Some(Format::I16),
        (TypeChar::Int, 4) => Some(Format::I32),
        (TypeChar::Int, 8) => Some(Format::I64),
        (TypeChar::Uint, 1) => Some(Format::U8),
        (TypeChar::Uint, 2) => Some(Format::U16),
        (TypeChar::Uint, 4) => Some(Format::U32),
        _ => None,
    };
    if let Some(f) = standard {
        return Ok(NpyDtype::Standard(f));
    }
    match (ts.type_char(), size) {
        (TypeChar::RawData, 1) if ml_e5m2 => Ok(NpyDtype::Opaque {
            bytes: 1,
            hint: "ml_dtypes 0.6 saves float8_e5m2 this way",
            formats: &[Format::F8E5M2],
        }),
        (TypeChar::RawData, 1) => Ok(NpyDtype::Opaque {
            bytes: 1,
            hint: "ml_dtypes saves float8_*, float4_e2m1fn and int4 this way",
            formats: &[
                Format::F8E4M3FN,
                Format::F8E5M2,
                Format::F8E8M0,
                Format::HiF8,
                Format::F4E2M1,
                Format::F4E1M2,
                Format::I4,
            ],
        }),
        (TypeChar::RawData, 2) => Ok(NpyDtype::Opaque {
            bytes: 2,
            hint: "ml_dtypes saves bfloat16 this way",
            formats: &[Format::BF16],
        }),
        _ => Err(IoError::NpyUnsupportedDtype {
            descr: descr.to_string(),
        }),
    }
}

/// The dtype string npusim writes for `format` (`packed`: 4-bit, two per byte).
pub fn descr_for(format: Format, packed: bool) -> &'static str {
    if is_nibble(format) && packed {
        return "|u1";
    }
    match format {
        Format::F64 => "<f8",
        Format::F32 => "<f4",
        Format::F16 => "<f2",
        Format::BF16 => "<V2",
        Format::I8 => "|i1",
        Format::I16 => "<i2",
        Format::I32 => "<i4",
        Format::I64 => "<i8",
        Format::U8 => "|u1",
        Format::U16 => "<u2",
        Format::U32 => "<u4",
        // fp8 / hif8 / 4-bit one per byte: what ml_dtypes writes ('<f1' for e5m2 excepted).
        _ => "<V1",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(s: &str) -> Result<NpyDtype, IoError> {
        let ts: TypeStr = s.parse().unwrap();
        classify(&ts, s, false)
    }

    #[test]
    fn both_byte_orders_are_standard() {
        for (le, be, f) in [
            ("<f8", ">f8", Format::F64),
            ("<f4", ">f4", Format::F32),
            ("<f2", ">f2", Format::F16),
            ("<i2", ">i2", Format::I16),
            ("<i8", ">i8", Format::I64),
            ("<u4", ">u4", Format::U32),
        ] {
            assert_eq!(class(le).unwrap(), NpyDtype::Standard(f));
            assert_eq!(class(be).unwrap(), NpyDtype::Standard(f));
        }
        let e = class(">u8").unwrap_err().to_string();
        assert!(e.starts_with("dtype '>u8' is not supported"), "{e}");
        assert!(matches!(
            class("|V2").unwrap(),
            NpyDtype::Opaque { bytes: 2, .. }
        ));
    }
}
