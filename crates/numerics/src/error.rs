//! Typed errors of the numerics crate.

use thiserror::Error;

use crate::format::Format;

/// Everything that can go wrong in this crate: bad names and buffers that do not fit.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum NumericsError {
    /// A format name that is neither canonical nor a known alias.
    #[error("unknown format `{name}`; valid formats: {valid}")]
    UnknownFormat {
        /// The name given.
        name: String,
        /// Every canonical name.
        valid: String,
    },
    /// A rounding-mode name that is not known.
    #[error(
        "unknown rounding mode `{name}`; valid modes: {valid} (CAST_* spellings are accepted too)"
    )]
    UnknownRoundMode {
        /// The name given.
        name: String,
        /// Every canonical mode name.
        valid: String,
    },
    /// The packed layout was asked for a format that is not 4 bits wide.
    #[error(
        "the packed layout (two elements per byte) applies only to 4-bit formats, not {format} ({bits} bits)"
    )]
    PackedNotSubByte {
        /// The format.
        format: Format,
        /// Its width.
        bits: u32,
    },
    /// A byte buffer whose length is not a whole number of elements.
    #[error(
        "{role} buffer of {bytes} bytes is not a whole number of {format} elements ({element_bytes} bytes each)"
    )]
    RaggedBuffer {
        /// "source" or "destination".
        role: &'static str,
        /// Buffer length.
        bytes: usize,
        /// Element format.
        format: Format,
        /// Bytes per element.
        element_bytes: usize,
    },
    /// A buffer too small or too large for the element count.
    #[error(
        "{role} buffer holds {bytes} bytes but {count} {format} elements ({layout}) need {needed}"
    )]
    LengthMismatch {
        /// "source" or "destination".
        role: &'static str,
        /// Buffer length.
        bytes: usize,
        /// Element count.
        count: usize,
        /// Element format.
        format: Format,
        /// Layout name.
        layout: &'static str,
        /// Bytes needed.
        needed: usize,
    },
    /// The environment variable that caps the kernels' instruction sets holds a value that
    /// names no switch.
    #[error("{variable} is `{value}`, which names no kernel switch; valid values: {valid}")]
    UnknownKernelSwitch {
        /// The variable's name.
        variable: &'static str,
        /// The value found.
        value: String,
        /// Every valid value.
        valid: &'static str,
    },
}
