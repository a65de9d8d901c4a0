//! The typed front end for the common case: cast a slice of `f32` to a format and get the
//! output buffer, sized for you, with what happened to its elements.

use super::{BulkOptions, Storage, cast_elements_with_status};
use crate::format::Format;
use crate::policy::CastPolicy;
use crate::status::StatusCounts;

/// Elements of one format in their native storage (2- and 4-bit formats packed), with the
/// status counts of the cast that made them.
///
/// ```
/// use npusim_numerics::{CastPolicy, Encoded, Format, RoundMode, Status};
/// let e = Encoded::from_f32(&[1.0, 2.5, 1000.0], Format::F8E4M3FN,
///                           &CastPolicy::saturating(RoundMode::Rint));
/// assert_eq!(e.bytes(), &[0x38, 0x42, 0x7E]);
/// assert_eq!(e.counts().get(Status::SATURATED), 1);
/// assert_eq!(e.to_f32(), vec![1.0, 2.5, 448.0]);
/// let packed = Encoded::from_f32(&[1.0, -2.0, 3.0], Format::I4, &CastPolicy::default());
/// assert_eq!(packed.bytes(), &[0xE1, 0x03]);
/// assert_eq!(packed.code(1), Some(0xE));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    storage: Storage,
    count: usize,
    bytes: Vec<u8>,
    counts: StatusCounts,
}

impl Encoded {
    /// Casts `values` to `format` under `policy` (default bulk options: the default seed for
    /// stochastic rounding, parallel over large inputs).
    pub fn from_f32(values: &[f32], format: Format, policy: &CastPolicy) -> Encoded {
        let storage = Storage::native(format);
        let count = values.len();
        let mut bytes = vec![0u8; storage.bytes_for(count)];
        let src = Storage::native(Format::F32);
        // The buffers are sized here from `count`, so the length checks cannot fail.
        let counts = cast_elements_with_status(
            bytemuck::cast_slice(values),
            src,
            &mut bytes,
            storage,
            count,
            policy,
            &BulkOptions::default(),
        )
        .unwrap_or_default();
        Encoded {
            storage,
            count,
            bytes,
            counts,
        }
    }

    /// The format of the elements.
    pub const fn format(&self) -> Format {
        self.storage.format()
    }

    /// How the bytes hold the elements.
    pub const fn storage(&self) -> Storage {
        self.storage
    }

    /// Number of elements.
    pub const fn len(&self) -> usize {
        self.count
    }

    /// Whether there are no elements.
    pub const fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The encoded bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The bytes, by value.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// What happened to the elements in the cast.
    pub const fn counts(&self) -> &StatusCounts {
        &self.counts
    }

    /// Code of element `i`, or `None` past the end.
    pub fn code(&self, i: usize) -> Option<u64> {
        (i < self.count).then(|| self.storage.read(&self.bytes, i))
    }

    /// The elements' values as `f32` (rounded to nearest even where f32 cannot hold them).
    pub fn to_f32(&self) -> Vec<f32> {
        let mut out = vec![0f32; self.count];
        let policy = CastPolicy::default();
        // Sized from `count`: cannot fail.
        let _ = cast_elements_with_status(
            &self.bytes,
            self.storage,
            bytemuck::cast_slice_mut(&mut out),
            Storage::native(Format::F32),
            self.count,
            &policy,
            &BulkOptions::default(),
        );
        out
    }
}
