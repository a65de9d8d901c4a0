//! A quantised tensor: element codes, per-block scales and the optional tensor scale, and
//! dequantisation back to a float format.

use super::error::BlockError;
use super::fast_dequantize;
use super::fused_dequantize;
use super::layout::BlockLayout;
use super::mx::{E8M0_NAN, element_value};
use super::nvfp4;
use super::scheme::Scheme;
use super::stats::BlockStats;
use crate::bulk::{BulkOptions, KernelChoice, Storage, cast_elements};
use crate::convert::round_exact;
use crate::exact::Exact;
use crate::format::Format;
use crate::policy::CastPolicy;

/// The result of [`quantize`](super::quantize): what a block-scaled tensor stores.
#[derive(Clone, Debug, PartialEq)]
pub struct Quantized {
    pub(crate) scheme: Scheme,
    pub(crate) layout: BlockLayout,
    pub(crate) codes: Vec<u8>,
    pub(crate) scales: Vec<u8>,
    pub(crate) tensor_scale: Option<f32>,
    pub(crate) stats: BlockStats,
}

/// Packs one-per-byte e2m1 codes two per byte into `out` (`codes.len().div_ceil(2)` bytes),
/// element 2i in the low nibble.
pub(crate) fn pack_nibbles_into(codes: &[u8], out: &mut [u8]) {
    for (o, c) in out.iter_mut().zip(codes.chunks(2)) {
        *o = (c[0] & 0x0F) | (c.get(1).copied().unwrap_or(0) & 0x0F) << 4;
    }
}

impl Quantized {
    /// Rebuilds a quantised tensor from stored parts (e.g. read from a checkpoint), checking
    /// that the buffers fit the shape.
    pub fn from_parts(
        scheme: Scheme,
        shape: &[usize],
        axis: isize,
        codes: Vec<u8>,
        scales: Vec<u8>,
        tensor_scale: Option<f32>,
    ) -> Result<Quantized, BlockError> {
        let layout = BlockLayout::new(shape, axis, scheme.block_size())?;
        layout.check_parts(scheme, (codes.len(), scales.len()), ("codes", "scales"))?;
        match (scheme.is_mx(), tensor_scale) {
            (true, Some(value)) => {
                return Err(BlockError::TensorScaleNotApplicable {
                    scheme: scheme.to_string(),
                    value,
                });
            }
            (false, Some(value)) if !(value.is_finite() && value > 0.0) => {
                return Err(BlockError::BadTensorScale { value });
            }
            _ => {}
        }
        Ok(Quantized {
            scheme,
            layout,
            codes,
            scales,
            tensor_scale,
            stats: BlockStats::default(),
        })
    }

    /// The scheme.
    pub fn scheme(&self) -> Scheme {
        self.scheme
    }

    /// Shape, axis and block size.
    pub fn layout(&self) -> &BlockLayout {
        &self.layout
    }

    /// The element codes in the tensor's element order, stored as the element format is:
    /// e2m1 packed two per byte (element 2i in the low nibble, a last odd element's high
    /// nibble 0), fp6 in the low 6 bits of a byte, fp8 and MXINT8 one byte each.
    pub fn codes(&self) -> &[u8] {
        &self.codes
    }

    /// The code of element `i` (flat index), unpacked.
    pub fn code(&self, i: usize) -> Option<u8> {
        if i >= self.layout.len() {
            return None;
        }
        if self.scheme.element() == Format::F4E2M1 {
            let b = *self.codes.get(i / 2)?;
            Some(if i.is_multiple_of(2) {
                b & 0x0F
            } else {
                b >> 4
            })
        } else {
            self.codes.get(i).copied()
        }
    }

    /// One scale byte per block (e8m0 or e4m3fn), in the row-major order of
    /// [`BlockLayout::scale_shape`].
    pub fn scales(&self) -> &[u8] {
        &self.scales
    }

    /// NVFP4's per-tensor f32 scale (`None` for MX, or NVFP4 quantised without one).
    pub fn tensor_scale(&self) -> Option<f32> {
        self.tensor_scale
    }

    /// What happened while quantising (all zero for a tensor built by [`Quantized::from_parts`]).
    pub fn stats(&self) -> &BlockStats {
        &self.stats
    }

    /// The exact value of element `i` of block `b` (MX), or its f32 value (NVFP4).
    fn element(&self, b: usize, i: usize) -> Exact {
        let code = self.code(i).unwrap_or(0);
        let scale = self.scales.get(b).copied().unwrap_or(E8M0_NAN);
        if self.scheme == Scheme::Nvfp4 {
            let v = nvfp4::element_value(code, scale, self.tensor_scale);
            return Format::F32.decode(u64::from(v.to_bits()));
        }
        if scale == E8M0_NAN {
            return Exact::NAN;
        }
        element_value(self.scheme, code, i32::from(scale) - 127)
    }

    /// The tensor's values rounded (nearest-even, IEEE overflow to ±Inf) to `format`
    /// (f32, f64, f16 or bf16), as codes in the tensor's element order.
    ///
    /// MX values `X × P_i` are exact before that one rounding; NVFP4 values are computed in
    /// f32 as published (fl32(P_i × fl32(p × s))) and then rounded. The bits of
    /// [`Quantized::dequantize_reference_to`], computed by the bulk kernels and f32
    /// products.
    pub fn dequantize_to(&self, format: Format) -> Result<Vec<u64>, BlockError> {
        let bytes = self.dequantize_bytes(format)?;
        let width = format.bits() as usize / 8;
        Ok(bytes
            .chunks_exact(width)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..width].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect())
    }

    /// [`Quantized::dequantize_to`] as little-endian bytes (what a tensor file stores).
    pub fn dequantize_bytes(&self, format: Format) -> Result<Vec<u8>, BlockError> {
        check_output(format)?;
        if format == Format::F32 {
            if cfg!(target_endian = "little") {
                let mut out = vec![0u8; self.layout.len() * 4];
                // the allocation is aligned for f32 in practice; otherwise through a copy
                if let Ok(values) = bytemuck::try_cast_slice_mut::<u8, f32>(&mut out) {
                    self.dequantize_into(values, KernelChoice::Fastest);
                    return Ok(out);
                }
            }
            let values = self.dequantize();
            return Ok(values.iter().flat_map(|v| v.to_le_bytes()).collect());
        }
        let Some((values, redo)) = fast_dequantize::values(self, false) else {
            let codes = self.dequantize_reference_to(format)?;
            let width = format.bits() as usize / 8;
            return Ok(codes
                .iter()
                .flat_map(|c| c.to_le_bytes().into_iter().take(width))
                .collect());
        };
        let width = format.bits() as usize / 8;
        let mut out = {
            let mut out = vec![0u8; values.len() * width];
            let cast = cast_elements(
                bytemuck::cast_slice(&values),
                Storage::native(Format::F32),
                &mut out,
                Storage::native(format),
                values.len(),
                &CastPolicy::default(),
                &BulkOptions::default(),
            );
            if cast.is_err() {
                drop(out);
                return self.dequantize_bytes_reference(format);
            }
            out
        };
        let policy = CastPolicy::default();
        for (i, b) in redo {
            let code = round_exact(&self.element(b, i), format, &policy, 0).code;
            out[i * width..(i + 1) * width].copy_from_slice(&code.to_le_bytes()[..width]);
        }
        Ok(out)
    }

    /// [`Quantized::dequantize_bytes`] by the reference routine.
    fn dequantize_bytes_reference(&self, format: Format) -> Result<Vec<u8>, BlockError> {
        let width = format.bits() as usize / 8;
        Ok(self
            .dequantize_reference_to(format)?
            .iter()
            .flat_map(|c| c.to_le_bytes().into_iter().take(width))
            .collect())
    }

    /// [`Quantized::dequantize_to`] by the reference routine: every element's exact value
    /// rounded once, one at a time (the definition the fast path is tested against).
    pub fn dequantize_reference_to(&self, format: Format) -> Result<Vec<u64>, BlockError> {
        check_output(format)?;
        let policy = CastPolicy::default();
        let mut out = vec![0u64; self.layout.len()];
        for b in 0..self.layout.block_count() {
            for i in self.layout.block_indices(b) {
                out[i] = round_exact(&self.element(b, i), format, &policy, 0).code;
            }
        }
        Ok(out)
    }

    /// The tensor's values as f32, in element order (the bits of
    /// [`Quantized::dequantize_reference_to`] for f32), by the fused kernel at the best
    /// instruction-set level here.
    pub fn dequantize(&self) -> Vec<f32> {
        self.dequantize_with(KernelChoice::Fastest)
    }

    /// [`Quantized::dequantize`] with the kernels chosen by `kernels`: one instruction-set
    /// level (a level not available here runs the baseline code), the fastest, or the
    /// reference routine alone. The bits are the same for every choice.
    pub fn dequantize_with(&self, kernels: KernelChoice) -> Vec<f32> {
        let mut out = vec![0f32; self.layout.len()];
        self.dequantize_into(&mut out, kernels);
        out
    }

    /// [`Quantized::dequantize_with`] into `out`, a caller's buffer of one f32 per element
    /// (whatever it held is overwritten), so that a caller that dequantises again and again
    /// reuses one output. A buffer of another length is refused, naming both lengths, before
    /// anything is written.
    pub fn dequantize_f32_into(
        &self,
        out: &mut [f32],
        kernels: KernelChoice,
    ) -> Result<(), BlockError> {
        let needed = self.layout.len();
        if out.len() != needed {
            return Err(BlockError::OutputLength {
                len: out.len(),
                needed,
                shape: self.layout.shape().to_vec(),
            });
        }
        self.dequantize_into(out, kernels);
        Ok(())
    }

    /// Writes the f32 values into `out` (one per element).
    fn dequantize_into(&self, out: &mut [f32], kernels: KernelChoice) {
        let policy = CastPolicy::default();
        let redo = match kernels.resolve() {
            Some(level) => fused_dequantize::dequantize_f32(self, out, level),
            None => {
                for b in 0..self.layout.block_count() {
                    for i in self.layout.block_indices(b) {
                        let c = round_exact(&self.element(b, i), Format::F32, &policy, 0).code;
                        out[i] = f32::from_bits(c as u32);
                    }
                }
                return;
            }
        };
        for (i, b) in redo {
            let c = round_exact(&self.element(b, i), Format::F32, &policy, 0).code;
            out[i] = f32::from_bits(c as u32);
        }
    }
}

/// Refuses an output format other than f32, f64, f16 and bf16.
fn check_output(format: Format) -> Result<(), BlockError> {
    if matches!(
        format,
        Format::F32 | Format::F64 | Format::F16 | Format::BF16
    ) {
        Ok(())
    } else {
        Err(BlockError::OutputFormat { format })
    }
}
