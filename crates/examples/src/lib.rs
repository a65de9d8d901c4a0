//! The vendor documents' worked examples and golden tables for npusim, and the tour that runs
//! them: fixtures kept outside the libraries' public API, laid out by vendor.
//!
//! * [`ascend`]: the golden table of AscendC `Cast` conversions and the 512-lane examples of
//!   the Atlas training series `Cast` page;
//! * [`furiosa`]: the examples of Furiosa's "Cast Engine" and "Inter-Slice Block" pages run on
//!   concrete data, and worked mapping expressions;
//! * [`cerebras`]: the tensor-access lowerings of the SDK's "Data Structure Descriptors" page
//!   and the SDK tutorial programs E1-E10 ported onto the multi-PE simulator, with E11
//!   (E4's pattern at any grid size);
//! * [`tour`]: every one of them run and checked bit for bit, written as a report.

pub mod ascend;
pub mod cerebras;
pub mod furiosa;
pub mod tour;
