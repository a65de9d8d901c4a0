//! `mem1d_dsd`: a memory vector walked by one induction variable (seed 004).

use std::fmt;

use super::base::Base;
use super::error::DsdError;
use super::walk::walk;
use crate::access::Lowered;
use crate::limits::{EXTENT, MEM1D_STRIDE, MEM1D_VARIABLES, OFFSET};

/// A one-dimensional memory DSD: element `n` is at `offset + n * stride` elements from `base`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mem1d {
    /// Base address.
    pub base: Base,
    /// Offset from the base, in elements (`i16`).
    pub offset: i16,
    /// Stride, in elements (`i8`; 0 repeats one element).
    pub stride: i8,
    /// Number of elements (`u16`).
    pub extent: u16,
    /// Whether a DSD operation's `.index` adds to the address (seed 004).
    pub wavelet_index_offset: bool,
}

impl Mem1d {
    /// A mem1d from fields given as wide numbers, each checked against its limit.
    pub fn new(base: Base, offset: i64, stride: i64, extent: i64) -> Result<Mem1d, DsdError> {
        OFFSET
            .check(i128::from(offset))
            .map_err(|e| DsdError::limit("mem1d_dsd offset", e))?;
        MEM1D_STRIDE
            .check(i128::from(stride))
            .map_err(|e| DsdError::limit("mem1d_dsd stride", e))?;
        EXTENT
            .check(i128::from(extent))
            .map_err(|e| DsdError::limit("mem1d_dsd extent", e))?;
        Ok(Mem1d {
            base,
            offset: offset as i16,
            stride: stride as i8,
            extent: extent as u16,
            wavelet_index_offset: false,
        })
    }

    /// The mem1d of a lowered tensor access with one induction variable.
    pub fn from_lowered(base: Base, l: &Lowered) -> Result<Mem1d, DsdError> {
        MEM1D_VARIABLES
            .check(l.extent.len() as i128)
            .map_err(|e| DsdError::limit("mem1d_dsd tensor access", e))?;
        let stride = l.stride.first().copied().unwrap_or(0);
        let extent = l.extent.first().copied().unwrap_or(0);
        Mem1d::new(base, l.offset, stride, i64::from(extent))
    }

    /// Returns the DSD with `wavelet_index_offset` set as given.
    #[must_use]
    pub fn with_wavelet_index_offset(mut self, on: bool) -> Mem1d {
        self.wavelet_index_offset = on;
        self
    }

    /// Element offsets from the base, in access order.
    pub fn element_offsets(&self) -> impl Iterator<Item = i64> + '_ {
        let stride = i64::from(self.stride);
        (0..i64::from(self.extent)).map(move |n| i64::from(self.offset) + n * stride)
    }

    /// The same walk as the general odometer (used to cross-check the closed form).
    pub fn walked_offsets(&self) -> Vec<i64> {
        walk(i64::from(self.offset), &[self.extent], &[self.stride]).collect()
    }
}

impl fmt::Display for Mem1d {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "@get_dsd(mem1d_dsd, .{{.base_address = {}, .offset = {}, .stride = {}, .extent = {}",
            self.base, self.offset, self.stride, self.extent
        )?;
        if self.wavelet_index_offset {
            f.write_str(", .wavelet_index_offset = true")?;
        }
        f.write_str("})")
    }
}
