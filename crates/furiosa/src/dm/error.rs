//! Why a DM placement, access or file was refused.

use std::path::PathBuf;

use npusim_io::IoError;
use thiserror::Error;

/// Why a DM tensor cannot be placed, read, written, loaded or saved.
#[derive(Debug, Error)]
pub enum DmError {
    /// The tensor does not fit in one slice's DM.
    #[error(
        "m![{tensor}] of {dtype} at byte {address} needs {bytes} bytes, ends at {end}, past the {capacity} bytes of a slice"
    )]
    Capacity {
        /// The `Element` mapping.
        tensor: String,
        /// Element type.
        dtype: &'static str,
        /// Start address.
        address: usize,
        /// Bytes per slice.
        bytes: usize,
        /// `address + bytes`.
        end: usize,
        /// Bytes of a slice's DM.
        capacity: usize,
    },
    /// The start address is not a multiple of the element size.
    #[error(
        "a {dtype} tensor at byte {address} is not element-aligned (rule: the start address is a multiple of {unit} bytes)"
    )]
    Alignment {
        /// Element type.
        dtype: &'static str,
        /// Start address.
        address: usize,
        /// Bytes of one element (at least 1).
        unit: usize,
    },
    /// A spatial mapping has more positions than the device has units.
    #[error("{dim} = m![{mapping}] has {size} positions, more than the {max} {unit} of the device")]
    Dimension {
        /// `Chip`, `Cluster` or `Slice`.
        dim: &'static str,
        /// The mapping.
        mapping: String,
        /// Its size.
        size: usize,
        /// The device's count.
        max: usize,
        /// What is counted.
        unit: &'static str,
    },
    /// The tensor has more DM positions than the model walks.
    #[error(
        "the tensor has {positions} DM positions (chip × cluster × slice × element), more than the {limit} the model walks"
    )]
    TooManyPositions {
        /// chip × cluster × slice × element.
        positions: u128,
        /// The model's limit.
        limit: usize,
    },
    /// A slice the device does not have.
    #[error(
        "chip {chip}, cluster {cluster}, slice {slice} does not exist (the device has {chips} chips of {clusters} clusters of {slices} slices)"
    )]
    NoSuchSlice {
        /// Chip.
        chip: usize,
        /// Cluster.
        cluster: usize,
        /// Slice.
        slice: usize,
        /// Chips of the device.
        chips: usize,
        /// Clusters per chip.
        clusters: usize,
        /// Slices per cluster.
        slices: usize,
    },
    /// A byte address past the slice's DM.
    #[error("byte {address} is outside a slice's DM of {capacity} bytes")]
    OutsideSlice {
        /// The address.
        address: usize,
        /// Bytes of a slice's DM.
        capacity: usize,
    },
    /// The logical axis order names an axis the tensor does not use.
    #[error("axis `{axis}` of the logical order is not used by the tensor, whose axes are {axes}")]
    UnknownAxis {
        /// The axis.
        axis: String,
        /// The tensor's axes.
        axes: String,
    },
    /// The logical axis order names an axis twice.
    #[error("axis `{0}` appears twice in the logical order")]
    DuplicateAxis(String),
    /// The logical axis order leaves out an axis the tensor uses.
    #[error("the logical order {order} leaves out axis `{axis}`, which the tensor uses")]
    MissingAxis {
        /// The axis.
        axis: String,
        /// The order given.
        order: String,
    },
    /// A logical array of the wrong length.
    #[error("{got} values given for a logical tensor of shape {shape:?} ({need} elements)")]
    Length {
        /// Values given.
        got: usize,
        /// Elements needed.
        need: usize,
        /// Logical shape.
        shape: Vec<usize>,
    },
    /// A code wider than the element type.
    #[error("value {code:#x} at logical index {index} does not fit in {bits} bits ({dtype})")]
    CodeTooWide {
        /// Flat logical index.
        index: usize,
        /// The code.
        code: u64,
        /// Bits of the element type.
        bits: usize,
        /// Element type.
        dtype: &'static str,
    },
    /// Two DM positions holding one logical element hold different values.
    #[error(
        "logical element {index} is held at {first} as {first_code:#x} and at {second} as {second_code:#x} (rule: the copies of a replicated element agree)"
    )]
    CopiesDiffer {
        /// The logical index, `{A: 0, B: 1}`.
        index: String,
        /// The first position holding it.
        first: String,
        /// Its code there.
        first_code: u64,
        /// A position holding another value.
        second: String,
        /// The code there.
        second_code: u64,
    },
    /// A logical element no DM position holds.
    #[error("logical element {index} is held by no DM position of the tensor")]
    NotHeld {
        /// The logical index, `{A: 0, B: 1}`.
        index: String,
    },
    /// A `.npy` file of another element type.
    #[error("`{}` holds {found} elements but the tensor's type is {dtype}", .path.display())]
    NpyDtype {
        /// The file.
        path: PathBuf,
        /// What it holds.
        found: String,
        /// The tensor's type.
        dtype: &'static str,
    },
    /// A `.npy` file of another shape.
    #[error("`{}` has shape {found:?} but the logical tensor has shape {expected:?}", .path.display())]
    NpyShape {
        /// The file.
        path: PathBuf,
        /// Its shape.
        found: Vec<usize>,
        /// The logical shape.
        expected: Vec<usize>,
    },
    /// Reading or writing the file failed.
    #[error("`{}`: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What failed.
        source: Box<IoError>,
    },
}
