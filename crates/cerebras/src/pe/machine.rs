//! One processing element: its memory, FIFOs and DSRs, and the DSD operation engine.
//!
//! An operation runs in four steps (spec §11): operand validation (kinds, element types,
//! FIFO and DSR rules), length resolution (§4.1), the per-element engine (read every source,
//! compute, write the destination, then the next element), completion (FIFO lengths, DSR
//! `save_address`, pointer destinations). Its cycle estimate comes beside the result.

use npusim_hw::CycleEstimate;

use super::offsets::Offsets;
use super::port::{MemAt, Port, dsd_base, fabric_length, position};
use crate::arch::Arch;
use crate::dsd::{CircBuf, Dsd, DsdError, Fifo, FifoConfig, Mem4d};
use crate::elem::ElemTy;
use crate::fabric::PeQueues;
use crate::ids::LocalTaskId;
use crate::memory::PeMemory;
use crate::ops::Fp16Format;
use crate::ops::Op;
use crate::ops::OpError;
use crate::ops::{DsrId, FifoId, Operand};

/// Which operand's length an operation takes (spec §4.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum LengthPolicy {
    /// The hardware rule (default): the first operand with a non-zero length in the order
    /// sources, destination; 1 if none. Other operands are walked for that length.
    #[default]
    HardwarePriority,
    /// Like the hardware rule, but operands whose lengths disagree are an error.
    Strict,
}

/// The DSR files (spec §3).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DsrFile {
    /// `dsr_dest`: destination only.
    Dest,
    /// `dsr_src0`: source or destination.
    Src0,
    /// `dsr_src1`: source only.
    Src1,
}

/// A loaded DSR.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Dsr {
    /// Its file.
    pub file: DsrFile,
    /// The DSD loaded.
    pub dsd: Dsd,
    /// Whether each operation moves the DSD past the elements it used (spec §3).
    pub save_address: bool,
    /// A circular buffer's head.
    pub head: u16,
}

/// The configuration struct of an operation (the part that needs no fabric).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OpConfig {
    /// `.index`: words added to operands with `wavelet_index_offset`.
    pub index: Option<u16>,
}

/// What an operation did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The builtin's `bool`: false only when a FIFO `test_or_suspend` event cut it short.
    pub completed: bool,
    /// Elements processed.
    pub elements: u64,
    /// Tasks activated by FIFO push/pop events, in order.
    pub activated: Vec<LocalTaskId>,
    /// The cycle estimate (model `cerebras-simd-v1`), never part of the result.
    pub cycles: CycleEstimate,
    /// Colors whose switch position advances (a fabout with `advance_switch`): the op's last
    /// wavelet carries the request and the sending router applies it once it forwarded it.
    pub advance_switch: Vec<crate::fabric::Color>,
    /// The operation ended on a control wavelet (`on_control`).
    pub control_ended: bool,
}

/// One processing element.
#[derive(Clone, Debug)]
pub struct Pe {
    /// Its memory.
    pub mem: PeMemory,
    /// The length rule.
    pub length_policy: LengthPolicy,
    /// The FP16 type the `h` operations compute in. Build `f16` scalars for it with
    /// [`Fp16Format::scalar`] ([`crate::ops::Scalar::f16`] is IEEE binary16), and read `f16` bits
    /// back with [`Fp16Format::value`].
    pub fp16: Fp16Format,
    pub(super) fifos: Vec<Fifo>,
    pub(super) dsrs: Vec<Dsr>,
    /// The input and output queues between the router and this PE (fabric operands).
    pub queues: PeQueues,
}

impl Pe {
    /// A PE of `arch` with empty memory.
    pub fn new(arch: Arch) -> Pe {
        Pe {
            mem: PeMemory::new(arch),
            length_policy: LengthPolicy::default(),
            fp16: Fp16Format::default(),
            fifos: Vec::new(),
            dsrs: Vec::new(),
            queues: PeQueues::new(arch),
        }
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.mem.arch()
    }

    /// `@allocate_fifo(buffer, config)` over the declared array `buffer`.
    ///
    /// A buffer declared without an explicit alignment is aligned by declaration (the
    /// compiler's forcing, seed 004); one declared with an alignment below
    /// [`Arch::fifo_min_align_bytes`] is an error.
    pub fn allocate_fifo(&mut self, buffer: &str, config: FifoConfig) -> Result<FifoId, OpError> {
        let array = self.mem.array(buffer)?;
        let min = self.arch().fifo_min_align_bytes();
        if let Some(align) = array.align
            && align < min
        {
            return Err(DsdError::FifoAlign {
                buffer: buffer.to_string(),
                align,
                min,
                arch: self.arch(),
            }
            .into());
        }
        let base = array.base();
        let fifo = Fifo::allocate(self.arch(), base, config)?;
        self.fifos.push(fifo);
        Ok(FifoId(self.fifos.len() - 1))
    }

    /// The FIFO's state.
    pub fn fifo(&self, id: FifoId) -> Result<&Fifo, OpError> {
        self.fifos.get(id.0).ok_or(OpError::UnknownHandle {
            what: "FIFO",
            id: id.0,
        })
    }

    pub(super) fn fifo_mut(&mut self, id: usize) -> Result<&mut Fifo, OpError> {
        self.fifos
            .get_mut(id)
            .ok_or(OpError::UnknownHandle { what: "FIFO", id })
    }

    /// `@set_fifo_read_length(fifo, length)`, in place.
    pub fn set_fifo_read_length(&mut self, id: FifoId, length: i64) -> Result<(), OpError> {
        Ok(self.fifo_mut(id.0)?.set_read_length(length)?)
    }

    /// `@set_fifo_write_length(fifo, length)`, in place.
    pub fn set_fifo_write_length(&mut self, id: FifoId, length: i64) -> Result<(), OpError> {
        Ok(self.fifo_mut(id.0)?.set_write_length(length)?)
    }

    /// The FIFO's contents, oldest first, as raw bits.
    pub fn fifo_contents(&self, id: FifoId) -> Result<Vec<u32>, OpError> {
        let f = self.fifo(id)?;
        let cap = f.capacity().max(1);
        (0..f.count)
            .map(|k| {
                let slot = i64::from((f.head + k) % cap);
                Ok(self
                    .mem
                    .load(f.buffer.element_word(slot, 0), f.buffer.elem)?)
            })
            .collect()
    }

    /// `@load_to_dsr(dsr, dsd, .{.save_address})`: a mem1d into a DSR (mem4d needs
    /// [`Pe::load_to_dsr_xdsr_sr`], a circular buffer [`Pe::load_to_dsr_xdsr`]).
    pub fn load_to_dsr(
        &mut self,
        file: DsrFile,
        dsd: &Dsd,
        save_address: bool,
    ) -> Result<DsrId, OpError> {
        match dsd {
            Dsd::Mem1d(_) => {}
            Dsd::Mem4d(_) => {
                return Err(OpError::Load {
                    builtin: "@load_to_dsr",
                    rule: "a mem4d_dsd needs @load_to_dsr_xdsr_sr",
                });
            }
            Dsd::CircBuf(_) => {
                return Err(OpError::Load {
                    builtin: "@load_to_dsr",
                    rule: "a circbuf_dsd needs @load_to_dsr_xdsr",
                });
            }
            Dsd::FabIn(_) | Dsd::FabOut(_) => {}
        }
        Ok(self.push_dsr(file, dsd.clone(), save_address))
    }

    /// `@load_to_dsr_xdsr(dsr, xdsr, circbuf, .{.save_address})`.
    pub fn load_to_dsr_xdsr(
        &mut self,
        file: DsrFile,
        circbuf: &CircBuf,
        save_address: bool,
    ) -> Result<DsrId, OpError> {
        Ok(self.push_dsr(file, Dsd::CircBuf(circbuf.clone()), save_address))
    }

    /// `@load_to_dsr_xdsr_sr(dsr, xdsr, srs, mem4d, .{.save_address})`.
    pub fn load_to_dsr_xdsr_sr(
        &mut self,
        file: DsrFile,
        mem4d: &Mem4d,
        save_address: bool,
    ) -> Result<DsrId, OpError> {
        Ok(self.push_dsr(file, Dsd::Mem4d(mem4d.clone()), save_address))
    }

    fn push_dsr(&mut self, file: DsrFile, dsd: Dsd, save_address: bool) -> DsrId {
        self.dsrs.push(Dsr {
            file,
            dsd,
            save_address,
            head: 0,
        });
        DsrId(self.dsrs.len() - 1)
    }

    /// A loaded DSR.
    pub fn dsr(&self, id: DsrId) -> Result<&Dsr, OpError> {
        self.dsrs.get(id.0).ok_or(OpError::UnknownHandle {
            what: "DSR",
            id: id.0,
        })
    }

    /// The element type of a (non-scalar) operand.
    pub(super) fn elem_of(&self, o: &Operand) -> Result<Option<ElemTy>, OpError> {
        Ok(match o {
            Operand::Dsd(d) => dsd_base(d).map(|b| b.elem),
            Operand::Dsr(id) => dsd_base(&self.dsr(*id)?.dsd).map(|b| b.elem),
            Operand::Fifo(id) => Some(self.fifo(*id)?.buffer.elem),
            Operand::Scalar(s) => Some(s.ty),
            Operand::Ptr(b) => Some(b.elem),
        })
    }

    /// The operand's length (0: none), as source (`dest == false`) or destination.
    pub(super) fn length_of(&self, o: &Operand, dest: bool) -> Result<u64, OpError> {
        Ok(match o {
            Operand::Dsd(d) => fabric_length(d),
            Operand::Dsr(id) => fabric_length(&self.dsr(*id)?.dsd),
            Operand::Fifo(id) => {
                let f = self.fifo(*id)?;
                u64::from(if dest { f.write_length } else { f.read_length })
            }
            Operand::Scalar(_) | Operand::Ptr(_) => 0,
        })
    }

    pub(super) fn validate(&self, op: Op, ops: &[&Operand]) -> Result<(), OpError> {
        let is_form =
            |f: &&str| f.len() == ops.len() && f.chars().zip(ops).all(|(c, o)| c == o.letter());
        if !op.forms().iter().any(is_form) {
            let form: String = ops.iter().map(|o| o.letter()).collect();
            return Err(OpError::Form {
                op: op.name(),
                form,
                accepted: op.forms().join(", "),
            });
        }
        let classes = std::iter::once(op.dest_class()).chain(op.source_classes().iter().copied());
        for (k, (o, class)) in ops.iter().zip(classes).enumerate() {
            if let Operand::Dsd(d) = o {
                let why = match d {
                    Dsd::CircBuf(_) => {
                        Some("a circular buffer is usable only through a DSR (@load_to_dsr_xdsr)")
                    }
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
            }
            if let Operand::Dsr(id) = o {
                let file = self.dsr(*id)?.file;
                if (k == 0 && file == DsrFile::Src1) || (k > 0 && file == DsrFile::Dest) {
                    return Err(OpError::Kind {
                        op: op.name(),
                        kind: "DSR",
                        position: position(k),
                        why: "dsr_dest holds destinations only and dsr_src1 sources only",
                    });
                }
            }
            if let Some(ty) = self.elem_of(o)?
                && !class.admits(ty)
            {
                return Err(OpError::Type {
                    op: op.name(),
                    position: position(k),
                    found: ty,
                    expected: class,
                });
            }
        }
        self.validate_fabric(op, ops)?;
        // FIFO rules (seed 004; spec §0.2)
        let sources = &ops[1..];
        let fifos = ops.iter().filter(|o| matches!(o, Operand::Fifo(_))).count();
        if sources.len() > 1 {
            if fifos > 1 {
                return Err(OpError::FifoRule {
                    op: op.name(),
                    rule: "an operation with more than one source may have at most one FIFO operand",
                });
            }
            if matches!(sources.first(), Some(Operand::Fifo(_))) {
                return Err(OpError::FifoRule {
                    op: op.name(),
                    rule: "a FIFO cannot be the first source of an operation with more than one source",
                });
            }
        }
        Ok(())
    }

    pub(super) fn port(
        &self,
        op: Op,
        k: usize,
        o: &Operand,
        cfg: &OpConfig,
    ) -> Result<Port, OpError> {
        let index_of = |wio: bool| -> Result<u16, OpError> {
            match (wio, cfg.index) {
                (false, _) => Ok(0),
                (true, Some(i)) => Ok(i),
                (true, None) => Err(OpError::MissingIndex {
                    op: op.name(),
                    position: position(k),
                }),
            }
        };
        Ok(match o {
            Operand::Dsd(Dsd::FabIn(d)) => Port::FabIn(self.fabin_port(op, d)?),
            Operand::Dsd(Dsd::FabOut(d)) => {
                Port::FabOut(self.fabout_port(op, d, index_of(d.wavelet_index_offset)?)?)
            }
            Operand::Dsd(d) => self.mem_port(d, 0, &index_of)?,
            Operand::Dsr(id) => {
                let dsr = self.dsr(*id)?;
                match &dsr.dsd {
                    Dsd::FabIn(d) => Port::FabIn(self.fabin_port(op, d)?),
                    Dsd::FabOut(d) => {
                        Port::FabOut(self.fabout_port(op, d, index_of(d.wavelet_index_offset)?)?)
                    }
                    _ => self.mem_port(&dsr.dsd, dsr.head, &index_of)?,
                }
            }
            Operand::Fifo(id) => Port::Fifo(id.0),
            Operand::Scalar(s) => Port::Scalar(s.bits),
            Operand::Ptr(b) => Port::Ptr(MemAt::of(b)),
        })
    }

    pub(super) fn mem_port(
        &self,
        d: &Dsd,
        head: u16,
        index_of: &dyn Fn(bool) -> Result<u16, OpError>,
    ) -> Result<Port, OpError> {
        Ok(match d {
            Dsd::Mem1d(m) => Port::Mem {
                base: MemAt::of(&m.base),
                offsets: Offsets::Line {
                    next: i64::from(m.offset),
                    stride: i64::from(m.stride),
                },
                index: index_of(m.wavelet_index_offset)?,
            },
            Dsd::Mem4d(m) => Port::Mem {
                base: MemAt::of(&m.base),
                offsets: Offsets::walk(
                    i64::from(m.offset),
                    m.extent.clone(),
                    m.stride.iter().map(|&s| i64::from(s)).collect(),
                ),
                index: index_of(m.wavelet_index_offset)?,
            },
            Dsd::CircBuf(c) => {
                let wrap = i64::from(c.wraparound.max(1));
                let head = i64::from(head);
                Port::Mem {
                    base: MemAt::of(&c.base),
                    offsets: Offsets::Circular { head, n: 0, wrap },
                    index: 0,
                }
            }
            Dsd::FabIn(_) | Dsd::FabOut(_) => Port::Scalar(0),
        })
    }
}
