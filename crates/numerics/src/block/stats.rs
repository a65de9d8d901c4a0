//! What happened while quantising: per-element statuses and per-block scale events.

use crate::status::StatusCounts;

/// Counts gathered by [`quantize`](super::quantize).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockStats {
    /// Blocks quantised.
    pub blocks: u64,
    /// Blocks whose scale is NaN (a NaN or ±Inf in an MX block, a NaN in NVFP4's arithmetic).
    pub nan_blocks: u64,
    /// Blocks whose values are all zero.
    pub zero_blocks: u64,
    /// Non-zero blocks whose scale was clamped at the bottom of its range (e8m0 2^-127,
    /// NVFP4's 2^-6): small elements may flush.
    pub scale_underflow: u64,
    /// Blocks whose scale was clamped at the top of its range (e8m0 2^127, NVFP4's 448).
    pub scale_saturated: u64,
    /// Blocks where at least one element saturated to the element's max normal.
    pub blocks_with_saturated_elements: u64,
    /// The element casts' statuses (elements of NaN-scale blocks are not counted).
    pub elements: StatusCounts,
}

impl BlockStats {
    /// Adds the counts of `other` (e.g. of another piece of the same tensor).
    pub fn add(&mut self, other: &BlockStats) {
        self.blocks += other.blocks;
        self.nan_blocks += other.nan_blocks;
        self.zero_blocks += other.zero_blocks;
        self.scale_underflow += other.scale_underflow;
        self.scale_saturated += other.scale_saturated;
        self.blocks_with_saturated_elements += other.blocks_with_saturated_elements;
        self.elements.add(&other.elements);
    }
}
