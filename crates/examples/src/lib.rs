//! The vendor documents' worked examples and golden tables for npusim, and the tour that runs
//! them: fixtures kept outside the libraries' public API, laid out by vendor.
//!
//! * [`ascend`]: the golden table of AscendC `Cast` conversions and the 512-lane examples of
//!   the Atlas training series `Cast` page;
//! * [`furiosa`]: the examples of Furiosa's "Cast Engine" and "Inter-Slice Block" pages run on
//!   concrete data, and worked mapping expressions;
//! * [`tour`]: every one of them (and the Cerebras examples of `npusim-cerebras`) run and
//!   checked bit for bit, written as a report.
//!
//! Cerebras's fixtures (the "Data Structure Descriptors" lowering examples and the SDK tutorial
//! programs) still live in `npusim-cerebras`; their place here is a `cerebras` module beside
//! the other two vendors.

pub mod ascend;
pub mod furiosa;
pub mod tour;
