//! What can be wrong with a DSD's fields or with a builtin applied to it.

use npusim_hw::LimitError;
use thiserror::Error;

use crate::access::AccessError;
use crate::access::error::limit_message;

/// A DSD that breaks one of the seed's rules.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DsdError {
    /// A field outside its hardware limit.
    #[error("{}", limit_message(what, limit))]
    Limit {
        /// Which DSD field (and dimension).
        what: String,
        /// The limit and the number.
        limit: LimitError,
    },
    /// A tensor access expression that cannot be parsed or lowered.
    #[error(transparent)]
    Access(#[from] AccessError),
    /// A property given both in `tensor_access` and at top level (seed 004).
    #[error("{kind} property `{property}` is given both in tensor_access and at top level")]
    GivenTwice {
        /// The DSD kind.
        kind: &'static str,
        /// The property.
        property: &'static str,
    },
    /// A required property is missing.
    #[error("{kind} needs property `{property}`")]
    Missing {
        /// The DSD kind.
        kind: &'static str,
        /// The property.
        property: &'static str,
    },
    /// The count of strides differs from the count of extents.
    #[error("mem4d_dsd has {strides} strides for {extents} extents: the counts must match")]
    StrideCount {
        /// Extents given.
        extents: usize,
        /// Strides given.
        strides: usize,
    },
    /// A circular buffer wrapping after more elements than its tensor holds (seed 004 circbuf3).
    #[error(
        "circbuf_dsd wraparound {wraparound} exceeds the size {size} of the underlying tensor `{tensor}`"
    )]
    WrapTooLarge {
        /// The tensor.
        tensor: String,
        /// The wraparound given.
        wraparound: u32,
        /// The tensor's element count.
        size: u32,
    },
    /// A circular buffer on a pointer to a scalar without `wraparound` (seed 004 circbuf4).
    #[error("circbuf_dsd on the pointer to a scalar `&{base}` needs an explicit wraparound")]
    WrapRequired {
        /// The pointee.
        base: String,
    },
    /// A builtin applied to a DSD kind it does not accept.
    #[error("{builtin} does not accept a {kind}")]
    WrongKind {
        /// The builtin (`@set_dsd_stride`, ...).
        builtin: &'static str,
        /// The DSD kind given.
        kind: &'static str,
    },
    /// A field not available on the chosen architecture.
    #[error("{what} is not supported on {arch}")]
    Arch {
        /// The field or value.
        what: String,
        /// The architecture.
        arch: crate::Arch,
    },
    /// A FIFO buffer declared with an explicit alignment below the architecture's minimum.
    #[error(
        "@allocate_fifo: buffer `{buffer}` is declared with align({align}), below the FIFO minimum of {min} bytes on {arch}"
    )]
    FifoAlign {
        /// The buffer.
        buffer: String,
        /// Its explicit alignment in bytes.
        align: u32,
        /// The architecture's minimum.
        min: u32,
        /// The architecture.
        arch: crate::Arch,
    },
    /// A FIFO with `simd_mode` over a buffer of 32-bit elements (SIMD packs 16-bit values).
    #[error(
        "@allocate_fifo({buffer}) .simd_mode: SIMD packs 16-bit values, but the buffer's elements are {elem}"
    )]
    FifoSimdElem {
        /// The buffer.
        buffer: String,
        /// Its element type.
        elem: String,
    },
    /// Two mutually exclusive fields are both set.
    #[error("{kind}: {first} and {second} cannot both be set")]
    Exclusive {
        /// The DSD kind.
        kind: &'static str,
        /// One field.
        first: &'static str,
        /// The other.
        second: &'static str,
    },
}

impl DsdError {
    /// Wraps a limit error with the field it concerns.
    pub fn limit(what: impl Into<String>, limit: LimitError) -> DsdError {
        DsdError::Limit {
            what: what.into(),
            limit,
        }
    }
}
