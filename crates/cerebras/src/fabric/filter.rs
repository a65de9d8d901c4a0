//! Filters in front of a PE's compute engine (spec §8): a range filter lets a color's data
//! wavelets through only when their index (high 16 bits) is in `[min, max]`; control
//! wavelets always pass. Counter and sparse-counter filters are named with their fields by
//! the spec but their behaviour (what happens at `limit1` / `limit2` / `max_counter`) is
//! unpublished, so setting one is refused ([`CounterFilter::refuse`]).

use super::color::Color;
use super::error::FabricError;
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

/// A counter filter (`limit2` set: a sparse counter) with the fields spec §8 lists.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CounterFilter {
    /// Count data wavelets.
    pub count_data: bool,
    /// Count control wavelets.
    pub count_control: bool,
    /// `init_counter`.
    pub init_counter: u16,
    /// `limit1`.
    pub limit1: u16,
    /// `limit2` (a `sparse_counter` filter when set).
    pub limit2: Option<u16>,
    /// `max_counter`.
    pub max_counter: u16,
    /// `filter_control`.
    pub filter_control: bool,
}

impl CounterFilter {
    /// The filter's kind as CSL names it.
    pub const fn kind(&self) -> &'static str {
        if self.limit2.is_some() {
            "sparse_counter"
        } else {
            "counter"
        }
    }

    /// The error a counter filter on `color` gets: which wavelets pass at each count is not
    /// published, so npusim does not guess.
    pub fn refuse(&self, color: Color) -> FabricError {
        FabricError::Unsupported {
            what: format!("{} filter on color {}", self.kind(), color.id()),
            why: "unpublished: the fields are documented, not which wavelets pass at each count",
        }
    }
}
