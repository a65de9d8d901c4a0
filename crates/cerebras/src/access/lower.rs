//! Lowering a tensor access expression to offset, extents and reset-relative strides (seed 004).
//!
//! Over a row-major array of shape `dims`, index expression `a_d = sum_v c[d][v]*v + c0[d]`
//! flattens to `sum_v coef[v]*v + offset` with `coef[v] = sum_d c[d][v]*rs[d]`,
//! `offset = sum_d c0[d]*rs[d]` and `rs` the row-major element strides. The extent tuple keeps
//! the variables' order (outermost first). The stride of variable `v` is what the address
//! changes by when `v` steps and every variable inside it resets from its last value to 0:
//! `coef[v] - sum_{u inner to v} coef[u]*(len[u] - 1)`; the stride tuple lists the innermost
//! variable first, as the seed's warning says.

use super::error::AccessError;
use super::expr::TensorAccess;
use crate::dsd::walk::walk;
use crate::limits::EXTENT;

/// Whether lowering checks that every access stays inside the array (spec §0.8).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BoundsPolicy {
    /// The seed's behaviour (default): no check; the seed's own `A[i+j, k+l+2]` on a 4×5
    /// array reaches beyond it.
    #[default]
    Unchecked,
    /// Every access must fall inside the array, or lowering fails with
    /// [`AccessError::OutOfBounds`].
    Strict,
}

/// A lowered tensor access: the seed's anonymous struct
/// `.{.base_address = &array, .offset, .stride, .extent}`, in elements of the array.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Lowered {
    /// The array accessed.
    pub array: String,
    /// Its shape.
    pub shape: Vec<u64>,
    /// Element offset of the first access from the array's first element.
    pub offset: i64,
    /// Iteration counts, outermost first (the order of the induction variables).
    pub extent: Vec<u16>,
    /// Reset-relative strides, innermost first.
    pub stride: Vec<i64>,
    /// Flat element coefficient of each induction variable, outermost first.
    pub coefficients: Vec<i64>,
}

impl Lowered {
    /// Element indices in access order, walked with the strides as the hardware does.
    pub fn addresses(&self) -> impl Iterator<Item = i64> + '_ {
        walk(self.offset, &self.extent, &self.stride)
    }

    /// Number of accesses (the product of the extents).
    pub fn len(&self) -> u64 {
        self.extent.iter().map(|&e| u64::from(e)).product()
    }

    /// Whether there is no access (an extent is 0).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

fn overflow(what: &str) -> AccessError {
    AccessError::Overflow {
        what: what.to_string(),
    }
}

fn to_i64(v: i128, what: &str) -> Result<i64, AccessError> {
    i64::try_from(v).map_err(|_| overflow(what))
}

/// Lowers `access` over an array of shape `shape` (row-major, outermost dimension first).
pub fn lower(
    access: &TensorAccess,
    shape: &[u64],
    policy: BoundsPolicy,
) -> Result<Lowered, AccessError> {
    if shape.is_empty() || shape.contains(&0) {
        return Err(AccessError::Shape {
            array: access.array.clone(),
            shape: shape.to_vec(),
        });
    }
    if access.indices.len() != shape.len() {
        return Err(AccessError::IndexCount {
            array: access.array.clone(),
            rank: shape.len(),
            indices: access.indices.len(),
        });
    }
    let mut extent = Vec::with_capacity(access.lengths.len());
    for (name, &len) in access.variables.iter().zip(&access.lengths) {
        EXTENT
            .check(i128::from(len))
            .map_err(|e| AccessError::limit(format!("length of `{name}`"), e))?;
        extent.push(len as u16);
    }
    // Row-major element strides, innermost dimension 1.
    let mut rs = vec![1i128; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        rs[d] = rs[d + 1]
            .checked_mul(i128::from(shape[d + 1]))
            .ok_or_else(|| overflow("the array's row-major strides"))?;
    }
    let elements = rs[0]
        .checked_mul(i128::from(shape[0]))
        .ok_or_else(|| overflow("the array's element count"))?;
    let vars = access.variables.len();
    let mut coef = vec![0i128; vars];
    let mut offset = 0i128;
    let term = |acc: i128, k: i64, r: i128| {
        i128::from(k)
            .checked_mul(r)
            .and_then(|t| acc.checked_add(t))
            .ok_or_else(|| overflow("the flattened index expression"))
    };
    for (e, &r) in access.indices.iter().zip(&rs) {
        for (c, &k) in coef.iter_mut().zip(&e.coefficients) {
            *c = term(*c, k, r)?;
        }
        offset = term(offset, e.constant, r)?;
    }
    let coefficients = coef
        .iter()
        .map(|&c| to_i64(c, "a flattened coefficient"))
        .collect::<Result<Vec<_>, _>>()?;
    let offset = to_i64(offset, "the offset")?;
    // Reset-relative strides, innermost first.
    let mut stride = Vec::with_capacity(vars);
    let mut reset = 0i128; // sum over inner variables of coef * (len - 1)
    for v in (0..vars).rev() {
        stride.push(to_i64(coef[v] - reset, "a stride")?);
        reset += coef[v] * (i128::from(extent[v]) - 1);
    }
    let lowered = Lowered {
        array: access.array.clone(),
        shape: shape.to_vec(),
        offset,
        extent,
        stride,
        coefficients,
    };
    if policy == BoundsPolicy::Strict && !lowered.is_empty() {
        check_bounds(&lowered, elements)?;
    }
    Ok(lowered)
}

/// Checks the two extreme corners of the access box against `[0, elements)`.
fn check_bounds(l: &Lowered, elements: i128) -> Result<(), AccessError> {
    let corner = |low: bool| -> (Vec<i64>, i128) {
        let mut at = Vec::with_capacity(l.extent.len());
        let mut flat = i128::from(l.offset);
        for (&c, &e) in l.coefficients.iter().zip(&l.extent) {
            let last = i64::from(e) - 1;
            let v = if (c < 0) == low { last } else { 0 };
            flat += i128::from(c) * i128::from(v);
            at.push(v);
        }
        (at, flat)
    };
    for low in [true, false] {
        let (tuple, flat) = corner(low);
        if flat < 0 || flat >= elements {
            return Err(AccessError::OutOfBounds {
                array: l.array.clone(),
                tuple,
                element: to_i64(flat, "an element index")?,
                elements: to_i64(elements, "the element count")?,
            });
        }
    }
    Ok(())
}
