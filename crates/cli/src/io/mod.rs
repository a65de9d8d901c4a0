//! Tensor files: which container a path names, and how elements sit in its bytes.
//!
//! Every reader hands the cast an [`Elements`] buffer (a format, a layout and the bytes) plus
//! the tensor's logical shape; every writer takes one back. How a file lays out 4-bit elements
//! ([`SubByte`]) is a property of the file, handled here, not of the cast.

pub mod npy;
pub mod raw;
pub mod safetensors;

use std::borrow::Cow;
use std::path::Path;

use anyhow::{Result, bail};
use npusim_numerics::{Format, Layout, Storage};

/// The file containers `npusim cast` reads and writes, chosen by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Container {
    /// numpy `.npy`: one array.
    Npy,
    /// `.safetensors`: named tensors plus string metadata.
    Safetensors,
    /// Raw little-endian element bytes (`.bin`, `.raw`): one tensor; format and shape come
    /// from the command line.
    Raw,
}

impl Container {
    /// The container a path's extension names.
    pub fn of(path: &Path) -> Result<Container> {
        let ext = path
            .extension()
            .map(|e| e.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        Ok(match ext.as_str() {
            "npy" => Container::Npy,
            "safetensors" => Container::Safetensors,
            "bin" | "raw" => Container::Raw,
            _ => bail!(
                "cannot tell the file type of `{}` from its extension; use .npy, .safetensors or .bin (raw bytes)",
                path.display()
            ),
        })
    }

    /// Short name for messages.
    pub const fn name(self) -> &'static str {
        match self {
            Container::Npy => ".npy",
            Container::Safetensors => ".safetensors",
            Container::Raw => "raw .bin",
        }
    }

    /// Whether the container holds exactly one tensor.
    pub const fn is_single_tensor(self) -> bool {
        !matches!(self, Container::Safetensors)
    }
}

/// How a file stores 4-bit elements (ignored for wider formats).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
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

    /// Bytes a file holds for `count` elements of `format` in this layout.
    pub fn file_bytes(self, format: Format, count: usize) -> Option<usize> {
        if !format.is_sub_byte() {
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
        let layout = if format.is_sub_byte() && self.is_packed() && !self.needs_row_shuffle(count) {
            Layout::Packed
        } else {
            Layout::Unpacked
        };
        // Packed is only chosen for 4-bit formats, so this cannot fail.
        Storage::new(format, layout).unwrap_or(Storage::native(format))
    }
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
        file_bytes: &'a [u8],
        format: Format,
        sub: SubByte,
        count: usize,
    ) -> Elements<'a> {
        let storage = sub.storage(format, count);
        let bytes = match sub {
            SubByte::PackedRows { row } if format.is_sub_byte() && sub.needs_row_shuffle(count) => {
                Cow::Owned(unpack_rows(file_bytes, row, count))
            }
            _ => Cow::Borrowed(file_bytes),
        };
        Elements {
            storage,
            count,
            bytes,
        }
    }

    /// The bytes as a file in layout `sub` stores them.
    pub fn to_file(&self, sub: SubByte) -> Cow<'_, [u8]> {
        match sub {
            SubByte::PackedRows { row }
                if self.storage.format().is_sub_byte() && !self.storage.is_packed() =>
            {
                Cow::Owned(pack_rows(&self.bytes, row, self.count))
            }
            _ => Cow::Borrowed(&self.bytes),
        }
    }
}

/// Packs one-per-byte nibbles two per byte, row by row (`row` elements per row).
fn pack_rows(unpacked: &[u8], row: usize, count: usize) -> Vec<u8> {
    if row == 0 {
        return Vec::new();
    }
    let row_bytes = row.div_ceil(2);
    let mut out = vec![0u8; count / row * row_bytes];
    for (src, dst) in unpacked.chunks(row).zip(out.chunks_mut(row_bytes)) {
        for (i, &v) in src.iter().enumerate() {
            dst[i / 2] |= (v & 0xF) << (4 * (i % 2));
        }
    }
    out
}

/// Unpacks row-packed nibbles to one per byte (`row` elements per row).
fn unpack_rows(packed: &[u8], row: usize, count: usize) -> Vec<u8> {
    if row == 0 {
        return Vec::new();
    }
    let row_bytes = row.div_ceil(2);
    let mut out = vec![0u8; count];
    for (src, dst) in packed.chunks(row_bytes).zip(out.chunks_mut(row)) {
        for (i, v) in dst.iter_mut().enumerate() {
            *v = (src[i / 2] >> (4 * (i % 2))) & 0xF;
        }
    }
    out
}

/// Number of elements of `shape`, or an error naming the shape if it overflows.
pub fn element_count(shape: &[usize]) -> Result<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &d| acc.checked_mul(d))
        .ok_or_else(|| anyhow::anyhow!("shape {shape:?} has more elements than fit in memory"))
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
        let packed = pack_rows(&unpacked, 3, 6);
        assert_eq!(packed, [0x21, 0x03, 0x54, 0x06]);
        assert_eq!(unpack_rows(&packed, 3, 6), unpacked);
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
}
