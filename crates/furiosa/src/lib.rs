//! Furiosa RNGD model for npusim: mapping expressions (`m![..]`), stream tensors, the Cast
//! Engine and the Vector Engine's inter-slice reducer, following Furiosa's documentation of the
//! Cast Engine and of the Inter-Slice Block: the RNGD book's *Cast Engine page* and *Inter-Slice
//! Block page*, as the doc comments name them.
//!
//! ```
//! use npusim_furiosa::{axes, m};
//! let ax = axes![A = 8, B = 512].unwrap();
//! let e = m!(ax; A, B).unwrap();
//! assert_eq!(e.size(), 4096);
//! assert_eq!(e.cell(519).to_string(), "{A: 1, B: 7}");
//! ```

pub mod buffer;
pub mod device;
pub mod dm;
pub mod dtype;
pub mod engine;
pub mod limits;
mod liveness;
pub mod mapping;
pub mod pipeline;
pub mod profile;
pub mod schedule;
pub mod sequencer;
pub mod tensor;
pub mod timing;
pub mod transition;

pub use buffer::Codes;
pub use dm::{Dm, DmError, DmTensor};
pub use dtype::{DType, Scalar};
pub use engine::cast::CastError;
pub use engine::vector::branch::{BitReq, Branched, Cmp, Imm, TagGuard};
pub use engine::vector::ops::{
    BranchMode, ClipBinaryOp, FpBinaryOp, FxpBinaryOp, InterSliceReduceOpF32,
    InterSliceReduceOpI32, IntraSliceReduceOpF32, IntraSliceReduceOpI32, LogicBinaryOp,
};
pub use engine::vector::{VectorError, VectorTensor};
pub use mapping::{Axes, Final, Mapping, PaddingKind};
pub use profile::CastProfile;
pub use sequencer::{Sequencer, SequencerError};
pub use tensor::{Position, StreamTensor, TensorError};
pub use transition::TransitionError;
