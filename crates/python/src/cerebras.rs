//! `npusim.cerebras`: tensor access expressions lowered to DSDs, and the shipped example
//! programs run on the multi-PE simulator (npusim-cerebras, npusim-examples).

use npusim_cerebras::ElemTy;
use npusim_cerebras::access::{BoundsPolicy, lower, parse};
use npusim_cerebras::arch::Arch;
use npusim_cerebras::dsd::{Mem1d, Mem4d};
use npusim_cerebras::memory::PeMemory;
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

/// Lowers the access `expr` over array `name` of `shape` (u16 elements in one PE's memory, as
/// `npusim cerebras access` declares it). Returns a dict: `kind` (mem1d or mem4d), `dsd` (CSL
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
        let e = |err: &dyn std::error::Error| to_py(Kind::Cerebras, err);
        let access = parse(expr).map_err(|x| e(&x))?;
        if access.array != name {
            return Err(raise(
                Kind::Cerebras,
                format!(
                    "the access reads array `{}`, but the array given is `{name}`",
                    access.array
                ),
            ));
        }
        let policy = if strict {
            BoundsPolicy::Strict
        } else {
            BoundsPolicy::Unchecked
        };
        let lowered = lower(&access, &shape, policy).map_err(|x| e(&x))?;
        let base = PeMemory::new(Arch::Wse2)
            .declare(name, ElemTy::U16, &shape)
            .map_err(|x| e(&x))?;
        let kind = match kind {
            Some(k) => k.to_ascii_lowercase(),
            None if access.variables.len() == 1 => "mem1d".to_string(),
            None => "mem4d".to_string(),
        };
        let (dsd, stride): (String, Vec<i64>) = match kind.as_str() {
            "mem1d" => {
                let d = Mem1d::from_lowered(base, &lowered).map_err(|x| e(&x))?;
                (d.to_string(), vec![i64::from(d.stride)])
            }
            "mem4d" => {
                let d = Mem4d::from_lowered(base, &lowered).map_err(|x| e(&x))?;
                (
                    d.to_string(),
                    d.stride.iter().map(|&s| i64::from(s)).collect(),
                )
            }
            other => {
                return Err(raise(
                    Kind::Cerebras,
                    format!("kind={other:?}: give \"mem1d\" or \"mem4d\""),
                ));
            }
        };
        let addresses: Vec<i64> = lowered.addresses().collect();
        let d = PyDict::new(py);
        d.set_item("kind", kind)?;
        d.set_item("dsd", dsd)?;
        d.set_item("offset", lowered.offset)?;
        d.set_item("extent", lowered.extent.clone())?;
        d.set_item("stride", stride)?;
        d.set_item("addresses", PyArray1::from_vec(py, addresses))?;
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
