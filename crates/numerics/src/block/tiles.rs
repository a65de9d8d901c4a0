//! The blocks of a [`BlockLayout`] grouped into tiles: the blocks at one position along the
//! axis for every inner index, which lie in one contiguous run of elements (and of scales).

use super::layout::BlockLayout;

/// A layout seen as tiles. Tile `t` is block row `k = t % nb` of outer index `o = t / nb`:
/// `rows(t)` positions along the axis times `inner` elements, contiguous in the flat order, and
/// its `inner` scales, contiguous in the scale order; consecutive tiles are adjacent.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tiles {
    /// Elements per full block.
    pub block: usize,
    /// Length of the axis.
    pub n: usize,
    /// Blocks along the axis.
    pub nb: usize,
    /// Stride of the axis (blocks per tile).
    pub inner: usize,
    /// Number of tiles.
    pub count: usize,
}

impl Tiles {
    /// The tiles of `layout`.
    pub fn new(layout: &BlockLayout) -> Tiles {
        let nb = layout.blocks_along_axis();
        Tiles {
            block: layout.block_size(),
            n: layout.axis_len(),
            nb,
            inner: layout.inner(),
            count: layout.outer() * nb,
        }
    }

    /// Positions along the axis in tile `t` (the last tile of an axis may be short).
    pub fn rows(&self, t: usize) -> usize {
        let k = t % self.nb.max(1);
        self.block.min(self.n - k * self.block)
    }

    /// Flat index of the first element of tile `t` (the element count for `t == count`).
    pub fn elem_start(&self, t: usize) -> usize {
        let nb = self.nb.max(1);
        ((t / nb) * self.n + (t % nb) * self.block) * self.inner
    }

    /// The tile after `t` at which a piece of about `target` elements ends: at least one tile
    /// on, at most `count`, and (when `even`) at an even flat index or at `count`.
    pub fn next_cut(&self, t: usize, target: usize, even: bool) -> usize {
        let per_tile = (self.block.min(self.n) * self.inner).max(1);
        let mut next = t.saturating_add((target / per_tile).max(1)).min(self.count);
        while even && next < self.count && self.elem_start(next) % 2 == 1 {
            next += 1;
        }
        next
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tiles_cover_the_layout_in_order() {
        // [3, 33, 3] along axis 1 in blocks of 32: 2 tiles per outer index, rows 32 and 1
        let l = BlockLayout::new(&[3, 33, 3], 1, 32).unwrap();
        let t = Tiles::new(&l);
        assert_eq!((t.count, t.rows(0), t.rows(1)), (6, 32, 1));
        assert_eq!(t.elem_start(1), 96);
        assert_eq!(t.elem_start(2), 99);
        assert_eq!(t.elem_start(6), l.len());
        // tiles 2 and 3 start at odd indices (99, 195): an even cut skips to tile 4 (198)
        assert_eq!(t.next_cut(1, 100, true), 4);
        assert_eq!(t.next_cut(1, 100, false), 2);
        assert_eq!(t.next_cut(0, 100, true), 1);
        assert_eq!(t.next_cut(4, 1 << 20, true), 6);
    }
}
