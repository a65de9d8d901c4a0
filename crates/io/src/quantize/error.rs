//! Typed errors of `quantize` / `dequantize` on `.safetensors` files.

use npusim_numerics::block::BlockError;
use safetensors::Dtype;

use crate::error::IoError;

/// Everything that can go wrong quantising a tensor file or reading one back.
#[derive(Debug, thiserror::Error)]
pub enum QuantizeError {
    /// Reading, parsing or writing a file.
    #[error(transparent)]
    Io(#[from] IoError),
    /// The block quantiser refused a tensor (an axis out of range, ...).
    #[error("tensor `{name}` (shape {shape:?}, axis {axis}): {reason}")]
    Block {
        /// The tensor.
        name: String,
        /// Its shape.
        shape: Vec<usize>,
        /// The axis asked for.
        axis: isize,
        /// What the quantiser said (part of the message, not a separate cause).
        reason: Box<BlockError>,
    },
    /// A tensor named exactly in the selection whose dtype is not a float that can be quantised.
    #[error(
        "tensor `{name}` is {dtype:?} with shape {shape:?}: only F32, F64, F16 and BF16 tensors can be quantized"
    )]
    NotQuantizable {
        /// The tensor.
        name: String,
        /// Its dtype.
        dtype: Dtype,
        /// Its shape.
        shape: Vec<usize>,
    },
    /// The name a quantised part would take is already a tensor of the file.
    #[error(
        "cannot quantize tensor `{name}`: its {part} would be `{taken}`, which the file already holds"
    )]
    NameTaken {
        /// The tensor being quantised.
        name: String,
        /// Which part (`blocks`, `scales`, ...).
        part: &'static str,
        /// The name already in use.
        taken: String,
    },
    /// A tensor pattern the glob matcher refuses.
    #[error(
        "tensor pattern `{pattern}` is not a valid glob pattern: {reason} (at character {pos})"
    )]
    BadPattern {
        /// The pattern.
        pattern: String,
        /// What the matcher said.
        reason: String,
        /// Where (0-based character index).
        pos: usize,
    },
    /// A selection or exclusion pattern that matches no tensor.
    #[error("tensor pattern `{pattern}` matches no tensor of the file ({count} tensors: {names})")]
    NoMatch {
        /// The pattern.
        pattern: String,
        /// How many tensors the file has.
        count: usize,
        /// The first names, comma-separated.
        names: String,
    },
    /// No tensor of the file would be quantised.
    #[error(
        "no tensor would be quantized: all {tensors} tensor(s) are kept (by default only floating tensors of 2 or more dimensions are quantized; name others explicitly)"
    )]
    NothingToQuantize {
        /// Tensors in the file.
        tensors: usize,
    },
    /// A quantisation record in `__metadata__` that cannot be read.
    #[error("metadata entry `{key}` = `{value}` is not a quantization record: {reason}")]
    BadRecord {
        /// The key.
        key: String,
        /// Its value.
        value: String,
        /// What is wrong.
        reason: String,
    },
    /// A stored part of a quantised tensor that is missing.
    #[error(
        "quantized tensor `{name}` ({scheme}): its {part} tensor `{missing}` is not in the file"
    )]
    MissingPart {
        /// The quantised tensor.
        name: String,
        /// Its scheme.
        scheme: String,
        /// Which part.
        part: &'static str,
        /// The name looked for.
        missing: String,
    },
    /// A stored part with the wrong dtype.
    #[error("quantized tensor `{name}`: part `{part}` is {dtype:?}, expected {expected:?}")]
    PartDtype {
        /// The quantised tensor.
        name: String,
        /// The part's name.
        part: String,
        /// Its dtype.
        dtype: Dtype,
        /// The dtype the layout has.
        expected: Dtype,
    },
    /// A file with no quantised tensor to read back.
    #[error(
        "no quantized tensor found: the file has neither npusim.quantize.* records nor *_blocks/*_scales pairs or weight_scale_2 triples"
    )]
    NothingToDequantize,
    /// A checkpoint index that cannot be read.
    #[error("`{}` is not a checkpoint index: {reason}", .path.display())]
    BadIndex {
        /// The index file.
        path: std::path::PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// An output directory that is the input directory.
    #[error("the output directory is the input directory `{}`: write to another one", .path.display())]
    SameDirectory {
        /// The directory.
        path: std::path::PathBuf,
    },
    /// Something is wrong in one shard of a checkpoint directory.
    #[error("shard `{}`", .path.display())]
    InShard {
        /// The shard file.
        path: std::path::PathBuf,
        /// What is wrong.
        source: Box<QuantizeError>,
    },
    /// An output format `dequantize` cannot write.
    #[error("dequantized tensors are written as f32, bf16, f16 or f64, not {format}")]
    OutputFormat {
        /// The format asked for.
        format: String,
    },
}
