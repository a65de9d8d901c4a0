//! `npusim.ascend.cast`: one AscendC `Cast` call (npusim-ascend's `run_call`), described by
//! the fields of a call file (as JSON), over a source array.

use npusim_ascend::{CastCall, run_call};
use npusim_numerics::Layout;
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::cast::format;
use crate::errors::{Kind, guarded, raise, to_py};
use crate::layout::relayout;

/// Runs one Cast call. `call_json` holds the call file's fields (`src`, `dst`, `round`,
/// `mask`, `repeat`, `params`, ...); `src` and `prior` are the bytes of the source and of
/// the destination's prior contents, one element per byte for 4-bit types. Returns a dict:
/// `dst` (the destination's bytes, one element per byte), `dst_format`, `dst_len`, `written`
/// (destination indices written), `steps`, `product`, `api`.
#[pyfunction]
#[pyo3(signature = (call_json, src, src_format, prior=None))]
pub fn ascend_cast<'py>(
    py: Python<'py>,
    call_json: &str,
    src: PyReadonlyArray1<'py, u8>,
    src_format: &str,
    prior: Option<PyReadonlyArray1<'py, u8>>,
) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| {
        let call: CastCall = serde_json::from_str(call_json)
            .map_err(|e| raise(Kind::Ascend, format!("the call's fields: {e}")))?;
        let sf = format(src_format)?;
        let bad = || raise(Kind::Ascend, "the arrays must be contiguous".into());
        let src = src.as_slice().map_err(|_| bad())?;
        let count = src.len() / sf.unpacked_bytes();
        let input = relayout(src, sf, Layout::Unpacked, Layout::Packed, count)
            .map_err(|m| raise(Kind::Ascend, m))?;
        let prior = match (&prior, call.dst) {
            (Some(p), Some(d)) => {
                let p = p.as_slice().map_err(|_| bad())?;
                let f = d.format();
                let n = p.len() / f.unpacked_bytes();
                Some(
                    relayout(p, f, Layout::Unpacked, Layout::Packed, n)
                        .map_err(|m| raise(Kind::Ascend, m))?,
                )
            }
            _ => None,
        };
        let out = py
            .detach(|| run_call(&call, &input, prior.as_deref()))
            .map_err(|e| to_py(Kind::Ascend, &e))?;
        let df = out.dst_dtype.format();
        let dst = relayout(&out.dst, df, Layout::Packed, Layout::Unpacked, out.dst_len)
            .map_err(|m| raise(Kind::Ascend, m))?;
        let d = PyDict::new(py);
        d.set_item("dst", PyArray1::from_vec(py, dst))?;
        d.set_item("dst_format", df.name())?;
        d.set_item("dst_dtype", out.dst_dtype.to_string())?;
        d.set_item("dst_len", out.dst_len)?;
        d.set_item("written", out.written.clone())?;
        d.set_item("steps", out.steps)?;
        d.set_item("product", format!("{}", out.product))?;
        d.set_item("api", out.api.title())?;
        Ok(d)
    })
}
