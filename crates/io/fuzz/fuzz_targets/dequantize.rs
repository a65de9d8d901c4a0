//! Fuzz target: `dequantize` of an arbitrary `.safetensors` file never panics: a malformed
//! header, a quantisation record that disagrees with its tensors (shape, scheme, axis, part
//! sizes) or a missing part is an error.
//!
//! Input: byte 0 picks the output format (f32, bf16, f16, f64); the rest is the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use npusim_io::quantize::dequantize_bytes;
use npusim_numerics::Format;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let to = [Format::F32, Format::BF16, Format::F16, Format::F64][usize::from(pick % 4)];
    let _ = dequantize_bytes(file, to);
});
