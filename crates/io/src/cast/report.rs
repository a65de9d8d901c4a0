//! What a file cast did (one report per tensor) and the output it produced.

use std::collections::HashMap;
use std::fmt;
use std::io::Write;
use std::path::Path;

use npusim_numerics::Format;
use safetensors::Dtype;

use super::select::KeepReason;
use super::stats::Stats;
use crate::atomic::{write_atomic, write_atomic_via_path};
use crate::container::Container;
use crate::elements::{Elements, shape_str};
use crate::error::IoError;
use crate::safetensors::OutTensor;
use crate::{npy, raw, safetensors as st};

/// One tensor that was cast.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CastSummary {
    /// The tensor's name (a single-tensor file's file name).
    pub name: String,
    /// Source format.
    pub from: Format,
    /// Destination format.
    pub to: Format,
    /// Elements cast.
    pub count: usize,
    /// Logical shape.
    pub shape: Vec<usize>,
    /// NaN, ±Inf and saturated results.
    pub stats: Stats,
}

/// One tensor that was copied unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptSummary {
    /// The tensor's name.
    pub name: String,
    /// Its dtype.
    pub dtype: Dtype,
    /// Its shape.
    pub shape: Vec<usize>,
    /// Why it was kept.
    pub reason: KeepReason,
}

/// What happened to one tensor; `Display` gives the one-line summary.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensorReport {
    /// The tensor was cast.
    Cast(CastSummary),
    /// The tensor was copied unchanged.
    Kept(KeptSummary),
}

impl fmt::Display for TensorReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TensorReport::Cast(c) => write!(
                f,
                "{}: {} -> {}, {} element{} {} ({})",
                c.name,
                c.from,
                c.to,
                c.count,
                if c.count == 1 { "" } else { "s" },
                shape_str(&c.shape),
                c.stats
            ),
            TensorReport::Kept(k) => write!(
                f,
                "{}: {} {} left unchanged ({})",
                k.name,
                k.dtype,
                shape_str(&k.shape),
                k.reason
            ),
        }
    }
}

/// The single tensor of a `.npy` or raw output.
#[derive(Clone, Debug)]
pub struct SingleTensor {
    /// `.npy` or raw.
    pub container: Container,
    /// The cast elements.
    pub elements: Elements<'static>,
    /// Logical shape.
    pub shape: Vec<usize>,
    /// Keep Fortran order (`.npy`).
    pub fortran: bool,
    /// 4-bit elements two per byte.
    pub packed: bool,
}

impl SingleTensor {
    /// Writes the file's bytes.
    pub fn write(&self, w: &mut dyn Write) -> Result<(), IoError> {
        match self.container {
            Container::Npy => npy::write(w, &self.elements, &self.shape, self.fortran, self.packed),
            _ => raw::write(w, &self.elements, self.packed),
        }
    }
}

/// The file a cast produced, not yet written.
#[derive(Clone, Debug)]
pub enum CastOutput<'a> {
    /// One tensor for a `.npy` or raw file.
    Single(SingleTensor),
    /// The tensors and metadata of a `.safetensors` file (kept tensors borrow the input).
    Safetensors {
        /// Tensors in file order.
        tensors: Vec<(String, OutTensor<'a>)>,
        /// `__metadata__`.
        metadata: Option<HashMap<String, String>>,
    },
}

impl CastOutput<'_> {
    /// Writes the file at `path` atomically (temporary file, then rename).
    pub fn write_atomic(&self, path: &Path) -> Result<(), IoError> {
        match self {
            CastOutput::Single(t) => write_atomic(path, |w| t.write(w)),
            CastOutput::Safetensors { tensors, metadata } => {
                write_atomic_via_path(path, |tmp| st::write(tmp, tensors, metadata.clone()))
            }
        }
    }

    /// The bytes of the file.
    pub fn to_bytes(&self) -> Result<Vec<u8>, IoError> {
        match self {
            CastOutput::Single(t) => {
                let mut out = Vec::new();
                t.write(&mut out)?;
                Ok(out)
            }
            CastOutput::Safetensors { tensors, metadata } => {
                st::to_bytes(tensors, metadata.clone())
            }
        }
    }
}

/// A finished cast: per-tensor reports and the output to write.
#[derive(Clone, Debug)]
pub struct CastOutcome<'a> {
    /// One report per tensor, in file order.
    pub reports: Vec<TensorReport>,
    /// The output file's content.
    pub output: CastOutput<'a>,
}

/// How many tensors were cast and how many kept.
pub fn tally(reports: &[TensorReport]) -> (usize, usize) {
    let cast = reports
        .iter()
        .filter(|r| matches!(r, TensorReport::Cast(_)))
        .count();
    (cast, reports.len() - cast)
}
