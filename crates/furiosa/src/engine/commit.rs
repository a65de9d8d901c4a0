//! The Commit Adapter's trim and the Commit Engine (`docs/furiosa-engines.md` §7, §8): a flit
//! stream written back to DM, run independently in every slice.
//!
//! * `commit_trim(packet)` keeps the leading `valid_size` elements of every flit; the kept
//!   width is 8, 16, 24 or 32 bytes and `packet ≡ Packet = packet.SIZE` (the leading
//!   elements). This is the "dense aggregation" of §7 (decision): consecutive trimmed packets
//!   land at consecutive addresses when they tile the `Element` layout; one write per packet.
//! * `commit_at(element, address)`: the write loops over the new tensor's `Element`; checks,
//!   in order: address a multiple of 8 (`AddressAlignment`), placement, no broadcast, every
//!   loop outside the innermost contiguous one steps a multiple of 8 bytes
//!   (`StrideAlignment`), every lane of every time step (live or dead) lands inside the
//!   tensor, on its own cell or on padding (`Overrun`, checked before the write rules of the
//!   sequencer), every live cell written (`Unwritten`, naming the first). Only live
//!   destination cells are stored (decision §8.2); padding keeps the DM fill byte.
//! * `write_size = gcd(valid_size, access_size)` bytes; cycles = `Time::SIZE × valid_size /
//!   write_size` (decision §8.2).

use thiserror::Error;

use crate::dm::{Dm, DmError, DmTensor, DmTensorView, Place};
use crate::mapping::sequence::Direction;
use crate::mapping::{Final, Mapping, ShapeError};
use crate::sequencer::{Sequencer, SequencerError};
use crate::tensor::{Dim, Position, combined_liveness};
use crate::{Codes, StreamTensor, TensorError, TransitionError};

/// Widths in bytes a trimmed flit may keep.
pub const TRIM_BYTES: [usize; 4] = [8, 16, 24, 32];

/// Why the Commit Adapter or the Commit Engine refuses a stream.
#[derive(Debug, Error)]
pub enum CommitError {
    /// The method is not allowed at the tensor's position.
    #[error(transparent)]
    Transition(#[from] TransitionError),
    /// The trimmed width is not 8, 16, 24 or 32 bytes.
    #[error(
        "commit_trim to m![{packet}] keeps {bytes} bytes per flit (rule: the trimmed width is 8, 16, 24 or 32 bytes)"
    )]
    InvalidWidth {
        /// The output packet.
        packet: String,
        /// Its bytes.
        bytes: usize,
    },
    /// The trimmed packet is not the leading elements of the flit.
    #[error(
        "commit_trim to m![{out_packet}] does not keep the leading elements of Packet = m![{packet}] (rule: OutPacket = Packet = OutPacket.SIZE)"
    )]
    PacketMismatch {
        /// The input packet.
        packet: String,
        /// The requested packet.
        out_packet: String,
    },
    /// The destination address is not a multiple of 8.
    #[error(
        "a commit to byte {address} is not 8-byte aligned (rule: commit addresses and strides are multiples of 8 bytes)"
    )]
    AddressAlignment {
        /// The address.
        address: usize,
    },
    /// A write loop steps a number of bytes that is not a multiple of 8.
    #[error(
        "write loop {entry} steps {bytes} bytes (rule: commit addresses and strides are multiples of 8 bytes)"
    )]
    StrideAlignment {
        /// The loop, `size:stride` in elements.
        entry: String,
        /// Its stride in bytes.
        bytes: usize,
    },
    /// A write loop broadcasts.
    #[error(
        "write loop {entry} has stride 0, a broadcast (rule: a write never broadcasts; every DM cell has one source)"
    )]
    Broadcast {
        /// The loop, `size:stride` in elements.
        entry: String,
    },
    /// A lane of a time step would write outside the tensor or over another live cell.
    #[error(
        "Time position {time} ({cell}) lane {lane} would write byte {byte}, which {clobbers} (rule: a write never leaves its tensor or lands on another live cell)"
    )]
    Overrun {
        /// Time position.
        time: usize,
        /// Its Time cell.
        cell: String,
        /// Lane in the trimmed packet.
        lane: usize,
        /// The byte it would write.
        byte: usize,
        /// What is there.
        clobbers: String,
    },
    /// `commit_cast` on a stream that is not `f32`.
    #[error(
        "commit_cast converts f32 to bf16, not {dtype} (rule: the Commit Adapter casts f32 -> bf16 only)"
    )]
    CastType {
        /// The stream's type.
        dtype: crate::DType,
    },
    /// `commit_cast` on a trimmed width other than 16 or 32 bytes.
    #[error(
        "commit_cast input of {commit_in_size} bytes per packet (rule: the trimmed f32 width is a multiple of {unit} bytes: {legal:?})"
    )]
    CastWidth {
        /// Trimmed bytes per packet.
        commit_in_size: usize,
        /// The unit.
        unit: usize,
        /// The widths accepted.
        legal: [usize; 2],
    },
    /// `commit_view` into a read view.
    #[error("commit_view writes through a mutable view (view_mut), not a read view")]
    ReadOnlyView,
    /// The stream's spatial mappings are not the destination's.
    #[error(
        "the stream's {dim} = m![{stream}] is not the destination's m![{tensor}] (rule: Commit keeps Chip, Cluster and Slice)"
    )]
    Spatial {
        /// `Chip`, `Cluster` or `Slice`.
        dim: &'static str,
        /// The stream's mapping.
        stream: String,
        /// The destination's mapping.
        tensor: String,
    },
    /// A live destination cell that no live stream cell writes.
    #[error(
        "Time = m![{time}], Packet = m![{packet}] never writes {first}, a live cell of m![{element}] (rule: a commit writes every live cell of its destination)"
    )]
    Unwritten {
        /// The first unwritten logical index.
        first: String,
        /// The destination's element mapping.
        element: String,
        /// Time mapping.
        time: String,
        /// Packet mapping.
        packet: String,
    },
    /// A main-context stage called in the sub context.
    #[error(transparent)]
    MainOnly(#[from] crate::engine::context::MainOnlyError),
    /// The write loops break the sequencer's rules.
    #[error(transparent)]
    Sequencer(#[from] SequencerError),
    /// Placement or a DM write failed.
    #[error(transparent)]
    Dm(#[from] DmError),
    /// A mapping cannot be built.
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// The output tensor cannot be built.
    #[error(transparent)]
    Tensor(#[from] TensorError),
}

/// What a commit does in one slice: the write loops, the write size and the cycles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommitPlan {
    /// The write loops over the destination's `Element`, in elements.
    pub sequencer: Sequencer,
    /// Bytes kept per packet (`valid_size`).
    pub valid_bytes: usize,
    /// Bytes of one write: `gcd(valid_size, access_size)`.
    pub write_bytes: usize,
    /// Writes per packet.
    pub writes_per_packet: usize,
    /// `Time::SIZE × valid_size / write_size`.
    pub cycles: usize,
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

impl StreamTensor {
    /// `.commit_trim::<OutPacket>()`: keeps the leading `OutPacket::SIZE` elements of every
    /// flit (a `CommitTrimTensor`).
    pub fn commit_trim(self, packet: &Mapping) -> Result<StreamTensor, CommitError> {
        self.position().check_transition("commit_trim")?;
        let bits = self.dtype().bits();
        let bits_out = packet.size() * bits;
        if !bits_out.is_multiple_of(8) || !TRIM_BYTES.contains(&(bits_out / 8)) {
            return Err(CommitError::InvalidWidth {
                packet: packet.m_notation(),
                bytes: bits_out / 8,
            });
        }
        let p = self.packet().size();
        let mismatch = || CommitError::PacketMismatch {
            packet: self.packet().m_notation(),
            out_packet: packet.m_notation(),
        };
        if packet.size() > p {
            return Err(mismatch());
        }
        let leading = self.packet().clone().resize(packet.size())?;
        if !packet.equivalent(&leading) {
            return Err(mismatch());
        }
        let n = packet.size();
        let data = match self.codes() {
            Codes::U8(v) => Codes::U8(trim(v, p, n)),
            Codes::U16(v) => Codes::U16(trim(v, p, n)),
            Codes::U32(v) => Codes::U32(trim(v, p, n)),
        };
        let dims = [
            self.mapping(Dim::Chip).clone(),
            self.mapping(Dim::Cluster).clone(),
            self.mapping(Dim::Slice).clone(),
            self.time().clone(),
            packet.clone(),
        ];
        Ok(StreamTensor::from_codes(
            self.dtype(),
            Position::CommitTrim,
            dims,
            data,
        )?)
    }

    /// The write loops, write size and cycles of `commit_at(element, address)`, with every rule
    /// checked (nothing is written).
    pub fn commit_plan(
        &self,
        element: &Mapping,
        address: usize,
    ) -> Result<CommitPlan, CommitError> {
        self.position().check_transition("commit")?;
        if !address.is_multiple_of(8) {
            return Err(CommitError::AddressAlignment { address });
        }
        let dtype = self.dtype();
        let bits = dtype.bits();
        let (time, packet) = (self.time(), self.packet());
        // The loops as the hardware runs them (a read derivation does not refuse overruns, so
        // that each lane's landing place can be named).
        let loops = Sequencer::derive(element, time, packet, dtype, Direction::Read)?;
        if let Some(e) = loops.raw().iter().find(|e| e.stride == 0) {
            // The write derivation names the broadcasting factor.
            Sequencer::derive(element, time, packet, dtype, Direction::Write)?;
            return Err(CommitError::Broadcast {
                entry: e.to_string(),
            });
        }
        let entries = loops.entries();
        for (i, e) in entries.iter().enumerate() {
            let innermost = i + 1 == entries.len() && e.stride == 1;
            let bytes = e.stride * bits / 8;
            if !innermost && (!(e.stride * bits).is_multiple_of(64)) {
                return Err(CommitError::StrideAlignment {
                    entry: e.to_string(),
                    bytes,
                });
            }
        }
        self.check_overrun(&loops, element, address)?;
        check_written(&loops, element, time, packet)?;
        let seq = Sequencer::derive(element, time, packet, dtype, Direction::Write)?;
        let valid_bytes = packet.size() * bits / 8;
        let access_bytes = seq.access_elems() * bits / 8;
        let write_bytes = gcd(valid_bytes, access_bytes).max(1);
        let writes_per_packet = valid_bytes / write_bytes;
        Ok(CommitPlan {
            sequencer: seq,
            valid_bytes,
            write_bytes,
            writes_per_packet,
            cycles: time.size() * writes_per_packet,
        })
    }

    /// Every lane of every time step lands inside the tensor, on the cell it holds or on
    /// padding.
    fn check_overrun(
        &self,
        loops: &Sequencer,
        element: &Mapping,
        address: usize,
    ) -> Result<(), CommitError> {
        let (time, packet) = (self.time(), self.packet());
        let stream = crate::tensor::combined_cells(&[time, packet]);
        let p = packet.size();
        let bits = self.dtype().bits();
        for (q, o) in loops.offsets().enumerate() {
            let here = if o < element.size() {
                element.cell(o)
            } else {
                Final::OutOfBounds
            };
            let fine = match (&stream[q], &here) {
                (_, Final::Padding(_)) => true,
                (Final::Live(a), Final::Live(b)) => a == b,
                _ => false,
            };
            if !fine {
                let clobbers = match here {
                    Final::Live(_) => format!("holds {here}"),
                    _ => format!("is past the end of m![{}]", element.m_notation()),
                };
                return Err(CommitError::Overrun {
                    time: q / p,
                    cell: time.cell(q / p).to_string(),
                    lane: q % p,
                    byte: address + o * bits / 8,
                    clobbers,
                });
            }
        }
        Ok(())
    }

    /// `.commit::<Element>(address)` (0.3.0's form): places a new `DmTensor` of `element` at
    /// `address` in every slice of the stream and writes its live cells; padding keeps what DM
    /// held.
    pub fn commit_at(
        self,
        dm: &mut Dm,
        element: &Mapping,
        address: usize,
    ) -> Result<(DmTensor, CommitPlan), CommitError> {
        let plan = self.commit_plan(element, address)?;
        let spatial = [
            self.mapping(Dim::Chip),
            self.mapping(Dim::Cluster),
            self.mapping(Dim::Slice),
        ];
        let tensor = DmTensor::from_addr(
            dm,
            self.dtype(),
            spatial[0],
            spatial[1],
            spatial[2],
            element,
            address,
        )?;
        self.write_cells(dm, &tensor, 0, &plan, |o| element.cell(o).is_live())?;
        Ok((tensor, plan))
    }
    /// Stores every live stream cell whose destination cell (position `o` of the written
    /// `Element`, tensor position `base + o`) is live.
    fn write_cells(
        &self,
        dm: &mut Dm,
        tensor: &DmTensor,
        base: usize,
        plan: &CommitPlan,
        dest_live: impl Fn(usize) -> bool,
    ) -> Result<(), CommitError> {
        let spatial = [
            self.mapping(Dim::Chip),
            self.mapping(Dim::Cluster),
            self.mapping(Dim::Slice),
        ];
        let (time, packet) = (self.time(), self.packet());
        let tp = time.size() * packet.size();
        let live = combined_liveness(&[spatial[0], spatial[1], spatial[2], time, packet]);
        let offsets: Vec<usize> = plan.sequencer.offsets().collect();
        let span = offsets.iter().max().map_or(0, |m| m + 1);
        let dest: Vec<bool> = (0..span).map(dest_live).collect();
        let (clusters, slices) = (spatial[1].size(), spatial[2].size());
        let blocks = spatial[0].size() * clusters * slices;
        for b in 0..blocks {
            let (chip, cluster, slice) =
                (b / (clusters * slices), b / slices % clusters, b % slices);
            for (q, &o) in offsets.iter().enumerate() {
                if !live[b * tp + q] || !dest[o] {
                    continue;
                }
                let code = self.codes().get(b * tp + q).unwrap_or_default();
                let place = Place {
                    chip,
                    cluster,
                    slice,
                    element: base + o,
                };
                tensor.write_code(dm, &place, code)?;
            }
        }
        Ok(())
    }

    /// `.commit_view(dst)`: writes the stream into an existing mutable view (a whole tensor or
    /// a tile); cells outside the tile (`Bottom`) and the tensor's padding are never written.
    pub fn commit_view(self, dm: &mut Dm, dst: &DmTensorView) -> Result<CommitPlan, CommitError> {
        if !dst.is_mutable() {
            return Err(CommitError::ReadOnlyView);
        }
        let tensor = dst.tensor();
        for (dim, mine, theirs) in [
            ("Chip", self.mapping(Dim::Chip), tensor.chip()),
            ("Cluster", self.mapping(Dim::Cluster), tensor.cluster()),
            ("Slice", self.mapping(Dim::Slice), tensor.slice()),
        ] {
            if !mine.equivalent(theirs) {
                return Err(CommitError::Spatial {
                    dim,
                    stream: mine.m_notation(),
                    tensor: theirs.m_notation(),
                });
            }
        }
        let plan = self.commit_plan(dst.element(), dst.address())?;
        self.write_cells(dm, tensor, dst.base_offset(), &plan, |o| {
            dst.cell(o).is_live()
        })?;
        Ok(plan)
    }
}

/// Every live cell of `element` is written by a live stream cell.
fn check_written(
    loops: &Sequencer,
    element: &Mapping,
    time: &Mapping,
    packet: &Mapping,
) -> Result<(), CommitError> {
    let live = combined_liveness(&[time, packet]);
    let mut written = vec![false; element.size()];
    for (q, o) in loops.offsets().enumerate() {
        if live[q] && o < written.len() {
            written[o] = true;
        }
    }
    for (p, done) in written.iter().enumerate() {
        let cell = element.cell(p);
        if !done && cell.is_live() {
            return Err(CommitError::Unwritten {
                first: cell.to_string(),
                element: element.m_notation(),
                time: time.m_notation(),
                packet: packet.m_notation(),
            });
        }
    }
    Ok(())
}

/// The leading `n` of every `p` codes.
fn trim<T: Copy>(v: &[T], p: usize, n: usize) -> Vec<T> {
    v.chunks_exact(p)
        .flat_map(|c| c[..n].iter().copied())
        .collect()
}
