//! The fabric (spec §1.2, §8): wavelets, colors, router ports, per-color routes with switch
//! positions, a grid of routers moving one wavelet per link per cycle, and the input/output
//! queues between each router and its compute engine.

pub mod color;
pub mod direction;
pub mod error;
pub mod filter;
pub mod grid;
pub mod id_error;
pub mod queue;
pub mod queue_id;
pub mod route;
pub mod router_modes;
pub mod stepping;
pub mod wavelet;

pub use color::Color;
pub use direction::{Dir, DirSet};
pub use error::FabricError;
pub use filter::{CounterFilter, RangeFilter};
pub use grid::{Collected, Fabric, Hop};
pub use id_error::IdError;
pub use queue::{Delivery, PeQueues, QueueRef, QueueSide, WaveletQueue, queue_length};
pub use queue_id::{InputQueue, OutputQueue};
pub use route::{ColorConfig, Route, SwitchPos};
pub use router_modes::SwapAxis;
pub use stepping::QueueAccess;
pub use wavelet::{Wavelet, WaveletKind};
