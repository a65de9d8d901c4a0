//! RNGD hardware counts and sizes as named constants; the ones a stream tensor or an
//! engine checks are [`Limit`]s, so that breaking one is an error naming the limit.

use npusim_hw::Limit;

/// Bytes in one flit: the unit the Collect, Cast and Vector stages move per cycle
/// (`FLIT_BYTES`).
pub const FLIT_BYTES: usize = 32;

/// The packet of a Collect / Cast / Vector-final tensor is exactly one flit.
pub const FLIT: Limit = Limit::new("packet bytes (one 32-byte flit)", 32, 32);

/// Slices per cluster: a `Slice` mapping has at most 256 positions, and a reduction group lies
/// within one cluster. (The vendor's code also accepts only 64, 128 or 256; the Cast Engine page's
/// examples use `Slice = m![1]`, so npusim checks the upper bound only.)
pub const SLICES_PER_CLUSTER: Limit = Limit::new("Slice size (slices per cluster)", 1, 256);

/// Clusters per chip: a `Cluster` mapping has 1 or 2 positions.
pub const CLUSTERS_PER_CHIP: Limit = Limit::new("Cluster size (clusters per chip)", 1, 2);

/// Lanes per slice (TRF lanes / MAC rows).
pub const LANES_PER_SLICE: usize = 8;

/// Vector register file bytes per slice (`VRF_BYTES`).
pub const VRF_BYTES: usize = 8192;

/// Data memory bytes per slice (512 KiB).
pub const DM_BYTES_PER_SLICE: usize = 512 * 1024;

/// Tensor register file bytes checked by the frontend (`TRF_CAPACITY_BYTES`).
pub const TRF_BYTES: usize = 65_536;

/// Positions of one stream npusim holds in memory (chip × cluster × slice × time × packet):
/// a limit of the model, not of the hardware (a stage holds its input and output buffers, a
/// code each in its type's word, and a liveness byte and a tag byte per position), checked
/// before anything is allocated.
pub const STREAM_POSITIONS: Limit = Limit::new(
    "stream positions (chip × cluster × slice × time × packet)",
    1,
    1 << 24,
);
