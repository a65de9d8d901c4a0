//! The Vector Engine's type-state graph (as the RNGD book describes it) as data: stages, their
//! way, the legal transitions and the ALU budget.

use std::fmt;

/// How many 32-bit lanes a stage processes per flit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Way {
    /// 8 × 32-bit: one flit (integer and logic path).
    Way8,
    /// 4 × 32-bit: the front half of a flit (float path, intra-slice reduce, divide).
    Way4,
}

/// Which reduction came first in a Vector Engine invocation (`VeOrder`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VeOrder {
    /// `vector_init → vector_inter_slice_reduce → ...`.
    InterFirst,
    /// `vector_init → vector_intra_slice_branch → ... → vector_inter_slice_reduce`.
    IntraFirst,
}

/// A Vector Engine state: the stage whose method produced the tensor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Fresh after `vector_init()`.
    Init,
    /// `vector_intra_slice_branch` (the chain's entry, which sets the tags; npusim's Tag
    /// stage).
    Branch,
    /// `vector_logic`.
    Logic,
    /// `vector_fxp`.
    Fxp,
    /// `vector_fxp_to_fp`.
    FxpToFp,
    /// `vector_narrow_split` (Way8 → Way4).
    Narrow,
    /// `vector_fp_binary`.
    Fp,
    /// `vector_intra_slice_reduce` (Way4).
    IntraSliceReduce,
    /// `vector_fp_div`.
    FpDiv,
    /// `vector_widen_concat` / `vector_widen_pad` (Way4 → Way8).
    Widen,
    /// `vector_fp_to_fxp`.
    FpToFxp,
    /// `vector_clip`.
    Clip,
    /// `vector_filter` (state only).
    Filter,
    /// `vector_inter_slice_reduce`.
    InterSliceReduce,
}

impl Stage {
    /// The way of a tensor in this state.
    pub fn way(self) -> Way {
        match self {
            Stage::Narrow | Stage::Fp | Stage::IntraSliceReduce | Stage::FpDiv => Way::Way4,
            _ => Way::Way8,
        }
    }

    /// The way a stage's method needs on its input.
    pub fn input_way(self) -> Way {
        match self {
            Stage::Fp | Stage::IntraSliceReduce | Stage::FpDiv | Stage::Widen => Way::Way4,
            _ => Way::Way8,
        }
    }

    /// Whether the stage may follow itself (`vector_fxp(..).vector_fxp(..)`).
    pub fn may_repeat(self) -> bool {
        matches!(self, Stage::Logic | Stage::Fxp | Stage::Fp | Stage::Clip)
    }

    /// Position in the fixed intra-slice chain (1 = Branch … 12 = Filter); `None` outside it.
    pub fn chain_rank(self) -> Option<u8> {
        Some(match self {
            Stage::Branch => 1,
            Stage::Logic => 2,
            Stage::Fxp => 3,
            Stage::FxpToFp => 4,
            Stage::Narrow => 5,
            Stage::Fp => 6,
            Stage::IntraSliceReduce => 7,
            Stage::FpDiv => 8,
            Stage::Widen => 9,
            Stage::FpToFxp => 10,
            Stage::Clip => 11,
            Stage::Filter => 12,
            Stage::Init | Stage::InterSliceReduce => return None,
        })
    }

    /// The vendor's method name for the stage (as the RNGD book writes it).
    pub fn method(self) -> &'static str {
        match self {
            Stage::Init => "vector_init",
            Stage::Branch => "vector_intra_slice_branch",
            Stage::Logic => "vector_logic",
            Stage::Fxp => "vector_fxp",
            Stage::FxpToFp => "vector_fxp_to_fp",
            Stage::Narrow => "vector_narrow_split",
            Stage::Fp => "vector_fp_binary",
            Stage::IntraSliceReduce => "vector_intra_slice_reduce",
            Stage::FpDiv => "vector_fp_div",
            Stage::Widen => "vector_widen_concat",
            Stage::FpToFxp => "vector_fp_to_fxp",
            Stage::Clip => "vector_clip",
            Stage::Filter => "vector_filter",
            Stage::InterSliceReduce => "vector_inter_slice_reduce",
        }
    }

    /// Every state.
    pub const ALL: [Stage; 14] = [
        Stage::Init,
        Stage::Branch,
        Stage::Logic,
        Stage::Fxp,
        Stage::FxpToFp,
        Stage::Narrow,
        Stage::Fp,
        Stage::IntraSliceReduce,
        Stage::FpDiv,
        Stage::Widen,
        Stage::FpToFxp,
        Stage::Clip,
        Stage::Filter,
        Stage::InterSliceReduce,
    ];
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// What a state may do next, apart from the order rules of [`VeOrder`]: `Some(reason)` when
/// `to` may not follow `from`.
///
/// * From `Init`: `Branch` or `InterSliceReduce`.
/// * Inside the chain: a later stage (or the same stage where it may repeat) whose input way
///   matches the current way.
/// * `InterSliceReduce` from `Init` or the Way8 stages Branch, Logic, Fxp, FxpToFp, Widen,
///   FpToFxp and Clip; never from the Way4 stages Narrow, Fp, IntraSliceReduce, FpDiv.
/// * From `InterSliceReduce`: `Branch`, `Filter` or the end (`vector_final`).
pub fn transition_refusal(from: Stage, to: Stage) -> Option<String> {
    let name = |s: Stage| format!("{s} ({})", s.method());
    match (from, to) {
        (Stage::Init, Stage::Branch | Stage::InterSliceReduce) => None,
        (Stage::Init, _) => Some(format!(
            "after vector_init only vector_intra_slice_branch or vector_inter_slice_reduce may follow, not {}",
            name(to)
        )),
        (Stage::InterSliceReduce, Stage::Branch | Stage::Filter) => None,
        (Stage::InterSliceReduce, _) => Some(format!(
            "after vector_inter_slice_reduce only vector_intra_slice_branch, vector_filter or vector_final may follow, not {}",
            name(to)
        )),
        (_, Stage::InterSliceReduce) => {
            if from.way() == Way::Way8 && from != Stage::Filter {
                None
            } else {
                Some(format!(
                    "vector_inter_slice_reduce is available only from vector_init or the Way8 stages Branch, Logic, Fxp, FxpToFp, Widen, FpToFxp and Clip, not from {} ({:?})",
                    name(from),
                    from.way()
                ))
            }
        }
        (_, Stage::Init) => {
            Some("vector_init starts a Vector Engine invocation; it cannot follow a stage".into())
        }
        _ => {
            let (Some(a), Some(b)) = (from.chain_rank(), to.chain_rank()) else {
                return Some(format!("{} cannot follow {}", name(to), name(from)));
            };
            if b < a || (a == b && !from.may_repeat()) || to == Stage::Branch {
                return Some(format!(
                    "the intra-slice chain runs in a fixed order (Branch, Logic, Fxp, FxpToFp, Narrow, Fp, IntraSliceReduce, FpDiv, Widen, FpToFxp, Clip, Filter): {} cannot follow {}",
                    name(to),
                    name(from)
                ));
            }
            if to.input_way() != from.way() {
                return Some(format!(
                    "{} needs a {:?} tensor but {} leaves it in {:?}",
                    name(to),
                    to.input_way(),
                    name(from),
                    from.way()
                ));
            }
            None
        }
    }
}

/// Whether `vector_final` may end the chain in this state (Way8, after at least one stage).
pub fn final_refusal(from: Stage) -> Option<String> {
    if from == Stage::Init {
        Some("vector_final needs a stage after vector_init (branch or inter-slice reduce)".into())
    } else if from.way() != Way::Way8 {
        Some(format!(
            "vector_final needs a Way8 tensor; {from} leaves it in Way4 (widen it first)"
        ))
    } else {
        None
    }
}

/// An ALU of the Vector Engine; each may be used once per invocation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Alu {
    /// Logic cluster: and.
    LogicAnd,
    /// Logic cluster: or.
    LogicOr,
    /// Logic cluster: xor.
    LogicXor,
    /// Logic cluster: left shift.
    LogicLshift,
    /// Logic cluster: right shifts.
    LogicRshift,
    /// Fxp cluster: add / subtract (plain and saturating).
    FxpAdd,
    /// Fxp cluster: left shifts.
    FxpLshift,
    /// Fxp cluster: multiplies.
    FxpMul,
    /// Fxp cluster: right shifts.
    FxpRshift,
    /// Float cluster: add, subtract, multiply (FMA unit).
    FpFma,
    /// Accumulator tree of the intra-slice reducer.
    ReduceAccTree,
    /// Divider of the FpDiv stage.
    ReduceFpDiv,
    /// Clip cluster: add.
    ClipAdd,
    /// Clip cluster: max.
    ClipMax,
    /// Clip cluster: min.
    ClipMin,
}

/// One stage run, kept for the cycle model.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StageRecord {
    /// The stage.
    pub stage: Stage,
    /// The way it ran in.
    pub way: Way,
    /// Flits per slice that went through it.
    pub flits: u64,
    /// ALUs it used.
    pub alus: u64,
    /// For the inter-slice reducer: the reduction ratio r; for the intra-slice reducer: the
    /// input time steps folded into each output time step.
    pub ratio: u64,
}
