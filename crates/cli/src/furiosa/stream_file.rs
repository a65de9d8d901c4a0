//! The output stream of `npusim furiosa run` as a file: `.npy` of shape [chip, cluster, slice,
//! time, packet], or `.safetensors` holding that array as the tensor `output`.

use std::collections::HashMap;
use std::path::Path;

use anyhow::{Result, bail};
use npusim_furiosa::StreamTensor;
use npusim_io::{Elements, safetensors};
use npusim_numerics::Storage;

use crate::npy_file::{npy_bytes, unpacked};
use crate::output::is_stdio;

/// The output stream's codes as elements of its dtype, one per byte for 4-bit types.
fn stream_elements(t: &StreamTensor) -> Result<Elements<'static>> {
    let format = t.dtype().format();
    let native = Storage::native(format);
    let count = t.codes().len();
    let mut bytes = vec![0u8; native.bytes_for(count)];
    let bits = t.dtype().bits();
    for (i, code) in t.codes().iter().enumerate() {
        if bits == 4 {
            bytes[i / 2] |= ((code & 0xf) as u8) << (4 * (i % 2));
        } else {
            let w = bits / 8;
            bytes[i * w..(i + 1) * w].copy_from_slice(&code.to_le_bytes()[..w]);
        }
    }
    unpacked(&Elements {
        storage: native,
        count,
        bytes: bytes.into(),
    })
}

/// The container `furiosa run -o` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutKind {
    /// numpy `.npy`.
    Npy,
    /// `.safetensors` with the one tensor `output`.
    Safetensors,
}

/// The container of `-o PATH`: `.npy` (or `-`, standard output) or `.safetensors`.
pub fn out_kind(path: &Path) -> Result<OutKind> {
    if is_stdio(path) {
        return Ok(OutKind::Npy);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("npy") => Ok(OutKind::Npy),
        Some("safetensors") => Ok(OutKind::Safetensors),
        _ => bail!(
            "cannot write `{}`: furiosa run writes .npy or .safetensors files (or - for .npy on standard output)",
            path.display()
        ),
    }
}

/// The bytes of the output file: a `.npy` of shape [chip, cluster, slice, time, packet], or a
/// `.safetensors` holding that array as the tensor `output`.
pub fn output_bytes(kind: OutKind, t: &StreamTensor) -> Result<Vec<u8>> {
    let elements = stream_elements(t)?;
    let shape = t.shape().to_vec();
    match kind {
        OutKind::Npy => npy_bytes(&elements, &shape),
        OutKind::Safetensors => {
            let enc = safetensors::encode(elements.storage.format(), &shape, false)?;
            let tensor = safetensors::OutTensor {
                dtype: enc.dtype,
                shape: enc.file_shape,
                data: elements.bytes,
            };
            let meta = enc.meta.map(|m| {
                HashMap::from([(format!("{}{OUTPUT_TENSOR}", safetensors::META_PREFIX), m)])
            });
            Ok(safetensors::to_bytes(
                &[(OUTPUT_TENSOR.to_string(), tensor)],
                meta.as_ref(),
            )?)
        }
    }
}

/// The name of the tensor in a `.safetensors` output.
const OUTPUT_TENSOR: &str = "output";
