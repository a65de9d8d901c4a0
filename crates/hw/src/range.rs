//! Byte address ranges: half-open `[start, end)`, built with checked arithmetic, with the
//! containment and overlap tests memory models need.

use std::fmt;

use thiserror::Error;

/// A half-open byte address range `[start, end)`.
///
/// ```
/// use npusim_hw::ByteRange;
/// let buffer = ByteRange::new(0, 256 * 1024).unwrap();
/// let src = ByteRange::new(0x100, 64).unwrap();
/// let dst = ByteRange::new(0x140, 64).unwrap();
/// assert!(buffer.contains(&src) && !src.overlaps(&dst)); // [0x100, 0x140) ends where dst starts
/// assert!(ByteRange::new(usize::MAX, 2).is_err());       // the end would overflow
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ByteRange {
    start: usize,
    end: usize,
}

/// Why a range cannot be built or does not fit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum RangeError {
    /// `start + len` does not fit in an address.
    #[error("a range of {len} bytes at {start:#x} ends beyond the largest address")]
    Overflow {
        /// Start address.
        start: usize,
        /// Length in bytes.
        len: usize,
    },
    /// A range that must lie inside another does not.
    #[error("{inner} does not lie inside {outer}")]
    Outside {
        /// The range that should fit.
        inner: ByteRange,
        /// The range it should fit in.
        outer: ByteRange,
    },
    /// Two ranges that must be disjoint overlap.
    #[error("{a} and {b} overlap")]
    Overlap {
        /// One range.
        a: ByteRange,
        /// The other.
        b: ByteRange,
    },
}

impl ByteRange {
    /// `[start, start + len)`, or an error if the end overflows.
    pub const fn new(start: usize, len: usize) -> Result<ByteRange, RangeError> {
        match start.checked_add(len) {
            Some(end) => Ok(ByteRange { start, end }),
            None => Err(RangeError::Overflow { start, len }),
        }
    }

    /// `[0, len)`: a whole memory of `len` bytes (cannot overflow).
    pub const fn from_len(len: usize) -> ByteRange {
        ByteRange { start: 0, end: len }
    }

    /// First address.
    pub const fn start(&self) -> usize {
        self.start
    }

    /// One past the last address.
    pub const fn end(&self) -> usize {
        self.end
    }

    /// Length in bytes.
    pub const fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether the range holds no byte.
    pub const fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// Whether the ranges share at least one byte (an empty range overlaps nothing).
    pub const fn overlaps(&self, other: &ByteRange) -> bool {
        !self.is_empty() && !other.is_empty() && self.start < other.end && other.start < self.end
    }

    /// Whether `other` lies entirely inside `self` (an empty `other` inside or at the end counts).
    pub const fn contains(&self, other: &ByteRange) -> bool {
        self.start <= other.start && other.end <= self.end
    }

    /// Whether address `addr` lies in the range.
    pub const fn contains_addr(&self, addr: usize) -> bool {
        self.start <= addr && addr < self.end
    }

    /// `Ok(())` if `inner` lies inside `self`, else [`RangeError::Outside`] naming both.
    pub fn check_contains(&self, inner: &ByteRange) -> Result<(), RangeError> {
        if self.contains(inner) {
            Ok(())
        } else {
            Err(RangeError::Outside {
                inner: *inner,
                outer: *self,
            })
        }
    }

    /// `Ok(())` if the ranges are disjoint, else [`RangeError::Overlap`] naming both.
    pub fn check_disjoint(&self, other: &ByteRange) -> Result<(), RangeError> {
        if self.overlaps(other) {
            Err(RangeError::Overlap {
                a: *self,
                b: *other,
            })
        } else {
            Ok(())
        }
    }
}

impl fmt::Display for ByteRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bytes [{:#x}, {:#x})", self.start, self.end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(start: usize, len: usize) -> ByteRange {
        ByteRange::new(start, len).unwrap()
    }

    #[test]
    fn half_open_overlap() {
        assert!(r(0, 32).overlaps(&r(31, 1)));
        assert!(!r(0, 32).overlaps(&r(32, 32)));
        assert!(!r(32, 32).overlaps(&r(0, 32)));
        assert!(!r(0, 32).overlaps(&r(8, 0)), "empty ranges overlap nothing");
        assert!(r(8, 4).overlaps(&r(0, 64)));
    }

    #[test]
    fn containment() {
        assert!(r(0, 64).contains(&r(32, 32)));
        assert!(!r(0, 64).contains(&r(33, 32)));
        assert!(r(0, 64).contains(&r(64, 0)));
        assert!(r(0, 64).contains_addr(63) && !r(0, 64).contains_addr(64));
        assert_eq!(r(16, 48).len(), 48);
        assert!(r(5, 0).is_empty());
    }

    #[test]
    fn construction_cannot_overflow() {
        assert_eq!(
            ByteRange::new(usize::MAX, 1),
            Err(RangeError::Overflow {
                start: usize::MAX,
                len: 1
            })
        );
        assert!(ByteRange::new(usize::MAX, 0).is_ok());
    }

    #[test]
    fn errors_name_both_ranges() {
        let e = r(0, 0x40).check_contains(&r(0x30, 0x20)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bytes [0x30, 0x50) does not lie inside bytes [0x0, 0x40)"
        );
        let e = r(0, 0x40).check_disjoint(&r(0x20, 0x20)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "bytes [0x0, 0x40) and bytes [0x20, 0x40) overlap"
        );
        assert!(r(0, 0x40).check_disjoint(&r(0x40, 1)).is_ok());
    }
}
