//! Why a stream access cannot be sequenced.

use thiserror::Error;

use crate::mapping::sequence::SequenceError;

/// Why a stream `Time`/`Packet` pair cannot be turned into DM sequencer loops.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SequencerError {
    /// The layouts do not nest into loops, or a write breaks the write rules.
    #[error(transparent)]
    Layout(#[from] SequenceError),
    /// The stream or the buffer has more positions than the model walks.
    #[error("the {what} has {positions} positions, more than the {limit} the model walks")]
    TooManyPositions {
        /// `stream (Time × Packet)` or `buffer`.
        what: &'static str,
        /// Its positions.
        positions: u128,
        /// The model's limit.
        limit: usize,
    },
    /// More than 8 entries even after merging.
    #[error(
        "the access needs {needed} sequencer entries {entries} after merging (rule: at most 8 entries)"
    )]
    TooManyEntries {
        /// Entries after merging.
        needed: usize,
        /// The merged entries, `[n:s, ...]`.
        entries: String,
    },
    /// An entry iterates more than 65,536 times.
    #[error(
        "sequencer entry {index} ({size}:{stride}) iterates {size} times (rule: at most 65536 per entry)"
    )]
    EntryTooLarge {
        /// The entry's index, 0 outermost.
        index: usize,
        /// Its size.
        size: usize,
        /// Its stride in elements.
        stride: usize,
    },
    /// The innermost entry walks memory with a stride above 1 inside a multi-element packet.
    #[error(
        "the innermost sequencer entry {size}:{stride} is strided and the packet has {packet} elements (rule: the innermost entry is contiguous, stride 0 or 1, unless the packet is one element)"
    )]
    StridedInnermost {
        /// Innermost size.
        size: usize,
        /// Innermost stride in elements.
        stride: usize,
        /// Packet elements.
        packet: usize,
    },
    /// An entry's stride is not a whole number of bytes.
    #[error(
        "sequencer entry {index} ({size}:{stride}) steps {stride} elements of {bits} bits, not a whole number of bytes"
    )]
    SubByteStride {
        /// The entry's index, 0 outermost.
        index: usize,
        /// Its size.
        size: usize,
        /// Its stride in elements.
        stride: usize,
        /// Bits per element.
        bits: usize,
    },
    /// One access is not a whole number of bytes.
    #[error("an access of {access} elements of {bits} bits is not a whole number of bytes")]
    SubByteAccess {
        /// Elements per access.
        access: usize,
        /// Bits per element.
        bits: usize,
    },
    /// A write whose loops reach past the end of the destination.
    #[error(
        "the write loops {entries} reach element {last} of a destination of {size} elements (rule: a write never goes past its tensor)"
    )]
    WriteOverrun {
        /// The final entries.
        entries: String,
        /// Highest element offset the loops give.
        last: usize,
        /// Elements of the destination (`Element` size).
        size: usize,
    },
}
