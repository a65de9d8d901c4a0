//! Writing tensors and metadata as a `.safetensors` file held in memory.

use std::borrow::Cow;
use std::collections::HashMap;

use safetensors::Dtype;

use super::header::{EntryOut, header_bytes, layout_key};
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

/// Checks that a tensor's bytes match what its dtype and shape say.
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

/// The bytes of a `.safetensors` file holding `tensors` (data laid out by [`layout_key`]) and
/// `metadata` (written with sorted keys, so the same input always gives the same file).
pub fn to_bytes(
    tensors: &[(String, OutTensor<'_>)],
    metadata: Option<&HashMap<String, String>>,
) -> Result<Vec<u8>, IoError> {
    for (name, t) in tensors {
        check_size(name, t)?;
    }
    let mut order: Vec<&(String, OutTensor<'_>)> = tensors.iter().collect();
    order.sort_by_key(|(name, t)| layout_key(name, t.dtype));
    let entries: Vec<EntryOut<'_>> = order
        .iter()
        .map(|(name, t)| EntryOut {
            name,
            dtype: t.dtype,
            shape: &t.shape,
            len: t.data.len() as u64,
        })
        .collect();
    let mut out = header_bytes(&entries, metadata);
    for (_, t) in order {
        out.extend_from_slice(&t.data);
    }
    Ok(out)
}
