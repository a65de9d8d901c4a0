//! Typed errors of the block-scaled formats.

use thiserror::Error;

use crate::format::Format;

/// Everything that can go wrong when quantising to or dequantising from a block-scaled format.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum BlockError {
    /// A scheme name that is not known.
    #[error("unknown block scheme `{name}`; valid schemes: {valid}")]
    UnknownScheme {
        /// The name given.
        name: String,
        /// Every scheme name.
        valid: String,
    },
    /// A scale-rule name that is not known.
    #[error("unknown scale rule `{name}`; valid rules: {valid}")]
    UnknownScaleRule {
        /// The name given.
        name: String,
        /// Every rule name.
        valid: String,
    },
    /// An e8m0 scale rule asked of a scheme whose scales are not e8m0.
    #[error(
        "scale rule {rule} chooses e8m0 scales and applies only to the MX schemes; {scheme} has its own scale rule (e4m3 block scales)"
    )]
    ScaleRuleNotApplicable {
        /// The rule.
        rule: String,
        /// The scheme.
        scheme: String,
    },
    /// A per-tensor scale given for a scheme that has none.
    #[error("scheme {scheme} has no per-tensor scale, but one ({value}) was given")]
    TensorScaleNotApplicable {
        /// The scheme.
        scheme: String,
        /// The scale given.
        value: f32,
    },
    /// A per-tensor scale that is not a finite positive number.
    #[error("the per-tensor scale must be a finite number above zero, not {value}")]
    BadTensorScale {
        /// The scale given.
        value: f32,
    },
    /// A shape whose element count differs from the number of values.
    #[error("shape {shape:?} holds {elements} elements but {values} values were given")]
    ShapeMismatch {
        /// The shape.
        shape: Vec<usize>,
        /// Its element count.
        elements: usize,
        /// Number of values given.
        values: usize,
    },
    /// A shape whose element count does not fit in memory addresses.
    #[error("shape {shape:?} has more elements than this machine can address")]
    ShapeTooLarge {
        /// The shape.
        shape: Vec<usize>,
    },
    /// An axis outside the shape.
    #[error(
        "axis {axis} is out of range for a shape of {dims} dimensions (valid: -{dims}..{dims})"
    )]
    AxisOutOfRange {
        /// The axis given.
        axis: isize,
        /// Number of dimensions.
        dims: usize,
    },
    /// A code or scale buffer whose length does not fit the shape.
    #[error("{what} holds {len} bytes but shape {shape:?} under {scheme} needs {needed}")]
    PartsLength {
        /// "codes" or "scales" (stored parts), "the codes buffer" or "the scales buffer"
        /// (`quantize_into`).
        what: &'static str,
        /// Bytes given.
        len: usize,
        /// Bytes needed.
        needed: usize,
        /// The shape.
        shape: Vec<usize>,
        /// The scheme.
        scheme: String,
    },
    /// An f32 output buffer whose length is not the tensor's element count.
    #[error("the output buffer holds {len} values but shape {shape:?} has {needed} elements")]
    OutputLength {
        /// Values the buffer holds.
        len: usize,
        /// The tensor's element count.
        needed: usize,
        /// The shape.
        shape: Vec<usize>,
    },
    /// Dequantisation to a format that is not one of f32, f64, f16, bf16.
    #[error("block formats dequantise to f32, f64, f16 or bf16, not {format}")]
    OutputFormat {
        /// The format asked for.
        format: Format,
    },
}
