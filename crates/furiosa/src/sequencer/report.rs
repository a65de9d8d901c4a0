//! The sequencer's configuration as plain data, for `furiosa map --sequence` text and JSON.

use serde::Serialize;

use super::{Entry, Sequencer, SequencerError};
use crate::DType;
use crate::mapping::Mapping;
use crate::mapping::sequence::Direction;

/// What `furiosa map --sequence` shows of a [`Sequencer`]: raw and configured entries, packet,
/// contiguous run and access sizes, all in elements.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SequenceReport {
    /// `read` or `write`.
    pub direction: &'static str,
    /// Bits of one element.
    pub elem_bits: usize,
    /// One entry per stream factor, outer to inner.
    pub raw: Vec<Entry>,
    /// The configured entries (merged only when the raw ones are more than 8).
    pub entries: Vec<Entry>,
    /// Elements per packet.
    pub packet: usize,
    /// Contiguous run in elements.
    pub run: usize,
    /// Largest access in elements, `gcd(packet, run)`.
    pub access: usize,
    /// Elements one main-context hardware access moves (`null` when none fits).
    pub hardware_access: Option<usize>,
    /// The configuration as the book prints it, `[8:32, 8:256, 16:1] : 16`.
    pub text: String,
}

impl From<&Sequencer> for SequenceReport {
    fn from(s: &Sequencer) -> SequenceReport {
        SequenceReport {
            direction: match s.direction() {
                Direction::Read => "read",
                Direction::Write => "write",
            },
            elem_bits: s.elem_bits(),
            raw: s.raw().to_vec(),
            entries: s.entries().to_vec(),
            packet: s.packet_elems(),
            run: s.contiguous_run(),
            access: s.access_elems(),
            hardware_access: s.hardware_access_elems(),
            text: s.to_string(),
        }
    }
}

/// What `furiosa map --sequence` prints: the sequencer of `time`/`packet` over the buffer
/// `element` of `dtype` elements, as plain data (serialisable to JSON).
///
/// ```
/// use npusim_furiosa::DType;
/// use npusim_furiosa::mapping::{Axes, Mapping, sequence::Direction};
/// use npusim_furiosa::sequencer::describe;
/// let ax = Axes::parse("X=48").unwrap();
/// let p = |s| Mapping::parse(s, &ax).unwrap();
/// let r = describe(&p("X"), &p("X / 24"), &p("X % 24"), DType::I8, Direction::Read).unwrap();
/// assert_eq!((r.text.as_str(), r.access, r.hardware_access), ("[2:24, 24:1] : 24", 24, Some(8)));
/// ```
pub fn describe(
    element: &Mapping,
    time: &Mapping,
    packet: &Mapping,
    dtype: DType,
    direction: Direction,
) -> Result<SequenceReport, SequencerError> {
    Sequencer::derive(element, time, packet, dtype, direction).map(|s| SequenceReport::from(&s))
}
