//! Which tensors of a `.safetensors` file a cast converts, and why the others are kept.

use std::fmt;

use npusim_numerics::Format;
use safetensors::Dtype;

use crate::error::IoError;
use crate::safetensors::Interp;

/// Why a tensor is copied unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepReason {
    /// Tensors were named and this is not one of them.
    NotSelected,
    /// Its dtype has no npusim format (BOOL, U64, ...).
    NoFormat,
    /// An f8e8m0 tensor (microscaling scales), kept unless named.
    ScaleTensor,
    /// An integer tensor (ids, indices), kept unless named.
    Integer,
}

impl fmt::Display for KeepReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            KeepReason::NotSelected => "not selected",
            KeepReason::NoFormat => "no npusim format",
            KeepReason::ScaleTensor => "f8e8m0 scale tensor; name it with --tensor to cast it",
            KeepReason::Integer => "integer tensor",
        })
    }
}

/// What happens to one tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Selection {
    /// Cast from this interpretation.
    Cast(Interp),
    /// Copied unchanged.
    Keep(KeepReason),
}

/// Decides for tensor `name` of `dtype`, read as `interp` (`None`: no npusim format), given
/// the names asked for (`wanted`; empty: every floating-point tensor but f8e8m0 scales).
pub(crate) fn select(
    name: &str,
    dtype: Dtype,
    interp: Option<Interp>,
    wanted: &[String],
) -> Result<Selection, IoError> {
    let named = wanted.iter().any(|w| w == name);
    Ok(match interp {
        Some(i) if named => Selection::Cast(i),
        None if named => {
            return Err(IoError::NoFormatForTensor {
                name: name.to_string(),
                dtype,
            });
        }
        _ if !wanted.is_empty() => Selection::Keep(KeepReason::NotSelected),
        None => Selection::Keep(KeepReason::NoFormat),
        Some(i) if i.format == Format::F8E8M0 => Selection::Keep(KeepReason::ScaleTensor),
        Some(i) if i.format.is_int() => Selection::Keep(KeepReason::Integer),
        Some(i) => Selection::Cast(i),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::elements::SubByte;

    fn interp(format: Format) -> Option<Interp> {
        Some(Interp {
            format,
            shape: vec![2],
            sub: SubByte::OnePerByte,
        })
    }

    #[test]
    fn floats_are_cast_and_the_rest_kept_unless_named() {
        let none: &[String] = &[];
        let sel = |f, wanted| select("t", Dtype::F32, interp(f), wanted).unwrap();
        assert_eq!(
            sel(Format::F32, none),
            Selection::Cast(interp(Format::F32).unwrap())
        );
        assert_eq!(sel(Format::I64, none), Selection::Keep(KeepReason::Integer));
        assert_eq!(
            sel(Format::F8E8M0, none),
            Selection::Keep(KeepReason::ScaleTensor)
        );
        let named = ["t".to_string()];
        assert!(matches!(sel(Format::F8E8M0, &named), Selection::Cast(_)));
        let other = ["u".to_string()];
        assert_eq!(
            sel(Format::F32, &other),
            Selection::Keep(KeepReason::NotSelected)
        );
        assert_eq!(
            select("t", Dtype::BOOL, None, none).unwrap(),
            Selection::Keep(KeepReason::NoFormat)
        );
        let e = select("t", Dtype::BOOL, None, &named)
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            "tensor `t` has dtype BOOL, which npusim has no format for"
        );
    }
}
