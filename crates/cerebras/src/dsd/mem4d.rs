//! `mem4d_dsd`: a memory tensor walked by one to four nested induction variables (seed 004).

use std::fmt;

use super::base::Base;
use super::error::DsdError;
use super::walk::walk;
use crate::access::Lowered;
use crate::limits::{EXTENT, MEM4D_DIMENSIONS, MEM4D_STRIDE, OFFSET};

/// A multi-dimensional memory DSD.
///
/// Extents are written outermost first, strides innermost first (the seed's warning): stride
/// `{1, -2}` with extent `{2, 4}` is an inner loop of 4 with stride 1 inside an outer loop of
/// 2 with stride -2.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Mem4d {
    /// Base address.
    pub base: Base,
    /// Offset from the base, in elements (`i16`).
    pub offset: i16,
    /// Extents (`u16`), outermost first, 1 to 4 of them.
    pub extent: Vec<u16>,
    /// Reset-relative strides (`i16`), innermost first, one per extent.
    pub stride: Vec<i16>,
    /// Whether a DSD operation's `.index` adds to the address (seed 004).
    pub wavelet_index_offset: bool,
}

impl Mem4d {
    /// A mem4d from fields given as wide numbers, each checked against its limit.
    ///
    /// `stride` may be `None`: the seed's default is all ones.
    pub fn new(
        base: Base,
        offset: i64,
        extent: &[i64],
        stride: Option<&[i64]>,
    ) -> Result<Mem4d, DsdError> {
        MEM4D_DIMENSIONS
            .check(extent.len() as i128)
            .map_err(|e| DsdError::limit("mem4d_dsd extent", e))?;
        OFFSET
            .check(i128::from(offset))
            .map_err(|e| DsdError::limit("mem4d_dsd offset", e))?;
        let ones = vec![1i64; extent.len()];
        let stride = stride.unwrap_or(&ones);
        if stride.len() != extent.len() {
            return Err(DsdError::StrideCount {
                extents: extent.len(),
                strides: stride.len(),
            });
        }
        let mut ext = Vec::with_capacity(extent.len());
        for (d, &e) in extent.iter().enumerate() {
            EXTENT
                .check(i128::from(e))
                .map_err(|err| DsdError::limit(format!("mem4d_dsd extent[{d}]"), err))?;
            ext.push(e as u16);
        }
        let mut st = Vec::with_capacity(stride.len());
        for (d, &s) in stride.iter().enumerate() {
            MEM4D_STRIDE.check(i128::from(s)).map_err(|err| {
                DsdError::limit(format!("mem4d_dsd stride[{d}] (innermost first)"), err)
            })?;
            st.push(s as i16);
        }
        Ok(Mem4d {
            base,
            offset: offset as i16,
            extent: ext,
            stride: st,
            wavelet_index_offset: false,
        })
    }

    /// The mem4d of a lowered tensor access.
    pub fn from_lowered(base: Base, l: &Lowered) -> Result<Mem4d, DsdError> {
        let extent: Vec<i64> = l.extent.iter().map(|&e| i64::from(e)).collect();
        Mem4d::new(base, l.offset, &extent, Some(&l.stride))
    }

    /// Returns the DSD with `wavelet_index_offset` set as given.
    #[must_use]
    pub fn with_wavelet_index_offset(mut self, on: bool) -> Mem4d {
        self.wavelet_index_offset = on;
        self
    }

    /// Number of elements: the product of the extents (spec §2.3).
    pub fn len(&self) -> u64 {
        self.extent.iter().map(|&e| u64::from(e)).product()
    }

    /// Whether the DSD has no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element offsets from the base, in access order.
    pub fn element_offsets(&self) -> impl Iterator<Item = i64> + '_ {
        walk(i64::from(self.offset), &self.extent, &self.stride)
    }
}

fn tuple<T: fmt::Display>(f: &mut fmt::Formatter<'_>, items: &[T]) -> fmt::Result {
    f.write_str(".{")?;
    for (k, v) in items.iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        write!(f, "{v}")?;
    }
    f.write_str("}")
}

impl fmt::Display for Mem4d {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "@get_dsd(mem4d_dsd, .{{.base_address = {}, .offset = {}, .extent = ",
            self.base, self.offset
        )?;
        tuple(f, &self.extent)?;
        f.write_str(", .stride = ")?;
        tuple(f, &self.stride)?;
        if self.wavelet_index_offset {
            f.write_str(", .wavelet_index_offset = true")?;
        }
        f.write_str("})")
    }
}
