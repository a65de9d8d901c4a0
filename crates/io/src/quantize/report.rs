//! What `quantize` and `dequantize` did, tensor by tensor.

use npusim_numerics::block::{BlockStats, ScaleRule, Scheme};
use safetensors::Dtype;

use super::select::KeptBecause;
use crate::cast::ErrorStats;

/// One quantised tensor.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantizedTensor {
    /// Its name in the input.
    pub name: String,
    /// Its dtype in the input.
    pub dtype: Dtype,
    /// Its shape.
    pub shape: Vec<usize>,
    /// The axis the blocks run along (non-negative).
    pub axis: usize,
    /// The scheme.
    pub scheme: Scheme,
    /// The MX scale rule (`None` for NVFP4).
    pub scale_rule: Option<ScaleRule>,
    /// The names of the tensors written for it (codes, scales, tensor scale).
    pub parts: Vec<String>,
    /// Block and element counts of the quantiser.
    pub blocks: BlockStats,
    /// The error of the dequantised values against the input (when asked for). `saturated`
    /// counts the elements clamped to the element format's max normal.
    pub error: Option<ErrorStats>,
}

/// One tensor copied unchanged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptTensor {
    /// Its name.
    pub name: String,
    /// Why it was kept.
    pub reason: KeptBecause,
}

/// What a whole-file quantisation did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QuantizeReport {
    /// The quantised tensors, in the input's order.
    pub quantized: Vec<QuantizedTensor>,
    /// The tensors copied unchanged.
    pub kept: Vec<KeptTensor>,
}

impl QuantizeReport {
    /// The error statistics of every quantised tensor merged (`None` without `stats`).
    pub fn total_error(&self) -> Option<ErrorStats> {
        let mut total = ErrorStats::default();
        for t in &self.quantized {
            total.merge(t.error.as_ref()?);
        }
        Some(total)
    }

    /// The block counts of every quantised tensor summed.
    pub fn total_blocks(&self) -> BlockStats {
        let mut s = BlockStats::default();
        for t in &self.quantized {
            let b = &t.blocks;
            s.blocks += b.blocks;
            s.nan_blocks += b.nan_blocks;
            s.zero_blocks += b.zero_blocks;
            s.scale_underflow += b.scale_underflow;
            s.scale_saturated += b.scale_saturated;
            s.blocks_with_saturated_elements += b.blocks_with_saturated_elements;
            s.elements.add(&b.elements);
        }
        s
    }
}

/// One tensor read back by `dequantize`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DequantizedTensor {
    /// Its name in the output.
    pub name: String,
    /// The scheme it was stored in.
    pub scheme: Scheme,
    /// Its shape.
    pub shape: Vec<usize>,
    /// The stored parts it was read from.
    pub parts: Vec<String>,
}

/// What a whole-file dequantisation did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DequantizeReport {
    /// The tensors read back.
    pub dequantized: Vec<DequantizedTensor>,
    /// Names of the tensors copied unchanged.
    pub kept: Vec<String>,
}
