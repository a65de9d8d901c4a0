//! Where the blocks lie in an n-d array blocked along one axis (row-major storage).

use super::error::BlockError;

/// An n-d shape cut into blocks of `block` elements along `axis`.
///
/// The array is viewed as `[outer, n, inner]` with `n = shape[axis]`. A block is
/// `block` consecutive indices along the axis (the last block of the axis is shorter when
/// `block` does not divide `n`) at one `(outer, inner)` position. The scales form the array
/// of `shape` with `shape[axis]` replaced by the number of blocks along it, row-major.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockLayout {
    shape: Vec<usize>,
    axis: usize,
    block: usize,
    outer: usize,
    n: usize,
    inner: usize,
    len: usize,
}

impl BlockLayout {
    /// The layout of `shape` blocked by `block` along `axis` (negative counts from the end).
    pub fn new(shape: &[usize], axis: isize, block: usize) -> Result<BlockLayout, BlockError> {
        let dims = shape.len();
        let out_of_range = BlockError::AxisOutOfRange { axis, dims };
        let a = if axis < 0 {
            dims.checked_sub(axis.unsigned_abs()).ok_or(out_of_range)?
        } else {
            axis.unsigned_abs()
        };
        if a >= dims {
            return Err(BlockError::AxisOutOfRange { axis, dims });
        }
        let too_large = || BlockError::ShapeTooLarge {
            shape: shape.to_vec(),
        };
        let product = |s: &[usize]| {
            s.iter()
                .try_fold(1usize, |acc, &d| acc.checked_mul(d))
                .ok_or_else(too_large)
        };
        let outer = product(&shape[..a])?;
        let inner = product(&shape[a + 1..])?;
        let n = shape[a];
        let len = product(shape)?;
        Ok(BlockLayout {
            shape: shape.to_vec(),
            axis: a,
            block,
            outer,
            n,
            inner,
            len,
        })
    }

    /// The shape.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The blocked axis (non-negative).
    pub fn axis(&self) -> usize {
        self.axis
    }

    /// Elements per full block.
    pub fn block_size(&self) -> usize {
        self.block
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Blocks along the axis (the last one may be short).
    pub fn blocks_along_axis(&self) -> usize {
        self.n.div_ceil(self.block)
    }

    /// Checks that `codes` and `scales` bytes are what `scheme` needs for this layout; a
    /// mismatch names the part (`names.0` or `names.1`) and both lengths.
    pub(crate) fn check_parts(
        &self,
        scheme: super::Scheme,
        (codes, scales): (usize, usize),
        names: (&'static str, &'static str),
    ) -> Result<(), BlockError> {
        let check = |what, len, needed| {
            if len == needed {
                Ok(())
            } else {
                Err(BlockError::PartsLength {
                    what,
                    len,
                    needed,
                    shape: self.shape.clone(),
                    scheme: scheme.to_string(),
                })
            }
        };
        check(names.0, codes, scheme.code_bytes(self.len))?;
        check(names.1, scales, self.block_count())
    }

    /// Number of blocks, i.e. of scales.
    pub fn block_count(&self) -> usize {
        self.outer * self.blocks_along_axis() * self.inner
    }

    /// The shape of the scale array.
    pub fn scale_shape(&self) -> Vec<usize> {
        let mut s = self.shape.clone();
        s[self.axis] = self.blocks_along_axis();
        s
    }

    /// Whether the axis length is not a multiple of the block size (the last block is short).
    pub fn has_short_block(&self) -> bool {
        !self.n.is_multiple_of(self.block)
    }

    /// Product of the dimensions before the axis.
    pub(crate) fn outer(&self) -> usize {
        self.outer
    }

    /// Length of the axis.
    pub(crate) fn axis_len(&self) -> usize {
        self.n
    }

    /// Product of the dimensions after the axis (the stride of the axis).
    pub(crate) fn inner(&self) -> usize {
        self.inner
    }

    /// The flat element indices of block `b` (in scale order), in order along the axis.
    pub fn block_indices(&self, b: usize) -> impl Iterator<Item = usize> + use<> {
        let nb = self.blocks_along_axis().max(1);
        let inner = self.inner.max(1);
        let i = b % inner;
        let k = (b / inner) % nb;
        let o = b / inner / nb;
        let start = k * self.block;
        let end = (start + self.block).min(self.n);
        let (n, step) = (self.n, self.inner);
        (start..end).map(move |j| (o * n + j) * step + i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blocks_along_a_middle_axis() {
        // shape [2, 5, 3] in blocks of 2 along axis 1: 3 blocks per (outer, inner) pair.
        let l = BlockLayout::new(&[2, 5, 3], 1, 2).unwrap();
        assert_eq!((l.block_count(), l.scale_shape()), (18, vec![2, 3, 3]));
        // block 0: outer 0, k 0, inner 0 → rows 0, 1 of column 0
        assert_eq!(l.block_indices(0).collect::<Vec<_>>(), vec![0, 3]);
        // block 7: inner 1, k 2 (the short tail: row 4 only), outer 0
        assert_eq!(l.block_indices(7).collect::<Vec<_>>(), vec![13]);
        // block 9: outer 1, k 0, inner 0
        assert_eq!(l.block_indices(9).collect::<Vec<_>>(), vec![15, 18]);
        let mut all: Vec<usize> = (0..18).flat_map(|b| l.block_indices(b)).collect();
        all.sort_unstable();
        assert_eq!(all, (0..30).collect::<Vec<_>>());
        assert_eq!(BlockLayout::new(&[2, 5, 3], -2, 2).unwrap(), l);
        assert!(BlockLayout::new(&[], 0, 2).is_err());
        assert!(BlockLayout::new(&[usize::MAX, 2], 0, 2).is_err());
        // an empty dimension: no blocks, no elements
        let e = BlockLayout::new(&[0, 4], 1, 32).unwrap();
        assert_eq!((e.len(), e.block_count()), (0, 0));
    }
}
