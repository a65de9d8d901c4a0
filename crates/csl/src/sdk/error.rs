//! Why a host runtime call fails.

use npusim_cerebras::sched::SimError;
use thiserror::Error;

use crate::compiled::CompileError;
use crate::pe::PeError;

/// An error of the host runtime ([`super::SdkRuntime`]).
#[derive(Debug, Error)]
pub enum SdkError {
    /// The compiled program could not be read or loaded.
    #[error("{0}")]
    Compile(#[from] CompileError),
    /// The program's code failed while it ran (its `file:line:col` diagnostic).
    #[error("{0}")]
    Pe(#[from] PeError),
    /// The simulator stopped the run.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// A call that needs `load()` first.
    #[error("{0} before load(): load the program first")]
    NotLoaded(&'static str),
    /// A call after `stop()`.
    #[error("{0} after stop(): the runtime is stopped")]
    Stopped(&'static str),
    /// A name no PE exports.
    #[error("no PE of the program exports a symbol `{0}` (@export_symbol)")]
    UnknownSymbol(String),
    /// A PE of a copy's rectangle that does not export the symbol.
    #[error("PE ({x}, {y}) does not export a symbol `{name}` (@export_symbol)")]
    NotOnPe {
        /// The symbol.
        name: String,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
    },
    /// A host name that is a function where data is copied, or data where a function is
    /// launched.
    #[error("`{name}` is {what}")]
    WrongKind {
        /// The name.
        name: String,
        /// What it is instead.
        what: &'static str,
    },
    /// Streaming mode, which comes with the fabric memcpy.
    #[error("memcpy streaming mode is not supported yet (copy mode only: streaming=False)")]
    Streaming,
    /// A copy rectangle outside the program's rectangle.
    #[error(
        "the copy rectangle at ({x}, {y}) of {w}x{h} PEs does not fit the program's {width}x{height} rectangle"
    )]
    Rectangle {
        /// First column.
        x: u32,
        /// First row.
        y: u32,
        /// Columns.
        w: u32,
        /// Rows.
        h: u32,
        /// The program's width.
        width: u32,
        /// The program's height.
        height: u32,
    },
    /// A host array too short for the copy.
    #[error(
        "the host array has {len} elements; the copy of {w}x{h} PEs x {elements} elements needs {need}"
    )]
    HostArray {
        /// Its length.
        len: usize,
        /// Columns.
        w: u32,
        /// Rows.
        h: u32,
        /// Elements per PE.
        elements: u32,
        /// What the copy needs.
        need: u64,
    },
    /// A symbol whose element size is not the copy's data type.
    #[error(
        "symbol `{name}` on PE ({x}, {y}) holds {elem}, which a {bits}-bit memcpy does not copy"
    )]
    DataType {
        /// The symbol.
        name: String,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// Its element type.
        elem: String,
        /// The copy's bits per element.
        bits: u32,
    },
    /// A copy past the end of the symbol's array.
    #[error(
        "symbol `{name}` on PE ({x}, {y}) has {len} elements from where it points; the copy needs {elements}"
    )]
    TooLong {
        /// The symbol.
        name: String,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// Elements available.
        len: u64,
        /// Elements asked.
        elements: u32,
    },
    /// A host write to a symbol the layout exports read-only.
    #[error(
        "symbol `{0}` is exported read-only (@export_name(..., false)): the host may not write it"
    )]
    ReadOnly(String),
    /// A launched function that did not unblock the command stream.
    #[error(
        "`{function}` ran to its end on PE {pes} without calling unblock_cmd_stream(): the host's next command would wait forever"
    )]
    CommandStreamBlocked {
        /// The function.
        function: String,
        /// The PEs, as `(x, y)` lists.
        pes: String,
    },
    /// No local task id is free to start exported functions with.
    #[error("PE ({x}, {y}): no local task id is free to launch `{function}` with")]
    NoTaskId {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The function.
        function: String,
    },
    /// A `<debug>` trace read of a PE outside the program.
    #[error("reading a <debug> trace: {0}")]
    Trace(String),
    /// `launch` with another number of arguments than the function's parameters.
    #[error("`{function}` takes {takes} arguments, launch() gave {given} (at most 16)")]
    LaunchArgs {
        /// The function.
        function: String,
        /// Its parameters.
        takes: usize,
        /// The arguments given.
        given: usize,
    },
}
