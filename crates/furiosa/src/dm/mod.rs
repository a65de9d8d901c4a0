//! Data memory (DM): each slice's own 512 KiB address space, stored sparsely, and the
//! `DmTensor`s placed in it by four mappings (`DmTensor<D, Chip, Cluster, Slice, Element>` of
//! the RNGD book's *Memory and Stream* page, with run-time mappings), read and written as
//! logical tensors and as `.npy` files (`docs/furiosa-engines.md` §2).

mod error;
mod geometry;
mod logical;
mod memory;
mod npy;
mod place;
mod tensor;
mod view;

pub use error::DmError;
pub use geometry::{DM_BANKS, DM_ROW_BYTES, DM_ROWS, DM_SLICE_BYTES, DmAddress};
pub use memory::{Dm, SliceId};
pub use place::Place;
pub use tensor::{DmTensor, LogicalIndex};
pub use view::{DmTensorView, TileError};
