//! Elements in memory and how a file lays out 4-bit ones.
//!
//! Every reader hands out an [`Elements`] buffer (a format, a layout and the bytes); every
//! writer takes one back. How a file lays out 4-bit elements ([`SubByte`]) is a property of
//! the file, handled here, not of the cast. Element codes are read and written through
//! [`Storage`], the one element codec of npusim.

use std::borrow::Cow;

use npusim_numerics::{Format, Layout, Storage};

use crate::error::IoError;
use crate::packing::is_nibble;

/// How a file stores 4-bit elements (ignored for wider formats).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SubByte {
    /// One element per byte, in the low nibble (ml_dtypes' layout).
    OnePerByte,
    /// Two per byte over the whole buffer, element 0 in the low nibble (raw files,
    /// safetensors `F4`).
    PackedFlat,
    /// Two per byte along the last dimension (`row` elements), each row starting on a new
    /// byte: a row of `row` elements takes `ceil(row / 2)` bytes (packed .npy files).
    PackedRows {
        /// Length of the last dimension, in elements.
        row: usize,
    },
}

impl SubByte {
    /// Whether two elements share a byte.
    pub const fn is_packed(self) -> bool {
        !matches!(self, SubByte::OnePerByte)
    }

    /// Bytes a file holds for `count` elements of `format` in this layout (`None` on
    /// overflow).
    pub fn file_bytes(self, format: Format, count: usize) -> Option<usize> {
        if !is_nibble(format) {
            return count.checked_mul(format.unpacked_bytes());
        }
        match self {
            SubByte::OnePerByte => Some(count),
            SubByte::PackedFlat => Some(count.div_ceil(2)),
            SubByte::PackedRows { row } => match count.checked_div(row) {
                Some(rows) => rows.checked_mul(row.div_ceil(2)),
                None => Some(0),
            },
        }
    }

    /// Whether per-row packing differs from packing the whole buffer (odd rows, more than one).
    const fn needs_row_shuffle(self, count: usize) -> bool {
        match self {
            SubByte::PackedRows { row } => row % 2 == 1 && count > row,
            _ => false,
        }
    }

    /// The in-memory storage a cast into this file layout should produce (or that a reader
    /// hands over): packed whenever flat packing equals the file's layout.
    pub fn storage(self, format: Format, count: usize) -> Storage {
        if is_nibble(format) && self.is_packed() && !self.needs_row_shuffle(count) {
            // The native storage of a 4-bit format is the packed one.
            Storage::native(format)
        } else {
            unpacked(format)
        }
    }
}

/// One element per byte for 4-bit formats; the only layout of wider ones.
fn unpacked(format: Format) -> Storage {
    // Unpacked is valid for every format, so this never falls back.
    Storage::new(format, Layout::Unpacked).unwrap_or(Storage::native(format))
}

/// A buffer of elements in memory: what a reader produces and a writer consumes.
#[derive(Clone, Debug)]
pub struct Elements<'a> {
    /// Format and layout of the bytes.
    pub storage: Storage,
    /// Number of elements.
    pub count: usize,
    /// The bytes, exactly `storage.bytes_for(count)` long.
    pub bytes: Cow<'a, [u8]>,
}

impl<'a> Elements<'a> {
    /// Interprets `file_bytes` (already checked to be the right size) stored as `sub`.
    pub fn from_file(
        file_bytes: impl Into<Cow<'a, [u8]>>,
        format: Format,
        sub: SubByte,
        count: usize,
    ) -> Elements<'a> {
        let file_bytes = file_bytes.into();
        let storage = sub.storage(format, count);
        let bytes = match sub {
            SubByte::PackedRows { row } if is_nibble(format) && sub.needs_row_shuffle(count) => {
                Cow::Owned(unpack_rows(format, &file_bytes, row, count))
            }
            _ => file_bytes,
        };
        Elements {
            storage,
            count,
            bytes,
        }
    }

    /// The bytes as a file in layout `sub` stores them.
    pub fn to_file(&self, sub: SubByte) -> Cow<'_, [u8]> {
        let format = self.storage.format();
        match sub {
            SubByte::PackedRows { row } if is_nibble(format) && !self.storage.is_packed() => {
                Cow::Owned(pack_rows(format, &self.bytes, row, self.count))
            }
            _ => Cow::Borrowed(&self.bytes),
        }
    }
}

/// Packs one-per-byte 4-bit elements two per byte, row by row (`row` elements per row).
fn pack_rows(format: Format, unpacked_bytes: &[u8], row: usize, count: usize) -> Vec<u8> {
    if row == 0 {
        return Vec::new();
    }
    let (src, dst) = (unpacked(format), Storage::native(format));
    let row_bytes = row.div_ceil(2);
    let mut out = vec![0u8; count / row * row_bytes];
    for (r, dst_row) in out.chunks_mut(row_bytes).enumerate() {
        for i in 0..row {
            dst.write(dst_row, i, src.read(unpacked_bytes, r * row + i));
        }
    }
    out
}

/// Unpacks row-packed 4-bit elements to one per byte (`row` elements per row).
fn unpack_rows(format: Format, packed_bytes: &[u8], row: usize, count: usize) -> Vec<u8> {
    if row == 0 {
        return Vec::new();
    }
    let (src, dst) = (Storage::native(format), unpacked(format));
    let row_bytes = row.div_ceil(2);
    let mut out = vec![0u8; count];
    for (r, src_row) in packed_bytes.chunks(row_bytes).take(count / row).enumerate() {
        for i in 0..row {
            dst.write(&mut out, r * row + i, src.read(src_row, i));
        }
    }
    out
}

/// Number of elements of `shape`, or an error naming the shape if it overflows. A shape with
/// a zero dimension has no elements, however large its other dimensions.
pub fn element_count(shape: &[usize]) -> Result<usize, IoError> {
    if shape.contains(&0) {
        return Ok(0);
    }
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| IoError::ShapeOverflow {
            shape: shape.to_vec(),
        })
}

/// A shape for messages: `[2, 3]`, or `[]` for a scalar.
pub fn shape_str(shape: &[usize]) -> String {
    format!("{shape:?}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_packing_round_trips_and_pads_each_row() {
        let unpacked = [1u8, 2, 3, 4, 5, 6];
        let packed = pack_rows(Format::I4, &unpacked, 3, 6);
        assert_eq!(packed, [0x21, 0x03, 0x54, 0x06]);
        assert_eq!(unpack_rows(Format::I4, &packed, 3, 6), unpacked);
        assert_eq!(
            SubByte::PackedRows { row: 3 }.file_bytes(Format::I4, 6),
            Some(4)
        );
        assert_eq!(SubByte::PackedFlat.file_bytes(Format::I4, 5), Some(3));
        assert_eq!(
            SubByte::PackedRows { row: 4 }
                .storage(Format::I4, 8)
                .layout(),
            Layout::Packed
        );
        assert_eq!(
            SubByte::PackedRows { row: 3 }
                .storage(Format::I4, 6)
                .layout(),
            Layout::Unpacked
        );
    }

    #[test]
    fn odd_rows_are_shuffled_through_the_file_layout() {
        let file = [0x21u8, 0x03, 0x54, 0x06];
        let e = Elements::from_file(&file[..], Format::F4E2M1, SubByte::PackedRows { row: 3 }, 6);
        assert_eq!(e.storage.layout(), Layout::Unpacked);
        assert_eq!(&e.bytes[..], [1, 2, 3, 4, 5, 6]);
        assert_eq!(&e.to_file(SubByte::PackedRows { row: 3 })[..], file);
    }

    #[test]
    fn overflowing_shapes_are_named() {
        let e = element_count(&[usize::MAX, 2]).unwrap_err().to_string();
        assert!(e.contains(&format!("[{}, 2]", usize::MAX)), "{e}");
        assert_eq!(element_count(&[1 << 62, 0]).unwrap(), 0);
        assert_eq!(element_count(&[0, usize::MAX, usize::MAX]).unwrap(), 0);
        assert_eq!(element_count(&[]).unwrap(), 1);
    }
}
