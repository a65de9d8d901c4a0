//! `npusim.furiosa.run_kernel`: a kernel file (DM tensors, DM to DM) of npusim-furiosa run on
//! arrays in the tensors' logical shapes.

use npusim_furiosa::pipeline::{KernelInput, PipelineKind};
use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{Kind, guarded, raise, to_py};

/// Runs the kernel file `text` (TOML, or JSON of the same fields when `is_json`) with
/// `inputs`: (tensor name, npusim format name of the array, the array's bytes in logical
/// order); with `partial` the stages may end inside an invocation (a chain under
/// construction, checked stage by stage). Returns a dict: `tensors` (name → (format, logical axes, shape, bytes)), `stages`
/// (one line each), `cycles` (the makespan), `schedule` (its text) and `trace` (Chrome trace
/// JSON).
#[pyfunction]
#[pyo3(signature = (text, is_json, inputs, partial = false))]
pub fn furiosa_kernel<'py>(
    py: Python<'py>,
    text: &str,
    is_json: bool,
    inputs: Vec<(String, String, PyReadonlyArray1<'py, u8>)>,
    partial: bool,
) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| {
        let toml_text = crate::furiosa::pipeline_toml(text, is_json)?;
        let kernel = match PipelineKind::parse(&toml_text) {
            Ok(PipelineKind::Kernel(k)) => k,
            Ok(PipelineKind::Stream(_)) => {
                return Err(raise(
                    Kind::Furiosa,
                    "the pipeline declares no [[dm]] tensors: run it with npusim.furiosa.run"
                        .into(),
                ));
            }
            Err(e) => return Err(to_py(Kind::Furiosa, &e)),
        };
        let mut given = Vec::with_capacity(inputs.len());
        for (name, format, array) in &inputs {
            let Some(spec) = kernel.tensors.iter().find(|t| &t.name == name) else {
                let known: Vec<&str> = kernel.tensors.iter().map(|t| t.name.as_str()).collect();
                return Err(raise(
                    Kind::Furiosa,
                    format!(
                        "no DM tensor is named `{name}` (tensors: {})",
                        known.join(", ")
                    ),
                ));
            };
            let f = spec.dtype.format();
            if f.name() != format {
                return Err(crate::errors::DtypeError::new_err(format!(
                    "DM tensor `{name}` holds {} but the array holds {format}",
                    f.name()
                )));
            }
            let bytes = array
                .as_slice()
                .map_err(|_| raise(Kind::Furiosa, "the input must be contiguous".into()))?;
            let width = f.unpacked_bytes();
            let codes: Vec<u64> = bytes
                .chunks_exact(width)
                .map(|c| {
                    let mut b = [0u8; 8];
                    b[..width].copy_from_slice(c);
                    u64::from_le_bytes(b)
                })
                .collect();
            given.push((name.clone(), KernelInput::Codes(codes)));
        }
        let run = py
            .detach(|| {
                if partial {
                    kernel.run_prefix(&given)
                } else {
                    kernel.run(&given)
                }
                .map_err(Box::new)
            })
            .map_err(|e| to_py(Kind::Furiosa, &*e))?;
        let tensors = PyDict::new(py);
        for t in &run.tensors {
            let codes = run.values(&t.name).map_err(|e| to_py(Kind::Furiosa, &e))?;
            let order: Vec<&str> = t.order.iter().map(String::as_str).collect();
            let shape = t
                .tensor
                .logical_shape(&order)
                .map_err(|e| to_py(Kind::Furiosa, &e))?;
            let f = t.tensor.dtype().format();
            let width = f.unpacked_bytes();
            let bytes: Vec<u8> = codes
                .iter()
                .flat_map(|c| c.to_le_bytes().into_iter().take(width))
                .collect();
            tensors.set_item(
                &t.name,
                (
                    f.name(),
                    t.order.clone(),
                    shape,
                    PyArray1::from_vec(py, bytes),
                ),
            )?;
        }
        let d = PyDict::new(py);
        d.set_item("tensors", tensors)?;
        d.set_item("stages", run.stages.clone())?;
        d.set_item("cycles", run.schedule.makespan)?;
        d.set_item("schedule", run.schedule.to_string())?;
        d.set_item("trace", run.schedule.chrome_trace_json())?;
        Ok(d)
    })
}
