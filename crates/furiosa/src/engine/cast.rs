//! The Cast Engine (the Cast Engine page): narrows the one-flit `i32`/`f32` packets of a
//! Collect, Contraction or Vector-final stream to a lower-precision type and re-pads the packet
//! to one 32-byte output flit. Time and the spatial dimensions pass through.
//!
//! Rules, in the order checked:
//! 1. the tensor is at a position the Cast Engine reads (Collect, Contract, VectorFinal);
//! 2. `src → dst` is in the precision-lowering table (`i32 → i4, i8, i16`;
//!    `f32 → f8e5m2, f8e4m3, f16, bf16`);
//! 3. the input packet is exactly one flit: `Packet.SIZE · sizeof(src) = 32` bytes;
//! 4. the output packet is one flit of `dst`: `OutPacket.SIZE · sizeof(dst) = 32` bytes;
//! 5. `OutPacket ≡ Packet # (32 / sizeof(dst))` cell by cell: the same logical packet
//!    re-padded (nested Top paddings collapse: `(A # 8) # 32 ≡ A # 32`).
//!
//! Data: every physical cell is converted by the [`CastProfile`] (padding cells convert their
//! stored value), then the packet is laid out into `OutPacket`: live output cells take the
//! converted input element of the same position, padding cells hold 0.

use thiserror::Error;

use crate::limits::{FLIT, FLIT_BYTES};
use crate::profile::is_cast_pair;
use crate::tensor::Position;
use crate::{CastProfile, Codes, DType, Mapping, PaddingKind, Scalar, StreamTensor};

/// Why the Cast Engine refuses a stream.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum CastError {
    /// The tensor is not at a position the Cast Engine reads.
    #[error("the Cast Engine reads a CollectTensor, ContractTensor or VectorFinalTensor, not {0}")]
    Position(String),
    /// Not a precision-lowering pair.
    #[error(
        "the Cast Engine cannot cast `{src}` to `{dst}` (rule: i32 -> i4, i8, i16; f32 -> f8e5m2, f8e4m3, f16, bf16); input {stream}"
    )]
    Pair {
        /// The input stream: type, position and its five mappings in m-notation.
        stream: String,
        /// Input type.
        src: DType,
        /// Requested output type.
        dst: DType,
    },
    /// The input packet is not one flit.
    #[error(
        "input Packet = m![{packet}] is {elements} x {src} = {bytes} bytes, not one 32-byte flit (rule: the Cast Engine input packet is exactly one flit; output OutPacket = m![{out_packet}])"
    )]
    InputNotOneFlit {
        /// The input packet.
        packet: String,
        /// The requested output packet.
        out_packet: String,
        /// Input type.
        src: DType,
        /// Packet elements.
        elements: usize,
        /// Packet bytes.
        bytes: usize,
    },
    /// The output packet is not one flit.
    #[error(
        "OutPacket = m![{out_packet}] is {elements} x {dst} = {bytes} bytes, not one 32-byte flit (rule: the output packet is re-padded to one flit, m![{expected}]; input Packet = m![{packet}])"
    )]
    OutputNotOneFlit {
        /// The input packet.
        packet: String,
        /// The requested output packet.
        out_packet: String,
        /// What it should be.
        expected: String,
        /// Output type.
        dst: DType,
        /// Output packet elements.
        elements: usize,
        /// Output packet bytes.
        bytes: usize,
    },
    /// The output packet is not the re-padded input packet.
    #[error(
        "OutPacket = m![{out_packet}] is not the input Packet = m![{packet}] re-padded to one {dst} flit, m![{expected}] (first difference at position {position}: {difference})"
    )]
    PacketMismatch {
        /// The input packet.
        packet: String,
        /// The requested output packet.
        out_packet: String,
        /// What it should be.
        expected: String,
        /// Output type.
        dst: DType,
        /// First differing position.
        position: usize,
        /// The requested packet's cell there and the expected one.
        difference: String,
    },
}

/// Flits converted per block: the block's codes stay in cache between the conversion and the
/// layout.
const BLOCK_FLITS: usize = 512;

fn m(mapping: &Mapping) -> String {
    mapping.m_notation()
}

/// Runs the Cast Engine on `input` with `profile`, producing a `CastTensor` of `dst` whose
/// packet is `out_packet`.
pub fn cast_stream(
    input: &StreamTensor,
    dst: DType,
    out_packet: &Mapping,
    profile: &CastProfile,
) -> Result<StreamTensor, CastError> {
    let src = input.dtype();
    if !matches!(
        input.position(),
        Position::Collect | Position::Contract | Position::VectorFinal
    ) {
        return Err(CastError::Position(input.to_string()));
    }
    if !is_cast_pair(src, dst) {
        return Err(CastError::Pair {
            stream: input.to_string(),
            src,
            dst,
        });
    }
    let packet = input.packet();
    let elements = packet.size();
    let bytes = elements.saturating_mul(src.bits()) / 8;
    if FLIT.check(bytes as i128).is_err() || !(elements * src.bits()).is_multiple_of(8) {
        return Err(CastError::InputNotOneFlit {
            packet: m(packet),
            out_packet: m(out_packet),
            src,
            elements,
            bytes,
        });
    }
    let out_elements = dst.per_bytes(FLIT_BYTES);
    let expected = packet
        .clone()
        .pad(out_elements, PaddingKind::Top)
        .map_err(|_| CastError::InputNotOneFlit {
            packet: m(packet),
            out_packet: m(out_packet),
            src,
            elements,
            bytes,
        })?;
    let got_elements = out_packet.size();
    let got_bytes = got_elements.saturating_mul(dst.bits()) / 8;
    if got_elements != out_elements {
        return Err(CastError::OutputNotOneFlit {
            packet: m(packet),
            out_packet: m(out_packet),
            expected: m(&expected),
            dst,
            elements: got_elements,
            bytes: got_bytes,
        });
    }
    if let Some(position) = (0..out_elements).find(|&p| out_packet.cell(p) != expected.cell(p)) {
        return Err(CastError::PacketMismatch {
            packet: m(packet),
            out_packet: m(out_packet),
            expected: m(&expected),
            dst,
            position,
            difference: format!(
                "{} instead of {}",
                out_packet.cell(position),
                expected.cell(position)
            ),
        });
    }

    // Every input code is converted (a padding lane's too: its stored value, as the rule
    // says), then laid out flit by flit: live output lanes take the lane of the same position,
    // padding lanes hold 0.
    let live: Vec<bool> = (0..out_elements)
        .map(|p| p < elements && out_packet.cell(p).is_live())
        .collect();
    let words = input.codes().words();
    let flits = words.len() / elements;
    let mut data = Codes::zeroed(dst, flits * out_elements);
    let mut converted = vec![0u16; BLOCK_FLITS * elements];
    let blocks = words
        .chunks(BLOCK_FLITS * elements)
        .zip(0..flits.div_ceil(BLOCK_FLITS));
    for (words, block) in blocks {
        let converted = &mut converted[..words.len()];
        profile
            .convert_words(words, src, dst, converted)
            .ok_or_else(|| CastError::Pair {
                stream: input.to_string(),
                src,
                dst,
            })?;
        let at = block * BLOCK_FLITS * out_elements..;
        let flits = converted.chunks_exact(elements);
        match &mut data {
            Codes::U8(out) => lay_out(flits, &live, &mut out[at], |c| c as u8),
            Codes::U16(out) => lay_out(flits, &live, &mut out[at], |c| c),
            Codes::U32(out) => lay_out(flits, &live, &mut out[at], u32::from),
        }
    }
    drop(words);
    Ok(input.with(dst, Position::Cast, out_packet.clone(), data))
}

/// Writes each input flit's converted codes into the live lanes of its output flit (`out`
/// starts zeroed, so padding lanes hold 0).
fn lay_out<T>(
    flits: std::slice::ChunksExact<'_, u16>,
    live: &[bool],
    out: &mut [T],
    narrow: impl Fn(u16) -> T,
) {
    for (flit, out) in flits.zip(out.chunks_exact_mut(live.len().max(1))) {
        for ((o, &c), &l) in out.iter_mut().zip(flit).zip(live) {
            if l {
                *o = narrow(c);
            }
        }
    }
}

impl StreamTensor {
    /// `cast::<D2>(out_packet)`: the Cast Engine with Furiosa's conversion rules.
    ///
    /// ```
    /// use npusim_furiosa::{axes, m, StreamTensor};
    /// let ax = axes![B = 4, A = 8].unwrap();
    /// let one = m!(ax; 1).unwrap();
    /// let dims = [one.clone(), one.clone(), one, m!(ax; B).unwrap(), m!(ax; A).unwrap()];
    /// let values: Vec<i32> = (0..32).map(|i| i * 100).collect();
    /// let input = StreamTensor::collect_i32(dims, &values).unwrap();
    /// let out = input.cast::<i8>(&m!(ax; A # 32).unwrap()).unwrap();
    /// assert_eq!(out.ints()[1], 100);
    /// assert_eq!(out.ints()[2], -56); // 200 wraps
    /// ```
    pub fn cast<D2: Scalar>(&self, out_packet: &Mapping) -> Result<StreamTensor, CastError> {
        cast_stream(self, D2::DTYPE, out_packet, &CastProfile::default())
    }

    /// [`StreamTensor::cast`] with the output type given at run time and an explicit profile.
    pub fn cast_to(
        &self,
        dst: DType,
        out_packet: &Mapping,
        profile: &CastProfile,
    ) -> Result<StreamTensor, CastError> {
        cast_stream(self, dst, out_packet, profile)
    }
}
