//! One stage of a pipeline as data, named in pipeline files by its snake_case variant name
//! (`op = "inter_slice_reduce"`) with its fields as keys.

use serde::{Deserialize, Deserializer};

use crate::DType;
use crate::engine::vector::ops::{ClipBinaryOp, FpBinaryOp, FxpBinaryOp, LogicBinaryOp};
use crate::schedule::Context;

/// `view.tile::<Index, LEN, Element2>(start)` in a kernel file: `tile = { index = "A", len =
/// 1024, element = "A = 1024 # 2048, B", start = 0 }`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TileSpec {
    /// `Index`, m-notation.
    pub index: String,
    /// `LEN`.
    pub len: usize,
    /// `Element2`, m-notation.
    pub element: String,
    /// `start`.
    pub start: usize,
}

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
    /// `vector_narrow_trim::<Packet2>()` (Way8 → Way4, the back four lanes padding).
    NarrowTrim {
        /// Packet2, m-notation.
        packet2: String,
    },
    /// `ctx.begin(tensor.view())`: starts an invocation on a DM tensor of a kernel file.
    Begin {
        /// The DM tensor (a `[[dm]]` name or an earlier commit's).
        tensor: String,
        /// The context (`main`, the default, or `sub`).
        #[serde(default)]
        context: Option<Context>,
        /// A tile of the tensor to read (omitted: the whole tensor).
        #[serde(default)]
        tile: Option<TileSpec>,
    },
    /// `ctx.begin_interleaved::<I>(lhs, rhs)`: starts an invocation on two DM tensors with
    /// identical mappings, alternated along the size-2 axis `I` of the fetch's Time.
    BeginInterleaved {
        /// The interleave axis `I`, m-notation (one declared axis of size 2).
        axis: String,
        /// The tensor read at `I = 0`.
        lhs: String,
        /// The tensor read at `I = 1`.
        rhs: String,
        /// The context (`main`, the default, or `sub`).
        #[serde(default)]
        context: Option<Context>,
    },
    /// `.fetch_chip_lift::<OutChip, OutTime>()`.
    FetchChipLift {
        /// OutChip, m-notation.
        chip: String,
        /// OutTime, m-notation.
        time: String,
    },
    /// `.fetch_cluster_lift::<OutCluster, OutTime>()`.
    FetchClusterLift {
        /// OutCluster, m-notation.
        cluster: String,
        /// OutTime, m-notation.
        time: String,
    },
    /// `.fetch_slice_lift::<OutSlice, OutTime>()`.
    FetchSliceLift {
        /// OutSlice, m-notation.
        slice: String,
        /// OutTime, m-notation.
        time: String,
    },
    /// `.fetch::<Time, Packet>()`.
    Fetch {
        /// Time, m-notation.
        time: String,
        /// Packet, m-notation.
        packet: String,
    },
    /// `.fetch_mask()`.
    FetchMask,
    /// `.fetch_table_lookup::<dtype>()`.
    FetchTableLookup {
        /// Output type.
        dtype: DType,
    },
    /// `.fetch_cast::<dtype>()`.
    FetchCast {
        /// Output type.
        dtype: DType,
    },
    /// `.switch::<OutSlice, OutTime>(config)`: `config` names the variant, its sizes are keys.
    Switch {
        /// OutSlice, m-notation.
        slice: String,
        /// OutTime, m-notation.
        time: String,
        /// The variant: Broadcast01, Broadcast1, Transpose, InterTranspose,
        /// TransposedBroadcast1 or CustomBroadcast.
        config: String,
        /// `slice1` of the variants that take it.
        #[serde(default)]
        slice1: Option<usize>,
        /// `slice0` of the variants that take it.
        #[serde(default)]
        slice0: Option<usize>,
        /// `time0` of Broadcast01 and InterTranspose.
        #[serde(default)]
        time0: Option<usize>,
        /// `ring_size` of CustomBroadcast.
        #[serde(default)]
        ring_size: Option<usize>,
    },
    /// `.collect::<Time2, Packet2>()` (the key names are `time` and `packet`).
    Collect {
        /// Time2, m-notation.
        time: String,
        /// Packet2, m-notation.
        packet: String,
    },
    /// `.commit_trim::<Packet>()`.
    CommitTrim {
        /// The trimmed packet, m-notation.
        packet: String,
    },
    /// `.commit_cast::<bf16>()`.
    CommitCast,
    /// `.commit_cast_relu::<bf16>()`.
    CommitCastRelu,
    /// `.commit_view(tensor.view_mut()[.tile(..)])`: ends the invocation by writing into an
    /// existing tensor (or a tile of it).
    CommitView {
        /// The destination tensor.
        tensor: String,
        /// A tile of it to write (omitted: the whole tensor).
        #[serde(default)]
        tile: Option<TileSpec>,
    },
    /// `.commit::<Element>(address)`: ends the invocation with a new DM tensor.
    Commit {
        /// Element, m-notation.
        element: String,
        /// The new tensor's name.
        name: String,
        /// Its address (omitted: the lowest 8-byte-aligned address above every tensor).
        #[serde(default)]
        address: Option<usize>,
        /// The `.npy` axis order (omitted: the declaration order of its axes).
        #[serde(default)]
        logical: Option<String>,
    },
}

impl StageSpec {
    /// Whether the stage moves data between DM and a stream (only kernel files, with `[[dm]]`
    /// tensors, have them).
    pub fn is_dm(&self) -> bool {
        matches!(
            self,
            StageSpec::Begin { .. }
                | StageSpec::BeginInterleaved { .. }
                | StageSpec::Fetch { .. }
                | StageSpec::FetchChipLift { .. }
                | StageSpec::FetchClusterLift { .. }
                | StageSpec::FetchSliceLift { .. }
                | StageSpec::FetchMask
                | StageSpec::FetchTableLookup { .. }
                | StageSpec::FetchCast { .. }
                | StageSpec::Collect { .. }
                | StageSpec::Switch { .. }
                | StageSpec::CommitTrim { .. }
                | StageSpec::CommitCast
                | StageSpec::CommitCastRelu
                | StageSpec::Commit { .. }
                | StageSpec::CommitView { .. }
        )
    }

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
            StageSpec::NarrowTrim { .. } => "narrow_trim",
            StageSpec::Begin { .. } => "begin",
            StageSpec::BeginInterleaved { .. } => "begin_interleaved",
            StageSpec::Fetch { .. } => "fetch",
            StageSpec::FetchChipLift { .. } => "fetch_chip_lift",
            StageSpec::FetchClusterLift { .. } => "fetch_cluster_lift",
            StageSpec::FetchSliceLift { .. } => "fetch_slice_lift",
            StageSpec::FetchMask => "fetch_mask",
            StageSpec::FetchTableLookup { .. } => "fetch_table_lookup",
            StageSpec::FetchCast { .. } => "fetch_cast",
            StageSpec::Collect { .. } => "collect",
            StageSpec::Switch { .. } => "switch",
            StageSpec::CommitTrim { .. } => "commit_trim",
            StageSpec::CommitCast => "commit_cast",
            StageSpec::CommitCastRelu => "commit_cast_relu",
            StageSpec::Commit { .. } => "commit",
            StageSpec::CommitView { .. } => "commit_view",
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
