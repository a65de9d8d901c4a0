//! A Tensor Unit pipeline as data: the input stream (dtype, axes, five mappings in m-notation)
//! and a list of stages, read from a pipeline file ([`Pipeline::parse`]) and run over the
//! input's codes with a cycle estimate per engine ([`Pipeline::run`]). This is what
//! `npusim furiosa run` executes. A file with `[[dm]]` tensors is a [`Kernel`] instead: its
//! stages run from DM back to DM ([`Kernel::run`]).

mod file;
mod kernel;
mod kernel_report;
mod kernel_run;
mod reader;
mod schedule;
mod stage;

pub use file::PipelineFileError;
pub use kernel::{DmSpec, Kernel, PipelineKind};
pub use kernel_report::SHOWN_VALUES;
pub use kernel_run::{EngineError, KernelError, KernelInput, KernelRun, NamedTensor};
pub use schedule::{PipelineError, StageReport, total_estimate};
pub use stage::{StageSpec, TileSpec};

use crate::DType;
use crate::mapping::Axes;

/// A pipeline: the input stream and its stages.
#[derive(Clone, Debug, PartialEq)]
pub struct Pipeline {
    /// Axis declarations.
    pub axes: Axes,
    /// Input scalar type.
    pub dtype: DType,
    /// Input `[Chip, Cluster, Slice, Time, Packet]` in m-notation.
    pub dims: [String; 5],
    /// The stages, in order.
    pub stages: Vec<StageSpec>,
    /// Upstream delivery rate for the Vector Engine's estimate (cycles per flit, ≥ 1).
    pub upstream_cycles_per_flit: u64,
}
