//! `npusim.mx`: OCP MX and NVFP4 block-scaled quantisation (npusim-numerics' `block`), one
//! element code per byte in and out (ml_dtypes' layout), and dequantisation.

use npusim_numerics::block::{
    Options, Quantized, ScaleRule, Scheme, Source, TensorScale, quantize,
};
use npusim_numerics::{Format, Layout};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::cast::{format, policy};
use crate::errors::{Kind, guarded, raise, to_py};
use crate::layout::relayout;

fn scheme(name: &str) -> PyResult<Scheme> {
    Scheme::parse_name(name).map_err(|e| to_py(Kind::Block, &e))
}

/// The values of a 1-d contiguous array of `fmt` (f32, f64, f16, bf16) as a block source,
/// read with `f` while the GIL is released.
fn with_source<T: Send>(
    py: Python<'_>,
    x: &Bound<'_, PyAny>,
    fmt: Format,
    f: impl FnOnce(Source<'_>) -> T + Send,
) -> PyResult<T> {
    let bad = || raise(Kind::Block, "the values are not a contiguous array".into());
    match fmt {
        Format::F32 => {
            let a: PyReadonlyArray1<'_, f32> = x.extract()?;
            let s = a.as_slice().map_err(|_| bad())?;
            Ok(py.detach(|| f(Source::F32(s))))
        }
        Format::F64 => {
            let a: PyReadonlyArray1<'_, f64> = x.extract()?;
            let s = a.as_slice().map_err(|_| bad())?;
            Ok(py.detach(|| f(Source::F64(s))))
        }
        Format::F16 | Format::BF16 => {
            let a: PyReadonlyArray1<'_, u16> = x.extract()?;
            let s = a.as_slice().map_err(|_| bad())?;
            Ok(py.detach(|| {
                f(if fmt == Format::F16 {
                    Source::F16(s)
                } else {
                    Source::BF16(s)
                })
            }))
        }
        other => Err(raise(
            Kind::Block,
            format!("block-scaled quantisation reads f32, f64, f16 or bf16 values, not {other}"),
        )),
    }
}

/// Quantises `x` (1-d, the flat row-major values of `shape`, of `src_format`) with `scheme`
/// along `axis`. Returns a dict: `codes` (uint8, one element code per byte), `scales` (uint8
/// scale codes, shape `scale_shape`), `scale_shape`, `element` and `scale_format` (format
/// names), `tensor_scale` (NVFP4, or None), `stats` (block statistics as a dict).
#[pyfunction]
#[pyo3(signature = (x, src_format, shape, scheme_name, axis=-1, scale_rule=None, round="rint", seed=None, tensor_scale=None))]
#[allow(clippy::too_many_arguments)]
pub fn mx_quantize<'py>(
    py: Python<'py>,
    x: &Bound<'py, PyAny>,
    src_format: &str,
    shape: Vec<usize>,
    scheme_name: &str,
    axis: isize,
    scale_rule: Option<&str>,
    round: &str,
    seed: Option<u64>,
    tensor_scale: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| {
        let s = scheme(scheme_name)?;
        let mut options = Options {
            scale_rule: scale_rule
                .map(|r| ScaleRule::parse_name(r).map_err(|e| to_py(Kind::Block, &e)))
                .transpose()?,
            policy: policy(round, None)?,
            ..Options::default()
        };
        if let Some(seed) = seed {
            options.seed = seed;
        }
        options.tensor_scale = match tensor_scale {
            None => TensorScale::FromAmax,
            Some(v) => match v.extract::<String>() {
                Ok(t) if t == "amax" => TensorScale::FromAmax,
                Ok(t) if t == "off" || t == "none" => TensorScale::Off,
                Ok(t) => {
                    return Err(raise(
                        Kind::Block,
                        format!(
                            "tensor_scale={t:?}: give \"amax\" (the published rule), \"off\" or a number"
                        ),
                    ));
                }
                Err(_) => TensorScale::Given(v.extract::<f32>()?),
            },
        };
        let fmt = format(src_format)?;
        let q = with_source(py, x, fmt, |src| quantize(src, &shape, axis, s, &options))?
            .map_err(|e| to_py(Kind::Block, &e))?;
        let n = q.layout().len();
        let codes = relayout(q.codes(), s.element(), Layout::Packed, Layout::Unpacked, n)
            .map_err(|m| raise(Kind::Block, m))?;
        let d = PyDict::new(py);
        d.set_item("codes", PyArray1::from_vec(py, codes))?;
        d.set_item("scales", PyArray1::from_slice(py, q.scales()))?;
        d.set_item("scale_shape", q.layout().scale_shape())?;
        d.set_item("element", s.element().name())?;
        d.set_item("scale_format", s.scale_format().name())?;
        d.set_item("tensor_scale", q.tensor_scale())?;
        let st = q.stats();
        let sd = PyDict::new(py);
        sd.set_item("blocks", st.blocks)?;
        sd.set_item("nan_blocks", st.nan_blocks)?;
        sd.set_item("zero_blocks", st.zero_blocks)?;
        sd.set_item("scale_underflow", st.scale_underflow)?;
        sd.set_item("scale_saturated", st.scale_saturated)?;
        sd.set_item(
            "blocks_with_saturated_elements",
            st.blocks_with_saturated_elements,
        )?;
        d.set_item("stats", sd)?;
        Ok(d)
    })
}

/// Dequantises element codes (uint8, one per byte, flat row-major of `shape`) and block
/// scales back to `to` (f32, f64, f16, bf16); returns the result's little-endian bytes.
#[pyfunction]
#[pyo3(signature = (codes, scales, shape, scheme_name, axis=-1, tensor_scale=None, to="f32"))]
#[allow(clippy::too_many_arguments)]
pub fn mx_dequantize<'py>(
    py: Python<'py>,
    codes: PyReadonlyArray1<'py, u8>,
    scales: PyReadonlyArray1<'py, u8>,
    shape: Vec<usize>,
    scheme_name: &str,
    axis: isize,
    tensor_scale: Option<f32>,
    to: &str,
) -> PyResult<Bound<'py, PyArray1<u8>>> {
    guarded(|| {
        let s = scheme(scheme_name)?;
        let out = format(to)?;
        let bad = || raise(Kind::Block, "codes and scales must be contiguous".into());
        let codes = codes.as_slice().map_err(|_| bad())?;
        let scales = scales.as_slice().map_err(|_| bad())?.to_vec();
        let packed = relayout(
            codes,
            s.element(),
            Layout::Unpacked,
            Layout::Packed,
            codes.len(),
        )
        .map_err(|m| raise(Kind::Block, m))?;
        let q = Quantized::from_parts(s, &shape, axis, packed, scales, tensor_scale)
            .map_err(|e| to_py(Kind::Block, &e))?;
        let values = py
            .detach(|| q.dequantize_to(out))
            .map_err(|e| to_py(Kind::Block, &e))?;
        let width = out.unpacked_bytes();
        let bytes: Vec<u8> = values
            .iter()
            .flat_map(|c| c.to_le_bytes().into_iter().take(width))
            .collect();
        Ok(PyArray1::from_vec(py, bytes))
    })
}
