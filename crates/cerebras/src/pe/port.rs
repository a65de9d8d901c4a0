//! The port interface of the operation engine: how each operand of a running operation
//! produces or takes its elements (memory walk, FIFO, scalar, pointer, fabric queue), what a
//! waiting port waits on, and the fabric facts ports need (lengths, word counts, markers).

use std::fmt;

use super::offsets::Offsets;
use crate::dsd::{Base, Dsd, SimdMode};
use crate::elem::ElemTy;
use crate::fabric::{Color, InputQueue, OutputQueue, QueueRef};
use crate::ops::Class;

/// Where a memory operand's elements are: a [`Base`] without its name (nothing to allocate
/// when an operation starts).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct MemAt {
    /// Word address of element 0.
    pub(super) word_addr: i64,
    /// The element type.
    pub(super) elem: ElemTy,
}

impl MemAt {
    /// Where `base`'s elements are.
    pub(super) fn of(base: &Base) -> MemAt {
        MemAt {
            word_addr: base.word_addr,
            elem: base.elem,
        }
    }

    /// The word address of element offset `n` with wavelet index `index` added, as
    /// [`Base::element_word`].
    pub(super) fn element_word(&self, n: i64, index: u16) -> i64 {
        n.saturating_mul(i64::from(self.elem.words()))
            .saturating_add(self.word_addr)
            .saturating_add(i64::from(index))
    }
}

/// How an operand produces or takes element `n`.
pub(super) enum Port {
    Mem {
        base: MemAt,
        offsets: Offsets,
        index: u16,
    },
    Fifo(usize),
    Scalar(u32),
    Ptr(MemAt),
    FabIn(FabInPort),
    FabOut(FabOutPort),
}

impl Port {
    /// The fabric queue a fabric port uses.
    pub(super) fn queue(&self) -> Option<QueueRef> {
        match self {
            Port::FabIn(f) => Some(QueueRef::Input(f.queue)),
            Port::FabOut(f) => Some(QueueRef::Output(f.queue)),
            _ => None,
        }
    }

    /// The FIFO (by handle) a FIFO port uses.
    pub(super) fn fifo(&self) -> Option<usize> {
        match self {
            Port::Fifo(id) => Some(*id),
            _ => None,
        }
    }

    /// Where a memory port is in its walk (0 for other ports); `None` for a `mem4d` walk.
    pub(super) fn place(&self) -> Option<i64> {
        match self {
            Port::Mem { offsets, .. } => offsets.place(),
            _ => Some(0),
        }
    }

    /// Puts a memory port back to `place` of its walk (see [`Port::place`]).
    pub(super) fn set_place(&mut self, place: i64) {
        if let Port::Mem { offsets, .. } = self {
            offsets.set_place(place);
        }
    }

    /// Whether the port touches only its PE's memory or nothing (a memory walk, a scalar, a
    /// pointer): no FIFO, no fabric queue, nothing another thread or the routers change.
    pub(super) fn is_pe_local(&self) -> bool {
        matches!(self, Port::Mem { .. } | Port::Scalar(_) | Port::Ptr(_))
    }

    /// The color a fabric output port sends on.
    pub(super) fn fabout_color(&self) -> Option<Color> {
        match self {
            Port::FabOut(p) => Some(p.color),
            _ => None,
        }
    }
}

/// `extent = 0x7fff` means "infinite" for fabric DSDs (spec §2.7).
pub const INFINITE_EXTENT: u16 = 0x7fff;

/// The marker `control_transform` writes into index bits 15..14 (payload bits 31..30) of a
/// control wavelet stored as data (spec §0.4: 0b11, an inference).
pub const CONTROL_MARKER: u32 = 0b11 << 30;

/// The length of a DSD as an operand: a fabric DSD's extent `0x7fff` is unbounded.
pub(super) fn fabric_length(d: &Dsd) -> u64 {
    match d {
        Dsd::FabIn(f) if f.extent == INFINITE_EXTENT => u64::MAX,
        Dsd::FabOut(f) if f.extent == INFINITE_EXTENT => u64::MAX,
        // a SIMD fabric DSD's extent counts wavelets of two 16-bit values (spec §0.6)
        Dsd::FabOut(f) if f.simd_mode.is_some() => 2 * u64::from(f.extent),
        Dsd::FabIn(f) if f.simd_mode.is_some() => 2 * u64::from(f.extent),
        _ => d.length(),
    }
}

/// 16-bit words of a class's values.
pub(super) fn class_words(c: Class) -> u32 {
    match c {
        Class::Raw16 | Class::Int16 | Class::F16 => 1,
        Class::Raw32 | Class::F32 => 2,
    }
}

/// A fabin operand ready to run: the input queue it pops.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FabInPort {
    /// The input queue.
    pub queue: InputQueue,
    /// Mark control wavelets instead of losing the flag.
    pub control_transform: bool,
    /// SIMD mode: two 16-bit values per wavelet, low half first.
    pub simd: Option<SimdMode>,
    /// The high half of the last SIMD wavelet popped, not used yet.
    pub pending: Option<u16>,
}

impl FabInPort {
    /// Wavelets the input queue must hold for element `n` of `len`: none while half a SIMD
    /// wavelet is pending; for `simd_64` two at the start of each group of four elements that
    /// takes two wavelets (the seed: "two wavelets must be ready, otherwise the DSD operation
    /// stalls"); else one.
    pub fn wavelets_needed(&self, n: u64, len: u64) -> u32 {
        if self.pending.is_some() {
            return 0;
        }
        match self.simd {
            Some(SimdMode::Simd64) if n.is_multiple_of(4) && n.saturating_add(3) < len => 2,
            _ => 1,
        }
    }
}

/// A fabout operand ready to run: the output queue it pushes and how it builds wavelets.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FabOutPort {
    /// The output queue.
    pub queue: OutputQueue,
    /// The color of the wavelets.
    pub color: Color,
    /// Send control wavelets.
    pub control: bool,
    /// The index put in the high half of 16-bit results.
    pub index: u16,
    /// Rebuild marked control wavelets.
    pub control_transform: bool,
    /// Mark the operation's last wavelet to advance the color's switch.
    pub advance_switch: bool,
    /// SIMD mode: two 16-bit results per wavelet.
    pub simd: Option<SimdMode>,
    /// The low half of a SIMD wavelet waiting for its high half.
    pub pending: Option<u16>,
}

impl FabOutPort {
    /// Output-queue room element `n` of `len` needs: one wavelet per element without SIMD;
    /// with SIMD one when the element completes a pair or is the last, and, for `simd_64`,
    /// two at the start of each group of four elements that fills two wavelets.
    pub fn room_needed(&self, n: u64, len: u64) -> u32 {
        let Some(mode) = self.simd else {
            return 1;
        };
        if mode == SimdMode::Simd64 && n.is_multiple_of(4) && n.saturating_add(3) < len {
            return 2;
        }
        u32::from(self.pending.is_some() || n.saturating_add(1) == len)
    }
}

/// What a stalled operation waits for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Wait {
    /// A wavelet in this input queue.
    InputEmpty(InputQueue),
    /// Room in this output queue.
    OutputFull(OutputQueue),
    /// An element in this FIFO (by handle).
    FifoEmpty(usize),
    /// Room in this FIFO (by handle).
    FifoFull(usize),
}

impl fmt::Display for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wait::InputEmpty(q) => write!(f, "a wavelet in {q}"),
            Wait::OutputFull(q) => write!(f, "room in {q}"),
            Wait::FifoEmpty(id) => write!(f, "an element in FIFO {id}"),
            Wait::FifoFull(id) => write!(f, "room in FIFO {id}"),
        }
    }
}

/// How an operand is named in messages: `destination`, `source N`.
pub(super) fn position(k: usize) -> String {
    if k == 0 {
        "destination".to_string()
    } else {
        format!("source {}", k - 1)
    }
}

/// The memory base of a memory DSD.
pub(super) fn dsd_base(d: &Dsd) -> Option<&Base> {
    match d {
        Dsd::Mem1d(m) => Some(&m.base),
        Dsd::Mem4d(m) => Some(&m.base),
        Dsd::CircBuf(c) => Some(&c.base),
        Dsd::FabIn(_) | Dsd::FabOut(_) => None,
    }
}
