//! What can go wrong reading, casting and writing tensor files.
//!
//! Every message names the file, tensor or header field at fault and the numbers involved.
//! Errors that happen inside a file or a tensor are wrapped in [`IoError::Reading`] or
//! [`IoError::InTensor`], whose message is the place; the cause is the error's `source()`, so
//! that a report chain (`anyhow`'s `{:#}`) reads "reading `x.npy`: truncated .npy data: …".
//!
//! Messages say what is wrong in this crate's own words: a field of a [`crate::CastJob`] is
//! named by what it means (the source format, the destination format, the shape, packed 4-bit
//! storage, the tensor selection), never by a command-line option; a front end (the `npusim`
//! CLI) maps the variants that concern a user-given option to that option's name. Lists of
//! formats in messages come from the format table ([`npusim_numerics::Format::ALL`]).

use crate::packing::is_nibble;
use std::path::PathBuf;

use npusim_numerics::{Format, NumericsError};
use thiserror::Error;

/// Everything that can go wrong in this crate.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum IoError {
    // ---- places: the message says where, the source says what -------------------------------
    /// Something is wrong inside the input file `path`.
    #[error("reading `{}`", .path.display())]
    Reading {
        /// The input file.
        path: PathBuf,
        /// What is wrong.
        source: Box<IoError>,
    },
    /// Something is wrong with one tensor of a multi-tensor file.
    #[error("tensor `{name}`")]
    InTensor {
        /// The tensor's name.
        name: String,
        /// What is wrong.
        source: Box<IoError>,
    },
    /// The input path is a directory.
    #[error("cannot read `{}`: it is a directory, not a tensor file", .path.display())]
    InputIsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The operating system refused to read a file.
    #[error("cannot read `{}`", .path.display())]
    CannotRead {
        /// The file.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// Writing an output failed (the temporary file is removed; nothing is left behind).
    #[error("writing `{}` failed", .path.display())]
    WriteFailed {
        /// The output file.
        path: PathBuf,
        /// Why.
        source: Box<IoError>,
    },
    /// An operating-system error while writing.
    #[error(transparent)]
    Os(#[from] std::io::Error),

    // ---- file names and output paths ---------------------------------------------------------
    /// A path whose extension names no container npusim knows.
    #[error(
        "cannot tell the file type of `{}` from its extension; use .npy, .safetensors or .bin (raw bytes)",
        .path.display()
    )]
    UnknownExtension {
        /// The path.
        path: PathBuf,
    },
    /// An output path that ends in `..` or `/`.
    #[error("output path `{}` names no file", .path.display())]
    NoFileName {
        /// The path.
        path: PathBuf,
    },
    /// The output's directory does not exist.
    #[error("cannot write `{}`: directory `{}` does not exist", .path.display(), .dir.display())]
    NoDirectory {
        /// The output path.
        path: PathBuf,
        /// Its directory.
        dir: PathBuf,
    },
    /// The output path is a directory.
    #[error("cannot write `{}`: it is a directory", .path.display())]
    IsDirectory {
        /// The output path.
        path: PathBuf,
    },
    /// The temporary file beside the output could not be created.
    #[error("cannot create a temporary file in `{}`", .dir.display())]
    CannotCreateTemp {
        /// The directory.
        dir: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The finished temporary file could not be renamed over the output.
    #[error("cannot move the finished output to `{}`", .path.display())]
    CannotRename {
        /// The output path.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The output exists and its permission bits let no one write it (or this user may not
    /// write it): it is not replaced unless the caller allows replacing read-only outputs.
    #[error("`{}` is read-only (mode {mode:04o}): not replaced", .path.display())]
    ReadOnlyOutput {
        /// The output path.
        path: PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// A device, FIFO or other non-regular output could not be opened for writing.
    #[error("cannot open `{}` for writing", .path.display())]
    CannotOpenOutput {
        /// The output path.
        path: PathBuf,
        /// The system's reason.
        source: std::io::Error,
    },
    /// The output path is a chain of symbolic links too long to follow (or a loop).
    #[error("cannot write `{}`: more than {limit} symbolic links to follow", .path.display())]
    SymlinkLoop {
        /// The output path.
        path: PathBuf,
        /// How many links are followed at most.
        limit: usize,
    },
    /// The cast would cast no tensor (every tensor is excluded or kept), and the job asked
    /// for that to be an error.
    #[error("no tensor would be cast: all {tensors} tensor(s) would be copied unchanged")]
    NothingToCast {
        /// How many tensors the input holds.
        tensors: usize,
    },

    // ---- shapes ------------------------------------------------------------------------------
    /// A shape whose element count overflows.
    #[error("shape {shape:?} has more elements than fit in memory")]
    ShapeOverflow {
        /// The shape.
        shape: Vec<usize>,
    },

    // ---- .npy --------------------------------------------------------------------------------
    /// The file does not start with the `.npy` magic.
    #[error("not a .npy file: it does not start with the \\x93NUMPY magic")]
    NpyMagic,
    /// A version 2/3 header whose length field is cut off.
    #[error("truncated .npy header")]
    NpyHeaderLengthCut,
    /// A `.npy` version npusim does not read.
    #[error("unsupported .npy format version {major}.{minor}")]
    NpyVersion {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The header length field points past the end of the file.
    #[error(
        "truncated .npy header: it claims {header_len} bytes but the file has only {available} after the preamble"
    )]
    NpyHeaderCut {
        /// Bytes the header claims.
        header_len: usize,
        /// Bytes the file has after the preamble.
        available: usize,
    },
    /// The header's shape has more elements than fit in memory.
    #[error("the .npy header's shape {dims:?} has more elements than fit in memory")]
    NpyShapeTooLarge {
        /// The dimensions as written.
        dims: Vec<u64>,
    },
    /// A shape whose byte size overflows.
    #[error("the .npy shape {shape:?} is too large")]
    NpyTooLarge {
        /// The shape.
        shape: Vec<usize>,
    },
    /// The header text is not a valid `.npy` header.
    #[error("invalid .npy header ({reason}): {text}")]
    NpyHeader {
        /// The parser's complaint.
        reason: String,
        /// The header text.
        text: String,
    },
    /// A `descr` field that is no dtype string.
    #[error(
        "the .npy header's 'descr' field '{descr}' is not a numpy dtype string (such as '<f4', '|i1', '<V2')"
    )]
    NpyDescr {
        /// The field's value.
        descr: String,
    },
    /// A structured (record) dtype.
    #[error("structured .npy dtype {descr} is not supported; save a plain numeric array")]
    NpyStructured {
        /// The dtype as written.
        descr: String,
    },
    /// A dtype without a size npusim can use.
    #[error("dtype '{descr}' is too large")]
    NpyDtypeTooLarge {
        /// The dtype as written.
        descr: String,
    },
    /// A dtype npusim has no format for.
    #[error(
        "dtype '{descr}' is not supported: npusim reads <f8 <f4 <f2 |i1 <i2 <i4 <i8 |u1 <u2 <u4, and 1- or 2-byte raw (void) elements given their source format"
    )]
    NpyUnsupportedDtype {
        /// The dtype as written.
        descr: String,
    },
    /// The data section is shorter than the header says.
    #[error(
        "truncated .npy data: the header says shape {shape:?} of '{descr}' ({count} elements × {item_bytes} bytes = {need} bytes) but the file has only {have} bytes of data"
    )]
    NpyDataCut {
        /// The shape.
        shape: Vec<usize>,
        /// The dtype as written.
        descr: String,
        /// Elements.
        count: usize,
        /// Bytes per element.
        item_bytes: usize,
        /// Bytes needed.
        need: usize,
        /// Bytes present.
        have: usize,
    },
    /// The data section is longer than the header says.
    #[error(
        "the .npy file has {have} bytes of data but its header says shape {shape:?} of '{descr}' = {need} bytes; {} bytes are left over",
        .have - .need
    )]
    NpyDataLeftOver {
        /// The shape.
        shape: Vec<usize>,
        /// The dtype as written.
        descr: String,
        /// Bytes needed.
        need: usize,
        /// Bytes present.
        have: usize,
    },
    /// A raw (void) dtype read without saying which format it holds.
    #[error(
        "the file's dtype '{descr}' holds raw {bytes}-byte elements and does not say their format; {hint}: give the source format, {}",
        examples(.formats)
    )]
    NpyOpaqueNeedsFrom {
        /// The dtype as written.
        descr: String,
        /// Bytes per element.
        bytes: usize,
        /// What usually writes this dtype (`ml_dtypes saves bfloat16 this way`).
        hint: &'static str,
        /// The source formats such files usually hold.
        formats: &'static [Format],
    },
    /// The source format given has another element size than the file's dtype.
    #[error(
        "the source format {from} has {from_bytes}-byte elements but the file's dtype '{descr}' has {file_bytes}-byte elements"
    )]
    NpyFromSize {
        /// The format asked for.
        from: Format,
        /// Its element size.
        from_bytes: usize,
        /// The dtype as written.
        descr: String,
        /// The dtype's element size.
        file_bytes: usize,
    },
    /// The shape given for an unpacked `.npy` file disagrees with its header.
    #[error("the shape {given:?} given does not match the .npy file's shape {file:?}")]
    NpyShapeMismatch {
        /// The shape given.
        given: Vec<usize>,
        /// The file's shape.
        file: Vec<usize>,
    },
    /// A packed 4-bit `.npy` array without dimensions.
    #[error("a packed 4-bit .npy array needs at least one dimension")]
    NpyPackedScalar,
    /// A logical shape that cannot be formed.
    #[error("shape too large")]
    NpyLogicalShapeTooLarge,
    /// A shape given that cannot be the logical shape of a packed `.npy` array.
    #[error(
        "the shape {given:?} given does not fit the packed .npy shape {file:?} (the last dimension must be {} or {})",
        2 * .last_bytes - 1,
        2 * .last_bytes
    )]
    NpyPackedShape {
        /// The shape given.
        given: Vec<usize>,
        /// The file's shape.
        file: Vec<usize>,
        /// The file's last dimension (bytes per packed row).
        last_bytes: usize,
    },
    /// The data section does not hold the elements of the logical shape.
    #[error(
        "the .npy data holds {have} bytes but {count} {format} elements of shape {shape:?} need {need}"
    )]
    NpyDataSize {
        /// Bytes present.
        have: usize,
        /// Elements.
        count: usize,
        /// Element format.
        format: Format,
        /// Logical shape.
        shape: Vec<usize>,
        /// Bytes needed.
        need: usize,
    },
    /// A packed 4-bit array (or tensor) must have a last dimension to pack along.
    #[error("packed 4-bit storage needs an array with at least one dimension")]
    PackedScalar,

    // ---- raw .bin ----------------------------------------------------------------------------
    /// A raw shape whose byte size overflows.
    #[error("the raw shape {shape:?} is too large")]
    RawShapeTooLarge {
        /// The shape.
        shape: Vec<usize>,
    },
    /// A raw file whose size is not shape × element size.
    #[error(
        "the raw file has {have} bytes but shape {shape:?} of source format {format} needs {need} bytes ({count} elements, {})",
        per_element(*.format, *.packed)
    )]
    RawSize {
        /// Bytes present.
        have: usize,
        /// The shape.
        shape: Vec<usize>,
        /// Element format.
        format: Format,
        /// Bytes needed.
        need: usize,
        /// Elements.
        count: usize,
        /// Whether 4-bit elements are packed.
        packed: bool,
    },
    /// A raw input without its format and shape.
    #[error("a raw .bin input has no header: it needs a source format and a shape")]
    RawNeedsFromAndShape,

    // ---- .safetensors ------------------------------------------------------------------------
    /// A file shorter than the header-length field.
    #[error("not a .safetensors file: {len} bytes is too short for the 8-byte header length")]
    SafetensorsTooShort {
        /// The file's length.
        len: usize,
    },
    /// A header-length field that points past the end of the file.
    #[error(
        "truncated or not a .safetensors file: the header length field says {header_len} bytes but only {after} bytes follow it"
    )]
    SafetensorsHeaderCut {
        /// The header length field.
        header_len: u64,
        /// Bytes after the field.
        after: u64,
    },
    /// Tensor data cut short.
    #[error(
        "truncated .safetensors file: the header describes {declared} bytes of tensor data but the file holds only {held}"
    )]
    SafetensorsDataCut {
        /// Bytes the header describes.
        declared: u64,
        /// Bytes present.
        held: u64,
    },
    /// Tensor data of another size than the header describes.
    #[error(
        "invalid .safetensors file: the header describes {declared} bytes of tensor data but the file holds {held}"
    )]
    SafetensorsDataSize {
        /// Bytes the header describes.
        declared: u64,
        /// Bytes present.
        held: u64,
    },
    /// A header larger than npusim reads.
    #[error(
        "the .safetensors header length field says {header_len} bytes; npusim reads headers of at most {max} bytes"
    )]
    SafetensorsHeaderTooLarge {
        /// The header length field.
        header_len: u64,
        /// The limit.
        max: u64,
    },
    /// A header that is not a JSON object.
    #[error("the .safetensors header is not a JSON object of tensors: {reason}")]
    SafetensorsHeaderJson {
        /// The JSON parser's complaint.
        reason: String,
    },
    /// A header naming the same tensor twice.
    #[error("the .safetensors header names tensor `{name}` twice")]
    SafetensorsDuplicate {
        /// The tensor.
        name: String,
    },
    /// A `__metadata__` map naming the same key twice.
    #[error("the .safetensors header's __metadata__ names key `{key}` twice")]
    SafetensorsDuplicateMetadata {
        /// The key.
        key: String,
    },
    /// A `__metadata__` value that is not a string.
    #[error("the .safetensors header's __metadata__ entry `{key}` must be a string, not {value}")]
    SafetensorsMetadataValue {
        /// The key.
        key: String,
        /// The value as JSON.
        value: String,
    },
    /// A tensor entry that is not a JSON object.
    #[error(
        "tensor `{name}`: its header entry must be an object with dtype, shape and data_offsets, not {value}"
    )]
    SafetensorsEntry {
        /// The tensor.
        name: String,
        /// The entry as JSON.
        value: String,
    },
    /// A field of a tensor entry that is missing or malformed.
    #[error("tensor `{name}`: field `{field}` {problem}")]
    SafetensorsField {
        /// The tensor.
        name: String,
        /// The field (`dtype`, `shape`, `data_offsets`).
        field: &'static str,
        /// What is wrong, with the value.
        problem: String,
    },
    /// A tensor whose offsets do not hold its dtype and shape.
    #[error(
        "tensor `{name}`: dtype {dtype} and shape {shape:?} need {count} elements × {} bits = {}, but data_offsets [{begin}, {end}] hold {} bytes",
        .dtype.bitsize(),
        bits_as_bytes(*.bits),
        .end - .begin
    )]
    SafetensorsTensorBytes {
        /// The tensor.
        name: String,
        /// Its dtype.
        dtype: safetensors::Dtype,
        /// Its shape.
        shape: Vec<usize>,
        /// Its element count.
        count: u64,
        /// Bits its elements take.
        bits: u64,
        /// `data_offsets[0]`.
        begin: u64,
        /// `data_offsets[1]`.
        end: u64,
    },
    /// Tensor data that does not follow the previous tensor's.
    #[error(
        "tensor `{name}`: data_offsets begin at {begin}, but the data before it ends at {expected} (tensor data must be contiguous)"
    )]
    SafetensorsGap {
        /// The tensor.
        name: String,
        /// Where its data begins.
        begin: u64,
        /// Where the previous data ends.
        expected: u64,
    },
    /// An `npusim.dtype.<tensor>` entry naming no format.
    #[error("metadata entry `{key}` = `{value}` names no format")]
    MetaUnknownFormat {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// Why the name is unknown.
        source: NumericsError,
    },
    /// An `npusim.dtype.<tensor>` entry that cannot be honoured.
    #[error("metadata entry `{key}` = `{value}`{problem}")]
    MetaInvalid {
        /// The key.
        key: String,
        /// The value.
        value: String,
        /// What is wrong.
        problem: MetaProblem,
    },
    /// A tensor whose bytes do not match its dtype and shape.
    #[error("tensor `{name}`: {bytes} bytes do not hold {count} {format} elements")]
    TensorSize {
        /// The tensor.
        name: String,
        /// Bytes present.
        bytes: usize,
        /// Elements.
        count: usize,
        /// Element format.
        format: Format,
    },
    /// An output tensor too large to describe.
    #[error("tensor `{name}` is too large")]
    TensorTooLarge {
        /// The tensor.
        name: String,
    },
    /// An output tensor whose bytes disagree with its dtype and shape (a bug).
    #[error("internal: tensor `{name}` ({dtype} {shape:?}) has {bytes} bytes")]
    TensorBytes {
        /// The tensor.
        name: String,
        /// Its dtype.
        dtype: safetensors::Dtype,
        /// Its header shape.
        shape: Vec<usize>,
        /// Bytes present.
        bytes: usize,
    },
    /// Packed 4-bit storage for a tensor without dimensions.
    #[error("packed 4-bit storage needs tensors with at least one dimension")]
    PackedScalarTensor,

    // ---- cast jobs ---------------------------------------------------------------------------
    /// A single-tensor file cast into a multi-tensor file or the other way round.
    #[error(
        "cannot cast a {input} file into a {output} file: .npy and .bin hold one tensor, .safetensors many"
    )]
    ContainerMismatch {
        /// Input container name.
        input: &'static str,
        /// Output container name.
        output: &'static str,
    },
    /// Packed storage asked for a cast where neither side is 4 bits wide.
    #[error(
        "packed storage applies only to 4-bit formats ({}), but this casts {from} ({} bits) to {to} ({} bits)",
        nibble_names(),
        .from.bits(),
        .to.bits()
    )]
    PackedNot4Bit {
        /// Source format.
        from: Format,
        /// Destination format.
        to: Format,
    },
    /// Packed storage asked for a safetensors cast to a format wider than 4 bits.
    #[error(
        "packed storage applies only to 4-bit formats ({}), not to the destination format {to} ({} bits); a .safetensors file records how its own tensors are stored",
        nibble_names(),
        .to.bits()
    )]
    PackedNot4BitTo {
        /// Destination format.
        to: Format,
    },
    /// A tensor selection for a single-tensor file.
    #[error("selecting tensors applies to .safetensors files; a {container} file holds one tensor")]
    TensorOnSingle {
        /// The input container's name.
        container: &'static str,
    },
    /// A shape given for an unpacked `.npy` input.
    #[error(
        "a shape is given only for raw .bin inputs (and packed 4-bit .npy inputs); a .npy file states its shape"
    )]
    ShapeOnNpy,
    /// Packed 4-bit storage asked for a Fortran-ordered `.npy` array.
    #[error("packed 4-bit storage needs a C-order .npy array (`{}` is in Fortran order)", .path.display())]
    PackedFortran {
        /// The input file.
        path: PathBuf,
    },
    /// A source format given for a safetensors input.
    #[error(
        "a source format does not apply to .safetensors inputs: each tensor's dtype is in the file"
    )]
    FromOnSafetensors,
    /// A shape given for a safetensors input.
    #[error("a shape does not apply to .safetensors inputs: each tensor's shape is in the file")]
    ShapeOnSafetensors,
    /// The tensor selection names a tensor the file does not have.
    #[error("no tensor named `{wanted}` in `{}`; its tensors are: {}", .path.display(), .names.join(", "))]
    NoSuchTensor {
        /// The name asked for.
        wanted: String,
        /// The input file.
        path: PathBuf,
        /// The file's tensors.
        names: Vec<String>,
    },
    /// The tensor selection names a tensor whose dtype npusim cannot read.
    #[error("tensor `{name}` has dtype {dtype}, which npusim has no format for")]
    NoFormatForTensor {
        /// The tensor.
        name: String,
        /// Its dtype.
        dtype: safetensors::Dtype,
    },
    /// The numeric cast refused its buffers (a bug: the job sizes them).
    #[error("cast failed: {0}")]
    Cast(NumericsError),
    /// The job refuses new non-finite values ([`crate::CastJob::fail_on_nan`]) and the cast
    /// made NaN or ±Inf out of finite inputs.
    #[error(
        "{count} finite input value(s) became NaN or Inf ({tensors}); nothing was written (a saturating cast clamps overflow to ±max)"
    )]
    NonFiniteFromFinite {
        /// How many.
        count: u64,
        /// Which tensors, with their counts (`name: n, ...`).
        tensors: String,
    },
    /// A problem with a pattern of the tensor selection or exclusion.
    #[error(transparent)]
    Select(#[from] crate::cast::select_error::SelectError),
    /// A `.npy` header longer than npusim parses.
    #[error(
        "the .npy header is {header_len} bytes, more than the {max} npusim reads (a plain array's header is under 1 KiB)"
    )]
    NpyHeaderTooLarge {
        /// Bytes the header length field gives.
        header_len: u64,
        /// The limit.
        max: usize,
    },
    /// A `.npy` header whose brackets nest deeper than npusim parses.
    #[error(
        "the .npy header nests brackets {depth} levels deep, more than the {max} npusim parses (a plain array's header nests 2)"
    )]
    NpyHeaderTooDeep {
        /// How deep the brackets nest.
        depth: usize,
        /// The limit.
        max: usize,
    },
}

/// What is wrong with an `npusim.dtype.<tensor>` entry; `Display` gives the rest of the
/// sentence after "metadata entry `key` = `value`".
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum MetaProblem {
    /// The part after the format is not `packed`.
    #[error(": unknown layout `{0}`")]
    UnknownLayout(String),
    /// The row length is not a number.
    #[error(": bad row length `{0}`")]
    BadRowLength(String),
    /// More than `format:packed:row`.
    #[error(" has too many `:` parts")]
    TooManyParts,
    /// The format is not stored one byte per element.
    #[error(": a U8 tensor cannot hold {format} ({} bits)", .format.bits())]
    NotOneByte {
        /// The format named.
        format: Format,
    },
    /// `packed` for a format wider than 4 bits.
    #[error(": only 4-bit formats can be packed")]
    PackedNot4Bit,
    /// `packed` for a tensor without dimensions.
    #[error(": a packed tensor needs at least one dimension")]
    PackedScalar,
    /// A row length that does not give the tensor's last dimension in bytes.
    #[error(": a row of {row} elements does not fill {bytes} bytes")]
    RowMismatch {
        /// The row length recorded.
        row: usize,
        /// The tensor's last dimension (bytes per row).
        bytes: usize,
    },
}

/// Bytes of `bits` for a message: whole bytes, or a fraction when the bits do not fill one.
fn bits_as_bytes(bits: u64) -> String {
    if bits.is_multiple_of(8) {
        format!("{} bytes", bits / 8)
    } else {
        format!("{bits} bits, not a whole number of bytes")
    }
}

/// The names of the 4-bit formats (those files pack two per byte), from the format table.
fn nibble_names() -> String {
    let names: Vec<&str> = crate::packing::nibble_formats().map(Format::name).collect();
    names.join(", ")
}

/// `bf16`, or `e.g. f8e4m3fn, f8e5m2 or i4`: example formats for a message.
fn examples(formats: &[Format]) -> String {
    match formats {
        [] => "which the file does not say".to_string(),
        [one] => one.name().to_string(),
        [rest @ .., last] => {
            let rest: Vec<&str> = rest.iter().map(|f| f.name()).collect();
            format!("e.g. {} or {}", rest.join(", "), last.name())
        }
    }
}

/// How a raw file stores each element, for [`IoError::RawSize`].
fn per_element(format: Format, packed: bool) -> String {
    if is_nibble(format) && packed {
        "two 4-bit elements per byte".to_string()
    } else {
        format!("{} byte(s) each", format.unpacked_bytes())
    }
}

impl IoError {
    /// Wraps `self` as a fault inside the input file `path`.
    pub fn reading(self, path: impl Into<PathBuf>) -> IoError {
        IoError::Reading {
            path: path.into(),
            source: Box::new(self),
        }
    }

    /// Wraps `self` as a fault of tensor `name`.
    pub fn in_tensor(self, name: impl Into<String>) -> IoError {
        IoError::InTensor {
            name: name.into(),
            source: Box::new(self),
        }
    }
}
