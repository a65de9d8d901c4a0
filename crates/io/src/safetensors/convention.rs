//! Which npusim format a safetensors tensor holds, and how a format is stored: native dtypes,
//! and the `npusim.dtype.<tensor>` metadata entries for formats safetensors has no dtype for.

use crate::packing::is_nibble;
use std::collections::HashMap;

use npusim_numerics::Format;
use safetensors::Dtype;

use crate::elements::{SubByte, element_count};
use crate::error::{IoError, MetaProblem};

/// Prefix of the metadata keys that record a `U8` tensor's real format.
pub const META_PREFIX: &str = "npusim.dtype.";

/// How to read a tensor's bytes as npusim elements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interp {
    /// Element format.
    pub format: Format,
    /// Logical shape (elements, not bytes).
    pub shape: Vec<usize>,
    /// How the file lays out 4-bit elements.
    pub sub: SubByte,
}

/// The npusim format of a native safetensors dtype, if there is one.
pub fn native_format(dtype: Dtype) -> Option<Format> {
    Some(match dtype {
        Dtype::F64 => Format::F64,
        Dtype::F32 => Format::F32,
        Dtype::F16 => Format::F16,
        Dtype::BF16 => Format::BF16,
        Dtype::F8_E4M3 => Format::F8E4M3FN,
        Dtype::F8_E5M2 => Format::F8E5M2,
        Dtype::F8_E8M0 => Format::F8E8M0,
        Dtype::F4 => Format::F4E2M1,
        Dtype::I8 => Format::I8,
        Dtype::I16 => Format::I16,
        Dtype::I32 => Format::I32,
        Dtype::I64 => Format::I64,
        Dtype::U8 => Format::U8,
        Dtype::U16 => Format::U16,
        Dtype::U32 => Format::U32,
        _ => return None,
    })
}

/// The native safetensors dtype of a format, if there is one.
fn native_dtype(format: Format) -> Option<Dtype> {
    Some(match format {
        Format::F64 => Dtype::F64,
        Format::F32 => Dtype::F32,
        Format::F16 => Dtype::F16,
        Format::BF16 => Dtype::BF16,
        Format::F8E4M3FN => Dtype::F8_E4M3,
        Format::F8E5M2 => Dtype::F8_E5M2,
        Format::F8E8M0 => Dtype::F8_E8M0,
        Format::F4E2M1 => Dtype::F4,
        Format::I8 => Dtype::I8,
        Format::I16 => Dtype::I16,
        Format::I32 => Dtype::I32,
        Format::I64 => Dtype::I64,
        Format::U8 => Dtype::U8,
        Format::U16 => Dtype::U16,
        Format::U32 => Dtype::U32,
        // hif8, f4e1m2, i4 (and any format added later) go through the metadata entry.
        _ => return None,
    })
}

/// The layout of a natively stored format.
fn native_sub(format: Format) -> SubByte {
    if is_nibble(format) {
        SubByte::PackedFlat
    } else {
        SubByte::OnePerByte
    }
}

/// How to read tensor `name` (dtype, file shape), honouring an `npusim.dtype.<name>` entry of
/// `metadata`. `Ok(None)`: the dtype has no npusim format (BOOL, U64, F6_*).
pub fn interpret(
    name: &str,
    dtype: Dtype,
    shape: &[usize],
    metadata: Option<&HashMap<String, String>>,
) -> Result<Option<Interp>, IoError> {
    let recorded = metadata.and_then(|m| m.get(&format!("{META_PREFIX}{name}")));
    if let (Dtype::U8, Some(value)) = (dtype, recorded) {
        return interpret_recorded(name, shape, value).map(Some);
    }
    Ok(native_format(dtype).map(|format| Interp {
        format,
        shape: shape.to_vec(),
        sub: native_sub(format),
    }))
}

/// Parses an `npusim.dtype.<name>` value: `fmt`, `fmt:packed` or `fmt:packed:<d>`.
fn interpret_recorded(name: &str, shape: &[usize], value: &str) -> Result<Interp, IoError> {
    let key = format!("{META_PREFIX}{name}");
    let invalid = |problem: MetaProblem| IoError::MetaInvalid {
        key: key.clone(),
        value: value.to_string(),
        problem,
    };
    let mut parts = value.split(':');
    let fmt_name = parts.next().unwrap_or_default();
    let format = Format::parse_name(fmt_name).map_err(|source| IoError::MetaUnknownFormat {
        key: key.clone(),
        value: value.to_string(),
        source,
    })?;
    let packed = match parts.next() {
        None => false,
        Some("packed") => true,
        Some(other) => return Err(invalid(MetaProblem::UnknownLayout(other.to_string()))),
    };
    let odd_row = match parts.next() {
        None => None,
        Some(d) => Some(
            d.parse::<usize>()
                .map_err(|_| invalid(MetaProblem::BadRowLength(d.to_string())))?,
        ),
    };
    if parts.next().is_some() {
        return Err(invalid(MetaProblem::TooManyParts));
    }
    if format.unpacked_bytes() != 1 {
        return Err(invalid(MetaProblem::NotOneByte { format }));
    }
    if !packed {
        return Ok(Interp {
            format,
            shape: shape.to_vec(),
            sub: SubByte::OnePerByte,
        });
    }
    if !is_nibble(format) {
        return Err(invalid(MetaProblem::PackedNot4Bit));
    }
    let Some((&k, lead)) = shape.split_last() else {
        return Err(invalid(MetaProblem::PackedScalar));
    };
    let d = match odd_row {
        None => k * 2,
        Some(d) if d.div_ceil(2) == k => d,
        Some(d) => {
            return Err(invalid(MetaProblem::RowMismatch { row: d, bytes: k }));
        }
    };
    let mut logical = lead.to_vec();
    logical.push(d);
    Ok(Interp {
        format,
        shape: logical,
        sub: SubByte::PackedRows { row: d },
    })
}

/// How a tensor of `format` and logical `shape` is stored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoding {
    /// The safetensors dtype.
    pub dtype: Dtype,
    /// The shape written in the header.
    pub file_shape: Vec<usize>,
    /// Layout of 4-bit elements.
    pub sub: SubByte,
    /// The `npusim.dtype.<name>` metadata value, for formats stored as `U8`.
    pub meta: Option<String>,
}

/// How to store a tensor of `format` and logical `shape` (`packed`: pack 4-bit formats that
/// have no safetensors dtype).
pub fn encode(format: Format, shape: &[usize], packed: bool) -> Result<Encoding, IoError> {
    let count = element_count(shape)?;
    if let Some(dtype) = native_dtype(format)
        && (dtype != Dtype::F4 || count % 2 == 0)
    {
        return Ok(Encoding {
            dtype,
            file_shape: shape.to_vec(),
            sub: native_sub(format),
            meta: None,
        });
    }
    if !(is_nibble(format) && packed) {
        return Ok(Encoding {
            dtype: Dtype::U8,
            file_shape: shape.to_vec(),
            sub: SubByte::OnePerByte,
            meta: Some(format.name().to_string()),
        });
    }
    let Some((&d, lead)) = shape.split_last() else {
        return Err(IoError::PackedScalarTensor);
    };
    let mut file_shape = lead.to_vec();
    file_shape.push(d.div_ceil(2));
    let meta = if d % 2 == 1 {
        format!("{}:packed:{d}", format.name())
    } else {
        format!("{}:packed", format.name())
    };
    Ok(Encoding {
        dtype: Dtype::U8,
        file_shape,
        sub: SubByte::PackedRows { row: d },
        meta: Some(meta),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recorded_formats_round_trip_through_encode_and_interpret() {
        for (format, shape, packed) in [
            (Format::HiF8, vec![2, 3], false),
            (Format::F4E1M2, vec![2, 3], false),
            (Format::F4E1M2, vec![2, 3], true),
            (Format::I4, vec![4], true),
            (Format::F4E2M1, vec![3], false),
            (Format::F4E2M1, vec![2, 2], false),
            (Format::F8E4M3FN, vec![5], false),
        ] {
            let e = encode(format, &shape, packed).unwrap();
            let mut meta = HashMap::new();
            if let Some(v) = &e.meta {
                meta.insert(format!("{META_PREFIX}t"), v.clone());
            }
            let i = interpret("t", e.dtype, &e.file_shape, Some(&meta))
                .unwrap()
                .unwrap();
            assert_eq!(i.format, format);
            assert_eq!(i.shape, shape);
            assert_eq!(i.sub, e.sub);
        }
        assert_eq!(
            encode(Format::F4E1M2, &[2, 3], true)
                .unwrap()
                .meta
                .as_deref(),
            Some("f4e1m2:packed:3")
        );
        assert_eq!(
            encode(Format::F4E2M1, &[2, 2], false).unwrap().dtype,
            Dtype::F4
        );
    }

    #[test]
    fn bad_entries_name_key_and_value() {
        let meta = |v: &str| HashMap::from([(format!("{META_PREFIX}t"), v.to_string())]);
        let err = |v: &str| {
            interpret("t", Dtype::U8, &[2, 2], Some(&meta(v)))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("i4:zigzag"),
            "metadata entry `npusim.dtype.t` = `i4:zigzag`: unknown layout `zigzag`"
        );
        assert_eq!(
            err("i4:packed:3:x"),
            "metadata entry `npusim.dtype.t` = `i4:packed:3:x` has too many `:` parts"
        );
        assert_eq!(
            err("i4:packed:7"),
            "metadata entry `npusim.dtype.t` = `i4:packed:7`: a row of 7 elements does not fill 2 bytes"
        );
        assert!(
            err("f7e0").starts_with("metadata entry `npusim.dtype.t` = `f7e0` names no format")
        );
    }
}
