//! Which formats files pack two elements per byte.

use npusim_numerics::Format;

/// Whether files may pack this format two elements per byte: the 4-bit formats. Other
/// sub-byte formats (2 and 6 bits) are stored one element per byte in files, as ml_dtypes does.
pub(crate) const fn is_nibble(format: Format) -> bool {
    matches!(format.per_packed_byte(), Some(2))
}

/// The formats files pack two per byte, in format-table order.
pub fn nibble_formats() -> impl Iterator<Item = Format> {
    Format::ALL.into_iter().filter(|f| is_nibble(*f))
}
