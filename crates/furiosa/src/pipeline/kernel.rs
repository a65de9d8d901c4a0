//! A kernel file: a pipeline file with DM tensors (`[[dm]]`) whose stages run from DM back to
//! DM (`docs/furiosa-engines.md` §11.2): `begin` starts an invocation on a DM tensor (or
//! `begin_interleaved` on two), `fetch` and its lifts (`fetch_chip_lift`, `fetch_cluster_lift`,
//! `fetch_slice_lift`), the Fetch Adapter, `switch`, `collect`, the Vector Engine and Cast
//! Engine stages, `commit_trim`, `commit_cast` and `commit` (a new DM tensor) follow; several
//! `begin … commit` runs are several invocations, scheduled as in §10.2.
//!
//! ```toml
//! axes = "R=4, A=512, T=16"
//! [[dm]]
//! name = "x"
//! dtype = "i32"
//! chip = "1"
//! cluster = "1 # 2"
//! slice = "A / 8, R"
//! element = "T, A % 8"
//! address = 0
//! logical = "R, T, A"
//! [[stage]]
//! op = "begin"
//! tensor = "x"
//! # fetch, collect, …, commit_trim
//! [[stage]]
//! op = "commit"
//! element = "T, A % 8"
//! name = "y"
//! address = 512
//! logical = "T, A"
//! ```

use serde::Deserialize;

use super::file::{PipelineFileError, read_error_at};
use super::reader::read;
use super::{Pipeline, StageSpec};
use crate::DType;
use crate::mapping::Axes;

/// One `[[dm]]` table: a DM tensor placed at `address` of every slice it is in, read from an
/// input `.npy` (or a ramp) before the first stage.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DmSpec {
    /// The tensor's name (what `begin` and the inputs and outputs name).
    pub name: String,
    /// Element type.
    pub dtype: DType,
    /// Chip mapping, m-notation.
    pub chip: String,
    /// Cluster mapping, m-notation.
    pub cluster: String,
    /// Slice mapping, m-notation.
    pub slice: String,
    /// Element mapping, m-notation.
    pub element: String,
    /// Byte address in every slice.
    pub address: usize,
    /// The `.npy` axis order (omitted: the declaration order of its axes).
    #[serde(default)]
    pub logical: Option<String>,
}

/// The top-level keys of a kernel file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct KernelFile {
    axes: String,
    #[serde(default)]
    fill_undefined: Option<u8>,
    #[serde(default)]
    stage: Vec<StageSpec>,
}

/// A kernel: axes, DM tensors and stages.
#[derive(Clone, Debug, PartialEq)]
pub struct Kernel {
    /// Axis declarations.
    pub axes: Axes,
    /// The byte never-written DM reads as (0 unless `fill_undefined` is given).
    pub fill_undefined: u8,
    /// The DM tensors, in declaration order.
    pub tensors: Vec<DmSpec>,
    /// The stages, in order.
    pub stages: Vec<StageSpec>,
}

/// A pipeline file of either kind.
#[derive(Clone, Debug, PartialEq)]
pub enum PipelineKind {
    /// An input stream and its stages (no `[[dm]]`).
    Stream(Pipeline),
    /// DM tensors and invocations from DM to DM.
    Kernel(Kernel),
}

impl PipelineKind {
    /// Reads a pipeline file's text: a kernel file when it has `[[dm]]` tables, otherwise a
    /// stream pipeline ([`Pipeline::parse`]).
    pub fn parse(text: &str) -> Result<PipelineKind, PipelineFileError> {
        let mut table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| PipelineFileError::Toml(e.to_string()))?;
        let Some(dm) = table.remove("dm") else {
            return Pipeline::parse(text).map(PipelineKind::Stream);
        };
        let toml::Value::Array(items) = dm else {
            return Err(PipelineFileError::Invalid {
                at: "pipeline".into(),
                key: Some("dm".into()),
                message: "write each DM tensor as a [[dm]] table".into(),
            });
        };
        let mut tensors = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            let spec: DmSpec = read(item).map_err(|e| read_error_at(e, format!("dm {}", i + 1)))?;
            if tensors.iter().any(|t: &DmSpec| t.name == spec.name) {
                return Err(PipelineFileError::Invalid {
                    at: format!("dm {}", i + 1),
                    key: Some("name".into()),
                    message: format!("a DM tensor named `{}` is declared twice", spec.name),
                });
            }
            tensors.push(spec);
        }
        let file: KernelFile = read(toml::Value::Table(table))?;
        Ok(PipelineKind::Kernel(Kernel {
            axes: Axes::parse(&file.axes)?,
            fill_undefined: file.fill_undefined.unwrap_or(0),
            tensors,
            stages: file.stage,
        }))
    }
}
