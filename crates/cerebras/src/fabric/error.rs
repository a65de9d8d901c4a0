//! What can go wrong on the fabric: every error names the PE `(x, y)` and the color.

use thiserror::Error;

use super::color::Color;
use super::direction::{Dir, DirSet};
use super::queue::QueueRef;
use crate::arch::Arch;

/// A fabric configuration or routing error.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum FabricError {
    /// A color outside 0..=23.
    #[error("color {color} is not routable: colors are 0..=23")]
    ColorOutOfRange {
        /// The color given.
        color: i64,
    },
    /// A payload that does not fit 32 bits.
    #[error("wavelet payload {payload} does not fit 32 bits (0..=4294967295)")]
    Payload {
        /// The payload given.
        payload: i64,
    },
    /// A PE coordinate outside the grid.
    #[error("PE ({x}, {y}) is outside the {width}x{height} grid")]
    OutsideGrid {
        /// Column.
        x: i64,
        /// Row.
        y: i64,
        /// Grid width.
        width: u32,
        /// Grid height.
        height: u32,
    },
    /// A grid without PEs.
    #[error("a grid needs at least one PE, got {width}x{height}")]
    EmptyGrid {
        /// Width.
        width: u32,
        /// Height.
        height: u32,
    },
    /// A wavelet reached a router that has no route for its color, or arrived from a port
    /// that is not in the color's `rx` set.
    #[error("PE ({x}, {y}): {color} has no route accepting wavelets from {from} (rx = {rx})")]
    Unroutable {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The color.
        color: Color,
        /// Where the wavelet came from.
        from: Dir,
        /// The color's `rx` set (empty: no route).
        rx: DirSet,
    },
    /// A route sends a wavelet off the edge of the grid.
    #[error("PE ({x}, {y}): {color} is sent {dir}, which leaves the grid")]
    LeavesGrid {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The color.
        color: Color,
        /// The port leading off the grid.
        dir: Dir,
    },
    /// Two ports delivered the same color to one router in one cycle (undefined on hardware).
    #[error(
        "PE ({x}, {y}) cycle {cycle}: {color} arrives from {first} and {second} in the same cycle"
    )]
    Merge {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The color.
        color: Color,
        /// The cycle.
        cycle: u64,
        /// The first port.
        first: Dir,
        /// The second port.
        second: Dir,
    },
    /// A bad switch configuration.
    #[error("{color}: {why}")]
    Switch {
        /// The color.
        color: Color,
        /// What is wrong.
        why: String,
    },
    /// A wavelet was routed to the compute engine but no input queue takes its color.
    #[error("PE ({x}, {y}): {color} is routed to the RAMP but no input queue is bound to it")]
    NoInputQueue {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The color.
        color: Color,
    },
    /// A queue id the architecture does not have.
    #[error("{arch} has no {queue}")]
    NoSuchQueue {
        /// The queue.
        queue: QueueRef,
        /// The architecture.
        arch: Arch,
    },
    /// A port that is not on the grid's edge (or the RAMP) given where an edge port is needed.
    #[error("PE ({x}, {y}): port {dir} is not an open edge of the grid")]
    NotAnEdge {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The port.
        dir: Dir,
    },
    /// [`super::Fabric::step`] needs one set of queues per PE.
    #[error("the grid has {pes} PEs but {given} sets of queues were given")]
    QueueCount {
        /// Sets given.
        given: usize,
        /// PEs of the grid.
        pes: usize,
    },
    /// A grid larger than the architecture's fabric.
    #[error("a {width}x{height} grid does not fit the {max_width}x{max_height} fabric of {arch}")]
    TooLarge {
        /// Width asked.
        width: u32,
        /// Height asked.
        height: u32,
        /// The fabric's width.
        max_width: u32,
        /// The fabric's height.
        max_height: u32,
        /// The architecture.
        arch: Arch,
    },
    /// A route without an `rx` or a `tx` port.
    #[error("PE ({x}, {y}): the route of {color} needs at least one rx and one tx port")]
    EmptyRoute {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The color.
        color: Color,
    },
    /// A feature the documentation names but does not describe precisely enough to model.
    #[error("unsupported: {what} ({why})")]
    Unsupported {
        /// The feature and where it was asked for.
        what: String,
        /// What is unpublished.
        why: &'static str,
    },
    /// A router feature the architecture does not have.
    #[error("PE ({x}, {y}): {what} is not available on {arch}")]
    Arch {
        /// Column.
        x: u32,
        /// Row.
        y: u32,
        /// The feature.
        what: &'static str,
        /// The architecture.
        arch: Arch,
    },
}
