//! Raw `.bin` files: bare little-endian element bytes, no header.
//!
//! The format (`--from`) and shape (`--shape`) come from the command line. 4-bit elements are
//! one per byte (low nibble), or with `--packed` two per byte over the whole buffer, element 0
//! in the low nibble.

use std::io::Write;

use anyhow::{Result, anyhow, bail};
use npusim_numerics::Format;

use super::{Elements, SubByte, element_count, shape_str};

/// How a raw file stores `format` elements.
pub fn file_sub_byte(format: Format, packed: bool) -> SubByte {
    if format.is_sub_byte() && packed {
        SubByte::PackedFlat
    } else {
        SubByte::OnePerByte
    }
}

/// Interprets the bytes of a raw file as `format` elements of `shape`.
pub fn elements<'a>(
    bytes: &'a [u8],
    format: Format,
    shape: &[usize],
    packed: bool,
) -> Result<Elements<'a>> {
    let count = element_count(shape)?;
    let sub = file_sub_byte(format, packed);
    let need = sub
        .file_bytes(format, count)
        .ok_or_else(|| anyhow!("--shape {} is too large", shape_str(shape)))?;
    if bytes.len() != need {
        let per = if format.is_sub_byte() && packed {
            "two 4-bit elements per byte".to_string()
        } else {
            format!("{} byte(s) each", format.unpacked_bytes())
        };
        bail!(
            "the raw file has {} bytes but --shape {} of --from {format} needs {need} bytes ({count} elements, {per})",
            bytes.len(),
            shape_str(shape)
        );
    }
    Ok(Elements::from_file(bytes, format, sub, count))
}

/// Writes the element bytes as a raw file.
pub fn write(w: &mut dyn Write, elements: &Elements<'_>, packed: bool) -> Result<()> {
    let sub = file_sub_byte(elements.storage.format(), packed);
    w.write_all(&elements.to_file(sub))?;
    Ok(())
}
