//! How elements of a format sit in a byte buffer.

use std::fmt;

use crate::error::NumericsError;
use crate::format::Format;

/// Storage layout of sub-byte elements; formats of 8 bits and more are always one element per
/// `bits/8` little-endian bytes, and 6-bit formats one element per byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum Layout {
    /// 4-bit formats two per byte, element 0 in the low nibble (AscendC `int4b_t`, `fp4x2_*`);
    /// 2-bit formats four per byte, element 0 in the lowest two bits.
    #[default]
    Packed,
    /// One element per byte, in the low bits (how ml_dtypes stores `int4`, `float4_e2m1fn`,
    /// `float6_e2m3fn`, `int2`).
    Unpacked,
}

impl Layout {
    /// Lower-case name.
    pub const fn name(self) -> &'static str {
        match self {
            Layout::Packed => "packed",
            Layout::Unpacked => "unpacked",
        }
    }
}

impl fmt::Display for Layout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A format together with its layout in memory: what a byte buffer of elements means.
///
/// ```
/// use npusim_numerics::{Format, Layout, Storage};
/// let s = Storage::new(Format::F4E2M1, Layout::Packed).unwrap();
/// assert_eq!(s.bytes_for(5), 3);
/// assert!(Storage::new(Format::F16, Layout::Packed).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Storage {
    format: Format,
    layout: Layout,
}

impl Storage {
    /// A storage description; `Packed` is only meaningful (and only accepted) for 2- and 4-bit
    /// formats.
    pub fn new(format: Format, layout: Layout) -> Result<Storage, NumericsError> {
        if layout == Layout::Packed && format.per_packed_byte().is_none() {
            return Err(NumericsError::PackedNotSubByte {
                format,
                bits: format.bits(),
            });
        }
        Ok(Storage { format, layout })
    }

    /// The default storage of a format: packed for 2- and 4-bit formats, plain otherwise.
    pub const fn native(format: Format) -> Storage {
        Storage {
            format,
            layout: if format.per_packed_byte().is_some() {
                Layout::Packed
            } else {
                Layout::Unpacked
            },
        }
    }

    /// The element format.
    pub const fn format(&self) -> Format {
        self.format
    }

    /// The layout.
    pub const fn layout(&self) -> Layout {
        self.layout
    }

    /// Whether several elements share a byte.
    pub const fn is_packed(&self) -> bool {
        matches!(self.layout, Layout::Packed)
    }

    /// Elements per byte: 2 or 4 when packed, 1 otherwise (also for wider formats).
    pub const fn per_byte(&self) -> usize {
        match (self.layout, self.format.per_packed_byte()) {
            (Layout::Packed, Some(n)) => n,
            _ => 1,
        }
    }

    /// Bytes needed for `count` elements.
    pub const fn bytes_for(&self, count: usize) -> usize {
        if self.is_packed() {
            count.div_ceil(self.per_byte())
        } else {
            count * self.format.unpacked_bytes()
        }
    }

    /// Elements in a buffer of `bytes` bytes (packed buffers hold two or four per byte).
    pub fn count_in(&self, bytes: usize, role: &'static str) -> Result<usize, NumericsError> {
        if self.is_packed() {
            return Ok(bytes * self.per_byte());
        }
        let w = self.format.unpacked_bytes();
        if !bytes.is_multiple_of(w) {
            return Err(NumericsError::RaggedBuffer {
                role,
                bytes,
                format: self.format,
                element_bytes: w,
            });
        }
        Ok(bytes / w)
    }

    /// Checks that `bytes` is exactly the size of `count` elements.
    pub fn check_len(
        &self,
        bytes: usize,
        count: usize,
        role: &'static str,
    ) -> Result<(), NumericsError> {
        let needed = self.bytes_for(count);
        if bytes != needed {
            return Err(NumericsError::LengthMismatch {
                role,
                bytes,
                count,
                format: self.format,
                layout: self.layout.name(),
                needed,
            });
        }
        Ok(())
    }

    /// Reads element `i` (its code in the low bits).
    #[inline]
    pub fn read(&self, buf: &[u8], i: usize) -> u64 {
        if self.is_packed() {
            let per = self.per_byte();
            let bits = 8 / per;
            u64::from(buf[i / per] >> (bits * (i % per))) & self.format.code_mask()
        } else {
            match self.format.unpacked_bytes() {
                1 => u64::from(buf[i]) & self.format.code_mask(),
                2 => u64::from(u16::from_le_bytes([buf[2 * i], buf[2 * i + 1]])),
                4 => {
                    let b = &buf[4 * i..4 * i + 4];
                    u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                }
                _ => {
                    let mut a = [0u8; 8];
                    a.copy_from_slice(&buf[8 * i..8 * i + 8]);
                    u64::from_le_bytes(a)
                }
            }
        }
    }

    /// Writes element `i` (the low bits of `code`). Packed writes keep the byte's other
    /// elements; a one-per-byte sub-byte element is written with its high bits zero.
    #[inline]
    pub fn write(&self, buf: &mut [u8], i: usize, code: u64) {
        if self.is_packed() {
            let per = self.per_byte();
            let shift = (8 / per) * (i % per);
            let mask = self.format.code_mask() as u8;
            let b = &mut buf[i / per];
            *b = (*b & !(mask << shift)) | (((code as u8) & mask) << shift);
        } else {
            // Fixed-size stores per width (a runtime-length copy would be a memcpy call).
            let b = code.to_le_bytes();
            match self.format.unpacked_bytes() {
                1 => buf[i] = b[0],
                2 => buf[2 * i..2 * i + 2].copy_from_slice(&b[..2]),
                4 => buf[4 * i..4 * i + 4].copy_from_slice(&b[..4]),
                _ => buf[8 * i..8 * i + 8].copy_from_slice(&b),
            }
        }
    }
}
