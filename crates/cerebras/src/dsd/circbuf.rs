//! `circbuf_dsd`: a contiguous buffer that wraps to its start (seed 004, spec §2.4).

use std::fmt;

use super::base::Base;
use super::error::DsdError;
use crate::limits::{EXTENT, WRAPAROUND};

/// A circular buffer DSD: element `n` is at `(n mod wraparound)` elements from the base.
///
/// Usable only through a DSR loaded with `@load_to_dsr_xdsr` (seed 004).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CircBuf {
    /// Start (and initial head) of the buffer.
    pub base: Base,
    /// Number of iterations.
    pub extent: u16,
    /// Elements from the start to the exclusive end where the walk wraps.
    pub wraparound: u16,
}

impl CircBuf {
    /// A circular buffer; `wraparound` defaults to the tensor's size, must not exceed it, and
    /// is required when the base is a pointer to a scalar.
    pub fn new(base: Base, extent: i64, wraparound: Option<i64>) -> Result<CircBuf, DsdError> {
        EXTENT
            .check(i128::from(extent))
            .map_err(|e| DsdError::limit("circbuf_dsd extent", e))?;
        let wrap = match (wraparound, base.elements) {
            (Some(w), size) => {
                WRAPAROUND
                    .check(i128::from(w))
                    .map_err(|e| DsdError::limit("circbuf_dsd wraparound", e))?;
                if let Some(size) = size
                    && w > i64::from(size)
                {
                    return Err(DsdError::WrapTooLarge {
                        tensor: base.name.clone(),
                        wraparound: w as u32,
                        size,
                    });
                }
                w
            }
            (None, Some(size)) => {
                WRAPAROUND
                    .check(i128::from(size))
                    .map_err(|e| DsdError::limit("circbuf_dsd wraparound (the tensor size)", e))?;
                i64::from(size)
            }
            (None, None) => {
                return Err(DsdError::WrapRequired {
                    base: base.name.clone(),
                });
            }
        };
        Ok(CircBuf {
            base,
            extent: extent as u16,
            wraparound: wrap as u16,
        })
    }

    /// Element offsets from the base, in access order, starting at head `head`.
    pub fn element_offsets(&self, head: u16) -> impl Iterator<Item = i64> + '_ {
        let wrap = i64::from(self.wraparound.max(1));
        (0..i64::from(self.extent)).map(move |n| (i64::from(head) + n) % wrap)
    }
}

impl fmt::Display for CircBuf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "@get_dsd(circbuf_dsd, .{{.base_address = {}, .extent = {}, .wraparound = {}}})",
            self.base, self.extent, self.wraparound
        )
    }
}
