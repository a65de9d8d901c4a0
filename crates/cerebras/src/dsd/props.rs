//! `@get_dsd(mem1d_dsd | mem4d_dsd, .{...})` from properties: either a `tensor_access` (a
//! lowered expression or the seed's anonymous struct) or individual fields, never one property
//! in both places (seed 004).

use super::base::Base;
use super::error::DsdError;
use super::mem1d::Mem1d;
use super::mem4d::Mem4d;
use crate::access::Lowered;
use crate::limits::MEM1D_DIMENSIONS;

/// The anonymous struct a tensor access stands for:
/// `.{.base_address, .offset, .stride, .extent}`, any field optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AccessStruct {
    /// `.base_address`.
    pub base_address: Option<Base>,
    /// `.offset` (defaults to 0).
    pub offset: Option<i64>,
    /// `.stride` (innermost first; defaults to ones).
    pub stride: Option<Vec<i64>>,
    /// `.extent` (outermost first).
    pub extent: Option<Vec<i64>>,
}

impl AccessStruct {
    /// The struct a lowered tensor access expression is equivalent to.
    pub fn from_lowered(base: Base, l: &Lowered) -> AccessStruct {
        AccessStruct {
            base_address: Some(base),
            offset: Some(l.offset),
            stride: Some(l.stride.clone()),
            extent: Some(l.extent.iter().map(|&e| i64::from(e)).collect()),
        }
    }
}

/// The properties of a memory DSD.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MemProps {
    /// `.tensor_access`.
    pub tensor_access: Option<AccessStruct>,
    /// `.base_address`.
    pub base_address: Option<Base>,
    /// `.offset`.
    pub offset: Option<i64>,
    /// `.stride` (one value for mem1d).
    pub stride: Option<Vec<i64>>,
    /// `.extent` (one value for mem1d).
    pub extent: Option<Vec<i64>>,
    /// `.wavelet_index_offset`.
    pub wavelet_index_offset: bool,
}

fn pick<T>(
    kind: &'static str,
    property: &'static str,
    top: Option<T>,
    inner: Option<T>,
) -> Result<Option<T>, DsdError> {
    match (top, inner) {
        (Some(_), Some(_)) => Err(DsdError::GivenTwice { kind, property }),
        (a, b) => Ok(a.or(b)),
    }
}

type Merged = (Base, i64, Option<Vec<i64>>, Vec<i64>);

fn merge(kind: &'static str, p: MemProps) -> Result<Merged, DsdError> {
    let t = p.tensor_access.unwrap_or_default();
    let base = pick(kind, "base_address", p.base_address, t.base_address)?;
    let offset = pick(kind, "offset", p.offset, t.offset)?;
    let stride = pick(kind, "stride", p.stride, t.stride)?;
    let extent = pick(kind, "extent", p.extent, t.extent)?;
    let base = base.ok_or(DsdError::Missing {
        kind,
        property: "base_address",
    })?;
    let extent = extent.ok_or(DsdError::Missing {
        kind,
        property: "extent",
    })?;
    Ok((base, offset.unwrap_or(0), stride, extent))
}

fn single(property: &'static str, v: &[i64]) -> Result<i64, DsdError> {
    MEM1D_DIMENSIONS
        .check(v.len() as i128)
        .map_err(|e| DsdError::limit(format!("mem1d_dsd {property}"), e))?;
    Ok(v.first().copied().unwrap_or(0))
}

/// `@get_dsd(mem1d_dsd, props)`.
pub fn get_mem1d(props: MemProps) -> Result<Mem1d, DsdError> {
    let wio = props.wavelet_index_offset;
    let (base, offset, stride, extent) = merge("mem1d_dsd", props)?;
    let extent = single("extent", &extent)?;
    let stride = match stride {
        Some(s) => single("stride", &s)?,
        None => 1,
    };
    Ok(Mem1d::new(base, offset, stride, extent)?.with_wavelet_index_offset(wio))
}

/// `@get_dsd(mem4d_dsd, props)`.
pub fn get_mem4d(props: MemProps) -> Result<Mem4d, DsdError> {
    let wio = props.wavelet_index_offset;
    let (base, offset, stride, extent) = merge("mem4d_dsd", props)?;
    Ok(Mem4d::new(base, offset, &extent, stride.as_deref())?.with_wavelet_index_offset(wio))
}
