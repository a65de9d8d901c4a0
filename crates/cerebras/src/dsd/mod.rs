//! Data Structure Descriptors as data: each kind validates its fields and yields its element
//! addresses in order.

pub mod base;
pub mod error;
pub mod mem1d;
pub mod mem4d;
pub mod walk;

pub use base::Base;
pub use error::DsdError;
pub use mem1d::Mem1d;
pub use mem4d::Mem4d;
