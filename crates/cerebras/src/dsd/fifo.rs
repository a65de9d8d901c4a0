//! FIFOs: `@allocate_fifo(buffer, config)` over a global array (seed 004, spec §2.8).
//!
//! The FIFO is a ring over the buffer's elements; its capacity is the buffer's element count
//! (spec §12 D's assumption). Read and write lengths start at 0 and change in place.

use std::fmt;

use super::base::Base;
use super::error::DsdError;
use super::fabric::{Priority, SimdMode};
use crate::arch::Arch;
use crate::ids::LocalTaskId;
use crate::limits::LENGTH;

/// What an operation does on reading an empty / writing a full FIFO (seed 004).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FifoAction {
    /// Synchronous: terminate and return false; asynchronous: suspend (the default).
    #[default]
    TestOrSuspend,
    /// Terminate and return true.
    Terminate,
    /// Suspend until the FIFO is no longer empty/full (WSE-3 only).
    Suspend,
    /// Halt with an unrecoverable fault (WSE-3 only).
    Fault,
}

impl FifoAction {
    fn csl(self) -> &'static str {
        match self {
            FifoAction::TestOrSuspend => ".{ .test_or_suspend = true }",
            FifoAction::Terminate => ".{ .terminate = true }",
            FifoAction::Suspend => ".{ .suspend = true }",
            FifoAction::Fault => ".{ .fault = true }",
        }
    }
}

/// The optional configuration of `@allocate_fifo`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FifoConfig {
    /// Action on reading an empty FIFO.
    pub empty_action: Option<FifoAction>,
    /// Action on writing a full FIFO (WSE-3 only).
    pub full_action: Option<FifoAction>,
    /// Local task activated on pop after a full event.
    pub activate_pop: Option<LocalTaskId>,
    /// Local task activated on push after an empty event.
    pub activate_push: Option<LocalTaskId>,
    /// Microthread priority (WSE-3 only).
    pub priority: Option<Priority>,
    /// SIMD mode (WSE-2 only).
    pub simd_mode: Option<SimdMode>,
}

/// A FIFO DSD and its state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Fifo {
    /// The buffer (a whole tensor).
    pub buffer: Base,
    /// Its configuration.
    pub config: FifoConfig,
    /// Length bounding the next read (0: no length; spec §0.5).
    pub read_length: u16,
    /// Length bounding the next write.
    pub write_length: u16,
    /// Ring position of the next pop.
    pub head: u32,
    /// Elements held.
    pub count: u32,
    /// A read found the FIFO empty and no push has since made data available (the
    /// `activate_push` condition).
    pub empty_event: bool,
    /// A write found the FIFO full and no pop has since made room (the `activate_pop`
    /// condition).
    pub full_event: bool,
    /// Elements the read that hit the empty event needed (its SIMD group; 1 without SIMD):
    /// `activate_push` fires on the push that makes this many available.
    pub empty_need: u32,
    /// Free elements the write that hit the full event needed: `activate_pop` fires on the
    /// pop that makes this much room.
    pub full_need: u32,
}

impl Fifo {
    /// `@allocate_fifo(buffer, config)` on `arch`.
    pub fn allocate(arch: Arch, buffer: Base, config: FifoConfig) -> Result<Fifo, DsdError> {
        let Some(_) = buffer.elements else {
            return Err(DsdError::WrongKind {
                builtin: "@allocate_fifo",
                kind: "pointer to a scalar (it needs a global array)",
            });
        };
        if arch == Arch::Wse2 {
            if config.full_action.is_some() {
                return Err(DsdError::Arch {
                    what: "@allocate_fifo .full_action".into(),
                    arch,
                });
            }
            if matches!(
                config.empty_action,
                Some(FifoAction::Suspend | FifoAction::Fault)
            ) {
                return Err(DsdError::Arch {
                    what: "FIFO action suspend/fault".into(),
                    arch,
                });
            }
            if config.priority.is_some() {
                return Err(DsdError::Arch {
                    what: "@allocate_fifo .priority".into(),
                    arch,
                });
            }
        } else if config.simd_mode.is_some() {
            return Err(DsdError::Arch {
                what: format!("@allocate_fifo({}) .simd_mode", buffer.name),
                arch,
            });
        }
        if config.simd_mode.is_some() && buffer.elem.words() != 1 {
            return Err(DsdError::FifoSimdElem {
                buffer: buffer.name.clone(),
                elem: buffer.elem.to_string(),
            });
        }
        Ok(Fifo {
            buffer,
            config,
            read_length: 0,
            write_length: 0,
            head: 0,
            count: 0,
            empty_event: false,
            full_event: false,
            empty_need: 1,
            full_need: 1,
        })
    }

    /// Elements a push needs free (a pop needs held) before element `n` of an operation of
    /// `len` elements, from the FIFO's SIMD mode (WSE-2; `DECISIONS_PART2.md`): without SIMD
    /// one; `simd_32` and `simd_32_or_64` move 16-bit values in pairs (one 32-bit wavelet's
    /// worth), so two at the start of each pair; `simd_64` needs two pairs at the start of
    /// each group of four that fills both. A tail shorter than the group needs what is left.
    pub fn simd_need(&self, n: u64, len: u64) -> u32 {
        let left = len.saturating_sub(n).max(1);
        let group = match self.config.simd_mode {
            None => return 1,
            Some(SimdMode::Simd64) if n.is_multiple_of(4) && left >= 4 => 4,
            Some(_) if n.is_multiple_of(2) => 2,
            Some(_) => return 1,
        };
        group.min(left) as u32
    }

    /// Free elements.
    pub fn room(&self) -> u32 {
        self.capacity().saturating_sub(self.count)
    }

    /// Records an empty event of a read that needed `need` elements.
    pub fn note_empty(&mut self, need: u32) {
        self.empty_event = true;
        self.empty_need = need;
    }

    /// Records a full event of a write that needed `need` free elements.
    pub fn note_full(&mut self, need: u32) {
        self.full_event = true;
        self.full_need = need;
    }

    /// After a push: whether it made enough data for the read that hit the empty event
    /// (seed 004's `activate_push` rule); clears the event if so.
    pub fn push_activates(&mut self) -> bool {
        let fires = self.empty_event && self.count >= self.empty_need;
        if fires {
            self.empty_event = false;
        }
        fires
    }

    /// After a pop: whether it made enough room for the write that hit the full event
    /// (seed 004's `activate_pop` rule); clears the event if so.
    pub fn pop_activates(&mut self) -> bool {
        let fires = self.full_event && self.room() >= self.full_need;
        if fires {
            self.full_event = false;
        }
        fires
    }

    /// Elements the FIFO can hold.
    pub fn capacity(&self) -> u32 {
        self.buffer.elements.unwrap_or(0)
    }

    /// `@set_fifo_read_length(fifo, length)`, in place.
    pub fn set_read_length(&mut self, length: i64) -> Result<(), DsdError> {
        LENGTH
            .check(i128::from(length))
            .map_err(|e| DsdError::limit("@set_fifo_read_length length", e))?;
        self.read_length = length as u16;
        Ok(())
    }

    /// `@set_fifo_write_length(fifo, length)`, in place.
    pub fn set_write_length(&mut self, length: i64) -> Result<(), DsdError> {
        LENGTH
            .check(i128::from(length))
            .map_err(|e| DsdError::limit("@set_fifo_write_length length", e))?;
        self.write_length = length as u16;
        Ok(())
    }

    /// Element offset (from the buffer) of the next pop, if any element is held.
    pub fn pop_slot(&mut self) -> Option<i64> {
        if self.count == 0 {
            return None;
        }
        let slot = self.head;
        self.head = (self.head + 1) % self.capacity().max(1);
        self.count -= 1;
        Some(i64::from(slot))
    }

    /// Element offset of the next push, if there is room.
    pub fn push_slot(&mut self) -> Option<i64> {
        let cap = self.capacity();
        if self.count >= cap {
            return None;
        }
        let slot = (self.head + self.count) % cap;
        self.count += 1;
        Some(i64::from(slot))
    }
}

impl fmt::Display for Fifo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "@allocate_fifo({}", self.buffer.name)?;
        let c = &self.config;
        let mut fields = Vec::new();
        if let Some(a) = c.empty_action {
            fields.push(format!(".empty_action = {}", a.csl()));
        }
        if let Some(a) = c.full_action {
            fields.push(format!(".full_action = {}", a.csl()));
        }
        if let Some(t) = c.activate_pop {
            fields.push(format!(".activate_pop = @get_local_task_id({})", t.id()));
        }
        if let Some(t) = c.activate_push {
            fields.push(format!(".activate_push = @get_local_task_id({})", t.id()));
        }
        if let Some(p) = c.priority {
            fields.push(format!(".priority = {p}"));
        }
        if let Some(m) = c.simd_mode {
            fields.push(format!(".simd_mode = {m}"));
        }
        if !fields.is_empty() {
            write!(f, ", .{{ {} }}", fields.join(", "))?;
        }
        f.write_str(")")
    }
}
