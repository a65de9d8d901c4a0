//! Views of a DM tensor and tiles of them (`view()`, `view_mut()`,
//! `tile::<Index, LEN, Element2>(start)`).

use std::collections::{BTreeMap, HashSet};

use thiserror::Error;

use super::DmTensor;
use super::tensor::LogicalIndex;
use crate::mapping::{Final, Mapping, PaddingKind};

/// Why a tile cannot be cut from a view.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TileError {
    /// The tile runs past the end of its index mapping.
    #[error("a tile of {len} cells of m![{index}] starting at {start} runs past its {size} cells")]
    OutOfRange {
        /// The index mapping.
        index: String,
        /// Start coordinate along it.
        start: usize,
        /// Cells in the tile.
        len: usize,
        /// Cells of the index mapping.
        size: usize,
    },
    /// The tile's start is not an element the view holds.
    #[error(
        "the tile start {offset} (m![{index}] at {start}) is not held by the view m![{element}]"
    )]
    StartNotHeld {
        /// The start as a logical index.
        offset: String,
        /// The index mapping.
        index: String,
        /// Start coordinate.
        start: usize,
        /// The view's element mapping.
        element: String,
    },
    /// The tile's element mapping places a cell where the view holds another.
    #[error(
        "m![{element2}] puts {cell} at position {position} of the tile, where the view holds {held} (rule: a tile keeps its view's layout; cells outside the tile are padding)"
    )]
    Layout {
        /// The tile's element mapping.
        element2: String,
        /// Position in the tile.
        position: usize,
        /// The logical element the tile puts there.
        cell: String,
        /// What the view holds at the corresponding place.
        held: String,
    },
    /// The tile's element mapping holds the wrong number of elements.
    #[error(
        "m![{element2}] holds {live} elements, but {len} of the {covered} cells of m![{index}] in a view of {view_live} elements make {expected}"
    )]
    Count {
        /// The tile's element mapping.
        element2: String,
        /// Its live cells.
        live: usize,
        /// Cells in the tile.
        len: usize,
        /// The index mapping.
        index: String,
        /// Cells of the index mapping the view covers.
        covered: usize,
        /// Live cells of the view.
        view_live: usize,
        /// `view_live × len / size`.
        expected: usize,
    },
    /// The tile starts inside a byte (4-bit elements).
    #[error("the tile starts at element {element} of {bits}-bit elements, inside a byte")]
    SubByteStart {
        /// Element offset from the tensor's start.
        element: usize,
        /// Bits per element.
        bits: usize,
    },
}

/// A view of a [`DmTensor`]: its whole layout (`view()`), or a tile of it. Position `p` of the
/// view's `Element` mapping is position `base_offset + p` of the tensor's, and holds the
/// view's element cell plus the tile's offset index.
///
/// Cells of the view outside its tile read as `Top` padding in a read view and as `Bottom` in
/// a mutable one, whatever padding the tile's mapping writes there (`docs/furiosa-engines.md`
/// §2.1, §2.4; the book's K4 tiles both views with `#`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DmTensorView {
    tensor: DmTensor,
    element: Mapping,
    offset: LogicalIndex,
    base_offset: usize,
    mutable: bool,
}

impl DmTensor {
    /// The read view of the whole tensor (`tensor.view()`).
    pub fn view(&self) -> DmTensorView {
        self.whole(false)
    }

    /// The mutable view of the whole tensor (`tensor.view_mut()`), a `commit_view` destination.
    pub fn view_mut(&self) -> DmTensorView {
        self.whole(true)
    }

    fn whole(&self, mutable: bool) -> DmTensorView {
        DmTensorView {
            tensor: self.clone(),
            element: self.element().clone(),
            offset: BTreeMap::new(),
            base_offset: 0,
            mutable,
        }
    }
}

fn describe(index: &LogicalIndex) -> String {
    Final::Live(index.clone()).to_string()
}

fn add(a: &LogicalIndex, b: &LogicalIndex) -> LogicalIndex {
    let mut out = a.clone();
    for (k, v) in b {
        *out.entry(k.clone()).or_insert(0) += v;
    }
    out.retain(|_, v| *v != 0);
    out
}

impl DmTensorView {
    /// The tensor viewed.
    pub fn tensor(&self) -> &DmTensor {
        &self.tensor
    }

    /// The view's `Element` mapping.
    pub fn element(&self) -> &Mapping {
        &self.element
    }

    /// Whether writes go through this view (`view_mut`).
    pub fn is_mutable(&self) -> bool {
        self.mutable
    }

    /// The tile's offset index (`i![Index: start]`, summed over nested tiles; empty for a whole
    /// view), e.g. `{A: 1024}`.
    pub fn offset(&self) -> &LogicalIndex {
        &self.offset
    }

    /// Position in the tensor's `Element` mapping of the view's position 0.
    pub fn base_offset(&self) -> usize {
        self.base_offset
    }

    /// Byte address of the view's position 0 in each slice: the tensor's address plus the
    /// offset's element position (`docs/furiosa-engines.md` §8.2, decision "views").
    pub fn address(&self) -> usize {
        self.tensor.address() + self.base_offset * self.tensor.dtype().bits() / 8
    }

    /// The cell at position `p` of the view: the logical element it holds (its element cell
    /// plus the offset), the tensor's own padding, or `Top` / `Bottom` outside the tile.
    pub fn cell(&self, p: usize) -> Final {
        match self.element.cell(p) {
            Final::Live(index) => Final::Live(add(&index, &self.offset)),
            Final::OutOfBounds => Final::OutOfBounds,
            Final::Padding(kind) => match self.tensor.element().cell(self.base_offset + p) {
                // The tensor's own padding keeps its kind.
                Final::Padding(_) => Final::Padding(kind),
                // A cell the tensor holds (or a place past its end) that the tile does not:
                // outside the tile.
                _ if self.mutable => Final::Padding(PaddingKind::Bottom),
                _ => Final::Padding(PaddingKind::Top),
            },
        }
    }

    /// `view.tile::<Index, LEN, Element2>(start)`: the `len` cells of `index` from coordinate
    /// `start`, laid out by `element2` (the view's layout with the cells outside the tile
    /// written as padding). The offset is `index`'s cell at `start`.
    ///
    /// Checks: `start + len ≤ index.size()`; the offset is held by the view; every live cell
    /// of `element2` at position `p`, plus the offset, is what the view holds at `p` plus the
    /// offset's position; `element2` holds `len` of the `index` cells the view covers.
    pub fn tile(
        &self,
        index: &Mapping,
        len: usize,
        element2: &Mapping,
        start: usize,
    ) -> Result<DmTensorView, TileError> {
        let (it, et) = (index.m_notation(), element2.m_notation());
        if start.checked_add(len).is_none_or(|end| end > index.size()) {
            return Err(TileError::OutOfRange {
                index: it,
                start,
                len,
                size: index.size(),
            });
        }
        let local = match index.cell(start) {
            Final::Live(i) => i,
            _ => BTreeMap::new(),
        };
        let offset = add(&self.offset, &local);
        let mine: Vec<Final> = (0..self.element.size()).map(|p| self.cell(p)).collect();
        let want = Final::Live(offset.clone());
        let Some(rel) = mine.iter().position(|c| *c == want) else {
            return Err(TileError::StartNotHeld {
                offset: describe(&offset),
                index: it,
                start,
                element: self.element.m_notation(),
            });
        };
        let mut live = 0usize;
        for (p, cell) in element2.cells().into_iter().enumerate() {
            let Final::Live(j) = cell else { continue };
            live += 1;
            let placed = Final::Live(add(&j, &offset));
            let held = mine.get(rel + p).cloned().unwrap_or(Final::OutOfBounds);
            if held != placed {
                return Err(TileError::Layout {
                    element2: et,
                    position: p,
                    cell: placed.to_string(),
                    held: held.to_string(),
                });
            }
        }
        // The view's elements spread evenly over the cells of `index` it covers (those whose
        // cell, plus the view's offset, the view holds); the tile takes `len` of them.
        let held: HashSet<&Final> = mine.iter().filter(|c| c.is_live()).collect();
        let view_live = held.len();
        let covered = (0..index.size())
            .filter(|&q| match index.cell(q) {
                Final::Live(i) => held.contains(&Final::Live(add(&self.offset, &i))),
                _ => false,
            })
            .count();
        let expected = view_live * len / covered.max(1);
        if live != expected {
            return Err(TileError::Count {
                element2: et,
                live,
                len,
                index: it,
                covered,
                view_live,
                expected,
            });
        }
        let base_offset = self.base_offset + rel;
        let bits = self.tensor.dtype().bits();
        if !(base_offset * bits).is_multiple_of(8) {
            return Err(TileError::SubByteStart {
                element: base_offset,
                bits,
            });
        }
        Ok(DmTensorView {
            tensor: self.tensor.clone(),
            element: element2.clone(),
            offset,
            base_offset,
            mutable: self.mutable,
        })
    }
}
