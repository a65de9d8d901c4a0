//! The pipeline file (TOML): the input stream's keys at the top level and one `[[stage]]`
//! table per stage, `op` naming the stage. Read with serde through [`reader`](super::reader):
//! unknown keys are refused with the known ones listed, and every error says where it is.

use serde::{Deserialize, Deserializer};
use thiserror::Error;

use super::reader::{Problem, ReadError, read};
use super::{Pipeline, StageSpec};
use crate::DType;
use crate::mapping::{Axes, AxesError};

/// The keys of a pipeline file, as written.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PipelineFile {
    axes: String,
    dtype: DType,
    chip: String,
    cluster: String,
    slice: String,
    time: String,
    packet: String,
    #[serde(default = "one", deserialize_with = "cycles_per_flit")]
    upstream_cycles_per_flit: u64,
    #[serde(default)]
    stage: Vec<StageSpec>,
}

fn one() -> u64 {
    1
}

/// Reads `upstream_cycles_per_flit`: an integer ≥ 1.
fn cycles_per_flit<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    match u64::deserialize(d) {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(serde::de::Error::custom(
            "upstream_cycles_per_flit must be an integer >= 1",
        )),
    }
}

/// Why a pipeline file cannot be read. `at` is `pipeline` for the top level, `stage N` or
/// `stage N (op)` inside the N-th `[[stage]]`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PipelineFileError {
    /// The text is not TOML.
    #[error("not valid TOML: {0}")]
    Toml(String),
    /// A key the table does not take (a misspelling would otherwise be ignored).
    #[error("{at}: unknown key `{key}` (known keys: {known})")]
    UnknownKey {
        /// Where.
        at: String,
        /// The key.
        key: String,
        /// The keys the table takes, comma-separated.
        known: String,
    },
    /// A required key is absent.
    #[error("{at}: `{key}` is missing")]
    Missing {
        /// Where.
        at: String,
        /// The key.
        key: String,
    },
    /// A name that is not one of its kind's (an op, a stage, a type).
    #[error("{at}: unknown {key} `{name}` (one of {known})")]
    UnknownName {
        /// Where.
        at: String,
        /// The key holding the name.
        key: String,
        /// The name.
        name: String,
        /// The legal names, comma-separated.
        known: String,
    },
    /// A value of the wrong kind or out of range.
    #[error("{at}: {}{message}", key.as_ref().map(|k| format!("`{k}`: ")).unwrap_or_default())]
    Invalid {
        /// Where.
        at: String,
        /// The key holding the value, when known.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// The axis declarations do not parse.
    #[error("pipeline: `axes`: {0}")]
    Axes(#[from] AxesError),
}

impl From<ReadError> for PipelineFileError {
    fn from(e: ReadError) -> PipelineFileError {
        let at = match (e.stage, &e.op) {
            (Some(i), Some(op)) => format!("stage {i} ({op})"),
            (Some(i), None) => format!("stage {i}"),
            (None, _) => "pipeline".to_string(),
        };
        read_error_at(e, at)
    }
}

/// A reading error placed at `at` (`dm 2`, `stage 3 (fetch)`, …).
pub(super) fn read_error_at(e: ReadError, at: String) -> PipelineFileError {
    let key = e.key;
    match e.problem {
        Problem::UnknownKey { key, known } => PipelineFileError::UnknownKey {
            at,
            key,
            known: known.join(", "),
        },
        Problem::Missing(k) => PipelineFileError::Missing {
            at,
            key: k.to_string(),
        },
        Problem::UnknownName { name, known } => PipelineFileError::UnknownName {
            at,
            key: key.unwrap_or_default(),
            name,
            known: known.join(", "),
        },
        Problem::Invalid(message) => PipelineFileError::Invalid { at, key, message },
    }
}

impl Pipeline {
    /// Reads a pipeline file's text (TOML).
    ///
    /// ```
    /// use npusim_furiosa::pipeline::{Pipeline, StageSpec};
    /// let text = "axes = \"A=8\"\ndtype = \"i32\"\nchip = 1\ncluster = 1\nslice = 1\n\
    ///             time = 1\npacket = \"A\"\n[[stage]]\nop = \"vector_init\"\n";
    /// let p = Pipeline::parse(text).unwrap();
    /// assert_eq!(p.stages, [StageSpec::VectorInit]);
    /// let typo = text.replace("[[stage]]\n", "[[stage]]\nfoo = 1\n");
    /// assert_eq!(
    ///     Pipeline::parse(&typo).unwrap_err().to_string(),
    ///     "stage 1 (vector_init): unknown key `foo` (known keys: op)"
    /// );
    /// ```
    pub fn parse(text: &str) -> Result<Pipeline, PipelineFileError> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| PipelineFileError::Toml(e.to_string()))?;
        let file: PipelineFile = read(toml::Value::Table(table))?;
        Ok(Pipeline {
            axes: Axes::parse(&file.axes)?,
            dtype: file.dtype,
            dims: [file.chip, file.cluster, file.slice, file.time, file.packet],
            stages: file.stage,
            upstream_cycles_per_flit: file.upstream_cycles_per_flit,
        })
    }
}
