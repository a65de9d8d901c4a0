//! Why an id could not be made: the number lies outside its limit.

use npusim_hw::LimitError;
use thiserror::Error;

/// An id whose number lies outside the range its kind allows.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{0}")]
pub struct IdError(#[from] pub LimitError);
