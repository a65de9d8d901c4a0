//! Huawei Ascend's AscendC `Cast`, bit for bit: the Atlas training series LocalTensor API and
//! the Ascend 950 MicroAPI (`RegTensor`, `MaskReg`, `CastTrait`).
//!
//! The numeric work is npusim-numerics' one rounding routine; this crate adds what is
//! Ascend's own: which conversions each product supports ([`profile`]), the saturation and
//! Inf/NaN rules as numerics policies ([`ElementCast`]), the unified buffer with its masks,
//! repeats and strides ([`AiCore`]), and the vector registers with their lane layouts ([`cast_reg`]).
//!
//! The vendor documents the doc comments name: *the training `Cast` page* is the AscendC API
//! reference's `Cast` page for the Atlas training series (LocalTensor API, in English); *the
//! 950 `Cast` page* is its `Cast` page for the Ascend 950PR / 950DT (Reg API `CastTrait`, in
//! Chinese).
//!
//! ```
//! use npusim_ascend::{AiCore, Product, ty};
//! use npusim_numerics::RoundMode;
//! let mut core = AiCore::new(Product::AtlasTraining);
//! let src = core.ub.tensor::<ty::Float>(0, 4).unwrap();
//! let dst = core.ub.tensor::<ty::Half>(256, 4).unwrap();
//! core.ub.load_bytes(&src.view(), &[0x77, 0x77, 0xF6, 0x42].repeat(4)).unwrap(); // 123.23333
//! core.cast_count(&dst, &src, RoundMode::Odd, 4).unwrap();
//! assert_eq!(core.ub.read(&dst.view(), 0), 0x57B3); // 123.1875: CAST_ODD keeps the odd LSB
//! ```

pub mod call;
pub mod cast;
pub mod ctrl;
pub mod deq_scale;
pub mod dtype;
pub mod element;
pub mod error;
pub mod limits;
pub mod memory;
pub mod modes;
pub mod profile;
pub mod reg;
pub mod repeat;
pub mod ty;

mod text;

pub use call::{Api, CallOutcome, CastCall, run_call};
pub use cast::local_tensor::{AiCore, CastReport};
pub use cast::reg::{cast_reg, check_layout};
pub use ctrl::Ctrl;
pub use dtype::DType;
pub use element::{CastOptions, ElementCast, HybridKind, HybridThreshold, Special, WideningMask};
pub use error::AscendError;
pub use memory::{Element, LocalTensor, TensorView, UnifiedBuffer};
pub use modes::{CastRoundMode, CastTrait, MaskMergeMode, RegLayout, SatMode, round_mode_name};
pub use profile::{PairRule, Product, SatSupport};
pub use reg::{MaskPattern, MaskReg, RegTensor, load_align, store_align};
pub use repeat::{Mask, RepeatPlan, UnaryRepeatParams};

/// The README's Rust examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeDoctests;
