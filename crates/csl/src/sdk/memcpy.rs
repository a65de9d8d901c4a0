//! Copy-mode memcpy between a host array and one exported symbol on each PE of a rectangle
//! of PEs, as `<memcpy/memcpy>` and the host runtime do it, natively.
//!
//! The host array is the 3-D tensor `(h, w, elements)` of the rectangle: with
//! [`MemcpyOrder::RowMajor`] in C order (PE `(i, j)` of the rectangle holds the contiguous
//! run at `((j * w) + i) * elements`), with [`MemcpyOrder::ColMajor`] in Fortran order
//! (element `k` of PE `(i, j)` at `j + h * (i + w * k)`). Host elements are 32-bit words;
//! a 16-bit copy ([`MemcpyDataType::Bits16`]) takes the low half of each word to the
//! device and gives back the device's 16 bits zero-extended.

/// `MemcpyOrder`: how the host array maps to PEs and elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemcpyOrder {
    /// `ROW_MAJOR`.
    RowMajor,
    /// `COL_MAJOR`.
    ColMajor,
}

/// `MemcpyDataType`: the size of each element on the device.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemcpyDataType {
    /// `MEMCPY_16BIT`.
    Bits16,
    /// `MEMCPY_32BIT`.
    Bits32,
}

impl MemcpyDataType {
    /// Bits per element.
    pub fn bits(self) -> u32 {
        match self {
            MemcpyDataType::Bits16 => 16,
            MemcpyDataType::Bits32 => 32,
        }
    }
}

/// A memcpy's rectangle of PEs and elements per PE: `(x, y, w, h, elements)` of the SDK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MemcpyRect {
    /// First column of the program's rectangle.
    pub x: u32,
    /// First row.
    pub y: u32,
    /// Columns.
    pub w: u32,
    /// Rows.
    pub h: u32,
    /// Elements per PE.
    pub elements: u32,
}

impl MemcpyRect {
    /// Host elements the copy takes.
    pub fn len(&self) -> u64 {
        u64::from(self.w) * u64::from(self.h) * u64::from(self.elements)
    }

    /// Whether the copy moves nothing.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The host index of element `k` of the rectangle's PE `(i, j)`.
    pub fn host_index(&self, order: MemcpyOrder, i: u32, j: u32, k: u32) -> usize {
        let (i, j, k) = (u64::from(i), u64::from(j), u64::from(k));
        let (w, h, l) = (
            u64::from(self.w),
            u64::from(self.h),
            u64::from(self.elements),
        );
        let idx = match order {
            MemcpyOrder::RowMajor => (j * w + i) * l + k,
            MemcpyOrder::ColMajor => j + h * (i + w * k),
        };
        idx as usize
    }
}
