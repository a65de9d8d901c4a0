//! Block-scaled quantisation of whole `.safetensors` files (`npusim quantize`,
//! `npusim dequantize`), on [`npusim_numerics::block`].
//!
//! [`quantize_bytes`] / [`quantize_file`] replace every selected floating tensor
//! ([`select`]) by the stored parts of the published checkpoint layouts ([`layout`]: the
//! `_blocks` + `_scales` pair of MXFP4 checkpoints for every MX scheme, ModelOpt's weight +
//! `_scale` + `_scale_2` triple for NVFP4), keep every other tensor byte for byte and the
//! metadata, and record each quantised tensor in `__metadata__`. [`dequantize_bytes`] /
//! [`dequantize_file`] read them back as f32, bf16, f16 or f64 tensors, bit for bit
//! [`Quantized::dequantize_to`](npusim_numerics::block::Quantized::dequantize_to).
//!
//! [`quantize_dir`] / [`dequantize_dir`] do the same shard by shard for a sharded Hugging Face
//! checkpoint directory, rewriting its index.
//!
//! A file is read one tensor at a time (its header first, then each tensor's bytes at their
//! offset) and the output streamed through [`write_atomic`](crate::write_atomic) (complete
//! or not at all), so memory stays near the largest tensor; the `_with_progress` functions
//! and [`quantize_to`] / [`dequantize_to`] report the input's tensor bytes done and in total
//! ([`Progress`]).

mod dequantize_file;
mod directory;
mod error;
mod input;
mod job;
pub mod layout;
mod progress;
mod quantize_file;
mod report;
pub mod select;
mod values;

pub use dequantize_file::{
    dequantize_bytes, dequantize_file, dequantize_file_with_progress, dequantize_to,
};
pub use directory::{
    INDEX_FILE, dequantize_dir, dequantize_dir_with_progress, quantize_dir,
    quantize_dir_with_progress,
};
pub use error::QuantizeError;
pub use job::QuantizeJob;
pub use layout::{RECORD_PREFIX, Record};
pub use progress::Progress;
pub use quantize_file::{quantize_bytes, quantize_file, quantize_file_with_progress, quantize_to};
pub use report::{
    DequantizeReport, DequantizedTensor, KeptTensor, QuantizeReport, QuantizedTensor,
};
pub use select::KeptBecause;
