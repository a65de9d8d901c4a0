//! Why a whole program does not compile, load or fit.

use std::path::PathBuf;

use npusim_cerebras::fabric::FabricError;
use npusim_cerebras::sched::SimError;
use thiserror::Error;

use crate::comptime::LayoutError;
use crate::pe::PeError;

/// An error of compiling or loading a whole program.
#[derive(Debug, Error)]
pub enum CompileError {
    /// The layout file does not evaluate (its `file:line:col` diagnostic).
    #[error("{0}")]
    Layout(#[from] LayoutError),
    /// A PE program does not compile or load (its diagnostic).
    #[error("{0}")]
    Pe(#[from] PeError),
    /// A source file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The layout names a file the program does not have.
    #[error(
        "{layout} sets the code of PE ({x}, {y}) to `{file}`, which is not a file of the program"
    )]
    MissingFile {
        /// The layout file.
        layout: String,
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The missing file.
        file: String,
    },
    /// The layout has no `@set_rectangle`.
    #[error("{0} does not call @set_rectangle: a program needs its rectangle of PEs")]
    NoRectangle(String),
    /// A PE of the rectangle has no code.
    #[error("PE ({x}, {y}) of the {width}x{height} rectangle has no @set_tile_code")]
    NoCode {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// Rectangle width.
        width: u32,
        /// Rectangle height.
        height: u32,
    },
    /// The rectangle does not fit the fabric where it is placed.
    #[error("{0}")]
    Placement(String),
    /// A route does not lower to the router's configuration.
    #[error("route of color {color} on PE ({x}, {y}): {source}")]
    Route {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The color.
        color: u8,
        /// What the router refused.
        source: FabricError,
    },
    /// A route's switch positions leave a gap.
    #[error("route of color {color} on PE ({x}, {y}): pos{set} is set but pos{missing} is not")]
    SwitchGap {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The color.
        color: u8,
        /// The position that is set.
        set: usize,
        /// The earlier position that is not.
        missing: usize,
    },
    /// A compiler argument that does not read.
    #[error("{0}")]
    Argument(String),
    /// The simulator refused the program.
    #[error(transparent)]
    Sim(#[from] SimError),
    /// The `out/` directory is not one this compiler wrote.
    #[error("{}: {why}", path.display())]
    OutDir {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// The `out/` directory could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}
