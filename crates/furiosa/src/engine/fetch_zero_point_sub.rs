//! The Fetch Adapter's zero-point subtraction (`docs/furiosa-engines.md` §4.2, §14):
//! `fetch_zero_point_sub::<OutD>(zero_point)` subtracts the quantization zero point from each
//! element and widens `i4` to `i5` and `i8` to `i9`, the Contraction Engine's staging types.
//!
//! What the Fetch Adapter page gives, and so what is modelled: the residual `x − zero_point`
//! is exact; `i5` holds −16..=15 and `i9` −256..=255 (one bit more than the input, since the
//! difference of two same-width values spans −15..=15 or −255..=255); a residual outside that
//! range is refused, never wrapped. The stage itself is not a stream stage of npusim: its only
//! consumer is `contract_outer` (no Contraction Engine here), and `i5`/`i9` have no
//! npusim-numerics format; see §14.

use thiserror::Error;

use crate::DType;

/// Why a zero-point subtraction is refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ZeroPointError {
    /// The input type has no zero-point stage.
    #[error(
        "fetch_zero_point_sub takes i4 or i8, not {dtype} (rule: it widens i4 to i5 and i8 to i9 only)"
    )]
    InputType {
        /// The input type.
        dtype: DType,
    },
    /// A residual outside the output type's range.
    #[error(
        "{value} - zero point {zero_point} = {residual} does not fit {out} ({min}..={max}) (rule: an out-of-range residual is refused, not wrapped)"
    )]
    Range {
        /// The input value.
        value: i64,
        /// The zero point.
        zero_point: i64,
        /// Their difference.
        residual: i64,
        /// `i5` or `i9`.
        out: &'static str,
        /// The output type's least value.
        min: i64,
        /// Its greatest value.
        max: i64,
    },
}

/// The output type of `dtype`'s zero-point stage: its name and range.
pub fn staging_type(dtype: DType) -> Result<(&'static str, i64, i64), ZeroPointError> {
    match dtype {
        DType::I4 => Ok(("i5", -16, 15)),
        DType::I8 => Ok(("i9", -256, 255)),
        other => Err(ZeroPointError::InputType { dtype: other }),
    }
}

/// The residuals `x − zero_point` of the `dtype` codes `codes` (two's complement in the
/// type's width), each checked against the `i5`/`i9` range.
pub fn zero_point_sub(
    dtype: DType,
    codes: &[u64],
    zero_point: i64,
) -> Result<Vec<i64>, ZeroPointError> {
    let (out, min, max) = staging_type(dtype)?;
    let bits = dtype.bits();
    codes
        .iter()
        .map(|&code| {
            let shift = 64 - bits;
            let value = ((code << shift) as i64) >> shift;
            let residual = value.saturating_sub(zero_point);
            if residual < min || residual > max {
                return Err(ZeroPointError::Range {
                    value,
                    zero_point,
                    residual,
                    out,
                    min,
                    max,
                });
            }
            Ok(residual)
        })
        .collect()
}
