//! The Vector Engine (as the RNGD book describes it): `vector_init`, the intra-slice chain with
//! its Way8/Way4 states and ALU budget, the inter-slice reducer, and `vector_final`.
//!
//! Elementwise stages apply their op to every physical cell, padding included;
//! later relayouts and reductions skip dead cells.

pub mod branch;
mod inter_slice;
pub mod intra_slice;
mod lanes;
pub mod ops;
pub mod stage;

use std::collections::BTreeSet;
use std::fmt;

use thiserror::Error;

use crate::limits::FLIT_BYTES;
use crate::tensor::{Dim, Position};
use crate::{DType, Mapping, StreamTensor};

use branch::{Branched, Imm};
pub use inter_slice::OutputRule;
use ops::{
    BranchMode, ClipBinaryOp, FpBinaryOp, FxpBinaryOp, InterSliceReduceOp, IntraSliceReduceOp,
    LogicBinaryOp,
};
pub use stage::StageRecord;
use stage::{Alu, Stage, VeOrder, Way, final_refusal, transition_refusal};

/// Why the Vector Engine refuses a call.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum VectorError {
    /// `vector_init` on a tensor the Vector Engine does not read.
    #[error(
        "vector_init reads an i32 or f32 CollectTensor or ContractTensor, not a {position} of {dtype}: {stream}"
    )]
    Input {
        /// The stream: type, position and its five mappings in m-notation.
        stream: String,
        /// The tensor's position.
        position: &'static str,
        /// Its scalar type.
        dtype: DType,
    },
    /// The packet is not one flit of eight 32-bit elements.
    #[error(
        "vector_init needs Packet = one flit (8 x 32-bit); m![{packet}] has {elements} elements"
    )]
    NotOneFlit {
        /// The packet.
        packet: String,
        /// Its size.
        elements: usize,
    },
    /// An illegal stage transition.
    #[error("{0}")]
    Transition(String),
    /// The op does not take the tensor's scalar type.
    #[error("{method} needs {needs} data, but the stream holds {dtype}: {stream}")]
    DType {
        /// The stream: type, position and its five mappings in m-notation.
        stream: String,
        /// The method.
        method: &'static str,
        /// What it needs.
        needs: DType,
        /// What the stream holds.
        dtype: DType,
    },
    /// An ALU used twice in one invocation.
    #[error(
        "{0:?} is already in use (rule: each Vector Engine ALU is used at most once per invocation)"
    )]
    AluInUse(Alu),
    /// A relabelling stage was given mappings that are not the rule's.
    #[error("{method}: {what} m![{got}] must be equivalent to m![{expected}] (rule: {rule})")]
    Relabel {
        /// The method.
        method: &'static str,
        /// Which mapping.
        what: &'static str,
        /// The given mapping.
        got: String,
        /// What it must be.
        expected: String,
        /// The rule.
        rule: &'static str,
    },
    /// An inter-slice reduction the reducer cannot do.
    #[error("{0}")]
    InterSlice(String),
    /// An intra-slice reduction the reducer cannot do.
    #[error("vector_intra_slice_reduce {0}")]
    IntraSlice(String),
    /// `vector_narrow_trim` on a packet that is not 8 elements.
    #[error(
        "vector_narrow_trim: Packet = m![{packet}] has {size} elements, not 8 (rule: narrow_trim takes a Way8 packet of 8 elements; a 4-element packet needs no trim)"
    )]
    TrimInputSize {
        /// The packet.
        packet: String,
        /// Its size.
        size: usize,
    },
    /// `vector_narrow_trim` would drop live lanes.
    #[error(
        "vector_narrow_trim: the back half m![{back}] of Packet = m![{packet}] holds live lanes (rule: the back four lanes must be padding, m![1 # 2]; use vector_narrow_split to keep them)"
    )]
    TrimBackNotDummy {
        /// The packet.
        packet: String,
        /// Its back half, `Packet / 4`.
        back: String,
    },
    /// `vector_narrow_trim`'s Packet2 is not 4 elements.
    #[error(
        "vector_narrow_trim: Packet2 = m![{packet2}] has {size} elements, not 4 (rule: narrow_trim outputs the front four lanes)"
    )]
    TrimOutputSize {
        /// The output packet.
        packet2: String,
        /// Its size.
        size: usize,
    },
    /// `vector_narrow_trim`'s Packet2 is not the front half.
    #[error(
        "vector_narrow_trim: Packet2 = m![{got}] must be equivalent to the front half m![{expected}] (rule: Packet2 = Packet % 4)"
    )]
    TrimPacketMismatch {
        /// The front half, `Packet % 4`.
        expected: String,
        /// The given Packet2.
        got: String,
    },
    /// Guarded operand slots the stage cannot take.
    #[error(
        "{method}: {reason} (rule: up to 3 guarded immediates of the stream's type, none after an unconditional one, no dead guard)"
    )]
    Operand {
        /// The method.
        method: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// A fixed-point width out of range.
    #[error("{method}: int_width {width} must be at most 31")]
    Width {
        /// The method.
        method: &'static str,
        /// The width.
        width: u32,
    },
}

/// A stream inside the Vector Engine (`VectorInitTensor`, `VectorTensor`,
/// `VectorInterSliceReduceTensor`).
#[derive(Clone, Debug)]
pub struct VectorTensor {
    tensor: StreamTensor,
    stage: Stage,
    order: Option<VeOrder>,
    alus: BTreeSet<Alu>,
    trace: Vec<StageRecord>,
    /// The 4-bit tag of every physical cell (set by `vector_intra_slice_branch`).
    tags: Vec<u8>,
}

fn m(x: &Mapping) -> String {
    x.m_notation()
}

impl StreamTensor {
    /// `vector_init()`: enters the Vector Engine (Collect or Contract stream of i32/f32, one
    /// flit per packet).
    pub fn vector_init(self) -> Result<VectorTensor, VectorError> {
        let dtype = self.dtype();
        if !matches!(self.position(), Position::Collect | Position::Contract)
            || !matches!(dtype, DType::I32 | DType::F32)
        {
            return Err(VectorError::Input {
                stream: self.to_string(),
                position: self.position().type_name(),
                dtype,
            });
        }
        let elements = self.packet().size();
        if elements * dtype.bits() / 8 != FLIT_BYTES {
            return Err(VectorError::NotOneFlit {
                packet: m(self.packet()),
                elements,
            });
        }
        Ok(VectorTensor {
            tags: vec![0; self.codes().len()],
            tensor: self,
            stage: Stage::Init,
            order: None,
            alus: BTreeSet::new(),
            trace: Vec::new(),
        })
    }
}

impl VectorTensor {
    /// The current state.
    pub fn stage(&self) -> Stage {
        self.stage
    }

    /// Which reduction came first, once decided.
    pub fn order(&self) -> Option<VeOrder> {
        self.order
    }

    /// The stream as it stands (mappings and data).
    pub fn tensor(&self) -> &StreamTensor {
        &self.tensor
    }

    /// The 4-bit tag of every physical cell, in position order.
    pub fn tags(&self) -> &[u8] {
        &self.tags
    }

    /// The stages run so far (input to the cycle model).
    pub fn trace(&self) -> &[StageRecord] {
        &self.trace
    }

    fn flits(&self) -> u64 {
        (self.tensor.mapping(Dim::Time).size()) as u64
    }

    fn enter(&mut self, to: Stage) -> Result<(), VectorError> {
        if let Some(reason) = transition_refusal(self.stage, to) {
            return Err(VectorError::Transition(reason));
        }
        if to == Stage::Branch
            && self.stage == Stage::InterSliceReduce
            && self.order == Some(VeOrder::IntraFirst)
        {
            return Err(VectorError::Transition(
                "the intra-slice chain already ran before vector_inter_slice_reduce (IntraFirst); it cannot be re-entered".into(),
            ));
        }
        if to == Stage::InterSliceReduce
            && self
                .trace
                .iter()
                .any(|r| r.stage == Stage::InterSliceReduce)
        {
            return Err(VectorError::Transition(
                "vector_inter_slice_reduce runs at most once per Vector Engine invocation".into(),
            ));
        }
        Ok(())
    }

    fn use_alu(&mut self, alu: Alu) -> Result<(), VectorError> {
        if !self.alus.insert(alu) {
            return Err(VectorError::AluInUse(alu));
        }
        Ok(())
    }

    fn need(&self, method: &'static str, needs: DType) -> Result<(), VectorError> {
        if self.tensor.dtype() != needs {
            return Err(VectorError::DType {
                stream: self.tensor.to_string(),
                method,
                needs,
                dtype: self.tensor.dtype(),
            });
        }
        Ok(())
    }

    fn record(&mut self, stage: Stage, alus: u64, ratio: u64) {
        let flits = self.flits();
        self.trace.push(StageRecord {
            stage,
            way: stage.way(),
            flits,
            alus,
            ratio,
        });
        self.stage = stage;
    }

    /// Applies `f` to every cell's 32-bit pattern in place; the stream then holds `dtype`.
    fn map_codes(&mut self, dtype: DType, f: impl Fn(u32) -> u32) {
        self.tensor
            .map_words(dtype, |words| words.iter_mut().for_each(|c| *c = f(*c)));
    }

    /// `vector_intra_slice_branch(mode)`: the intra-slice chain's entry (after `vector_init`,
    /// or after an InterFirst `vector_inter_slice_reduce`).
    pub fn vector_intra_slice_branch(mut self, mode: BranchMode) -> Result<Self, VectorError> {
        self.enter(Stage::Branch)?;
        let dtype = self.tensor.dtype();
        if let BranchMode::Comparison(cmps) = mode
            && let Some(v) = cmps
                .iter()
                .filter_map(|c| c.imm())
                .find(|v| v.dtype() != dtype)
        {
            return Err(VectorError::DType {
                stream: self.tensor.to_string(),
                method: "vector_intra_slice_branch (a comparison immediate)",
                needs: v.dtype(),
                dtype,
            });
        }
        // Tags come from the input values, once, and then follow the data.
        self.tags = self
            .tensor
            .codes()
            .words()
            .iter()
            .map(|&c| mode.tag(c, dtype))
            .collect();
        if self.order.is_none() {
            self.order = Some(VeOrder::IntraFirst);
        }
        self.record(Stage::Branch, 0, 0);
        Ok(self)
    }

    /// `vector_logic(op, operand)` on i32 data.
    pub fn vector_logic(mut self, op: LogicBinaryOp, operand: i32) -> Result<Self, VectorError> {
        self.enter(Stage::Logic)?;
        self.need("vector_logic", DType::I32)?;
        self.use_alu(op.alu())?;
        self.map_codes(DType::I32, |c| op.apply(c as i32, operand) as u32);
        self.record(Stage::Logic, 1, 0);
        Ok(self)
    }

    /// `vector_fxp(op, operand)` on i32 data (`Mode01`: `op(stream, operand)`).
    pub fn vector_fxp(mut self, op: FxpBinaryOp, operand: i32) -> Result<Self, VectorError> {
        self.enter(Stage::Fxp)?;
        self.need("vector_fxp", DType::I32)?;
        self.use_alu(op.alu())?;
        self.map_codes(DType::I32, |c| op.apply(c as i32, operand) as u32);
        self.record(Stage::Fxp, 1, 0);
        Ok(self)
    }

    /// `vector_fxp_to_fp(int_width)`: i32 → f32, `x · 2^(w−31)`.
    pub fn vector_fxp_to_fp(mut self, int_width: u32) -> Result<Self, VectorError> {
        self.enter(Stage::FxpToFp)?;
        self.need("vector_fxp_to_fp", DType::I32)?;
        if int_width > 31 {
            return Err(VectorError::Width {
                method: "vector_fxp_to_fp",
                width: int_width,
            });
        }
        self.map_codes(DType::F32, |c| {
            ops::fxp_to_fp(c as i32, int_width).to_bits()
        });
        self.record(Stage::FxpToFp, 1, 0);
        Ok(self)
    }

    /// `vector_narrow_split::<Time2, Packet2>()`: Way8 → Way4; `Time2 ≡ (Time, Packet / 4)`,
    /// `Packet2 ≡ Packet % 4`.
    pub fn vector_narrow_split(
        mut self,
        time2: &Mapping,
        packet2: &Mapping,
    ) -> Result<Self, VectorError> {
        self.enter(Stage::Narrow)?;
        let packet = self.tensor.packet().clone();
        let time = self.tensor.time().clone();
        let outer = packet
            .clone()
            .stride(4)
            .map_err(|e| VectorError::Transition(e.to_string()))?;
        let inner = packet
            .modulo(4)
            .map_err(|e| VectorError::Transition(e.to_string()))?;
        let want_time = time
            .pair(outer)
            .map_err(|e| VectorError::Transition(e.to_string()))?;
        relabel_check(
            "vector_narrow_split",
            "Time2",
            time2,
            &want_time,
            "Time2 = (Time, Packet / 4)",
        )?;
        relabel_check(
            "vector_narrow_split",
            "Packet2",
            packet2,
            &inner,
            "Packet2 = Packet % 4",
        )?;
        self.tensor = self.tensor.relabel(time2.clone(), packet2.clone());
        self.record(Stage::Narrow, 0, 0);
        Ok(self)
    }

    /// `vector_narrow_trim::<Packet2>()`: Way8 → Way4 by dropping the back four lanes of every
    /// packet, which must be padding (`docs/furiosa-engines.md` §9.2, §9.3). Time is unchanged;
    /// no ALU and no cycle of its own. Checked in the verifier's order: the input packet has 8
    /// elements (`TrimInputSize`), its back half is padding (`TrimBackNotDummy`), Packet2 has 4
    /// elements (`TrimOutputSize`) and is the front half (`TrimPacketMismatch`). A tensor just
    /// narrowed (4-element packets) is refused with `TrimInputSize` before the stage order,
    /// since the verifier's own text says such a packet needs no trim (npusim's decision).
    pub fn vector_narrow_trim(mut self, packet2: &Mapping) -> Result<Self, VectorError> {
        let packet = self.tensor.packet().clone();
        if self.stage != Stage::Narrow {
            self.enter(Stage::Narrow)?;
        }
        if packet.size() != 8 {
            return Err(VectorError::TrimInputSize {
                packet: m(&packet),
                size: packet.size(),
            });
        }
        let cells = packet.cells();
        if cells[4..].iter().any(|c| c.is_live()) {
            let back = packet
                .clone()
                .stride(4)
                .map_err(|e| VectorError::Transition(e.to_string()))?;
            return Err(VectorError::TrimBackNotDummy {
                packet: m(&packet),
                back: m(&back.normalize()),
            });
        }
        if packet2.size() != 4 {
            return Err(VectorError::TrimOutputSize {
                packet2: m(packet2),
                size: packet2.size(),
            });
        }
        let front = packet
            .modulo(4)
            .map_err(|e| VectorError::Transition(e.to_string()))?;
        if !packet2.equivalent(&front) {
            return Err(VectorError::TrimPacketMismatch {
                expected: m(&front.normalize()),
                got: m(packet2),
            });
        }
        let words = self.tensor.codes().words();
        let data: Vec<u32> = words
            .chunks_exact(8)
            .flat_map(|c| c[..4].to_vec())
            .collect();
        drop(words);
        self.tags = self
            .tags
            .chunks_exact(8)
            .flat_map(|c| c[..4].to_vec())
            .collect();
        let time = self.tensor.time().clone();
        self.tensor = self.tensor.regrouped(time, packet2.clone(), data.into());
        self.record(Stage::Narrow, 0, 0);
        Ok(self)
    }

    /// `vector_fp_binary(op, operand)` on f32 data (Way4).
    pub fn vector_fp_binary(mut self, op: FpBinaryOp, operand: f32) -> Result<Self, VectorError> {
        self.enter(Stage::Fp)?;
        self.need("vector_fp_binary", DType::F32)?;
        self.use_alu(Alu::FpFma)?;
        self.map_codes(DType::F32, |c| {
            op.apply(f32::from_bits(c), operand).to_bits()
        });
        self.record(Stage::Fp, 1, 0);
        Ok(self)
    }

    /// `vector_intra_slice_reduce::<R, OutTime, OutPacket>(op)` (Way4): folds axis `axis` out
    /// of Time and Packet within each slice (see [`intra_slice`] for the rules).
    pub fn vector_intra_slice_reduce(
        mut self,
        axis: &str,
        out_time: &Mapping,
        out_packet: &Mapping,
        op: impl Into<IntraSliceReduceOp>,
    ) -> Result<Self, VectorError> {
        self.enter(Stage::IntraSliceReduce)?;
        let op = op.into();
        let needs = match op {
            IntraSliceReduceOp::I32(_) => DType::I32,
            IntraSliceReduceOp::F32(_) => DType::F32,
        };
        self.need("vector_intra_slice_reduce", needs)?;
        self.use_alu(Alu::ReduceAccTree)?;
        let steps_in = self.tensor.time().size() as u64;
        let (tensor, tags) =
            intra_slice::reduce(&self.tensor, &self.tags, axis, out_time, out_packet, op)?;
        self.tensor = tensor;
        self.tags = tags;
        // The ratio of an intra-slice reduction: input time steps per output time step (the
        // schedule's blocking count).
        self.record(
            Stage::IntraSliceReduce,
            1,
            steps_in / (out_time.size() as u64).max(1),
        );
        Ok(self)
    }

    /// `vector_fp_div(operand)`: `stream / operand` on f32 data (Way4).
    pub fn vector_fp_div(mut self, operand: f32) -> Result<Self, VectorError> {
        self.enter(Stage::FpDiv)?;
        self.need("vector_fp_div", DType::F32)?;
        self.use_alu(Alu::ReduceFpDiv)?;
        self.map_codes(DType::F32, |c| (f32::from_bits(c) / operand).to_bits());
        self.record(Stage::FpDiv, 1, 0);
        Ok(self)
    }

    /// `vector_widen_concat::<Time2, Packet2>()`: Way4 → Way8; `Time2 ≡ Time / 2`,
    /// `Packet2 ≡ (Time % 2, Packet)`.
    pub fn vector_widen_concat(
        mut self,
        time2: &Mapping,
        packet2: &Mapping,
    ) -> Result<Self, VectorError> {
        self.enter(Stage::Widen)?;
        let packet = self.tensor.packet().clone();
        let time = self.tensor.time().clone();
        let bad = |e: crate::mapping::ShapeError| {
            VectorError::Transition(format!("vector_widen_concat: {e}"))
        };
        let outer = time.clone().stride(2).map_err(bad)?;
        let inner = time.modulo(2).map_err(bad)?.pair(packet).map_err(bad)?;
        relabel_check(
            "vector_widen_concat",
            "Time2",
            time2,
            &outer,
            "Time2 = Time / 2",
        )?;
        relabel_check(
            "vector_widen_concat",
            "Packet2",
            packet2,
            &inner,
            "Packet2 = (Time % 2, Packet)",
        )?;
        self.tensor = self.tensor.relabel(time2.clone(), packet2.clone());
        self.record(Stage::Widen, 0, 0);
        Ok(self)
    }

    /// `vector_widen_pad::<Packet2>()`: Way4 → Way8 by padding each 4-element packet to 8
    /// (`Packet2 ≡ Packet # 8`; the four new lanes are padding holding 0).
    pub fn vector_widen_pad(mut self, packet2: &Mapping) -> Result<Self, VectorError> {
        self.enter(Stage::Widen)?;
        let packet = self.tensor.packet().clone();
        let padded = packet
            .clone()
            .pad(8, crate::PaddingKind::Top)
            .map_err(|e| VectorError::Transition(format!("vector_widen_pad: {e}")))?;
        relabel_check(
            "vector_widen_pad",
            "Packet2",
            packet2,
            &padded,
            "Packet2 = Packet # 8",
        )?;
        let lanes = packet.size().max(1);
        let data = pad_flits(&self.tensor.codes().words(), lanes, 8);
        self.tags = pad_flits(&self.tags, lanes, 8);
        let time = self.tensor.time().clone();
        self.tensor = self.tensor.regrouped(time, packet2.clone(), data.into());
        self.record(Stage::Widen, 0, 0);
        Ok(self)
    }

    /// `vector_fp_to_fxp(int_width)`: f32 → i32, `round_half_away(x · 2^(31−w))`, saturating.
    pub fn vector_fp_to_fxp(mut self, int_width: u32) -> Result<Self, VectorError> {
        self.enter(Stage::FpToFxp)?;
        self.need("vector_fp_to_fxp", DType::F32)?;
        if int_width > 31 {
            return Err(VectorError::Width {
                method: "vector_fp_to_fxp",
                width: int_width,
            });
        }
        self.map_codes(DType::I32, |c| {
            ops::fp_to_fxp(f32::from_bits(c), int_width) as u32
        });
        self.record(Stage::FpToFxp, 1, 0);
        Ok(self)
    }

    /// `vector_clip(op, operand)` on i32 or f32 data; `operand` is the 32-bit pattern of an
    /// i32 or f32 of the stream's type (see [`ClipOperand`]).
    pub fn vector_clip(
        mut self,
        op: ClipBinaryOp,
        operand: impl Into<ClipOperand>,
    ) -> Result<Self, VectorError> {
        self.enter(Stage::Clip)?;
        let operand = operand.into();
        let dtype = self.tensor.dtype();
        let needs = match operand {
            ClipOperand::I32(_) => DType::I32,
            ClipOperand::F32(_) => DType::F32,
        };
        self.need("vector_clip", needs)?;
        self.use_alu(op.alu())?;
        match operand {
            ClipOperand::I32(b) => self.map_codes(dtype, |c| op.apply_i32(c as i32, b) as u32),
            ClipOperand::F32(b) => {
                self.map_codes(dtype, |c| op.apply_f32(f32::from_bits(c), b).to_bits())
            }
        }
        self.record(Stage::Clip, 1, 0);
        Ok(self)
    }

    /// Checks the slots and maps every cell through `op(x, imm)` with the immediate its tag
    /// picks (cells no slot admits pass through).
    fn branched(
        &mut self,
        method: &'static str,
        slots: &Branched,
        op: impl Fn(u32, Imm) -> u32,
    ) -> Result<(), VectorError> {
        if let Some(reason) = slots.refusal(self.tensor.dtype()) {
            return Err(VectorError::Operand { method, reason });
        }
        let tags = &self.tags;
        let dtype = self.tensor.dtype();
        self.tensor.map_words(dtype, |words| {
            for (c, &t) in words.iter_mut().zip(tags) {
                if let Some(v) = slots.pick(t) {
                    *c = op(*c, v);
                }
            }
        });
        Ok(())
    }

    /// `vector_logic(op, Branched)`: `op(x, imm)` with the first slot whose guard admits the
    /// element's tag (i32 data).
    pub fn vector_logic_branched(
        mut self,
        op: LogicBinaryOp,
        slots: &Branched,
    ) -> Result<Self, VectorError> {
        self.enter(Stage::Logic)?;
        self.need("vector_logic", DType::I32)?;
        self.use_alu(op.alu())?;
        self.branched("vector_logic", slots, |c, v| {
            op.apply(c as i32, v.bits() as i32) as u32
        })?;
        self.record(Stage::Logic, 1, 0);
        Ok(self)
    }

    /// `vector_fxp(op, Branched)`: like [`VectorTensor::vector_fxp`] per tag (i32 data).
    pub fn vector_fxp_branched(
        mut self,
        op: FxpBinaryOp,
        slots: &Branched,
    ) -> Result<Self, VectorError> {
        self.enter(Stage::Fxp)?;
        self.need("vector_fxp", DType::I32)?;
        self.use_alu(op.alu())?;
        self.branched("vector_fxp", slots, |c, v| {
            op.apply(c as i32, v.bits() as i32) as u32
        })?;
        self.record(Stage::Fxp, 1, 0);
        Ok(self)
    }

    /// `vector_clip(op, Branched)`: like [`VectorTensor::vector_clip`] per tag.
    pub fn vector_clip_branched(
        mut self,
        op: ClipBinaryOp,
        slots: &Branched,
    ) -> Result<Self, VectorError> {
        self.enter(Stage::Clip)?;
        self.use_alu(op.alu())?;
        self.branched("vector_clip", slots, |c, v| match v {
            Imm::I32(b) => op.apply_i32(c as i32, b) as u32,
            Imm::F32(b) => op.apply_f32(f32::from_bits(c), b).to_bits(),
        })?;
        self.record(Stage::Clip, 1, 0);
        Ok(self)
    }

    /// `vector_inter_slice_reduce::<OutSlice, OutTime>(op)`: reduces the innermost slice
    /// factor(s) of each cluster (see [`OutputRule`] for the accepted output mappings).
    pub fn vector_inter_slice_reduce(
        mut self,
        out_slice: &Mapping,
        out_time: &Mapping,
        op: impl Into<InterSliceReduceOp>,
    ) -> Result<Self, VectorError> {
        self.enter(Stage::InterSliceReduce)?;
        let op = op.into();
        let needs = match op {
            InterSliceReduceOp::I32(_) => DType::I32,
            InterSliceReduceOp::F32(_) => DType::F32,
        };
        self.need("vector_inter_slice_reduce", needs)?;
        let flits = self.flits();
        let (tensor, ratio) = inter_slice::reduce(&self.tensor, out_slice, out_time, op)?;
        self.tensor = tensor;
        if self.order.is_none() {
            self.order = Some(VeOrder::InterFirst);
        }
        // The CPU reference starts a fresh ALU budget and resets every tag after the reducer
        // (the RNGD book's stage graph).
        self.alus.clear();
        self.tags = vec![0; self.tensor.codes().len()];
        self.trace.push(StageRecord {
            stage: Stage::InterSliceReduce,
            way: Way::Way8,
            flits,
            alus: 0,
            ratio: ratio as u64,
        });
        self.stage = Stage::InterSliceReduce;
        Ok(self)
    }

    /// The cycle estimate of the invocation so far (see [`crate::timing`]), with upstream
    /// delivering one flit every `upstream_cycles_per_flit` cycles.
    pub fn estimate(&self, upstream_cycles_per_flit: u64) -> npusim_hw::CycleEstimate {
        crate::timing::estimate_vector(&self.trace, upstream_cycles_per_flit)
    }

    /// Cycles until the inter-slice reducer's first output settles (see
    /// [`crate::timing::first_output`]); `None` when the invocation has no reducer.
    pub fn first_output(&self, upstream_cycles_per_flit: u64) -> Option<u64> {
        crate::timing::first_output(&self.trace, upstream_cycles_per_flit)
    }

    /// `vector_final()`: leaves the Vector Engine as a `VectorFinalTensor` (Way8 only).
    pub fn vector_final(self) -> Result<StreamTensor, VectorError> {
        if let Some(reason) = final_refusal(self.stage) {
            return Err(VectorError::Transition(reason));
        }
        Ok(self.tensor.moved_to(Position::VectorFinal))
    }
}

/// Each flit of `lanes` values followed by zeros up to `width` (`lanes` ≤ `width`).
fn pad_flits<T: Copy + Default>(values: &[T], lanes: usize, width: usize) -> Vec<T> {
    let mut out = Vec::with_capacity(values.len() / lanes * width);
    for flit in values.chunks(lanes) {
        out.extend_from_slice(flit);
        out.resize(out.len() + width.saturating_sub(flit.len()), T::default());
    }
    out
}

impl fmt::Display for VectorTensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.stage {
            Stage::Init => "VectorInitTensor",
            Stage::InterSliceReduce => "VectorInterSliceReduceTensor",
            _ => "VectorTensor",
        };
        let inner = self.tensor.to_string();
        let args = inner.split_once('<').map_or("", |(_, rest)| rest);
        write!(f, "{name}<{args} [{}, {:?}]", self.stage, self.stage.way())
    }
}

/// The operand of `vector_clip`: an i32 or an f32 immediate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ClipOperand {
    /// For i32 streams.
    I32(i32),
    /// For f32 streams.
    F32(f32),
}

impl From<i32> for ClipOperand {
    fn from(v: i32) -> Self {
        ClipOperand::I32(v)
    }
}

impl From<f32> for ClipOperand {
    fn from(v: f32) -> Self {
        ClipOperand::F32(v)
    }
}

fn relabel_check(
    method: &'static str,
    what: &'static str,
    got: &Mapping,
    expected: &Mapping,
    rule: &'static str,
) -> Result<(), VectorError> {
    if got.equivalent(expected) {
        Ok(())
    } else {
        Err(VectorError::Relabel {
            method,
            what,
            got: m(got),
            expected: m(expected),
            rule,
        })
    }
}
