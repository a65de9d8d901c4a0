//! The Fetch Engine (`docs/furiosa-engines.md` §4): a DM view enters the Tensor Unit
//! (`begin(view)`: Time `m![1]`, Packet the view's `Element`) and `fetch(time, packet)` turns it
//! into a stream with the kernel writer's Time/Packet, run independently in every slice by the
//! DM sequencer. Chip, Cluster, Slice and the element type are unchanged.
//!
//! Rules and decisions (§4.1, §4.3):
//! * the sequencer's loops over the view's `Element` (reads may broadcast and over-fetch);
//! * every live cell of the view is read (`Unread`, naming the first one left);
//! * the highest byte touched stays inside the slice's 524,288 bytes (`OutsideDm`);
//! * a live stream cell takes the DM code at the loops' offset; a dead one holds 0;
//! * one read moves `read_size` elements, the largest divisor of the access size whose byte size
//!   is 1, 2, 4, 8, 16 or 32; cycles = `Time::SIZE × Packet::SIZE / read_size`;
//! * the 8-byte packet rule is checked where the stream enters Switch or Collect
//!   ([`check_packet_alignment`]).

use thiserror::Error;

use crate::dm::{DM_SLICE_BYTES, Dm, DmError, DmTensorView, Place};
use crate::mapping::Mapping;
use crate::mapping::sequence::Direction;
use crate::sequencer::{Sequencer, SequencerError};
use crate::tensor::{Dim, Position, combined_liveness};
use crate::{Codes, DType, StreamTensor, TensorError, TransitionError};

/// Bytes a packet leaving the Fetch Engine (after any adapter stage) must be a multiple of
/// (`FETCH_ALIGN_BYTES`).
pub const FETCH_ALIGN_BYTES: usize = 8;

/// Why the Fetch Engine refuses an access.
#[derive(Debug, Error)]
pub enum FetchError {
    /// The method is not allowed at the tensor's position.
    #[error(transparent)]
    Transition(#[from] TransitionError),
    /// The access cannot be sequenced.
    #[error(transparent)]
    Sequencer(#[from] SequencerError),
    /// A DM access failed.
    #[error(transparent)]
    Dm(#[from] DmError),
    /// The stream tensor cannot be built.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// A main-context stage called in the sub context.
    #[error(transparent)]
    MainOnly(#[from] crate::engine::context::MainOnlyError),
    /// An axis lift breaks a rule.
    #[error(transparent)]
    Lift(Box<crate::engine::fetch_lift::LiftError>),
    /// An interleaved fetch breaks a rule.
    #[error(transparent)]
    Interleave(#[from] crate::engine::fetch_interleave::InterleaveError),
    /// A live cell of the view is never read.
    #[error(
        "Time = m![{time}], Packet = m![{packet}] never reads {index}, a live cell of the view m![{element}] (rule: a fetch reads every live cell of its view; read part of a tensor through a tile)"
    )]
    Unread {
        /// The first unread logical index.
        index: String,
        /// The view's element mapping.
        element: String,
        /// Time mapping.
        time: String,
        /// Packet mapping.
        packet: String,
    },
    /// The loops reach past the slice's DM.
    #[error(
        "the read loops {entries} from byte {address} reach byte {last_byte}, past the {capacity} bytes of a slice (rule: over-fetch is allowed, but only inside DM)"
    )]
    OutsideDm {
        /// The view's start byte.
        address: usize,
        /// The loops, `[n:s, ...] : packet`.
        entries: String,
        /// Highest byte the loops touch.
        last_byte: usize,
        /// Bytes of a slice.
        capacity: usize,
    },
    /// No access size moves a whole number of allowed bytes.
    #[error(
        "an access of {access} {dtype} elements has no divisor of 1, 2, 4, 8, 16 or 32 bytes (rule: one read moves 1, 2, 4, 8, 16 or 32 bytes)"
    )]
    NoReadSize {
        /// Elements of the largest access.
        access: usize,
        /// Element type.
        dtype: DType,
    },
    /// Not a pair the Fetch Adapter's cast converts.
    #[error(
        "fetch_cast cannot convert {src} to {dst} (rule: i4, i8, i16 -> i32; f8e4m3, f8e5m2, bf16 -> f32; f32 -> bf16)"
    )]
    CastPair {
        /// Input type.
        src: DType,
        /// Requested type.
        dst: DType,
    },
    /// Not a pair the Fetch Adapter's table lookup maps.
    #[error(
        "fetch_table_lookup has no table from {src} to {dst} (rule: f4e2m1 -> f8e4m3, f8e5m2; f8e4m3 -> bf16; f8e5m2 -> bf16)"
    )]
    LookupPair {
        /// Input type.
        src: DType,
        /// Requested type.
        dst: DType,
    },
    /// The packet is not a multiple of 8 bytes.
    #[error(
        "Packet = m![{packet}] of {elements} x {dtype} = {bytes} bytes is not a multiple of 8 bytes (FETCH_ALIGN_BYTES)"
    )]
    PacketAlignment {
        /// The packet mapping.
        packet: String,
        /// Packet elements.
        elements: usize,
        /// Element type.
        dtype: DType,
        /// Packet bytes (rounded down for sub-byte remainders).
        bytes: usize,
    },
}

impl From<crate::engine::fetch_lift::LiftError> for FetchError {
    fn from(e: crate::engine::fetch_lift::LiftError) -> FetchError {
        FetchError::Lift(Box::new(e))
    }
}

/// A DM view entering the Tensor Unit (the vendor's `BeginTensor`): Time `m![1]`, Packet the
/// view's `Element`, read from `dm` when fetched.
#[derive(Clone, Debug)]
pub struct BeginTensor<'a> {
    dm: &'a Dm,
    view: DmTensorView,
}

/// `ctx.begin(view)`: the view as a `BeginTensor` over `dm`.
pub fn begin<'a>(dm: &'a Dm, view: &DmTensorView) -> BeginTensor<'a> {
    BeginTensor {
        dm,
        view: view.clone(),
    }
}

/// What a fetch does in one slice: the sequencer's loops, the read size and the cycles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FetchPlan {
    /// The read loops over the view's `Element`, in elements.
    pub sequencer: Sequencer,
    /// Elements one read moves.
    pub read_elems: usize,
    /// Bytes one read moves.
    pub read_bytes: usize,
    /// Reads per packet: `Packet::SIZE / read_size`.
    pub reads_per_packet: usize,
    /// `Time::SIZE × reads_per_packet`.
    pub cycles: usize,
    /// Highest DM byte the loops touch.
    pub last_byte: usize,
}

impl BeginTensor<'_> {
    /// The pipeline position (`Begin`).
    pub fn position(&self) -> Position {
        Position::Begin
    }

    /// The view entering the Tensor Unit.
    pub fn view(&self) -> &DmTensorView {
        &self.view
    }

    /// The DM the view is read from.
    pub fn dm(&self) -> &Dm {
        self.dm
    }

    /// The loops, read size and cycles of `fetch(time, packet)`, with the sequencer's rules,
    /// the DM bound and the coverage rule checked.
    pub fn plan(&self, time: &Mapping, packet: &Mapping) -> Result<FetchPlan, FetchError> {
        self.plan_limited(time, packet, None)
    }

    /// [`BeginTensor::plan`] when a `fetch_cast` or `fetch_table_lookup` to `out` follows: the
    /// converted output of one read
    /// must fit one 32-byte flit, so `read_size × size_of(out) ≤ 32` (decision §4.3, "read_size
    /// with a cast").
    pub fn plan_cast(
        &self,
        time: &Mapping,
        packet: &Mapping,
        out: DType,
    ) -> Result<FetchPlan, FetchError> {
        self.plan_limited(time, packet, Some(out))
    }

    fn plan_limited(
        &self,
        time: &Mapping,
        packet: &Mapping,
        cast: Option<DType>,
    ) -> Result<FetchPlan, FetchError> {
        let dtype = self.view.tensor().dtype();
        let element = self.view.element();
        if let Some((dim, m)) = [(Dim::Time, time), (Dim::Packet, packet)]
            .into_iter()
            .find(|(_, m)| m.size() == 0)
        {
            return Err(FetchError::Tensor(TensorError::Empty {
                dim,
                mapping: m.m_notation(),
            }));
        }
        let seq = Sequencer::derive(element, time, packet, dtype, Direction::Read)?;
        let bits = dtype.bits();
        let address = self.view.address();
        let span = ((seq.last_offset() + 1) * bits).div_ceil(8);
        let last_byte = address + span - 1;
        if last_byte >= DM_SLICE_BYTES {
            return Err(FetchError::OutsideDm {
                address,
                entries: seq.to_string(),
                last_byte,
                capacity: DM_SLICE_BYTES,
            });
        }
        let read_elems = read_elems(&seq, cast, dtype)?;
        self.check_coverage(&seq, time, packet)?;
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

    /// Every live cell of the view is read by a live stream cell.
    fn check_coverage(
        &self,
        seq: &Sequencer,
        time: &Mapping,
        packet: &Mapping,
    ) -> Result<(), FetchError> {
        let element = self.view.element();
        let live = combined_liveness(&[time, packet]);
        let mut read = vec![false; element.size()];
        for (q, o) in seq.offsets().enumerate() {
            if live[q] && o < read.len() {
                read[o] = true;
            }
        }
        for (p, done) in read.iter().enumerate() {
            let cell = self.view.cell(p);
            if !done && cell.is_live() {
                return Err(FetchError::Unread {
                    index: cell.to_string(),
                    element: element.m_notation(),
                    time: time.m_notation(),
                    packet: packet.m_notation(),
                });
            }
        }
        Ok(())
    }

    /// `.fetch::<OutTime, OutPacket>()`: the `FetchTensor` whose live cells hold the DM codes
    /// the loops read in every slice; dead cells hold 0.
    pub fn fetch(self, time: &Mapping, packet: &Mapping) -> Result<StreamTensor, FetchError> {
        let plan = self.plan(time, packet)?;
        let tensor = self.view.tensor();
        let dtype = tensor.dtype();
        let spatial = [tensor.chip(), tensor.cluster(), tensor.slice()];
        let element = self.view.element();
        let (e_size, tp) = (element.size(), time.size() * packet.size());
        let blocks: usize = spatial.iter().map(|m| m.size()).product();
        let source = combined_liveness(&[spatial[0], spatial[1], spatial[2], element]);
        let live = combined_liveness(&[spatial[0], spatial[1], spatial[2], time, packet]);
        let offsets: Vec<usize> = plan.sequencer.offsets().collect();
        let (clusters, slices) = (spatial[1].size(), spatial[2].size());
        let mut codes = vec![0u64; blocks * tp];
        for b in 0..blocks {
            let (chip, cluster, slice) =
                (b / (clusters * slices), b / slices % clusters, b % slices);
            for (q, &o) in offsets.iter().enumerate() {
                if !live[b * tp + q] || o >= e_size || !source[b * e_size + o] {
                    continue;
                }
                let place = Place {
                    chip,
                    cluster,
                    slice,
                    element: self.view.base_offset() + o,
                };
                codes[b * tp + q] = tensor.read_code(self.dm, &place)?;
            }
        }
        fetched_stream(dtype, &codes, spatial, time, packet)
    }
}

/// The stream a fetch delivers: `codes` (one per cell, block-major) over the tensor's chip,
/// cluster and slice mappings and the fetch's time and packet.
pub(crate) fn fetched_stream(
    dtype: DType,
    codes: &[u64],
    spatial: [&Mapping; 3],
    time: &Mapping,
    packet: &Mapping,
) -> Result<StreamTensor, FetchError> {
    let data = Codes::from_u64(dtype, codes).map_err(|b| TensorError::BadCode {
        index: b.index,
        code: b.code,
        dtype,
    })?;
    let dims = [
        spatial[0].clone(),
        spatial[1].clone(),
        spatial[2].clone(),
        time.clone(),
        packet.clone(),
    ];
    Ok(StreamTensor::from_codes(
        dtype,
        Position::Fetch,
        dims,
        data,
    )?)
}

/// Elements one read moves for the loops `seq`: the largest divisor of the access size whose
/// byte size is 1, 2, 4, 8, 16 or 32 and, when a cast to `cast` follows, whose converted
/// output fits one 32-byte flit.
pub(crate) fn read_elems(
    seq: &Sequencer,
    cast: Option<DType>,
    dtype: DType,
) -> Result<usize, FetchError> {
    let largest = seq.hardware_access_elems().map(|d| match cast {
        // The largest divisor of `d` (itself of an allowed byte size, so its divisors are
        // too, halving) whose cast output fits a flit.
        Some(out) => {
            let mut e = d;
            while e > 1 && e * out.bits() > 256 && e.is_multiple_of(2) {
                e /= 2;
            }
            e
        }
        None => d,
    });
    largest.ok_or(FetchError::NoReadSize {
        access: seq.access_elems(),
        dtype,
    })
}

/// The 8-byte packet rule at the consumer of a fetched stream (Switch or Collect; §4.3).
pub fn check_packet_alignment(stream: &StreamTensor) -> Result<(), FetchError> {
    let packet = stream.packet();
    let dtype = stream.dtype();
    let bits = packet.size() * dtype.bits();
    if !bits.is_multiple_of(8 * FETCH_ALIGN_BYTES) {
        return Err(FetchError::PacketAlignment {
            packet: packet.m_notation(),
            elements: packet.size(),
            dtype,
            bytes: bits / 8,
        });
    }
    Ok(())
}
