//! Typed errors of the Ascend model: every limit it checks, with the offending numbers.

use npusim_hw::{LimitError, RangeError};
use thiserror::Error;

use crate::dtype::DType;

/// Everything an AscendC `Cast` call can get wrong.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum AscendError {
    /// A type name AscendC does not have.
    #[error("unknown AscendC type `{name}`; valid types: {valid}")]
    UnknownDType {
        /// The name given.
        name: String,
        /// Every valid name.
        valid: String,
    },
    /// A spelling that is not one of an option's legal values (round mode, sat mode, API, ...).
    #[error("unknown {what} `{name}`; valid: {valid}")]
    UnknownValue {
        /// What was being named (`round mode`, `sat mode`, ...).
        what: &'static str,
        /// The name given.
        name: String,
        /// Every valid spelling.
        valid: &'static str,
    },
    /// A product name that is not modelled.
    #[error("unknown product `{name}`; valid products: {valid}")]
    UnknownProduct {
        /// The name given.
        name: String,
        /// Every valid name.
        valid: String,
    },
    /// A (src, dst) pair the product's Cast does not support.
    #[error("{product} Cast has no {src} -> {dst} conversion; supported pairs: {legal}")]
    IllegalPair {
        /// Product name.
        product: &'static str,
        /// Source type.
        src: DType,
        /// Destination type.
        dst: DType,
        /// The legal pairs.
        legal: String,
    },
    /// A rounding mode the pair does not accept.
    #[error("{product} Cast {src} -> {dst} does not accept round mode {mode}; accepted: {legal}")]
    IllegalRoundMode {
        /// Product name.
        product: &'static str,
        /// Source type.
        src: DType,
        /// Destination type.
        dst: DType,
        /// The mode given.
        mode: String,
        /// The accepted modes.
        legal: String,
    },
    /// A saturation mode the pair does not accept.
    #[error("{product} Cast {src} -> {dst} does not accept sat mode {sat}; accepted: {legal}")]
    IllegalSatMode {
        /// Product name.
        product: &'static str,
        /// Source type.
        src: DType,
        /// Destination type.
        dst: DType,
        /// The mode given.
        sat: String,
        /// The accepted modes.
        legal: String,
    },
    /// A register layout the pair does not accept.
    #[error(
        "Ascend 950 Cast {src} -> {dst} does not accept RegLayout::{layout}; accepted: {legal}"
    )]
    IllegalLayout {
        /// Source type.
        src: DType,
        /// Destination type.
        dst: DType,
        /// The layout given.
        layout: String,
        /// The accepted layouts.
        legal: String,
    },
    /// A merge mode other than ZEROING.
    #[error("Cast supports only MaskMergeMode::ZEROING, not {mode}")]
    IllegalMergeMode {
        /// The mode given.
        mode: String,
    },
    /// A number outside a named hardware limit (`repeatTimes`, a stride, ...).
    #[error(transparent)]
    Limit(#[from] LimitError),
    /// A destination block stride of 0 (the result is undefined).
    #[error(
        "dstBlkStride 0 makes the 8 blocks of a repeat overwrite each other (undefined); use >= 1"
    )]
    ZeroDstBlockStride,
    /// A contiguous mask out of its range.
    #[error("{limit} for a cast whose wider type is {wide_bits}-bit")]
    MaskOutOfRange {
        /// The broken limit and the mask given.
        limit: LimitError,
        /// Width of the wider operand type.
        wide_bits: u32,
    },
    /// A bitwise mask out of its range.
    #[error(
        "bitwise mask [{lo:#x}, {hi:#x}] is invalid for a cast whose wider type is {wide_bits}-bit: {why}"
    )]
    BitMaskOutOfRange {
        /// `mask[0]`: lanes 0..63.
        lo: u64,
        /// `mask[1]`: lanes 64..127.
        hi: u64,
        /// Width of the wider operand type.
        wide_bits: u32,
        /// What rule it breaks.
        why: &'static str,
    },
    /// An odd element count or mask with a 4-bit operand.
    #[error("with a 4-bit operand ({dtype}) the {what} must be even, got {value}")]
    OddInt4Count {
        /// The 4-bit type.
        dtype: DType,
        /// "calCount", "contiguous mask" or "bitwise mask bit pair".
        what: &'static str,
        /// The offending value.
        value: u64,
    },
    /// A tensor start address not [`TENSOR_ALIGN_BYTES`](crate::limits::TENSOR_ALIGN_BYTES)-aligned.
    #[error("LocalTensor start address {addr:#x} is not 32-byte aligned")]
    Misaligned {
        /// The address.
        addr: usize,
    },
    /// A tensor that does not fit in the unified buffer.
    #[error("LocalTensor at {addr:#x} of {bytes} bytes exceeds the {ub_bytes}-byte unified buffer")]
    OutsideBuffer {
        /// Start address.
        addr: usize,
        /// Size in bytes.
        bytes: usize,
        /// Unified buffer size.
        ub_bytes: usize,
    },
    /// A cast that would touch elements beyond a tensor's end.
    #[error(
        "{role} tensor holds {len} {dtype} elements but mask x repeat x strides reach element {needed} (byte offset {byte_offset}, repeat {repeat}, lane {lane})"
    )]
    TensorTooSmall {
        /// "src" or "dst".
        role: &'static str,
        /// Element type.
        dtype: DType,
        /// Elements in the tensor.
        len: usize,
        /// Number of elements the access pattern needs.
        needed: usize,
        /// Offending byte offset from the tensor start.
        byte_offset: usize,
        /// Repeat index of the first offending access.
        repeat: usize,
        /// Lane of the first offending access.
        lane: usize,
    },
    /// calCount larger than a tensor.
    #[error("calCount {count} exceeds the {role} tensor's {len} elements")]
    CountTooLarge {
        /// The count.
        count: usize,
        /// "src" or "dst".
        role: &'static str,
        /// Tensor length.
        len: usize,
    },
    /// A source/destination overlap the AscendC documentation forbids.
    #[error("src and dst overlap in a way AscendC forbids: {why}")]
    ForbiddenOverlap {
        /// Which rule.
        why: String,
    },
    /// int32 -> half needs SetDeqScale first.
    #[error("int32_t -> half is a dequantising cast: call SetDeqScale(scale) first")]
    DeqScaleNotSet,
    /// A CTRL bit range that is not a valid register range.
    #[error("SetCtrlSpr<{start}, {end}>: bit range must satisfy start <= end <= 63")]
    BadCtrlRange {
        /// First bit.
        start: u32,
        /// Last bit.
        end: u32,
    },
    /// A register element index or count out of range.
    #[error("{what} {value} is out of range (max {max})")]
    RegisterRange {
        /// What was out of range.
        what: &'static str,
        /// The value.
        value: usize,
        /// The limit.
        max: usize,
    },
    /// A buffer given to a host-side helper whose size is wrong.
    #[error("{what}: expected {expected} bytes, got {got}")]
    BufferSize {
        /// What buffer.
        what: &'static str,
        /// Expected size.
        expected: usize,
        /// Actual size.
        got: usize,
    },
    /// An address range that cannot be formed (its end overflows).
    #[error("address range: {0}")]
    Range(#[from] RangeError),
    /// A golden-vector row that cannot be read.
    #[error("golden row {row}: {why}")]
    BadGolden {
        /// 1-based row number (0: the file as a whole).
        row: usize,
        /// What is wrong.
        why: String,
    },
    /// A call description that cannot be parsed.
    #[error("invalid cast description: {0}")]
    BadDescription(String),
}
