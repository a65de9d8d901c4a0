//! Cerebras Wafer-Scale Engine, one processing element: PE memory, Data Structure Descriptors
//! (DSDs) and tensor access expressions, after the CSL language guide's DSD chapter (seed 004).
//!
//! ```
//! use npusim_cerebras::access::{BoundsPolicy, lower, parse};
//! let access = parse("|i, j, k, l|{5, 5, 5, 5} -> A[i + j, k + l + 2]").unwrap();
//! let l = lower(&access, &[4, 5], BoundsPolicy::Unchecked).unwrap();
//! assert_eq!((l.offset, l.stride.as_slice()), (2, &[1, -3, -3, -23][..]));
//! ```
//!
//! # Decisions the seed leaves open (spec §0)
//!
//! * **Bounds** (§0.8): lowering never rejects an index outside the array
//!   ([`access::BoundsPolicy::Unchecked`], the default); [`access::BoundsPolicy::Strict`] is the
//!   opt-in per-array check, named so in its error. An access outside the PE's memory is always
//!   an error.
//! * **mem1d strides** that do not fit `i8` are rejected (spec §2.1), not silently wrapped.

pub mod access;
pub mod arch;
pub mod dsd;
pub mod elem;
pub mod limits;
pub mod memory;
pub mod ops;

pub use arch::{Arch, PE_MEMORY_BYTES};
pub use elem::{ElemTy, Element};
pub use memory::{MemoryError, PeMemory};
pub use ops::{Op, OpConfig, Operand, Pe, Scalar};
