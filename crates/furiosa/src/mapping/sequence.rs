//! The sequencer view of a stream access: which memory bytes a
//! stream `Time`/`Packet` pair reads from (or writes to) a buffer laid out by a memory mapping,
//! as nested `[size:stride]` loops.
//!
//! Derivation (npusim's, the vendor's matcher is closed): the top-level factors of `Time` then
//! `Packet` each become one loop; a factor's stride is the memory offset of its first live
//! coordinate step (an axis absent from memory gives stride 0, a broadcast). Every live stream
//! cell is then checked against the loops: the memory position of its logical index must be
//! the sum of the loop offsets, otherwise the layouts are incompatible. A write must not
//! broadcast and must write every live memory cell exactly once. Adjacent loops merge when the
//! outer stride equals the inner size × stride.

use std::collections::HashMap;
use std::fmt;

use thiserror::Error;

use super::{Axis, Evaluator, Form, Mapping};

/// One loop of the sequencer: `size` iterations `stride` bytes apart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Entry {
    /// Iterations.
    pub size: usize,
    /// Bytes between iterations (0 = broadcast).
    pub stride: usize,
}

impl fmt::Display for Entry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.size, self.stride)
    }
}

/// Whether the stream reads the buffer or writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Memory → stream (fetch): broadcast allowed.
    Read,
    /// Stream → memory (commit): no broadcast, every live memory cell exactly once.
    Write,
}

/// A stream access as sequencer loops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequence {
    /// One loop per top-level factor of Time then Packet, outer to inner.
    pub raw: Vec<Entry>,
    /// Bytes of one packet.
    pub packet_bytes: usize,
    /// Bytes of one element.
    pub elem_bytes: usize,
}

/// Why a stream cannot access a buffer.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SequenceError {
    /// The element type is not a whole number of bytes.
    #[error("elements of {0} bits are not byte-addressable")]
    SubByte(usize),
    /// A live stream cell that the buffer does not hold.
    #[error(
        "stream cell {cell} (Time = m![{time}], Packet = m![{packet}]) is not held by the buffer m![{memory}]"
    )]
    NotInMemory {
        /// The cell.
        cell: String,
        /// Memory mapping.
        memory: String,
        /// Time mapping.
        time: String,
        /// Packet mapping.
        packet: String,
    },
    /// The layouts do not nest into `[size:stride]` loops.
    #[error(
        "Time = m![{time}], Packet = m![{packet}] cannot be sequenced over the buffer m![{memory}]: stream cell {cell} is at byte {actual}, the loops give byte {expected} (rule: each stream factor walks memory with one stride)"
    )]
    Incompatible {
        /// The cell.
        cell: String,
        /// Memory mapping.
        memory: String,
        /// Time mapping.
        time: String,
        /// Packet mapping.
        packet: String,
        /// Where it is.
        actual: usize,
        /// Where the loops put it.
        expected: usize,
    },
    /// A write that broadcasts or misses or repeats memory cells.
    #[error(
        "writing Time = m![{time}], Packet = m![{packet}] into m![{memory}]: {reason} (rule: a write covers every live memory cell exactly once, without broadcast)"
    )]
    BadWrite {
        /// Memory mapping.
        memory: String,
        /// Time mapping.
        time: String,
        /// Packet mapping.
        packet: String,
        /// What is wrong.
        reason: String,
    },
}

fn flatten(m: &Mapping, out: &mut Vec<Mapping>) {
    match m.form() {
        Form::Pair(l, r) => {
            flatten(l, out);
            flatten(r, out);
        }
        _ if m.size() == 1 => {}
        _ => out.push(m.clone()),
    }
}

/// Sequences a stream `time`/`packet` over the buffer `memory` of `elem_bits`-bit elements.
///
/// ```
/// use npusim_furiosa::mapping::{Axes, Mapping, sequence::{Direction, sequence}};
/// let ax = Axes::parse("A=8,B=8,C=8").unwrap();
/// let p = |s| Mapping::parse(s, &ax).unwrap();
/// let s = sequence(&p("A, B, C # 32"), &p("B, A"), &p("C # 16"), 8, Direction::Read).unwrap();
/// assert_eq!(s.to_string(), "[8:32, 8:256, 16:1] : 16");
/// assert_eq!(s.max_access_bytes(), 16);
/// ```
pub fn sequence(
    memory: &Mapping,
    time: &Mapping,
    packet: &Mapping,
    elem_bits: usize,
    direction: Direction,
) -> Result<Sequence, SequenceError> {
    if elem_bits == 0 || !elem_bits.is_multiple_of(8) {
        return Err(SequenceError::SubByte(elem_bits));
    }
    let bytes = elem_bits / 8;
    let (mt, tt, pt) = (memory.m_notation(), time.m_notation(), packet.m_notation());
    // Memory: logical index (coordinates on the memory's axes) -> position (first position
    // wins; a buffer holds each cell once).
    let mut cells = memory.evaluator();
    let held: Vec<Axis> = cells.axes().to_vec();
    let mut at: HashMap<Vec<usize>, usize> = HashMap::new();
    let mut live_memory = 0usize;
    for p in 0..memory.size() {
        if cells.slot(p).is_live() {
            live_memory += 1;
            at.entry(cells.coords().to_vec()).or_insert(p);
        }
    }
    let mut factors = Vec::new();
    flatten(time, &mut factors);
    flatten(packet, &mut factors);
    // One stride per factor, from its first live step.
    let mut raw = Vec::with_capacity(factors.len());
    for (i, f) in factors.iter().enumerate() {
        let mut stride = 0;
        let mut live_step = false;
        let mut cells = Projected::new(f.evaluator(), &held);
        for k in 1..f.size() {
            let Some(key) = cells.key(k) else {
                continue;
            };
            live_step = true;
            // A step that does not land on a multiple of k is caught by the check below.
            if let Some(&pos) = at.get(key) {
                stride = pos / k;
            }
            break;
        }
        // The innermost factor with no live step but its first (`1 # 2`, a packet of one live
        // lane and padding) walks its lanes contiguously, as a packet is laid out
        // (`docs/furiosa-engines.md` §3.2, decision "padding-only packet").
        if !live_step && i + 1 == factors.len() && f.size() > 1 {
            stride = 1;
        }
        raw.push(Entry {
            size: f.size(),
            stride: stride * bytes,
        });
    }
    // Check every live stream cell against the loops.
    let mut written = vec![0u32; memory.size()];
    let total = time.size().saturating_mul(packet.size());
    let mut stream = Projected::new(Evaluator::of_dims(&[time, packet]), &held);
    for pos in 0..total {
        let Some(key) = stream.key(pos) else {
            continue;
        };
        let Some(&mem) = at.get(key) else {
            return Err(SequenceError::NotInMemory {
                cell: stream.cells.cell(pos).to_string(),
                memory: mt,
                time: tt,
                packet: pt,
            });
        };
        let mut rest = pos;
        let mut expected = 0usize;
        for (f, e) in factors.iter().zip(&raw).rev() {
            expected += (rest % f.size()) * e.stride;
            rest /= f.size();
        }
        if expected != mem * bytes {
            return Err(SequenceError::Incompatible {
                cell: stream.cells.cell(pos).to_string(),
                memory: mt,
                time: tt,
                packet: pt,
                actual: mem * bytes,
                expected,
            });
        }
        written[mem] += 1;
    }
    if direction == Direction::Write {
        let bad = |reason: String| SequenceError::BadWrite {
            memory: mt.clone(),
            time: tt.clone(),
            packet: pt.clone(),
            reason,
        };
        if let Some((f, _)) = factors
            .iter()
            .zip(&raw)
            .find(|(f, e)| e.stride == 0 && f.live_count() > 1)
        {
            return Err(bad(format!("factor `{f}` broadcasts (stride 0)")));
        }
        if let Some(p) = written.iter().position(|&n| n > 1) {
            return Err(bad(format!(
                "memory position {p} is written more than once"
            )));
        }
        let covered = written.iter().filter(|&&n| n == 1).count();
        if covered != live_memory {
            return Err(bad(format!(
                "{covered} of {live_memory} live memory cells are written"
            )));
        }
    }
    Ok(Sequence {
        raw,
        packet_bytes: packet.size() * bytes,
        elem_bytes: bytes,
    })
}

impl Sequence {
    /// The loops with adjacent ones merged where the outer stride is the inner extent.
    pub fn merged(&self) -> Vec<Entry> {
        let mut out: Vec<Entry> = Vec::new();
        for e in self.raw.iter().rev() {
            match out.last_mut() {
                Some(inner) if e.stride == inner.size * inner.stride && inner.stride != 0 => {
                    inner.size *= e.size;
                }
                _ => out.push(*e),
            }
        }
        out.reverse();
        out
    }

    /// Bytes contiguous from the innermost loop outward.
    pub fn contiguous_run_bytes(&self) -> usize {
        let mut run = self.elem_bytes;
        for e in self.merged().iter().rev() {
            if e.stride == run {
                run *= e.size;
            } else {
                break;
            }
        }
        run
    }

    /// Largest access that divides both the packet and the contiguous run.
    pub fn max_access_bytes(&self) -> usize {
        gcd(self.packet_bytes, self.contiguous_run_bytes())
    }
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The raw loops and the packet bytes, `[8:32, 8:256, 16:1] : 16` (merge with
/// [`Sequence::merged`]).
impl fmt::Display for Sequence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let list: Vec<String> = self.raw.iter().map(Entry::to_string).collect();
        write!(f, "[{}] : {}", list.join(", "), self.packet_bytes)
    }
}

/// A stream's cells as keys of the memory's index: the coordinates on the memory's axes, in
/// its order (an axis the memory does not hold is broadcast and dropped).
struct Projected<'a> {
    cells: Evaluator<'a>,
    /// For each memory axis, its slot in `cells` (`None`: the stream does not move it).
    slots: Vec<Option<usize>>,
    key: Vec<usize>,
}

impl<'a> Projected<'a> {
    fn new(cells: Evaluator<'a>, held: &[Axis]) -> Projected<'a> {
        let slots = held
            .iter()
            .map(|h| cells.axes().iter().position(|a| a.name == h.name))
            .collect();
        Projected {
            cells,
            slots,
            key: vec![0; held.len()],
        }
    }

    /// The key of position `pos`, or `None` for a dead cell.
    fn key(&mut self, pos: usize) -> Option<&[usize]> {
        if !self.cells.slot(pos).is_live() {
            return None;
        }
        let coords = self.cells.coords();
        for (k, slot) in self.key.iter_mut().zip(&self.slots) {
            *k = slot.map_or(0, |i| coords[i]);
        }
        Some(&self.key)
    }
}
