//! The tensor names, dtypes and shapes a quantised tensor is stored as, and the
//! `__metadata__` record that lets `dequantize` read it back.
//!
//! * MX schemes (the published MXFP4 layout of gpt-oss's Hugging Face checkpoints):
//!   `<name>_blocks` (`U8`, the element codes) and `<name>_scales` (`U8`, e8m0 bytes, shape
//!   [`BlockLayout::scale_shape`](npusim_numerics::block::BlockLayout::scale_shape)). When the
//!   blocks run along the last axis and it is a multiple of 32, `_blocks` has shape
//!   `[..., n / 32, B]` with `B` the bytes of one block (16 for packed e2m1, 32 otherwise), as
//!   published; otherwise it has the tensor's shape (e2m1: last dimension halved when even,
//!   one flat dimension when odd).
//! * NVFP4 (NVIDIA ModelOpt's layout): `<name>` (`U8`, packed e2m1, last dimension halved),
//!   `<name>_scale` (`F8_E4M3`, one per block of 16) and `<name>_scale_2` (`F32`, shape `[]`,
//!   the per-tensor scale).
//! * Every quantised tensor gets the metadata entry `npusim.quantize.<name>`, a JSON object
//!   `{"scheme", "scale_rule" (MX only), "axis" (non-negative), "shape", "dtype"}`.

use npusim_numerics::Format;
use npusim_numerics::block::{ScaleRule, Scheme};
use safetensors::Dtype;
use serde::{Deserialize, Serialize};

/// Prefix of the metadata entries that record a quantised tensor.
pub const RECORD_PREFIX: &str = "npusim.quantize.";

/// What `quantize` records of one tensor in `__metadata__`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The scheme's name.
    pub scheme: String,
    /// The MX scale rule's name (absent for NVFP4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale_rule: Option<String>,
    /// The axis the blocks run along (non-negative).
    pub axis: usize,
    /// The tensor's shape.
    pub shape: Vec<usize>,
    /// The tensor's dtype before quantisation (`F32`, `BF16`, ...).
    pub dtype: String,
}

impl Record {
    /// The record of a tensor quantised with `scheme` and `rule`.
    pub fn new(
        scheme: Scheme,
        rule: Option<ScaleRule>,
        axis: usize,
        shape: &[usize],
        dtype: Dtype,
    ) -> Record {
        Record {
            scheme: scheme.name().to_string(),
            scale_rule: scheme
                .is_mx()
                .then(|| rule.unwrap_or_default().name().to_string()),
            axis,
            shape: shape.to_vec(),
            dtype: format!("{dtype:?}"),
        }
    }
}

/// The names of the stored parts of tensor `name` under `scheme`: codes, block scales and
/// (NVFP4) tensor scale.
pub fn part_names(scheme: Scheme, name: &str) -> (String, String, Option<String>) {
    if scheme.is_mx() {
        (format!("{name}_blocks"), format!("{name}_scales"), None)
    } else {
        (
            name.to_string(),
            format!("{name}_scale"),
            Some(format!("{name}_scale_2")),
        )
    }
}

/// The safetensors dtype of the block scales of `scheme`.
pub fn scale_dtype(scheme: Scheme) -> Dtype {
    if scheme.is_mx() {
        Dtype::U8
    } else {
        Dtype::F8_E4M3
    }
}

/// The header shape of the codes of a tensor of `shape` quantised along `axis`.
pub fn codes_shape(scheme: Scheme, shape: &[usize], axis: usize) -> Vec<usize> {
    let count: usize = shape.iter().product();
    let packed = scheme.element() == Format::F4E2M1;
    let Some((&last, outer)) = shape.split_last() else {
        return vec![scheme.code_bytes(count)];
    };
    let block = scheme.block_size();
    if scheme.is_mx() && axis + 1 == shape.len() && last.is_multiple_of(block) && last > 0 {
        let mut s = outer.to_vec();
        s.push(last / block);
        s.push(scheme.code_bytes(block));
        return s;
    }
    if !packed {
        return shape.to_vec();
    }
    if last.is_multiple_of(2) {
        let mut s = outer.to_vec();
        s.push(last / 2);
        s
    } else {
        vec![scheme.code_bytes(count)]
    }
}

/// The dtype of a safetensors dtype name as written in a [`Record`].
pub fn dtype_from_name(name: &str) -> Option<Dtype> {
    Some(match name {
        "F32" => Dtype::F32,
        "F64" => Dtype::F64,
        "F16" => Dtype::F16,
        "BF16" => Dtype::BF16,
        _ => return None,
    })
}
