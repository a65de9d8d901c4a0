//! Block-scaled formats: OCP Microscaling v1.0 (MXFP8, MXFP6, MXFP4, MXINT8) and NVIDIA's
//! NVFP4, quantised along any axis of an n-d array.
//!
//! A block is [`Scheme::block_size`] consecutive elements along the chosen axis; it stores
//! one scale (e8m0 for MX, chosen by a [`ScaleRule`]; e4m3fn for NVFP4, with one f32 scale
//! per tensor) and one element code per value, cast by the rounding routine of this crate
//! under the caller's rounding mode (stochastic included), clamped to the element's max
//! normal. The decisions where the specification is silent are in `docs/block_formats.md`.
//!
//! ```
//! use npusim_numerics::block::{quantize, Options, ScaleRule, Scheme, Source};
//! let x: Vec<f32> = (0..64).map(|i| i as f32 / 8.0).collect();
//! let q = quantize(Source::F32(&x), &[2, 32], -1, Scheme::Mxfp8E4m3,
//!                  &Options::with_rule(ScaleRule::Floor)).unwrap();
//! // amax 3.875 and 7.875: floor(log2) is 1 and 2, e4m3's top binade is 8: X = 2^-7, 2^-6
//! assert_eq!(q.scales(), &[120, 121]);
//! // FLOOR saturates: 7.875 / 2^-6 = 504 is beyond 448, so it comes back as 448 × 2^-6
//! assert_eq!(q.dequantize()[63], 7.0);
//! ```

mod byte_decode;
#[cfg(target_arch = "x86_64")]
mod dequantize_avx2;
#[cfg(target_arch = "x86_64")]
mod dequantize_avx512;
mod error;
mod f32_arith;
mod fast;
mod fast_dequantize;
mod fast_fused;
mod fast_mx;
mod fast_nvfp4;
mod fused_dequantize;
mod fused_element;
mod layout;
mod mx;
mod nvfp4;
mod options;
#[cfg(target_arch = "x86_64")]
mod plan_avx512;
mod quantized;
mod scale_rule;
mod scheme;
mod source;
mod stats;
mod summary;
mod tiles;
#[cfg(target_arch = "x86_64")]
mod vector_avx2;
#[cfg(target_arch = "x86_64")]
mod vector_avx512;
mod vector_blocks;

pub use crate::bulk::KernelChoice;
pub use error::BlockError;
pub use layout::BlockLayout;
pub use options::{Options, TensorScale};
pub use quantized::Quantized;
pub use scale_rule::ScaleRule;
pub use scheme::Scheme;
pub use source::Source;
pub use stats::BlockStats;
pub use summary::QuantizeSummary;

/// Quantises `src`, an array of `shape` (row-major), in blocks along `axis` (negative counts
/// from the end).
///
/// The last block along the axis is shorter when the block size does not divide the axis
/// (the same bits as padding it with zeros). Errors name what does not fit: a shape that
/// does not match the values, an axis out of range, a scale rule or tensor scale the scheme
/// does not have.
///
/// f32, f16 and bf16 sources take a fast path (split over threads for large tensors) that
/// gives the bits of [`quantize_reference`]: per block, the amax and the scale with integer
/// operations, then, for the floating-point elements under a deterministic rounding mode,
/// the elements scaled and rounded in the same pass by a fused kernel compiled for the best
/// instruction-set level here (AVX-512, AVX2 or the baseline target; full blocks along the
/// last axis by explicit AVX-512 or AVX2 loops with the codes narrowed or packed in
/// registers); MXINT8 and stochastic
/// rounding scale into a buffer that the bulk kernels cast. f64 sources and the rare blocks
/// the fast arithmetic does not cover run the reference routine.
pub fn quantize(
    src: Source<'_>,
    shape: &[usize],
    axis: isize,
    scheme: Scheme,
    options: &Options,
) -> Result<Quantized, BlockError> {
    quantize_with(src, shape, axis, scheme, options, KernelChoice::Fastest)
}

/// [`quantize`] with the fast path's kernels chosen by `kernels`: one instruction-set level
/// (a level not available here runs the baseline code, as the bulk casts do), the fastest,
/// or the reference routine alone. The bits are the same for every choice.
pub fn quantize_with(
    src: Source<'_>,
    shape: &[usize],
    axis: isize,
    scheme: Scheme,
    options: &Options,
    kernels: KernelChoice,
) -> Result<Quantized, BlockError> {
    let (layout, rule, tensor_scale) = resolve(&src, shape, axis, scheme, options, true)?;
    let mut codes = vec![0u8; scheme.code_bytes(layout.len())];
    let mut scales = vec![0u8; layout.block_count()];
    let parts = (codes.as_mut_slice(), scales.as_mut_slice());
    let stats = quantize_resolved(
        &src,
        &layout,
        (scheme, rule, tensor_scale),
        options,
        kernels,
        parts,
    );
    Ok(Quantized {
        scheme,
        layout,
        codes,
        scales,
        tensor_scale,
        stats,
    })
}

/// [`quantize`] into caller-provided buffers: the element codes into `codes` (exactly
/// [`Scheme::code_bytes`] of the element count, stored as [`Quantized::codes`] stores them)
/// and one scale byte per block into `scales` (exactly the layout's block count), the same
/// bits as [`quantize`] gives, whatever the buffers held before.
///
/// Reusing the buffers from call to call saves the page faults of a fresh output. A buffer
/// of another length is refused before anything is written, with both lengths named.
#[allow(clippy::too_many_arguments)]
pub fn quantize_into(
    src: Source<'_>,
    shape: &[usize],
    axis: isize,
    scheme: Scheme,
    options: &Options,
    kernels: KernelChoice,
    codes: &mut [u8],
    scales: &mut [u8],
) -> Result<QuantizeSummary, BlockError> {
    let layout = BlockLayout::new(shape, axis, scheme.block_size())?;
    layout.check_parts(
        scheme,
        (codes.len(), scales.len()),
        ("the codes buffer", "the scales buffer"),
    )?;
    let (layout, rule, tensor_scale) = resolve(&src, shape, axis, scheme, options, true)?;
    let stats = quantize_resolved(
        &src,
        &layout,
        (scheme, rule, tensor_scale),
        options,
        kernels,
        (codes, scales),
    );
    Ok(QuantizeSummary {
        layout,
        tensor_scale,
        stats,
    })
}

/// The fast path into `codes` and `scales` (of the layout's lengths), or the reference
/// routine where it does not apply; returns the counts.
fn quantize_resolved(
    src: &Source<'_>,
    layout: &BlockLayout,
    (scheme, rule, tensor_scale): (Scheme, ScaleRule, Option<f32>),
    options: &Options,
    kernels: KernelChoice,
    (codes, scales): (&mut [u8], &mut [u8]),
) -> BlockStats {
    let policy = options.element_policy();
    let params = (options.seed, options.first_index);
    let fast = if scheme.is_mx() {
        let kernel = fast_mx::MxKernel::new(scheme, rule, policy, params);
        fast::quantize(
            &kernel,
            src,
            layout,
            &policy,
            params,
            kernels,
            (&mut *codes, &mut *scales),
        )
    } else if tensor_scale.is_none_or(f32::is_finite) {
        let kernel = fast_nvfp4::Nvfp4Kernel::new(tensor_scale, policy, params);
        fast::quantize(
            &kernel,
            src,
            layout,
            &policy,
            params,
            kernels,
            (&mut *codes, &mut *scales),
        )
    } else {
        None
    };
    match fast {
        Some(stats) => stats,
        None => reference_blocks(
            src,
            layout,
            scheme,
            rule,
            tensor_scale,
            options,
            (codes, scales),
        ),
    }
}

/// [`quantize`] by the reference routine alone: every block and element through the exact
/// arithmetic of this crate, one at a time (the definition the fast path is tested against).
pub fn quantize_reference(
    src: Source<'_>,
    shape: &[usize],
    axis: isize,
    scheme: Scheme,
    options: &Options,
) -> Result<Quantized, BlockError> {
    let (layout, rule, tensor_scale) = resolve(&src, shape, axis, scheme, options, false)?;
    let mut codes = vec![0u8; scheme.code_bytes(layout.len())];
    let mut scales = vec![0u8; layout.block_count()];
    let parts = (codes.as_mut_slice(), scales.as_mut_slice());
    let stats = reference_blocks(&src, &layout, scheme, rule, tensor_scale, options, parts);
    Ok(Quantized {
        scheme,
        layout,
        codes,
        scales,
        tensor_scale,
        stats,
    })
}

/// Checks a quantisation's arguments: its layout, MX scale rule and NVFP4 tensor scale (the
/// tensor's amax from the bits in parallel when `fast`, else by the reference routine).
fn resolve(
    src: &Source<'_>,
    shape: &[usize],
    axis: isize,
    scheme: Scheme,
    options: &Options,
    fast: bool,
) -> Result<(BlockLayout, ScaleRule, Option<f32>), BlockError> {
    let layout = BlockLayout::new(shape, axis, scheme.block_size())?;
    if layout.len() != src.len() {
        return Err(BlockError::ShapeMismatch {
            shape: shape.to_vec(),
            elements: layout.len(),
            values: src.len(),
        });
    }
    let rule = match (scheme.is_mx(), options.scale_rule) {
        (true, rule) => rule.unwrap_or_default(),
        (false, Some(rule)) => {
            return Err(BlockError::ScaleRuleNotApplicable {
                rule: rule.to_string(),
                scheme: scheme.to_string(),
            });
        }
        (false, None) => ScaleRule::default(),
    };
    let tensor_scale = match (scheme.is_mx(), options.tensor_scale) {
        (true, TensorScale::Given(value)) => {
            return Err(BlockError::TensorScaleNotApplicable {
                scheme: scheme.to_string(),
                value,
            });
        }
        (true, _) | (false, TensorScale::Off) => None,
        (false, TensorScale::Given(value)) => {
            if !(value.is_finite() && value > 0.0) {
                return Err(BlockError::BadTensorScale { value });
            }
            Some(value)
        }
        (false, TensorScale::FromAmax) => {
            let amax = if fast {
                fast_nvfp4::tensor_amax(src)
            } else {
                nvfp4::amax_of(src, 0..src.len())
            };
            Some(nvfp4::tensor_scale_from_amax(amax))
        }
    };
    Ok((layout, rule, tensor_scale))
}

/// The reference routine over every block, into `codes` and `scales` (of the layout's
/// lengths); returns the counts.
fn reference_blocks(
    src: &Source<'_>,
    layout: &BlockLayout,
    scheme: Scheme,
    rule: ScaleRule,
    tensor_scale: Option<f32>,
    options: &Options,
    (codes, scales): (&mut [u8], &mut [u8]),
) -> BlockStats {
    let policy = options.element_policy();
    let packed = scheme.element() == crate::format::Format::F4E2M1;
    let mut unpacked = if packed {
        vec![0u8; layout.len()]
    } else {
        Vec::new()
    };
    let one_per_byte: &mut [u8] = if packed { &mut unpacked } else { codes };
    let mut stats = BlockStats::default();
    let mut idx = Vec::with_capacity(scheme.block_size());
    for (b, scale) in scales.iter_mut().enumerate() {
        idx.clear();
        idx.extend(layout.block_indices(b));
        *scale = if scheme.is_mx() {
            mx::quantize_block(
                src,
                &idx,
                scheme,
                rule,
                &policy,
                (options.seed, options.first_index),
                (&mut *one_per_byte, 0),
                &mut stats,
            )
        } else {
            nvfp4::quantize_block(
                src,
                &idx,
                tensor_scale,
                &policy,
                (options.seed, options.first_index),
                (&mut *one_per_byte, 0),
                &mut stats,
            )
        };
    }
    if packed {
        quantized::pack_nibbles_into(&unpacked, codes);
    }
    stats
}

/// Dequantises to f32, in the tensor's element order (see [`Quantized::dequantize_to`]).
pub fn dequantize(q: &Quantized) -> Vec<f32> {
    q.dequantize()
}

/// NVFP4's per-tensor scale of `src` by the published rule ([`TensorScale::FromAmax`]):
/// fl32(amax / (448 × 6)), 1 for an all-zero tensor, NaN when a value is NaN.
pub fn nvfp4_tensor_scale(src: Source<'_>) -> f32 {
    nvfp4::tensor_scale_from_amax(fast_nvfp4::tensor_amax(&src))
}
