//! The Collect Engine (`docs/furiosa-engines.md` §6): normalises a fetched (or switched)
//! stream's packets to 32-byte flits, the unit every later engine consumes.
//!
//! With `b` the element bits: the packet is padded (Top) to the next 32-byte boundary, then cut
//! at the flit: the inner `256 / b` elements are `Packet2`, the flit count becomes the innermost
//! part of `Time2`. Rules, in the order checked: the 8-byte packet rule of the Fetch Engine;
//! `Packet2` is one flit (`OutputNotOneFlit`); `Packet2 ≡ inner` (`PacketMismatch`);
//! `Time2 ≡ Time, outer` (`TimeMismatch`). Padding lanes hold 0. Rate (decision §6.2): one
//! output flit per cycle per slice, `Time2::SIZE` cycles.

use thiserror::Error;

use crate::engine::fetch::{FetchError, check_packet_alignment};
use crate::limits::FLIT_BYTES;
use crate::mapping::{Mapping, PaddingKind, ShapeError};
use crate::tensor::{Dim, Position};
use crate::{Codes, DType, StreamTensor, TensorError, TransitionError};

/// Why the Collect Engine refuses a stream.
#[derive(Debug, Error)]
pub enum CollectError {
    /// The method is not allowed at the tensor's position.
    #[error(transparent)]
    Transition(#[from] TransitionError),
    /// The incoming packet breaks the 8-byte rule.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The output packet is not one flit.
    #[error(
        "Packet2 = m![{packet2}] is {elements} x {dtype} = {bytes} bytes, not one 32-byte flit (rule: Collect outputs exactly one flit per packet, m![{expected}])"
    )]
    OutputNotOneFlit {
        /// The requested output packet.
        packet2: String,
        /// What it should be.
        expected: String,
        /// Element type.
        dtype: DType,
        /// Its elements.
        elements: usize,
        /// Its bytes.
        bytes: usize,
    },
    /// The output packet is not the inner flit of the padded packet.
    #[error(
        "Packet2 = m![{got}] is not the packet padded to whole flits and cut at the flit, m![{expected}] (input Packet = m![{packet}])"
    )]
    PacketMismatch {
        /// The input packet.
        packet: String,
        /// What Packet2 should be.
        expected: String,
        /// What was given.
        got: String,
    },
    /// The output time is not the input time with the flit count innermost.
    #[error(
        "Time2 = m![{got}] is not the input Time with the flit count innermost, m![{expected}] (input Packet = m![{packet}])"
    )]
    TimeMismatch {
        /// The input packet.
        packet: String,
        /// What Time2 should be.
        expected: String,
        /// What was given.
        got: String,
    },
    /// The padded packet cannot be cut (an internal shape error).
    #[error(transparent)]
    Shape(#[from] ShapeError),
    /// The output tensor cannot be built.
    #[error(transparent)]
    Tensor(#[from] TensorError),
}

/// `Time2` and `Packet2` the rules expect for a stream, and the flits per input packet.
fn expected(stream: &StreamTensor) -> Result<(Mapping, Mapping, usize), ShapeError> {
    let (time, packet, bits) = (stream.time(), stream.packet(), stream.dtype().bits());
    let in_bytes = (packet.size() * bits).div_ceil(8);
    let aligned = in_bytes.div_ceil(FLIT_BYTES) * FLIT_BYTES;
    let flit_elems = FLIT_BYTES * 8 / bits;
    let padded_elems = aligned * 8 / bits;
    let padded = if padded_elems == packet.size() {
        packet.clone()
    } else {
        packet.clone().pad(padded_elems, PaddingKind::Top)?
    };
    let flits = padded_elems / flit_elems;
    if flits == 1 {
        return Ok((time.clone(), padded, 1));
    }
    let outer = padded.clone().stride(flit_elems)?;
    let inner = padded.modulo(flit_elems)?;
    Ok((time.clone().pair(outer)?, inner, flits))
}

impl StreamTensor {
    /// `.collect::<Time2, Packet2>()` on a `FetchTensor` (forwarding), a Fetch Adapter output or
    /// a `SwitchTensor`: the `CollectTensor` of one 32-byte flit per packet.
    pub fn collect(self, time2: &Mapping, packet2: &Mapping) -> Result<StreamTensor, CollectError> {
        self.position().check_transition("collect")?;
        check_packet_alignment(&self)?;
        let dtype = self.dtype();
        let (want_time, want_packet, flits) = expected(&self)?;
        let bits = dtype.bits();
        if packet2.size() * bits != FLIT_BYTES * 8 {
            return Err(CollectError::OutputNotOneFlit {
                packet2: packet2.m_notation(),
                expected: want_packet.m_notation(),
                dtype,
                elements: packet2.size(),
                bytes: packet2.size() * bits / 8,
            });
        }
        if !packet2.equivalent(&want_packet) {
            return Err(CollectError::PacketMismatch {
                packet: self.packet().m_notation(),
                expected: want_packet.m_notation(),
                got: packet2.m_notation(),
            });
        }
        if !time2.equivalent(&want_time) {
            return Err(CollectError::TimeMismatch {
                packet: self.packet().m_notation(),
                expected: want_time.m_notation(),
                got: time2.m_notation(),
            });
        }
        let p = self.packet().size();
        let row = flits * packet2.size();
        let rows = self.codes().len() / p.max(1);
        let mut out = Codes::zeroed(dtype, rows * row);
        match (self.codes(), &mut out) {
            (Codes::U8(a), Codes::U8(b)) => relayout(a, b, p, row),
            (Codes::U16(a), Codes::U16(b)) => relayout(a, b, p, row),
            (Codes::U32(a), Codes::U32(b)) => relayout(a, b, p, row),
            _ => {}
        }
        let dims = [
            self.mapping(Dim::Chip).clone(),
            self.mapping(Dim::Cluster).clone(),
            self.mapping(Dim::Slice).clone(),
            time2.clone(),
            packet2.clone(),
        ];
        Ok(StreamTensor::from_codes(
            dtype,
            Position::Collect,
            dims,
            out,
        )?)
    }
}

/// Copies each input packet of `p` codes to the start of an output row of `row` codes (the
/// rest stays 0).
fn relayout<T: Copy>(input: &[T], out: &mut [T], p: usize, row: usize) {
    for (src, dst) in input.chunks_exact(p).zip(out.chunks_exact_mut(row)) {
        dst[..p].copy_from_slice(src);
    }
}

/// Cycles the Collect Engine streams a `CollectTensor` for: one flit per cycle per slice.
pub fn collect_cycles(collected: &StreamTensor) -> usize {
    collected.time().size()
}
