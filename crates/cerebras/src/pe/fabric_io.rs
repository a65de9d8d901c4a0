//! Fabric operands of DSD operations (seed 004, spec §5): a `fabin_dsd` element pops one
//! wavelet from its input queue, a `fabout_dsd` element pushes one wavelet into its output
//! queue. A 16-bit operation uses a fabin wavelet's low half and sends `index << 16 | value`
//! (index from `wavelet_index_offset`, else 0); a 32-bit operation uses all 32 bits.

use super::machine::Pe;
use super::port::{CONTROL_MARKER, FabInPort, FabOutPort, class_words, position};
use crate::arch::Arch;
use crate::dsd::{Dsd, FabIn, FabOut, ZeroSource};
use crate::fabric::{Color, OutputQueue, Wavelet, WaveletKind};
use crate::ops::Op;
use crate::ops::OpError;
use crate::ops::Operand;

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
                        queue: q.id(),
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
                    queue: q.id(),
                    color: c,
                    bound,
                });
            }
        }
        let color = match (d.fabric_color, d.output_queue) {
            (Some(c), _) => Color::new(i64::from(c))?,
            (None, Some(q)) => self.queues.output_color(q).ok_or(OpError::NoOutputColor {
                op: op.name(),
                queue: q.id(),
            })?,
            (None, None) => {
                return Err(OpError::FabricRule {
                    op: op.name(),
                    rule: "a fabout_dsd needs an output_queue or a fabric_color",
                });
            }
        };
        let queue = d
            .output_queue
            .unwrap_or(OutputQueue::ALL[usize::from(color.id() % 6)]);
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
        let (Some(words), Some(base)) = (d.element_words(0), super::port::dsd_base(&d)) else {
            return Ok(());
        };
        let ty = base.elem;
        for w in words {
            self.mem.store(w, ty, 0)?;
        }
        Ok(())
    }
}
