//! The port interface: what the operation engine and `@map` ask of an operand's [`Port`] for
//! one element — may it go, read its value, write a result — and what a port does when its
//! operation ends. Each operand kind (memory walk, pointer, scalar, FIFO, fabric input and
//! output) answers here, once, for every caller.

use super::machine::Pe;
use super::port::{Port, Wait};
use crate::dsd::FifoAction;
use crate::ids::LocalTaskId;
use crate::ops::{Op, OpError};

/// The element a port serves: the operation, the element's number and the operation's length,
/// and where FIFO events record the tasks they activate.
pub(super) struct ElementAt<'a> {
    /// The builtin.
    pub(super) op: Op,
    /// The element's number (from 0).
    pub(super) n: u64,
    /// The operation's length.
    pub(super) len: u64,
    /// Tasks activated by FIFO push/pop events.
    pub(super) activated: &'a mut Vec<LocalTaskId>,
}

/// Whether a port lets the element go.
pub(super) enum PortReady {
    /// It may go.
    Go,
    /// It waits on this.
    Wait(Wait),
    /// A control wavelet headed the fabric input and was consumed (`on_control`).
    ControlEnd,
}

/// What reading a source port gave.
pub(super) enum PortRead {
    /// The element's value.
    Value(u32),
    /// A FIFO source was empty: its event ran; `completed` is the builtin's result.
    FifoEmpty {
        /// The FIFO's handle.
        fifo: usize,
        /// The builtin's result.
        completed: bool,
    },
}

/// Where a destination port put a result.
pub(super) enum PortWrite {
    /// Stored (memory, FIFO, fabric output, or a pointer written at once).
    Stored,
    /// Kept for the caller's running register (a pointer written at the end, a scalar or a
    /// fabric input as destination).
    Kept,
}

impl Pe {
    /// Whether port `k` of an operation (0 = destination) lets element `at.n` go. A fabric
    /// input needs its wavelets (with `on_control`, a control wavelet at its head is
    /// consumed and ends the operation), a fabric output room; an asynchronous operation's
    /// FIFO with a suspending action waits for elements or room.
    pub(super) fn port_ready(
        &mut self,
        port: &Port,
        k: usize,
        (n, len): (u64, u64),
        asynchronous: bool,
        on_control: bool,
    ) -> Result<PortReady, OpError> {
        match port {
            Port::FabIn(p) => {
                let need = p.wavelets_needed(n, len);
                if need == 0 {
                    return Ok(PortReady::Go);
                }
                let q = self.queues.input_mut(p.queue);
                Ok(match q.as_ref().and_then(|q| q.peek(0)) {
                    None => PortReady::Wait(Wait::InputEmpty(p.queue)),
                    Some(w) if w.is_control() && on_control => {
                        if let Some(q) = q {
                            q.pop();
                        }
                        PortReady::ControlEnd
                    }
                    Some(_) if q.as_ref().is_some_and(|q| q.len() < need) => {
                        PortReady::Wait(Wait::InputEmpty(p.queue))
                    }
                    Some(_) => PortReady::Go,
                })
            }
            Port::FabOut(p)
                if self
                    .queues
                    .output(p.queue)
                    .is_none_or(|q| q.room() < p.room_needed(n, len)) =>
            {
                Ok(PortReady::Wait(Wait::OutputFull(p.queue)))
            }
            Port::Fifo(id) if asynchronous => {
                let f = self.fifo_mut(*id)?;
                let action = if k == 0 {
                    f.config.full_action
                } else {
                    f.config.empty_action
                };
                let suspends = matches!(
                    action.unwrap_or_default(),
                    FifoAction::TestOrSuspend | FifoAction::Suspend
                );
                let need = f.simd_need(n, len);
                if suspends && k == 0 && f.room() < need {
                    f.note_full(need);
                    return Ok(PortReady::Wait(Wait::FifoFull(*id)));
                }
                if suspends && k > 0 && f.count < need {
                    f.note_empty(need);
                    return Ok(PortReady::Wait(Wait::FifoEmpty(*id)));
                }
                Ok(PortReady::Go)
            }
            _ => Ok(PortReady::Go),
        }
    }

    /// A destination FIFO without room for element `at.n`: its full event runs and the FIFO's
    /// handle and the builtin's result are returned; `None` when there is room or the port is
    /// no FIFO.
    pub(super) fn port_full(
        &mut self,
        port: &Port,
        at: &ElementAt<'_>,
    ) -> Result<Option<(usize, bool)>, OpError> {
        let Port::Fifo(id) = *port else {
            return Ok(None);
        };
        let f = self.fifo_mut(id)?;
        let need = f.simd_need(at.n, at.len);
        if f.room() >= need {
            return Ok(None);
        }
        let completed = self.fifo_event(at.op, id, false, at.len - at.n, need)?;
        Ok(Some((id, completed)))
    }

    /// Reads element `at.n` from a source port: the next address of a memory walk, a
    /// pointer's element, a scalar (or `register` when the operation accumulates into it), a
    /// fabric input's wavelet (`words` 16-bit words per value), a FIFO's next element (its
    /// empty event when it has none). A fabric output as a source reads 0.
    pub(super) fn port_read(
        &mut self,
        port: &mut Port,
        at: &mut ElementAt<'_>,
        words: u32,
        register: Option<u32>,
    ) -> Result<PortRead, OpError> {
        let v = match port {
            Port::Mem {
                base,
                offsets,
                index,
            } => {
                let off = offsets.next().unwrap_or(0);
                self.mem.load(base.element_word(off, *index), base.elem)?
            }
            Port::Scalar(b) => register.unwrap_or(*b),
            Port::Ptr(b) => self.mem.load(b.word_addr, b.elem)?,
            Port::FabIn(p) => self.pop_fabin(at.op, p, words)?,
            Port::FabOut(_) => 0,
            Port::Fifo(id) => {
                let id = *id;
                let f = self.fifo_mut(id)?;
                let need = f.simd_need(at.n, at.len);
                let slot = if f.count >= need { f.pop_slot() } else { None };
                let Some(slot) = slot else {
                    let completed = self.fifo_event(at.op, id, true, at.len - at.n, need)?;
                    return Ok(PortRead::FifoEmpty {
                        fifo: id,
                        completed,
                    });
                };
                if f.pop_activates() {
                    at.activated.extend(f.config.activate_pop);
                }
                let (w, ty) = (f.buffer.element_word(slot, 0), f.buffer.elem);
                self.mem.load(w, ty)?
            }
        };
        Ok(PortRead::Value(v))
    }

    /// Writes result `r` of element `at.n` to a destination port: the next address of a
    /// memory walk, a FIFO's next slot, a fabric output's wavelet (`dest_words` words per
    /// value). A pointer is stored at once when `pointer_now`, else kept like a scalar or a
    /// fabric input destination.
    pub(super) fn port_write(
        &mut self,
        port: &mut Port,
        at: &mut ElementAt<'_>,
        r: u32,
        dest_words: u32,
        pointer_now: bool,
    ) -> Result<PortWrite, OpError> {
        match port {
            Port::Mem {
                base,
                offsets,
                index,
            } => {
                let off = offsets.next().unwrap_or(0);
                self.mem
                    .store(base.element_word(off, *index), base.elem, r)?;
            }
            Port::Fifo(id) => {
                let id = *id;
                let f = self.fifo_mut(id)?;
                let slot = f.push_slot().unwrap_or(0);
                if f.push_activates() {
                    at.activated.extend(f.config.activate_push);
                }
                let (w, ty) = (f.buffer.element_word(slot, 0), f.buffer.elem);
                self.mem.store(w, ty, r)?;
            }
            Port::FabOut(p) => {
                let last = at.n + 1 == at.len;
                self.push_fabout(at.op, p, r, dest_words, last)?;
            }
            Port::Ptr(b) if pointer_now => self.mem.store(b.word_addr, b.elem, r)?,
            Port::Ptr(_) | Port::Scalar(_) | Port::FabIn(_) => return Ok(PortWrite::Kept),
        }
        Ok(PortWrite::Stored)
    }

    /// Ends a destination port's operation: a fabric output holding half a SIMD wavelet
    /// sends it (high half 0) when its queue has room.
    pub(super) fn port_flush(&mut self, port: &mut Port, op: Op) -> Result<(), OpError> {
        if let Port::FabOut(p) = port
            && let Some(low) = p.pending.take()
            && self.queues.output(p.queue).is_some_and(|q| q.room() > 0)
        {
            let mut q = *p;
            self.push_fabout(op, &mut q, u32::from(low), 1, true)?;
        }
        Ok(())
    }

    /// An empty (`empty == true`) or full event on FIFO `id` with `remaining` elements of the
    /// operation left, the step having needed `need` elements (its SIMD group): sets the
    /// FIFO's length, records the event and applies the action.
    /// Returns the builtin's result.
    pub(super) fn fifo_event(
        &mut self,
        op: Op,
        id: usize,
        empty: bool,
        remaining: u64,
        need: u32,
    ) -> Result<bool, OpError> {
        let f = self.fifo_mut(id)?;
        let rem = remaining.min(u64::from(u16::MAX)) as u16;
        let action = if empty {
            f.read_length = rem;
            f.note_empty(need);
            f.config.empty_action
        } else {
            f.write_length = rem;
            f.note_full(need);
            f.config.full_action
        };
        let state = if empty { "empty" } else { "full" };
        match action.unwrap_or_default() {
            FifoAction::TestOrSuspend => Ok(false),
            FifoAction::Terminate => Ok(true),
            FifoAction::Suspend => Err(OpError::WouldSuspend {
                op: op.name(),
                fifo: f.buffer.name.clone(),
                state,
            }),
            FifoAction::Fault => Err(OpError::FifoFault {
                op: op.name(),
                fifo: f.buffer.name.clone(),
                state,
            }),
        }
    }
}
