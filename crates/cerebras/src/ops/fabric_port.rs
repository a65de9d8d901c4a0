//! Fabric operands of DSD operations (seed 004, spec §5): a `fabin_dsd` element pops one
//! wavelet from its input queue, a `fabout_dsd` element pushes one wavelet into its output
//! queue. A 16-bit operation uses a fabin wavelet's low half and sends `index << 16 | value`
//! (index from `wavelet_index_offset`, else 0); a 32-bit operation uses all 32 bits.

use std::fmt;

use super::error::OpError;
use super::op::{Class, Op};
use super::operand::Operand;
use super::pe::{Pe, position};
use crate::arch::Arch;
use crate::dsd::{Dsd, FabIn, FabOut, SimdMode, ZeroSource};
use crate::fabric::{Color, Wavelet, WaveletKind};

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
    pub queue: u8,
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
    pub queue: u8,
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
    InputEmpty(u8),
    /// Room in this output queue.
    OutputFull(u8),
    /// An element in this FIFO (by handle).
    FifoEmpty(usize),
    /// Room in this FIFO (by handle).
    FifoFull(usize),
}

impl fmt::Display for Wait {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Wait::InputEmpty(q) => write!(f, "a wavelet in input queue {q}"),
            Wait::OutputFull(q) => write!(f, "room in output queue {q}"),
            Wait::FifoEmpty(id) => write!(f, "an element in FIFO {id}"),
            Wait::FifoFull(id) => write!(f, "room in FIFO {id}"),
        }
    }
}

impl Pe {
    /// The queue a fabin pops: `input_queue`, else (WSE-2) the color's default queue. On WSE-3
    /// a color named beside the queue must be the one the queue is initialized to.
    pub(super) fn fabin_port(&self, op: Op, d: &FabIn) -> Result<FabInPort, OpError> {
        let queue = match (d.input_queue, d.fabric_color) {
            (Some(q), Some(c)) if self.arch() == Arch::Wse3 => {
                let color = Color::new(i64::from(c))?;
                if self.queues.input_of(color) != Some(q) {
                    return Err(OpError::QueueColor {
                        op: op.name(),
                        kind: "fabin_dsd",
                        side: "input",
                        queue: q,
                        color: c,
                        bound: self.queues.color_of_input(q).map(|c| c.id()),
                    });
                }
                q
            }
            (Some(q), _) => q,
            (None, Some(c)) => {
                let c = Color::new(i64::from(c))?;
                self.queues.input_of(c).ok_or(OpError::FabricRule {
                    op: op.name(),
                    rule: "the fabin's color has no input queue (all eight serve other colors)",
                })?
            }
            (None, None) => {
                return Err(OpError::FabricRule {
                    op: op.name(),
                    rule: "a fabin_dsd needs an input_queue or a fabric_color",
                });
            }
        };
        Ok(FabInPort {
            queue,
            control_transform: d.control_transform,
            simd: d.simd_mode,
            pending: None,
        })
    }

    /// The queue and color a fabout pushes: `output_queue` (else, WSE-2, `color mod 6`) and
    /// `fabric_color` (else the color the queue is bound to). On WSE-3 a color named beside
    /// the queue must be the one the queue is initialized to.
    pub(super) fn fabout_port(
        &self,
        op: Op,
        d: &FabOut,
        index: u16,
    ) -> Result<FabOutPort, OpError> {
        if let (Some(c), Some(q), Arch::Wse3) = (d.fabric_color, d.output_queue, self.arch()) {
            let bound = self.queues.output_color(q).map(|c| c.id());
            if bound != Some(c) {
                return Err(OpError::QueueColor {
                    op: op.name(),
                    kind: "fabout_dsd",
                    side: "output",
                    queue: q,
                    color: c,
                    bound,
                });
            }
        }
        let color = match (d.fabric_color, d.output_queue) {
            (Some(c), _) => Color::new(i64::from(c))?,
            (None, Some(q)) => self.queues.output_color(q).ok_or(OpError::NoOutputColor {
                op: op.name(),
                queue: q,
            })?,
            (None, None) => {
                return Err(OpError::FabricRule {
                    op: op.name(),
                    rule: "a fabout_dsd needs an output_queue or a fabric_color",
                });
            }
        };
        let queue = d.output_queue.unwrap_or(color.id() % 6);
        Ok(FabOutPort {
            queue,
            color,
            control: d.control,
            index,
            control_transform: d.control_transform,
            advance_switch: d.advance_switch,
            simd: d.simd_mode,
            pending: None,
        })
    }

    /// Binds WSE-2 input queues to the colors of fabins: a fabin naming a color and a queue
    /// binds that queue to the color (what the compiler does for the SDK's usual form); one
    /// naming only a color gets the color's default queue (spec §0.3). WSE-3 binds queues only
    /// through `@initialize_queue`.
    pub(crate) fn bind_fabric_defaults(&mut self, all: &[&Operand]) -> Result<(), OpError> {
        for o in all {
            let d = match o {
                Operand::Dsd(Dsd::FabIn(d)) => d.clone(),
                Operand::Dsr(id) => match &self.dsr(*id)?.dsd {
                    Dsd::FabIn(d) => d.clone(),
                    _ => continue,
                },
                _ => continue,
            };
            match (d.input_queue, d.fabric_color) {
                (None, Some(c)) => {
                    self.queues.default_input(Color::new(i64::from(c))?);
                }
                (Some(q), Some(c)) if self.arch() == Arch::Wse2 => {
                    self.queues.bind_input(q, Color::new(i64::from(c))?)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The fabric rules of an operation: a fabin only as a source, a fabout only as the
    /// destination, at most one fabin on WSE-3, SIMD modes only with 16-bit values.
    pub(super) fn validate_fabric(&self, op: Op, ops: &[&Operand]) -> Result<(), OpError> {
        let mut fabins = 0;
        for (k, o) in ops.iter().enumerate() {
            let d = match o {
                Operand::Dsd(d) => d,
                Operand::Dsr(id) => &self.dsr(*id)?.dsd,
                _ => continue,
            };
            let why = match d {
                Dsd::FabIn(_) if k == 0 => Some("a fabin_dsd is a source, never the destination"),
                Dsd::FabOut(_) if k > 0 => Some("a fabout_dsd is the destination, never a source"),
                Dsd::FabIn(f)
                    if f.simd_mode.is_some()
                        && op
                            .source_classes()
                            .get(k - 1)
                            .is_none_or(|&c| class_words(c) != 1) =>
                {
                    Some("a SIMD mode packs 16-bit values; this operation reads 32-bit sources")
                }
                Dsd::FabIn(f) if f.simd_mode.is_some() && f.control_transform => Some(
                    "a SIMD wavelet's high half is a value, so it cannot carry the control_transform marker",
                ),
                Dsd::FabOut(f) if f.simd_mode.is_some() && class_words(op.dest_class()) != 1 => {
                    Some("a SIMD mode packs 16-bit values; this operation's results are 32-bit")
                }
                Dsd::FabOut(f) if f.simd_mode.is_some() && f.wavelet_index_offset => Some(
                    "a SIMD wavelet's high half is a value, so it cannot carry a wavelet_index_offset index",
                ),
                Dsd::FabOut(f) if f.zero == Some(ZeroSource::First) && ops.len() < 3 => Some(
                    "zero = first_source needs two sources; a one-source operation names second_source",
                ),
                _ => None,
            };
            if let Some(why) = why {
                return Err(OpError::Kind {
                    op: op.name(),
                    kind: d.kind(),
                    position: position(k),
                    why,
                });
            }
            if matches!(d, Dsd::FabIn(_)) {
                fabins += 1;
            }
        }
        if fabins > 1 && self.arch() == Arch::Wse3 {
            return Err(OpError::FabricRule {
                op: op.name(),
                rule: "on WSE-3 an operation may have only one fabric input (seed 004)",
            });
        }
        Ok(())
    }

    /// Pops the next wavelet of a fabin as an element of `words` 16-bit words (a SIMD fabin:
    /// the low half, keeping the high half for the next element). The caller has checked the
    /// queue holds one.
    pub(super) fn pop_fabin(
        &mut self,
        op: Op,
        p: &mut FabInPort,
        words: u32,
    ) -> Result<u32, OpError> {
        if let Some(high) = p.pending.take() {
            return Ok(u32::from(high));
        }
        let w =
            self.queues
                .input_mut(p.queue)
                .and_then(|q| q.pop())
                .ok_or(OpError::FabricRule {
                    op: op.name(),
                    rule: "internal: fabin popped from an empty queue",
                })?;
        let mut bits = w.payload;
        if p.control_transform {
            if w.payload & CONTROL_MARKER != 0 {
                return Err(OpError::ControlTransform {
                    op: op.name(),
                    payload: w.payload,
                });
            }
            if w.is_control() {
                bits |= CONTROL_MARKER;
            }
        }
        if p.simd.is_some() {
            p.pending = Some((bits >> 16) as u16);
        }
        Ok(if words == 1 { bits & 0xFFFF } else { bits })
    }

    /// Pushes a result element as one wavelet (`last`: the operation's last element). The
    /// caller has checked there is room.
    pub(super) fn push_fabout(
        &mut self,
        op: Op,
        p: &mut FabOutPort,
        r: u32,
        words: u32,
        last: bool,
    ) -> Result<(), OpError> {
        let mut payload = if p.simd.is_some() {
            let value = r & 0xFFFF;
            match p.pending.take() {
                Some(low) => (value << 16) | u32::from(low),
                None if last => value,
                None => {
                    p.pending = Some(value as u16);
                    return Ok(());
                }
            }
        } else if words == 1 {
            (u32::from(p.index) << 16) | (r & 0xFFFF)
        } else {
            r
        };
        let mut kind = if p.control {
            WaveletKind::Control
        } else {
            WaveletKind::Data
        };
        if p.control_transform && payload & CONTROL_MARKER == CONTROL_MARKER {
            payload &= !CONTROL_MARKER;
            kind = WaveletKind::Control;
        }
        let w = Wavelet {
            color: p.color,
            payload,
            kind,
            advance_switch: p.advance_switch && last,
        };
        self.queues
            .output_mut(p.queue)
            .ok_or(OpError::FabricRule {
                op: op.name(),
                rule: "the fabout's output queue does not exist on this architecture",
            })?
            .push(w)
            .map_err(|_| OpError::FabricRule {
                op: op.name(),
                rule: "internal: fabout pushed into a full queue",
            })
    }

    /// Zeroes the memory of source `which` after a fabout operation completed (`zero`).
    pub(super) fn zero_source(
        &mut self,
        srcs: &[Operand],
        which: ZeroSource,
    ) -> Result<(), OpError> {
        let k = match which {
            ZeroSource::First => 0,
            ZeroSource::Second => srcs.len().saturating_sub(1).min(1),
        };
        let d = match srcs.get(k) {
            Some(Operand::Dsd(d)) => d.clone(),
            Some(Operand::Dsr(id)) => self.dsr(*id)?.dsd.clone(),
            _ => return Ok(()),
        };
        let (Some(words), Some(base)) = (d.element_words(0), super::pe::dsd_base(&d)) else {
            return Ok(());
        };
        let ty = base.elem;
        for w in words {
            self.mem.store(w, ty, 0)?;
        }
        Ok(())
    }
}
