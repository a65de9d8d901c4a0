//! One stage of a pipeline as data, named in pipeline files by its snake_case variant name
//! (`op = "inter_slice_reduce"`) with its fields as keys.

use serde::{Deserialize, Deserializer};

use crate::DType;
use crate::engine::vector::ops::{ClipBinaryOp, FpBinaryOp, FxpBinaryOp, LogicBinaryOp};

/// One stage of a pipeline.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum StageSpec {
    /// `cast::<dtype>(out_packet)`.
    Cast {
        /// Output type.
        dtype: DType,
        /// Output packet, m-notation.
        out_packet: String,
    },
    /// `vector_init()`.
    VectorInit,
    /// `vector_intra_slice_branch(BranchMode::Unconditional)`.
    Branch,
    /// `vector_logic(op, operand)`.
    Logic {
        /// The op (key `name`).
        #[serde(rename = "name")]
        op: LogicBinaryOp,
        /// The immediate.
        operand: i32,
    },
    /// `vector_fxp(op, operand)`.
    Fxp {
        /// The op (key `name`).
        #[serde(rename = "name")]
        op: FxpBinaryOp,
        /// The immediate.
        operand: i32,
    },
    /// `vector_fxp_to_fp(int_width)`.
    FxpToFp {
        /// Integer width, 0..=31.
        #[serde(deserialize_with = "int_width")]
        int_width: u32,
    },
    /// `vector_fp_binary(op, operand)`.
    Fp {
        /// The op (key `name`).
        #[serde(rename = "name")]
        op: FpBinaryOp,
        /// The immediate.
        operand: f32,
    },
    /// `vector_narrow_split::<Time2, Packet2>()` (Way8 → Way4).
    NarrowSplit {
        /// Time2, m-notation.
        time2: String,
        /// Packet2, m-notation.
        packet2: String,
    },
    /// `vector_fp_div(operand)` (Way4).
    FpDiv {
        /// The divisor.
        operand: f32,
    },
    /// `vector_intra_slice_reduce::<R, OutTime, OutPacket>(op)` (Way4); `op` is read as the
    /// stream's type.
    IntraSliceReduce {
        /// The reduced axis R.
        axis: String,
        /// Op name (key `name`): AddSat, Max, Min (i32) or Add, Max, Min (f32).
        #[serde(rename = "name")]
        op: String,
        /// Output time mapping, m-notation.
        out_time: String,
        /// Output packet mapping, m-notation.
        out_packet: String,
    },
    /// `vector_widen_concat::<Time2, Packet2>()` (Way4 → Way8).
    WidenConcat {
        /// Time2, m-notation.
        time2: String,
        /// Packet2, m-notation.
        packet2: String,
    },
    /// `vector_widen_pad::<Packet2>()` (Way4 → Way8).
    WidenPad {
        /// Packet2, m-notation.
        packet2: String,
    },
    /// `vector_fp_to_fxp(int_width)`.
    FpToFxp {
        /// Integer width, 0..=31.
        #[serde(deserialize_with = "int_width")]
        int_width: u32,
    },
    /// `vector_clip(op, operand)`; the operand is read as the stream's type.
    Clip {
        /// The op (key `name`).
        #[serde(rename = "name")]
        op: ClipBinaryOp,
        /// The immediate.
        operand: f64,
    },
    /// `vector_inter_slice_reduce(out_slice, out_time, op)`; `op` is read as the stream's type.
    InterSliceReduce {
        /// Op name (key `name`): Add, AddSat, Max, Min (i32) or Add, Max, Min, Mul (f32).
        #[serde(rename = "name")]
        op: String,
        /// Output slice mapping, m-notation.
        out_slice: String,
        /// Output time mapping, m-notation.
        out_time: String,
    },
    /// `vector_final()`.
    VectorFinal,
}

impl StageSpec {
    /// The stage's name in pipeline files and reports.
    pub fn name(&self) -> &'static str {
        match self {
            StageSpec::Cast { .. } => "cast",
            StageSpec::VectorInit => "vector_init",
            StageSpec::Branch => "branch",
            StageSpec::Logic { .. } => "logic",
            StageSpec::Fxp { .. } => "fxp",
            StageSpec::FxpToFp { .. } => "fxp_to_fp",
            StageSpec::Fp { .. } => "fp",
            StageSpec::NarrowSplit { .. } => "narrow_split",
            StageSpec::FpDiv { .. } => "fp_div",
            StageSpec::IntraSliceReduce { .. } => "intra_slice_reduce",
            StageSpec::WidenConcat { .. } => "widen_concat",
            StageSpec::WidenPad { .. } => "widen_pad",
            StageSpec::FpToFxp { .. } => "fp_to_fxp",
            StageSpec::Clip { .. } => "clip",
            StageSpec::InterSliceReduce { .. } => "inter_slice_reduce",
            StageSpec::VectorFinal => "vector_final",
        }
    }
}

/// Reads an `int_width`: an integer in 0..=31.
fn int_width<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = u32::deserialize(d)?;
    if v > 31 {
        return Err(serde::de::Error::custom(format!(
            "int_width {v} must be an integer in 0..=31"
        )));
    }
    Ok(v)
}
