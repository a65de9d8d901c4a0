//! Flat typed storage of a stream's codes: one code per physical position, in position order,
//! each in the narrowest machine word that holds its type (a byte for `i4`, `i8` and the fp8
//! types, 16 bits for `i16`, `f16` and `bf16`, 32 bits for `i32` and `f32`).
//!
//! Position `((((chip · CL + cluster) · S + slice) · T + time) · P + packet)` of a stream's
//! buffer holds the element at those coordinates, so a stage addresses a dimension by its
//! stride (the product of the sizes inside it) and runs over contiguous runs of codes.

use std::borrow::Cow;

use crate::DType;

/// The codes of a stream, one per physical position, in the word width of their type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Codes {
    /// Codes of types of at most 8 bits (`i4` in the low nibble).
    U8(Vec<u8>),
    /// Codes of 16-bit types.
    U16(Vec<u16>),
    /// Codes of 32-bit types.
    U32(Vec<u32>),
}

/// A code at `index` that does not fit its type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BadCode {
    /// Physical position.
    pub index: usize,
    /// The code.
    pub code: u64,
}

impl Codes {
    /// `len` zero codes in the word width of `dtype`.
    pub fn zeroed(dtype: DType, len: usize) -> Codes {
        match dtype.bits() {
            0..=8 => Codes::U8(vec![0; len]),
            9..=16 => Codes::U16(vec![0; len]),
            _ => Codes::U32(vec![0; len]),
        }
    }

    /// The codes of `dtype` given as 64-bit values; the first one with bits beyond the type's
    /// width is an error.
    pub fn from_u64(dtype: DType, codes: &[u64]) -> Result<Codes, BadCode> {
        let mask = dtype.format().code_mask();
        if let Some((index, &code)) = codes.iter().enumerate().find(|(_, c)| **c & !mask != 0) {
            return Err(BadCode { index, code });
        }
        Ok(match Codes::zeroed(dtype, 0) {
            Codes::U8(_) => Codes::U8(codes.iter().map(|&c| c as u8).collect()),
            Codes::U16(_) => Codes::U16(codes.iter().map(|&c| c as u16).collect()),
            Codes::U32(_) => Codes::U32(codes.iter().map(|&c| c as u32).collect()),
        })
    }

    /// The first code with bits beyond `dtype`'s width, if any, and whether the word width is
    /// `dtype`'s (`false`: a buffer of another width).
    pub(crate) fn check(&self, dtype: DType) -> Result<bool, BadCode> {
        let mask = dtype.format().code_mask();
        let bad = match self {
            Codes::U8(v) => v.iter().position(|&c| u64::from(c) & !mask != 0),
            Codes::U16(v) => v.iter().position(|&c| u64::from(c) & !mask != 0),
            Codes::U32(v) => v.iter().position(|&c| u64::from(c) & !mask != 0),
        };
        if let Some(index) = bad {
            let code = self.get(index).unwrap_or_default();
            return Err(BadCode { index, code });
        }
        Ok(std::mem::discriminant(self) == std::mem::discriminant(&Codes::zeroed(dtype, 0)))
    }

    /// Number of codes.
    pub fn len(&self) -> usize {
        match self {
            Codes::U8(v) => v.len(),
            Codes::U16(v) => v.len(),
            Codes::U32(v) => v.len(),
        }
    }

    /// Whether there are no codes.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The code at `index`, widened to 64 bits.
    pub fn get(&self, index: usize) -> Option<u64> {
        match self {
            Codes::U8(v) => v.get(index).map(|&c| u64::from(c)),
            Codes::U16(v) => v.get(index).map(|&c| u64::from(c)),
            Codes::U32(v) => v.get(index).map(|&c| u64::from(c)),
        }
    }

    /// The codes in position order, widened to 64 bits.
    pub fn iter(&self) -> CodesIter<'_> {
        CodesIter {
            codes: self,
            next: 0,
        }
    }

    /// The codes widened to 64 bits.
    pub fn to_u64(&self) -> Vec<u64> {
        self.iter().collect()
    }

    /// The codes as 32-bit words (borrowed when they are 32-bit, widened otherwise).
    pub fn words(&self) -> Cow<'_, [u32]> {
        match self {
            Codes::U32(v) => Cow::Borrowed(v),
            Codes::U16(v) => Cow::Owned(v.iter().map(|&c| u32::from(c)).collect()),
            Codes::U8(v) => Cow::Owned(v.iter().map(|&c| u32::from(c)).collect()),
        }
    }

    /// The codes as 32-bit words, owned (moved out when they are 32-bit).
    pub fn into_words(self) -> Vec<u32> {
        match self {
            Codes::U32(v) => v,
            other => other.words().into_owned(),
        }
    }
}

impl From<Vec<u32>> for Codes {
    fn from(words: Vec<u32>) -> Codes {
        Codes::U32(words)
    }
}

/// The codes of a [`Codes`] in position order, widened to 64 bits.
#[derive(Clone, Debug)]
pub struct CodesIter<'a> {
    codes: &'a Codes,
    next: usize,
}

impl Iterator for CodesIter<'_> {
    type Item = u64;

    fn next(&mut self) -> Option<u64> {
        let code = self.codes.get(self.next)?;
        self.next += 1;
        Some(code)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = self.codes.len().saturating_sub(self.next);
        (left, Some(left))
    }
}

impl ExactSizeIterator for CodesIter<'_> {}

impl<'a> IntoIterator for &'a Codes {
    type Item = u64;
    type IntoIter = CodesIter<'a>;

    fn into_iter(self) -> CodesIter<'a> {
        self.iter()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_follow_the_type() {
        assert!(matches!(Codes::zeroed(DType::I4, 2), Codes::U8(_)));
        assert!(matches!(Codes::zeroed(DType::F8E5M2, 2), Codes::U8(_)));
        assert!(matches!(Codes::zeroed(DType::BF16, 2), Codes::U16(_)));
        assert!(matches!(Codes::zeroed(DType::F32, 2), Codes::U32(_)));
    }

    #[test]
    fn codes_round_trip_and_bad_codes_are_named() {
        let c = Codes::from_u64(DType::I16, &[1, 0xffff, 7]).expect("fits");
        assert_eq!(c.to_u64(), [1, 0xffff, 7]);
        assert_eq!(c.get(1), Some(0xffff));
        assert_eq!(c.get(3), None);
        assert_eq!(c.iter().len(), 3);
        assert_eq!(
            Codes::from_u64(DType::I4, &[1, 0x10]),
            Err(BadCode {
                index: 1,
                code: 0x10
            })
        );
        assert_eq!(
            Codes::U8(vec![0x10]).check(DType::I4),
            Err(BadCode { index: 0, code: 16 })
        );
        assert_eq!(Codes::U8(vec![0x1]).check(DType::I16), Ok(false));
        assert_eq!(Codes::U16(vec![0x1]).check(DType::I16), Ok(true));
    }
}
