//! Interleaved fetch (`docs/furiosa-engines.md` §4.1, "Interleaving"; plan step 14):
//! `begin_interleaved::<I>(lhs, rhs)` fetches two tensors with identical mappings in one
//! sequencer operation; the size-2 axis `I`, placed in `Time`, alternates them (`I = 0` reads
//! `lhs`, `I = 1` reads `rhs`). At most two tensors.
//!
//! Model: the sequencer walks the virtual buffer `m![I, Element]` (`I` outermost), whose `I = 1`
//! half is `rhs`; so the loops, read size and cycles are those of one fetch of that buffer, and
//! every rule of [`BeginTensor::fetch`] applies to it (coverage: both tensors are read whole).
//! `I` must be a declared axis of size 2 that the tensors' mappings do not use.

use thiserror::Error;

use super::fetch::{FetchError, FetchPlan, fetched_stream, read_elems};
use crate::dm::{DM_SLICE_BYTES, Dm, DmTensorView, Place};
use crate::mapping::sequence::Direction;
use crate::mapping::{Final, Mapping, ShapeError};
use crate::sequencer::Sequencer;
use crate::tensor::{Dim, Position, combined_liveness};
use crate::{StreamTensor, TensorError};

/// Why an interleaved fetch is refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum InterleaveError {
    /// `I` is not a single axis of size 2.
    #[error(
        "the interleave axis m![{axis}] has {size} positions (rule: the interleave axis is one axis of size 2: at most two tensors)"
    )]
    Axis {
        /// The axis mapping.
        axis: String,
        /// Its size.
        size: usize,
    },
    /// `I` already indexes the tensors.
    #[error(
        "the interleave axis {axis} is used by the tensors' {dim} = m![{mapping}] (rule: I only selects the tensor)"
    )]
    AxisUsed {
        /// The axis.
        axis: String,
        /// Where it is used.
        dim: &'static str,
        /// That mapping.
        mapping: String,
    },
    /// The two tensors are placed differently.
    #[error(
        "lhs and rhs differ in {what}: {lhs} vs {rhs} (rule: interleaved tensors have identical mappings)"
    )]
    Mismatch {
        /// What differs.
        what: &'static str,
        /// The lhs value.
        lhs: String,
        /// The rhs value.
        rhs: String,
    },
    /// The virtual buffer `m![I, Element]` cannot be built.
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// `Time` does not use `I`.
    #[error(
        "Time = m![{time}] does not use the interleave axis {axis} (rule: an explicit size-2 Time axis alternates lhs and rhs)"
    )]
    NotInTime {
        /// The axis.
        axis: String,
        /// The Time mapping.
        time: String,
    },
}

/// Two DM views entering the Tensor Unit together (`begin_interleaved::<I>(lhs, rhs)`).
#[derive(Clone, Debug)]
pub struct InterleavedBegin<'a> {
    dm: &'a Dm,
    axis: Mapping,
    virtual_element: Mapping,
    lhs: DmTensorView,
    rhs: DmTensorView,
}

/// `ctx.begin_interleaved::<I>(lhs, rhs)` over `dm`: checks the axis and the mappings.
pub fn begin_interleaved<'a>(
    dm: &'a Dm,
    axis: &Mapping,
    lhs: &DmTensorView,
    rhs: &DmTensorView,
) -> Result<InterleavedBegin<'a>, FetchError> {
    let axes = axis.axes();
    if axis.size() != 2 || axes.len() != 1 || axes[0].size != 2 {
        return Err(InterleaveError::Axis {
            axis: axis.m_notation(),
            size: axis.size(),
        }
        .into());
    }
    let (a, b) = (lhs.tensor(), rhs.tensor());
    if a.dtype() != b.dtype() {
        return Err(InterleaveError::Mismatch {
            what: "element type",
            lhs: a.dtype().to_string(),
            rhs: b.dtype().to_string(),
        }
        .into());
    }
    let pairs = [
        ("Chip", a.chip(), b.chip()),
        ("Cluster", a.cluster(), b.cluster()),
        ("Slice", a.slice(), b.slice()),
        ("Element", lhs.element(), rhs.element()),
    ];
    for (what, x, y) in pairs {
        if !x.equivalent(y) {
            return Err(InterleaveError::Mismatch {
                what,
                lhs: format!("m![{}]", x.m_notation()),
                rhs: format!("m![{}]", y.m_notation()),
            }
            .into());
        }
        if x.axes().iter().any(|ax| ax.name == axes[0].name) {
            return Err(InterleaveError::AxisUsed {
                axis: axes[0].name.clone(),
                dim: what,
                mapping: x.m_notation(),
            }
            .into());
        }
    }
    let virtual_element = axis
        .clone()
        .pair(lhs.element().clone())
        .map_err(InterleaveError::from)?;
    Ok(InterleavedBegin {
        dm,
        axis: axis.clone(),
        virtual_element,
        lhs: lhs.clone(),
        rhs: rhs.clone(),
    })
}

impl InterleavedBegin<'_> {
    /// The pipeline position (`Begin`).
    pub fn position(&self) -> Position {
        Position::Begin
    }

    /// The two views, lhs first.
    pub fn views(&self) -> [&DmTensorView; 2] {
        [&self.lhs, &self.rhs]
    }

    /// The loops over `m![I, Element]`, read size and cycles of `fetch(time, packet)`, with
    /// the Fetch Engine's rules checked on both tensors.
    pub fn plan(&self, time: &Mapping, packet: &Mapping) -> Result<FetchPlan, FetchError> {
        let name = self.axis.axes()[0].name.clone();
        if !time.axes().iter().any(|a| a.name == name) {
            return Err(InterleaveError::NotInTime {
                axis: name,
                time: time.m_notation(),
            }
            .into());
        }
        for (dim, m) in [(Dim::Time, time), (Dim::Packet, packet)] {
            if m.size() == 0 {
                return Err(TensorError::Empty {
                    dim,
                    mapping: m.m_notation(),
                }
                .into());
            }
        }
        let dtype = self.lhs.tensor().dtype();
        let bits = dtype.bits();
        let element = &self.virtual_element;
        let seq = Sequencer::derive(element, time, packet, dtype, Direction::Read)?;
        let half = self.lhs.element().size();
        let mut last_byte = 0;
        for o in seq.offsets() {
            let view = if o < half { &self.lhs } else { &self.rhs };
            let end = view.address() + ((o % half + 1) * bits).div_ceil(8) - 1;
            last_byte = last_byte.max(end);
        }
        if last_byte >= DM_SLICE_BYTES {
            return Err(FetchError::OutsideDm {
                address: self.lhs.address().min(self.rhs.address()),
                entries: seq.to_string(),
                last_byte,
                capacity: DM_SLICE_BYTES,
            });
        }
        let live = combined_liveness(&[time, packet]);
        let mut read = vec![false; element.size()];
        for (q, o) in seq.offsets().enumerate() {
            if live[q] && o < read.len() {
                read[o] = true;
            }
        }
        if let Some(p) = (0..element.size()).find(|&p| !read[p] && element.cell(p).is_live()) {
            return Err(FetchError::Unread {
                index: element.cell(p).to_string(),
                element: element.m_notation(),
                time: time.m_notation(),
                packet: packet.m_notation(),
            });
        }
        let read_elems = read_elems(&seq, None, dtype)?;
        let reads_per_packet = packet.size() / read_elems;
        Ok(FetchPlan {
            read_bytes: read_elems * bits / 8,
            reads_per_packet,
            cycles: time.size() * reads_per_packet,
            read_elems,
            last_byte,
            sequencer: seq,
        })
    }

    /// `.fetch::<OutTime, OutPacket>()`: the stream whose cells with `I = 0` hold `lhs` and
    /// with `I = 1` hold `rhs`; dead cells hold 0.
    pub fn fetch(self, time: &Mapping, packet: &Mapping) -> Result<StreamTensor, FetchError> {
        let plan = self.plan(time, packet)?;
        let tensor = self.lhs.tensor();
        let dtype = tensor.dtype();
        let spatial = [tensor.chip(), tensor.cluster(), tensor.slice()];
        let half = self.lhs.element().size();
        let tp = time.size() * packet.size();
        let blocks: usize = spatial.iter().map(|m| m.size()).product();
        let live = combined_liveness(&[spatial[0], spatial[1], spatial[2], time, packet]);
        let offsets: Vec<usize> = plan.sequencer.offsets().collect();
        let (clusters, slices) = (spatial[1].size(), spatial[2].size());
        let mut codes = vec![0u64; blocks * tp];
        for b in 0..blocks {
            for (q, &o) in offsets.iter().enumerate() {
                if !live[b * tp + q] || o >= 2 * half {
                    continue;
                }
                let view = if o < half { &self.lhs } else { &self.rhs };
                let Final::Live(_) = view.cell(o % half) else {
                    continue;
                };
                let place = Place {
                    chip: b / (clusters * slices),
                    cluster: b / slices % clusters,
                    slice: b % slices,
                    element: view.base_offset() + o % half,
                };
                codes[b * tp + q] = view.tensor().read_code(self.dm, &place)?;
            }
        }
        fetched_stream(dtype, &codes, spatial, time, packet)
    }
}
