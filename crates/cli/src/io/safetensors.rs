//! `.safetensors` files, through the `safetensors` crate.
//!
//! Dtypes with an npusim format: `F64 F32 F16 BF16 F8_E4M3 (f8e4m3fn) F8_E5M2 F8_E8M0 F4
//! (f4e2m1, packed two per byte over the whole tensor, element 0 in the low nibble) I8 I16 I32
//! I64 U8 U16 U32`. Formats without a safetensors dtype (`hif8`, `f4e1m2`, `i4`, and `f4e2m1`
//! with an odd element count, which `F4` cannot hold) are stored as `U8` tensors plus a
//! `__metadata__` entry `npusim.dtype.<tensor>` whose value is the format name, one element per
//! byte (`"hif8"`), or, with `--packed`, `"<format>:packed"`: the last dimension packed two per
//! byte (`ceil(d / 2)` bytes per row, element 0 in the low nibble), with `":<d>"` appended when
//! `d` is odd (e.g. `"f4e1m2:packed:5"`). The reader honours these entries.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use anyhow::{Context, Result, anyhow, bail};
use npusim_numerics::Format;
use safetensors::{Dtype, View};

use super::{SubByte, element_count, shape_str};

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
        Format::HiF8 | Format::F4E1M2 | Format::I4 => return None,
    })
}

/// How to read tensor `name` (dtype, file shape), honouring an `npusim.dtype.<name>` entry of
/// `metadata`. `Ok(None)`: the dtype has no npusim format (BOOL, U64, F6_*).
pub fn interpret(
    name: &str,
    dtype: Dtype,
    shape: &[usize],
    metadata: Option<&HashMap<String, String>>,
) -> Result<Option<Interp>> {
    let recorded = metadata.and_then(|m| m.get(&format!("{META_PREFIX}{name}")));
    if let (Dtype::U8, Some(value)) = (dtype, recorded) {
        return interpret_recorded(name, shape, value).map(Some);
    }
    let Some(format) = native_format(dtype) else {
        return Ok(None);
    };
    let sub = if format.is_sub_byte() {
        SubByte::PackedFlat
    } else {
        SubByte::OnePerByte
    };
    Ok(Some(Interp {
        format,
        shape: shape.to_vec(),
        sub,
    }))
}

/// Parses an `npusim.dtype.<name>` value: `fmt`, `fmt:packed` or `fmt:packed:<d>`.
fn interpret_recorded(name: &str, shape: &[usize], value: &str) -> Result<Interp> {
    let key = format!("{META_PREFIX}{name}");
    let mut parts = value.split(':');
    let fmt_name = parts.next().unwrap_or_default();
    let format = Format::parse_name(fmt_name)
        .with_context(|| format!("metadata entry `{key}` = `{value}` names no format"))?;
    let packed = match parts.next() {
        None => false,
        Some("packed") => true,
        Some(other) => bail!("metadata entry `{key}` = `{value}`: unknown layout `{other}`"),
    };
    let odd_row = parts
        .next()
        .map(|d| {
            d.parse::<usize>()
                .map_err(|_| anyhow!("metadata entry `{key}` = `{value}`: bad row length `{d}`"))
        })
        .transpose()?;
    if parts.next().is_some() {
        bail!("metadata entry `{key}` = `{value}` has too many `:` parts");
    }
    if format.unpacked_bytes() != 1 {
        bail!(
            "metadata entry `{key}` = `{value}`: a U8 tensor cannot hold {format} ({} bits)",
            format.bits()
        );
    }
    if !packed {
        return Ok(Interp {
            format,
            shape: shape.to_vec(),
            sub: SubByte::OnePerByte,
        });
    }
    if !format.is_sub_byte() {
        bail!("metadata entry `{key}` = `{value}`: only 4-bit formats can be packed");
    }
    let Some((&k, lead)) = shape.split_last() else {
        bail!("metadata entry `{key}` = `{value}`: a packed tensor needs at least one dimension");
    };
    let d = match odd_row {
        None => k * 2,
        Some(d) if d.div_ceil(2) == k => d,
        Some(d) => bail!(
            "metadata entry `{key}` = `{value}`: a row of {d} elements does not fill {k} bytes"
        ),
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
pub fn encode(format: Format, shape: &[usize], packed: bool) -> Result<Encoding> {
    let count = element_count(shape)?;
    if let Some(dtype) = native_dtype(format) {
        if dtype != Dtype::F4 || count % 2 == 0 {
            let sub = if format.is_sub_byte() {
                SubByte::PackedFlat
            } else {
                SubByte::OnePerByte
            };
            return Ok(Encoding {
                dtype,
                file_shape: shape.to_vec(),
                sub,
                meta: None,
            });
        }
    }
    if !(format.is_sub_byte() && packed) {
        return Ok(Encoding {
            dtype: Dtype::U8,
            file_shape: shape.to_vec(),
            sub: SubByte::OnePerByte,
            meta: Some(format.name().to_string()),
        });
    }
    let Some((&d, lead)) = shape.split_last() else {
        bail!("--packed needs tensors with at least one dimension");
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

/// A tensor to write: dtype, header shape and bytes.
#[derive(Clone, Debug)]
pub struct OutTensor<'a> {
    /// The safetensors dtype.
    pub dtype: Dtype,
    /// The header shape.
    pub shape: Vec<usize>,
    /// The bytes.
    pub data: Cow<'a, [u8]>,
}

impl View for &OutTensor<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.data)
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

/// Checks that a tensor's bytes match what its dtype and shape say (the `safetensors` crate
/// would panic or fail later otherwise).
fn check_size(name: &str, t: &OutTensor<'_>) -> Result<()> {
    let n = element_count(&t.shape)?;
    let bits = n
        .checked_mul(t.dtype.bitsize())
        .ok_or_else(|| anyhow!("tensor `{name}` is too large"))?;
    if bits % 8 != 0 || bits / 8 != t.data.len() {
        bail!(
            "internal: tensor `{name}` ({} {}) has {} bytes",
            t.dtype,
            shape_str(&t.shape),
            t.data.len()
        );
    }
    Ok(())
}

/// Writes `tensors` and `metadata` as a `.safetensors` file at `path`.
pub fn write(
    path: &Path,
    tensors: &[(String, OutTensor<'_>)],
    metadata: Option<HashMap<String, String>>,
) -> Result<()> {
    for (name, t) in tensors {
        check_size(name, t)?;
    }
    safetensors::serialize_to_file(tensors.iter().map(|(n, t)| (n.as_str(), t)), metadata, path)
        .map_err(|e| anyhow!("cannot write safetensors data: {e}"))
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
}
