//! What an into-buffer quantisation reports besides the codes and scales it wrote.

use super::layout::BlockLayout;
use super::stats::BlockStats;

/// What [`quantize_into`](super::quantize_into) wrote besides the codes and scales.
#[derive(Clone, Debug, PartialEq)]
pub struct QuantizeSummary {
    /// Shape, axis and block size.
    pub layout: BlockLayout,
    /// NVFP4's per-tensor f32 scale (`None` for MX, or NVFP4 without one).
    pub tensor_scale: Option<f32>,
    /// What happened while quantising.
    pub stats: BlockStats,
}
