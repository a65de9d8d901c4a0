//! Why a cast copies a tensor unchanged instead of casting it.

use std::fmt;

/// Why a tensor is copied unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeepReason {
    /// Tensors were named and this is not one of them.
    NotSelected,
    /// An exclusion pattern matches it.
    Excluded,
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
            KeepReason::Excluded => "excluded",
            KeepReason::NoFormat => "no npusim format",
            KeepReason::ScaleTensor => "f8e8m0 scale tensor; cast only when selected by name",
            KeepReason::Integer => "integer tensor",
        })
    }
}
