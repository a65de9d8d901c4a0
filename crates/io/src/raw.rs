//! Raw `.bin` files: bare little-endian element bytes, no header.
//!
//! The caller gives the format and shape. 4-bit elements are one per byte (low nibble), or
//! packed two per byte over the whole buffer, element 0 in the low nibble.

use crate::packing::is_nibble;
use std::io::Write;

use npusim_numerics::Format;

use crate::elements::{Elements, SubByte, element_count};
use crate::error::IoError;

/// How a raw file stores `format` elements.
pub fn file_sub_byte(format: Format, packed: bool) -> SubByte {
    if is_nibble(format) && packed {
        SubByte::PackedFlat
    } else {
        SubByte::OnePerByte
    }
}

/// Checks that a raw file of `len` bytes holds `format` elements of `shape`; returns how it
/// lays them out.
pub fn check_size(
    len: u64,
    format: Format,
    shape: &[usize],
    packed: bool,
) -> Result<SubByte, IoError> {
    let count = element_count(shape)?;
    let sub = file_sub_byte(format, packed);
    let need = sub
        .file_bytes(format, count)
        .ok_or_else(|| IoError::RawShapeTooLarge {
            shape: shape.to_vec(),
        })?;
    if len != need as u64 {
        return Err(IoError::RawSize {
            have: usize::try_from(len).unwrap_or(usize::MAX),
            shape: shape.to_vec(),
            format,
            need,
            count,
            packed,
        });
    }
    Ok(sub)
}

/// Interprets the bytes of a raw file as `format` elements of `shape`.
pub fn elements<'a>(
    bytes: &'a [u8],
    format: Format,
    shape: &[usize],
    packed: bool,
) -> Result<Elements<'a>, IoError> {
    let sub = check_size(bytes.len() as u64, format, shape, packed)?;
    let count = element_count(shape)?;
    Ok(Elements::from_file(bytes, format, sub, count))
}

/// Writes the element bytes as a raw file.
pub fn write(w: &mut dyn Write, elements: &Elements<'_>, packed: bool) -> Result<(), IoError> {
    let sub = file_sub_byte(elements.storage.format(), packed);
    w.write_all(&elements.to_file(sub))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_checked_with_the_numbers() {
        let e = elements(&[0u8; 10], Format::F32, &[2, 2], false)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "the raw file has 10 bytes but shape [2, 2] of source format f32 needs 16 bytes (4 elements, 4 byte(s) each)"
        );
        let e = elements(&[0u8; 2], Format::I4, &[5], true)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("needs 3 bytes (5 elements, two 4-bit elements per byte)"),
            "{e}"
        );
        let ok = elements(&[0x21u8, 0x03], Format::I4, &[3], true).unwrap();
        assert_eq!(ok.count, 3);
        let mut out = Vec::new();
        write(&mut out, &ok, true).unwrap();
        assert_eq!(out, [0x21, 0x03]);
    }
}
