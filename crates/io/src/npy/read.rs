//! Reading the elements of a parsed `.npy` array: its format, logical shape and bytes.

use crate::packing::is_nibble;
use std::borrow::Cow;

use npusim_numerics::Format;

use super::dtype::NpyDtype;
use super::header::{NpyArray, NpyHead};
use crate::elements::{Elements, SubByte, element_count};
use crate::error::IoError;

/// The element format of an array: its dtype's, or `from` (which must agree in element size;
/// a 4-bit `from` counts as one byte, as ml_dtypes and packed files store it).
pub fn element_format(array: &NpyArray<'_>, from: Option<Format>) -> Result<Format, IoError> {
    format_of(&array.descr, &array.dtype, array.item_bytes, from)
}

/// [`element_format`] for a header read without its data.
pub fn head_format(head: &NpyHead, from: Option<Format>) -> Result<Format, IoError> {
    format_of(&head.descr, &head.dtype, head.item_bytes, from)
}

/// The element format of dtype `descr` (`dtype`, `item_bytes` per element), or `from`.
fn format_of(
    descr: &str,
    dtype: &NpyDtype,
    item_bytes: usize,
    from: Option<Format>,
) -> Result<Format, IoError> {
    match (from, dtype) {
        (None, NpyDtype::Standard(f)) => Ok(*f),
        (
            None,
            NpyDtype::Opaque {
                bytes,
                hint,
                formats,
            },
        ) => Err(IoError::NpyOpaqueNeedsFrom {
            descr: descr.to_string(),
            bytes: *bytes,
            hint,
            formats,
        }),
        (Some(f), _) if f.unpacked_bytes() != item_bytes => Err(IoError::NpyFromSize {
            from: f,
            from_bytes: f.unpacked_bytes(),
            descr: descr.to_string(),
            file_bytes: item_bytes,
        }),
        (Some(f), _) => Ok(f),
    }
}

/// The logical shape of an array stored in a file whose shape is `file_shape`: unpacked, the
/// file's shape (which `logical`, if given, must equal); `packed`, a last dimension of `k`
/// bytes holds `2k` elements, or the odd count `2k - 1` given by `logical`.
pub fn logical_shape(
    file_shape: &[usize],
    packed: bool,
    logical: Option<&[usize]>,
) -> Result<Vec<usize>, IoError> {
    if !packed {
        if let Some(s) = logical
            && s != file_shape
        {
            return Err(IoError::NpyShapeMismatch {
                given: s.to_vec(),
                file: file_shape.to_vec(),
            });
        }
        return Ok(file_shape.to_vec());
    }
    let Some((&k, lead)) = file_shape.split_last() else {
        return Err(IoError::NpyPackedScalar);
    };
    match logical {
        None => {
            let mut s = lead.to_vec();
            s.push(k.checked_mul(2).ok_or(IoError::NpyLogicalShapeTooLarge)?);
            Ok(s)
        }
        Some(s) => {
            let ok = s.len() == file_shape.len()
                && s[..s.len() - 1] == *lead
                && s.last().is_some_and(|d| d.div_ceil(2) == k);
            if !ok {
                return Err(IoError::NpyPackedShape {
                    given: s.to_vec(),
                    file: file_shape.to_vec(),
                    last_bytes: k,
                });
            }
            Ok(s.to_vec())
        }
    }
}

/// Reads the elements of `array` as `format` elements of logical `shape` (`packed`: 4-bit
/// rows packed two per byte). Big-endian data is swapped to little-endian elements.
pub fn elements<'a>(
    array: &NpyArray<'a>,
    format: Format,
    shape: &[usize],
    packed: bool,
) -> Result<Elements<'a>, IoError> {
    let count = element_count(shape)?;
    let sub = file_sub_byte(format, shape, packed);
    let need = sub
        .file_bytes(format, count)
        .ok_or(IoError::NpyLogicalShapeTooLarge)?;
    if need != array.data.len() {
        return Err(IoError::NpyDataSize {
            have: array.data.len(),
            count,
            format,
            shape: shape.to_vec(),
            need,
        });
    }
    let data = if array.big_endian {
        Cow::Owned(swap_bytes(array.data, array.item_bytes))
    } else {
        Cow::Borrowed(array.data)
    };
    Ok(Elements::from_file(data, format, sub, count))
}

/// The bytes of big-endian elements of `width` bytes, each reversed to little-endian.
fn swap_bytes(data: &[u8], width: usize) -> Vec<u8> {
    let mut out = data.to_vec();
    swap_in_place(&mut out, width);
    out
}

/// Reverses each `width`-byte element of `data` in place (big- to little-endian).
pub fn swap_in_place(data: &mut [u8], width: usize) {
    if width > 1 {
        for element in data.chunks_exact_mut(width) {
            element.reverse();
        }
    }
}

/// How a `.npy` file stores 4-bit elements of logical `shape`.
pub fn file_sub_byte(format: Format, shape: &[usize], packed: bool) -> SubByte {
    if is_nibble(format) && packed {
        SubByte::PackedRows {
            row: shape.last().copied().unwrap_or(1),
        }
    } else {
        SubByte::OnePerByte
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_shapes_take_an_odd_last_dimension_only_when_told() {
        assert_eq!(logical_shape(&[2, 2], true, None).unwrap(), [2, 4]);
        assert_eq!(logical_shape(&[2, 2], true, Some(&[2, 3])).unwrap(), [2, 3]);
        let e = logical_shape(&[2, 2], true, Some(&[2, 5]))
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "the shape [2, 5] given does not fit the packed .npy shape [2, 2] (the last dimension must be 3 or 4)"
        );
        assert!(logical_shape(&[3], false, Some(&[4])).is_err());
    }

    #[test]
    fn swapping_reverses_each_element() {
        assert_eq!(swap_bytes(&[1, 2, 3, 4, 5, 6], 2), [2, 1, 4, 3, 6, 5]);
        assert_eq!(swap_bytes(&[1, 2, 3, 4], 4), [4, 3, 2, 1]);
    }
}
