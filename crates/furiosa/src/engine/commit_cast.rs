//! The Commit Adapter's cast (`docs/furiosa-engines.md` §8.1): `commit_cast::<bf16>()` and
//! `commit_cast_relu::<bf16>()` narrow a trimmed `f32` stream to `bf16` on the way to DM, the
//! packet mapping kept and its bytes halved. The trimmed `f32` width must be 16 or 32 bytes.
//! Conversion as the Cast Engine's `f32 → bf16` ([`CastProfile`]: round to nearest even,
//! NaN → `0x7fc0`, subnormals → signed zero); the ReLU maps every non-NaN value with the sign
//! bit set (−0.0 and negative subnormals included) to +0.0 first. Latency 1 (decision §8.2).

use crate::engine::commit::CommitError;
use crate::tensor::{Dim, Position};
use crate::{CastProfile, Codes, DType, StreamTensor};

/// Added latency of `commit_cast` / `commit_cast_relu` in cycles (npusim's; none is
/// published: `docs/furiosa-engines.md` §8.2).
pub const COMMIT_CAST_LATENCY: usize = 1;

/// Widths in bytes of a trimmed `f32` packet that `commit_cast` accepts.
pub const COMMIT_CAST_BYTES: [usize; 2] = [16, 32];

impl StreamTensor {
    /// `.commit_cast::<bf16>()`: the `CommitCastTensor` of the trimmed `f32` stream in `bf16`.
    pub fn commit_cast(self) -> Result<StreamTensor, CommitError> {
        self.commit_cast_with("commit_cast", false)
    }

    /// `.commit_cast_relu::<bf16>()`: [`StreamTensor::commit_cast`] with negative values
    /// (not NaN) set to +0.0 first.
    pub fn commit_cast_relu(self) -> Result<StreamTensor, CommitError> {
        self.commit_cast_with("commit_cast_relu", true)
    }

    fn commit_cast_with(self, method: &str, relu: bool) -> Result<StreamTensor, CommitError> {
        self.position().check_transition(method)?;
        let dtype = self.dtype();
        if dtype != DType::F32 {
            return Err(CommitError::CastType { dtype });
        }
        let bytes = self.packet().size() * 4;
        if !COMMIT_CAST_BYTES.contains(&bytes) {
            return Err(CommitError::CastWidth {
                commit_in_size: bytes,
                unit: 16,
                legal: COMMIT_CAST_BYTES,
            });
        }
        let profile = CastProfile::default();
        let out: Vec<u16> = self
            .codes()
            .iter()
            .map(|c| {
                let negative = c & 0x8000_0000 != 0 && !f32::from_bits(c as u32).is_nan();
                let c = if relu && negative { 0 } else { c };
                profile
                    .convert(c, DType::F32, DType::BF16)
                    .unwrap_or_default() as u16
            })
            .collect();
        let dims = [
            self.mapping(Dim::Chip).clone(),
            self.mapping(Dim::Cluster).clone(),
            self.mapping(Dim::Slice).clone(),
            self.time().clone(),
            self.packet().clone(),
        ];
        Ok(StreamTensor::from_codes(
            DType::BF16,
            Position::CommitCast,
            dims,
            Codes::U16(out),
        )?)
    }
}
