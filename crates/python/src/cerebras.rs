//! `npusim.cerebras`: tensor access expressions lowered to DSDs, and the shipped example
//! programs run on the multi-PE simulator (npusim-cerebras, npusim-examples).

use npusim_cerebras::access::{BoundsPolicy, DsdKind, listing};
use npusim_cerebras::arch::Arch;
use npusim_examples::cerebras::programs::find;
use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::{Kind, guarded, raise, to_py};

fn arch(name: &str) -> PyResult<Arch> {
    match name.trim().to_ascii_lowercase().as_str() {
        "wse2" | "wse-2" => Ok(Arch::Wse2),
        "wse3" | "wse-3" => Ok(Arch::Wse3),
        _ => Err(raise(
            Kind::Cerebras,
            format!("unknown architecture `{name}`; valid: wse2 wse3"),
        )),
    }
}

/// Lowers the access `expr` over array `name` of `shape` (u16 elements in one PE's memory:
/// `npusim_cerebras::access::listing`, as `npusim cerebras access`). Returns a dict: `kind` (mem1d or mem4d), `dsd` (CSL
/// text), `offset`, `extent`, `stride`, `addresses` (int64 element indices, access order).
#[pyfunction]
#[pyo3(signature = (expr, name, shape, strict=false, kind=None))]
pub fn cerebras_access<'py>(
    py: Python<'py>,
    expr: &str,
    name: &str,
    shape: Vec<u64>,
    strict: bool,
    kind: Option<&str>,
) -> PyResult<Bound<'py, PyDict>> {
    guarded(|| {
        let policy = if strict {
            BoundsPolicy::Strict
        } else {
            BoundsPolicy::Unchecked
        };
        let kind = match kind.map(str::to_ascii_lowercase).as_deref() {
            None => None,
            Some("mem1d") => Some(DsdKind::Mem1d),
            Some("mem4d") => Some(DsdKind::Mem4d),
            Some(other) => {
                return Err(raise(
                    Kind::Cerebras,
                    format!("kind={other:?}: give \"mem1d\" or \"mem4d\""),
                ));
            }
        };
        let l = listing(expr, name, &shape, kind, policy).map_err(|x| to_py(Kind::Cerebras, &x))?;
        let d = PyDict::new(py);
        d.set_item("kind", l.kind.name())?;
        d.set_item("dsd", l.dsd)?;
        d.set_item("offset", l.lowered.offset)?;
        d.set_item("extent", l.lowered.extent)?;
        d.set_item("stride", l.stride)?;
        d.set_item("addresses", PyArray1::from_vec(py, l.addresses))?;
        Ok(d)
    })
}

/// Runs the shipped example program `name` on `arch`; returns the report of
/// `npusim cerebras run --json` as JSON text.
#[pyfunction]
#[pyo3(signature = (name, arch_name="wse2"))]
pub fn cerebras_run(py: Python<'_>, name: &str, arch_name: &str) -> PyResult<String> {
    guarded(|| {
        let program = find(name).map_err(|e| to_py(Kind::Cerebras, &e))?;
        let a = arch(arch_name)?;
        py.detach(|| {
            program
                .run(a, false)
                .map(|run| run.report_json(program, a).to_string())
        })
        .map_err(|e| to_py(Kind::Cerebras, &e))
    })
}

/// The names of the shipped example programs.
#[pyfunction]
pub fn cerebras_programs() -> Vec<&'static str> {
    npusim_examples::cerebras::programs::PROGRAMS
        .iter()
        .map(|p| p.name)
        .collect()
}
