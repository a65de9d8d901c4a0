//! What a whole-file quantisation does: the scheme, the axis, the rules and the tensors.

use npusim_numerics::CastPolicy;
use npusim_numerics::block::{ScaleRule, Scheme};

/// A quantisation of the tensors of a `.safetensors` file ([`super::quantize_bytes`]).
#[derive(Clone, Debug)]
pub struct QuantizeJob {
    /// The block scheme.
    pub scheme: Scheme,
    /// The axis the blocks run along (negative counts from the last).
    pub axis: isize,
    /// The MX scale rule (`None`: FLOOR, the specification's); NVFP4 takes none.
    pub scale_rule: Option<ScaleRule>,
    /// The element cast's rounding.
    pub policy: CastPolicy,
    /// Seed of the stochastic rounding thresholds.
    pub seed: u64,
    /// Tensors to quantise (exact names or globs); empty: every floating tensor of 2 or
    /// more dimensions.
    pub tensors: Vec<String>,
    /// Tensors never quantised (exact names or globs); wins over `tensors`.
    pub exclude: Vec<String>,
    /// Whether to measure the error of every quantised tensor.
    pub stats: bool,
}

impl QuantizeJob {
    /// A job for `scheme` along the last axis, FLOOR, nearest-even, every tensor by default.
    pub fn new(scheme: Scheme) -> QuantizeJob {
        QuantizeJob {
            scheme,
            axis: -1,
            scale_rule: None,
            policy: CastPolicy::default(),
            seed: npusim_numerics::block::Options::default().seed,
            tensors: Vec::new(),
            exclude: Vec::new(),
            stats: false,
        }
    }
}
