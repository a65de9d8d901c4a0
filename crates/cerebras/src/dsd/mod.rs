//! Data Structure Descriptors as data: each kind validates its fields with the seed's rules,
//! yields its element addresses in order and prints back in CSL syntax.

pub mod base;
pub mod circbuf;
pub mod error;
pub mod fabric;
pub mod fifo;
pub mod kind;
pub mod mem1d;
pub mod mem4d;
pub mod props;
pub mod walk;

pub use base::Base;
pub use circbuf::CircBuf;
pub use error::DsdError;
pub use fabric::{FabIn, FabOut, Priority, SimdMode, ZeroSource};
pub use fifo::{Fifo, FifoAction, FifoConfig};
pub use kind::{Dsd, increment_dsd_offset, set_dsd_base_addr, set_dsd_length, set_dsd_stride};
pub use mem1d::Mem1d;
pub use mem4d::Mem4d;
pub use props::{AccessStruct, MemProps, get_mem1d, get_mem4d};
