//! Writing tensors and metadata as a `.safetensors` file.

use std::borrow::Cow;
use std::collections::HashMap;
use std::path::Path;

use safetensors::{Dtype, View};

use crate::elements::element_count;
use crate::error::IoError;

/// A tensor to write: dtype, header shape and bytes.
#[derive(Clone, Debug)]
pub struct OutTensor<'a> {
    /// The safetensors dtype.
    pub dtype: Dtype,
    /// The header shape.
    pub shape: Vec<usize>,
    /// The bytes.
    pub data: Cow<'a, [u8]>,
}

impl View for &OutTensor<'_> {
    fn dtype(&self) -> Dtype {
        self.dtype
    }
    fn shape(&self) -> &[usize] {
        &self.shape
    }
    fn data(&self) -> Cow<'_, [u8]> {
        Cow::Borrowed(&self.data)
    }
    fn data_len(&self) -> usize {
        self.data.len()
    }
}

/// Checks that a tensor's bytes match what its dtype and shape say (the `safetensors` crate
/// would panic or fail later otherwise).
fn check_size(name: &str, t: &OutTensor<'_>) -> Result<(), IoError> {
    let n = element_count(&t.shape)?;
    let bits = n
        .checked_mul(t.dtype.bitsize())
        .ok_or_else(|| IoError::TensorTooLarge {
            name: name.to_string(),
        })?;
    if bits % 8 != 0 || bits / 8 != t.data.len() {
        return Err(IoError::TensorBytes {
            name: name.to_string(),
            dtype: t.dtype,
            shape: t.shape.clone(),
            bytes: t.data.len(),
        });
    }
    Ok(())
}

/// Writes `tensors` and `metadata` as a `.safetensors` file at `path` (use
/// [`crate::write_atomic_via_path`] for an atomic write).
pub fn write(
    path: &Path,
    tensors: &[(String, OutTensor<'_>)],
    metadata: Option<HashMap<String, String>>,
) -> Result<(), IoError> {
    for (name, t) in tensors {
        check_size(name, t)?;
    }
    safetensors::serialize_to_file(tensors.iter().map(|(n, t)| (n.as_str(), t)), metadata, path)
        .map_err(IoError::SafetensorsWrite)
}

/// The bytes of a `.safetensors` file holding `tensors` and `metadata`.
pub fn to_bytes(
    tensors: &[(String, OutTensor<'_>)],
    metadata: Option<HashMap<String, String>>,
) -> Result<Vec<u8>, IoError> {
    for (name, t) in tensors {
        check_size(name, t)?;
    }
    safetensors::serialize(tensors.iter().map(|(n, t)| (n.as_str(), t)), metadata)
        .map_err(IoError::SafetensorsWrite)
}
