//! A file cast, described before any byte is read: containers, formats, policy, packing,
//! tensor selection, shape and seed, and the rules that tie them together.

use crate::packing::is_nibble;
use npusim_numerics::{BulkOptions, CastPolicy, Format};

use crate::container::Container;
use crate::error::IoError;

/// What to cast and how. Field names follow the `npusim cast` options; errors about a field
/// name what it means (the source format, the shape, packed 4-bit storage, the tensor
/// selection), and the command line maps them to its options.
#[derive(Clone, Debug, PartialEq)]
pub struct CastJob {
    /// The input container.
    pub input: Container,
    /// The output container (single-tensor for a single-tensor input, safetensors for
    /// safetensors).
    pub output: Container,
    /// Destination format.
    pub to: Format,
    /// Source format: needed for raw inputs and opaque `.npy` dtypes; must be `None` for
    /// safetensors inputs.
    pub from: Option<Format>,
    /// Rounding mode, saturation and NaN/Inf rules.
    pub policy: CastPolicy,
    /// Seed of stochastic rounding (`None`: the library's default seed).
    pub seed: Option<u64>,
    /// Store 4-bit formats two per byte (on both sides of a single-tensor cast).
    pub packed: bool,
    /// Safetensors: cast these tensors, by name or glob pattern (empty: every floating-point
    /// tensor).
    pub tensors: Vec<String>,
    /// Safetensors: never cast these tensors (names or glob patterns; wins over `tensors`).
    pub exclude: Vec<String>,
    /// Refuse an output in which a finite input became NaN or ±Inf: the cast ends in
    /// [`IoError::NonFiniteFromFinite`] once every tensor is cast (a file output is then not
    /// written).
    pub fail_on_nan: bool,
    /// Refuse a cast that would cast no tensor (every tensor excluded or kept): the plan ends
    /// in [`IoError::NothingToCast`] before anything is written.
    pub fail_on_empty: bool,
    /// Compute [`super::error_stats::ErrorStats`] for every cast tensor (in each report's `stats.error`).
    pub error_stats: bool,
    /// Shape of a raw input, or the logical shape of a packed `.npy` input with an odd last
    /// dimension.
    pub shape: Option<Vec<usize>>,
}

impl CastJob {
    /// A cast from `input` to `output` into `to` under the default policy, nothing else set.
    pub fn new(input: Container, output: Container, to: Format) -> CastJob {
        CastJob {
            input,
            output,
            to,
            from: None,
            policy: CastPolicy::default(),
            seed: None,
            packed: false,
            tensors: Vec::new(),
            exclude: Vec::new(),
            fail_on_nan: false,
            fail_on_empty: false,
            error_stats: false,
            shape: None,
        }
    }

    /// The bulk options of the cast (its seed).
    pub(crate) fn bulk(&self) -> BulkOptions {
        let mut bulk = BulkOptions::default();
        if let Some(seed) = self.seed {
            bulk.seed = seed;
        }
        bulk
    }

    /// A single-tensor container casts into a single-tensor container, safetensors into
    /// safetensors.
    pub(crate) fn check_containers(&self) -> Result<(), IoError> {
        if self.input.is_single_tensor() != self.output.is_single_tensor() {
            return Err(IoError::ContainerMismatch {
                input: self.input.name(),
                output: self.output.name(),
            });
        }
        Ok(())
    }

    /// With [`CastJob::fail_on_nan`], refuses an outcome in which finite inputs became NaN or
    /// ±Inf, naming the tensors and counts.
    pub(crate) fn check_nonfinite(
        &self,
        reports: &[super::report::TensorReport],
    ) -> Result<(), IoError> {
        if !self.fail_on_nan {
            return Ok(());
        }
        let bad: Vec<(&str, u64)> = reports
            .iter()
            .filter_map(|r| match r {
                super::report::TensorReport::Cast(c) if c.stats.nonfinite_from_finite > 0 => {
                    Some((c.name.as_str(), c.stats.nonfinite_from_finite))
                }
                _ => None,
            })
            .collect();
        if bad.is_empty() {
            return Ok(());
        }
        Err(IoError::NonFiniteFromFinite {
            count: bad.iter().map(|b| b.1).sum(),
            tensors: bad
                .iter()
                .map(|(name, n)| format!("{name}: {n}"))
                .collect::<Vec<_>>()
                .join(", "),
        })
    }

    /// `packed` must concern a 4-bit side of a cast from `from`.
    pub(crate) fn check_packed(&self, from: Format) -> Result<(), IoError> {
        if self.packed && !is_nibble(from) && !is_nibble(self.to) {
            return Err(IoError::PackedNot4Bit { from, to: self.to });
        }
        Ok(())
    }
}
