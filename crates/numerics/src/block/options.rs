//! What a quantisation call may choose besides the scheme: scale rule, tensor scale,
//! element rounding.

use crate::bulk::DEFAULT_SEED;
use crate::policy::{CastPolicy, InfRule, IntOverflow, Overflow};

use super::scale_rule::ScaleRule;

/// NVFP4's per-tensor f32 scale.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum TensorScale {
    /// The published rule: p = fl32(amax_tensor / (448 × 6)); p = 0 (an all-zero tensor)
    /// becomes 1. MX schemes have no tensor scale and ignore this.
    #[default]
    FromAmax,
    /// No per-tensor scale: block scales only (torchao's `per_tensor_scale=None`).
    Off,
    /// This per-tensor scale (finite, above zero), e.g. computed over a whole checkpoint.
    Given(f32),
}

/// Options of [`quantize`](super::quantize).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Options {
    /// The e8m0 scale rule of MX schemes; `None` is the OCP rule ([`ScaleRule::Floor`]).
    /// NVFP4 refuses a rule: its scale rule is fixed.
    pub scale_rule: Option<ScaleRule>,
    /// NVFP4's per-tensor scale.
    pub tensor_scale: TensorScale,
    /// The element cast: its rounding mode and stochastic parameters are used; finite
    /// overflow and ±Inf always clamp to the element's max normal (the spec's rule).
    pub policy: CastPolicy,
    /// Seed of the stochastic (`hybrid`) rounding thresholds; element `i` (flat index) uses
    /// [`entropy`](crate::bulk::entropy)`(seed, first_index + i)`.
    pub seed: u64,
    /// Flat index of the first value in the whole tensor, when a tensor is quantised in
    /// pieces (whole blocks at a time), so stochastic rounding gives the same bits as one call.
    pub first_index: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            scale_rule: None,
            tensor_scale: TensorScale::FromAmax,
            policy: CastPolicy::default(),
            seed: DEFAULT_SEED,
            first_index: 0,
        }
    }
}

impl Options {
    /// The default options with this scale rule.
    pub fn with_rule(rule: ScaleRule) -> Options {
        Options {
            scale_rule: Some(rule),
            ..Options::default()
        }
    }

    /// The policy the element cast runs under: the caller's rounding, saturating overflow.
    pub(crate) fn element_policy(&self) -> CastPolicy {
        CastPolicy {
            overflow: Overflow::Saturate,
            inf: InfRule::Saturate,
            int_overflow: IntOverflow::Saturate,
            ..self.policy
        }
    }
}
