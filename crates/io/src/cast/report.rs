//! What a file cast did (one report per tensor) and the output it produced.

use std::fmt;

use npusim_numerics::Format;
use safetensors::Dtype;

use super::keep_reason::KeepReason;
use super::stats::Stats;
use crate::elements::shape_str;

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

/// A finished cast held in memory: per-tensor reports and the output file's bytes.
#[derive(Clone, Debug)]
pub struct CastOutcome {
    /// One report per tensor, in file order.
    pub reports: Vec<TensorReport>,
    /// The output file's content.
    pub bytes: Vec<u8>,
}

/// How many tensors were cast and how many kept.
pub fn tally(reports: &[TensorReport]) -> (usize, usize) {
    let cast = reports
        .iter()
        .filter(|r| matches!(r, TensorReport::Cast(_)))
        .count();
    (cast, reports.len() - cast)
}
