//! Building blocks every npusim architecture model needs, and nothing vendor-specific:
//!
//! * [`Limit`]: a named hardware limit (a register field's range, a buffer size) whose check
//!   fails with a [`LimitError`] naming the limit, its range and the offending number;
//! * [`CycleEstimate`]: a timing model's estimate (total, per-stage breakdown, model name),
//!   reported next to a functional result and never mixed into it;
//! * [`ByteRange`]: a half-open byte address range with checked construction and overlap tests;
//! * [`lex`]: the token layer the descriptor-language parsers share (tokens, spans, one error).
//!
//! ```
//! use npusim_hw::{ByteRange, Limit};
//! const BLOCK_STRIDE: Limit = Limit::new("dstBlkStride", 0, u16::MAX as i64);
//! let e = BLOCK_STRIDE.check(70000).unwrap_err();
//! assert_eq!(e.to_string(), "dstBlkStride 70000 is out of range [0, 65535]");
//! let a = ByteRange::new(0, 64).unwrap();
//! assert!(a.overlaps(&ByteRange::new(32, 32).unwrap()));
//! ```

pub mod cycles;
pub mod lex;
pub mod limit;
pub mod range;

pub use cycles::{CycleEstimate, Stage};
pub use limit::{Limit, LimitError};
pub use range::{ByteRange, RangeError};
