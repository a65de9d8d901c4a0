//! Filters in front of a PE's compute engine (spec §8): a range filter lets a color's data
//! wavelets through only when their index (high 16 bits) is in `[min, max]`; control
//! wavelets always pass. Counter filters are not modelled yet.

use super::wavelet::Wavelet;

/// A range filter on one color.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RangeFilter {
    /// Smallest index let through.
    pub min_idx: u16,
    /// Largest index let through.
    pub max_idx: u16,
}

impl RangeFilter {
    /// Whether `w` reaches the compute engine.
    pub fn passes(&self, w: &Wavelet) -> bool {
        w.is_control() || (self.min_idx..=self.max_idx).contains(&w.index())
    }
}
