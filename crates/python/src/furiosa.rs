//! `npusim.furiosa`: mapping expressions (`Mapping`) and whole pipelines (`run`) of
//! npusim-furiosa.

use npusim_furiosa::pipeline::{Pipeline, total_estimate};
use npusim_furiosa::{Axes, Final, Mapping as RustMapping};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{Kind, guarded, raise, to_py};

/// A Furiosa mapping expression over declared axes (the text inside `m![...]`).
#[pyclass(module = "npusim.furiosa", frozen)]
pub struct Mapping {
    mapping: RustMapping,
}

/// A cell as Python sees it: a dict of axis coordinates (zeros omitted) for a live cell, the
/// padding kind's name for padding, "out of bounds" past the end.
fn cell_py<'py>(py: Python<'py>, c: &Final) -> PyResult<Bound<'py, PyAny>> {
    Ok(match c {
        Final::Live(m) => {
            let d = PyDict::new(py);
            for (axis, v) in m {
                d.set_item(axis, v)?;
            }
            d.into_any()
        }
        Final::Padding(kind) => kind.name().into_pyobject(py)?.into_any(),
        Final::OutOfBounds => "out of bounds".into_pyobject(py)?.into_any(),
    })
}

#[pymethods]
impl Mapping {
    /// Parses `expr` over the axes given as keywords (`Mapping("A / 8, R # 4", A=64, R=4)`).
    #[new]
    #[pyo3(signature = (expr, **axes))]
    fn new(expr: &str, axes: Option<&Bound<'_, PyDict>>) -> PyResult<Mapping> {
        guarded(|| {
            let mut declared = Axes::new();
            if let Some(axes) = axes {
                for (k, v) in axes.iter() {
                    let name: String = k.extract()?;
                    let size: usize = v.extract()?;
                    declared
                        .declare(&name, size)
                        .map_err(|e| to_py(Kind::Furiosa, &e))?;
                }
            }
            let mapping =
                RustMapping::parse(expr, &declared).map_err(|e| to_py(Kind::Furiosa, &e))?;
            Ok(Mapping { mapping })
        })
    }

    /// Number of positions (padding included).
    #[getter]
    fn size(&self) -> usize {
        self.mapping.size()
    }

    /// The cell at position `i`: a dict of axis coordinates (zero coordinates omitted), or the
    /// padding kind's name, or "out of bounds" past the end.
    fn cell<'py>(&self, py: Python<'py>, i: usize) -> PyResult<Bound<'py, PyAny>> {
        guarded(|| cell_py(py, &self.mapping.cell(i)))
    }

    /// Every position's cell, in order.
    fn cells<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyAny>>> {
        guarded(|| {
            let mut e = self.mapping.evaluator();
            (0..self.mapping.size())
                .map(|p| cell_py(py, &e.cell(p)))
                .collect()
        })
    }

    /// The normal form (as `npusim furiosa map` prints it).
    fn normalize(&self) -> Mapping {
        Mapping {
            mapping: self.mapping.normalize(),
        }
    }

    fn __len__(&self) -> usize {
        self.mapping.size()
    }

    fn __str__(&self) -> String {
        self.mapping.to_string()
    }

    fn __repr__(&self) -> String {
        format!(
            "Mapping({:?}, size={})",
            self.mapping.to_string(),
            self.mapping.size()
        )
    }
}

/// A pipeline's TOML text: `text` itself or, when `is_json`, the JSON object (a Python dict)
/// written as TOML.
pub(crate) fn pipeline_toml(text: &str, is_json: bool) -> PyResult<String> {
    Ok(if is_json {
        let json: serde_json::Value = serde_json::from_str(text)
            .map_err(|e| raise(Kind::Furiosa, format!("the pipeline: {e}")))?;
        let value = toml::Value::try_from(json)
            .map_err(|e| raise(Kind::Furiosa, format!("the pipeline: {e}")))?;
        toml::to_string(&value).map_err(|e| raise(Kind::Furiosa, format!("the pipeline: {e}")))?
    } else {
        text.to_string()
    })
}

/// Reads a pipeline from its TOML text or, when `is_json`, from a JSON object with the same
/// fields (a Python dict).
fn pipeline(text: &str, is_json: bool) -> PyResult<Pipeline> {
    let toml_text = pipeline_toml(text, is_json)?;
    Pipeline::parse(&toml_text).map_err(|e| to_py(Kind::Furiosa, &e))
}

/// The input dtype's format name and the input's physical positions of a pipeline.
#[pyfunction]
pub fn furiosa_input(text: &str, is_json: bool) -> PyResult<(&'static str, usize)> {
    guarded(|| {
        let p = pipeline(text, is_json)?;
        let n = p.input_positions().map_err(|e| to_py(Kind::Furiosa, &e))?;
        Ok((p.dtype.format().name(), n))
    })
}

/// Runs a pipeline on `input` (the bytes of one element per physical position, of the
/// pipeline's dtype). Returns a dict: `output` (bytes), `output_format`, `output_shape`
/// (the five dimensions' sizes), `layout` (the output stream's description), `stages`
/// (name, layout, estimate, first_output per stage), `cycles` (the total estimate) and
/// `cycles_text`.
#[pyfunction]
pub fn furiosa_run<'py>(
    py: Python<'py>,
    text: &str,
    is_json: bool,
    input: PyReadonlyArray1<'py, u8>,
) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| {
        let p = pipeline(text, is_json)?;
        let f = p.dtype.format();
        let width = f.unpacked_bytes();
        let bytes = input
            .as_slice()
            .map_err(|_| raise(Kind::Furiosa, "the input must be contiguous".into()))?;
        let codes: Vec<u64> = bytes
            .chunks_exact(width)
            .map(|c| {
                let mut b = [0u8; 8];
                b[..width].copy_from_slice(c);
                u64::from_le_bytes(b)
            })
            .collect();
        let (out, reports) = py
            .detach(|| p.run(codes).map_err(Box::new))
            .map_err(|e| to_py(Kind::Furiosa, &*e))?;
        let of = out.dtype().format();
        let ow = of.unpacked_bytes();
        let out_bytes: Vec<u8> = out
            .codes()
            .iter()
            .flat_map(|c| c.to_le_bytes().into_iter().take(ow))
            .collect();
        let d = PyDict::new(py);
        d.set_item("output", PyArray1::from_vec(py, out_bytes))?;
        d.set_item("output_format", of.name())?;
        d.set_item("output_shape", out.shape().to_vec())?;
        d.set_item("layout", out.to_string())?;
        let stages = reports
            .iter()
            .map(|r| {
                let s = PyDict::new(py);
                s.set_item("name", r.name)?;
                s.set_item("layout", &r.layout)?;
                s.set_item("estimate", r.estimate.as_ref().map(|e| e.to_string()))?;
                s.set_item("first_output", r.first_output)?;
                Ok(s)
            })
            .collect::<PyResult<Vec<_>>>()?;
        d.set_item("stages", stages)?;
        let total = total_estimate(&reports);
        d.set_item("cycles", total.total())?;
        d.set_item("cycles_text", total.to_string())?;
        Ok(d)
    })
}
