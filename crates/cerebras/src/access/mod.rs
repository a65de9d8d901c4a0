//! Tensor access expressions (`|i|{10} -> array[2 * i + 1]`): parsing from CSL text, the parsed
//! form, and lowering to a memory DSD's offset, extents and strides.

pub mod error;
pub mod expr;
pub mod lower;
pub mod parse;

pub use error::AccessError;
pub use expr::{Affine, TensorAccess};
pub use lower::{BoundsPolicy, Lowered, lower};
pub use parse::parse;
