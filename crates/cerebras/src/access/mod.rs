//! Tensor access expressions (`|i|{10} -> array[2 * i + 1]`): parsing from CSL text, the parsed
//! form, lowering to a memory DSD's offset, extents and strides, and the listing of the
//! elements an access visits.

pub mod error;
pub mod expr;
pub mod listing;
pub mod lower;
pub mod parse;

pub use error::AccessError;
pub use expr::{Affine, TensorAccess};
pub use listing::{DsdKind, Listing, ListingError, listing};
pub use lower::{BoundsPolicy, Lowered, lower};
pub use parse::parse;
