//! A stream access as sequencer loops in elements.

use npusim_hw::Limit;

use super::bank::longest_run;
use super::entry::list;
use super::merge::merge_adjacent;
use super::{Entry, MAX_ENTRIES, MAX_ENTRY_SIZE, SequencerError};
use crate::DType;
use crate::limits::STREAM_POSITIONS;
use crate::mapping::Mapping;
use crate::mapping::sequence::{Direction, sequence};

/// Byte sizes one hardware access may move (the *Sequencer* page's packet-size rule, read as a
/// rule on one access: `docs/furiosa-engines.md` §3.2, decision "packet size").
const ACCESS_BYTES: [usize; 6] = [1, 2, 4, 8, 16, 32];

/// A stream access over a DM buffer as the sequencer's nested loops.
///
/// ```
/// use npusim_furiosa::DType;
/// use npusim_furiosa::mapping::{Axes, Mapping, sequence::Direction};
/// use npusim_furiosa::sequencer::Sequencer;
/// let ax = Axes::parse("A=8,B=8,C=8").unwrap();
/// let p = |s| Mapping::parse(s, &ax).unwrap();
/// let s = Sequencer::derive(&p("A, B, C # 32"), &p("B, A"), &p("C # 16"), DType::I8,
///     Direction::Read).unwrap();
/// assert_eq!(s.to_string(), "[8:32, 8:256, 16:1] : 16");
/// assert_eq!((s.contiguous_run(), s.access_elems()), (16, 16));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sequencer {
    raw: Vec<Entry>,
    entries: Vec<Entry>,
    packet: usize,
    bits: usize,
    direction: Direction,
}

impl Sequencer {
    /// Derives the loops of `time`/`packet` over the buffer `element` of `dtype` elements and
    /// checks the sequencer's limits.
    ///
    /// One entry per top-level factor of `Time` then `Packet` (factors of size 1 give none);
    /// entries are merged only when there are more than [`MAX_ENTRIES`] of them
    /// (`DECISIONS.md`, "DM sequencer", "When to merge"); reads may broadcast and run past the
    /// buffer, writes may neither.
    pub fn derive(
        element: &Mapping,
        time: &Mapping,
        packet: &Mapping,
        dtype: DType,
        direction: Direction,
    ) -> Result<Sequencer, SequencerError> {
        let stream = time.size() as u128 * packet.size() as u128;
        check_positions("stream (Time × Packet)", stream)?;
        check_positions("buffer", element.size() as u128)?;
        // One byte per element: the derivation's byte strides are element strides.
        let s = sequence(element, time, packet, 8, direction)?;
        let raw: Vec<Entry> = s.raw.iter().map(|e| Entry::new(e.size, e.stride)).collect();
        let entries = if raw.len() > MAX_ENTRIES {
            merge_adjacent(&raw)
        } else {
            raw.clone()
        };
        if entries.len() > MAX_ENTRIES {
            return Err(SequencerError::TooManyEntries {
                needed: entries.len(),
                entries: list(&entries),
            });
        }
        if let Some((index, e)) = entries
            .iter()
            .enumerate()
            .find(|(_, e)| e.size > MAX_ENTRY_SIZE)
        {
            return Err(SequencerError::EntryTooLarge {
                index,
                size: e.size,
                stride: e.stride,
            });
        }
        let seq = Sequencer {
            raw,
            entries,
            packet: packet.size(),
            bits: dtype.bits(),
            direction,
        };
        seq.check_innermost()?;
        seq.check_bytes()?;
        if direction == Direction::Write {
            let last = seq.last_offset();
            if last >= element.size() {
                return Err(SequencerError::WriteOverrun {
                    entries: list(&seq.entries),
                    last,
                    size: element.size(),
                });
            }
        }
        Ok(seq)
    }

    /// The innermost entry must be contiguous (stride 0 or 1) unless the packet is one element
    /// (`docs/furiosa-engines.md` §3.2, decision "contiguity rule").
    fn check_innermost(&self) -> Result<(), SequencerError> {
        match self.entries.last() {
            Some(e) if e.stride > 1 && self.packet > 1 => Err(SequencerError::StridedInnermost {
                size: e.size,
                stride: e.stride,
                packet: self.packet,
            }),
            _ => Ok(()),
        }
    }

    /// Sub-byte elements: every stride must be whole bytes, except the innermost entry's
    /// stride of 1 (consecutive elements inside one access), and one access must be whole
    /// bytes.
    fn check_bytes(&self) -> Result<(), SequencerError> {
        if self.bits.is_multiple_of(8) {
            return Ok(());
        }
        let n = self.entries.len();
        for (index, e) in self.entries.iter().enumerate() {
            let inner_unit = index + 1 == n && e.stride == 1;
            if !inner_unit && !(e.stride * self.bits).is_multiple_of(8) {
                return Err(SequencerError::SubByteStride {
                    index,
                    size: e.size,
                    stride: e.stride,
                    bits: self.bits,
                });
            }
        }
        let access = self.access_elems();
        if !(access * self.bits).is_multiple_of(8) {
            return Err(SequencerError::SubByteAccess {
                access,
                bits: self.bits,
            });
        }
        Ok(())
    }

    /// One entry per stream factor, before any merge, outer to inner.
    pub fn raw(&self) -> &[Entry] {
        &self.raw
    }

    /// The entries the sequencer is configured with (merged only when the raw ones are more
    /// than 8), outer to inner.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Elements of one stream packet.
    pub fn packet_elems(&self) -> usize {
        self.packet
    }

    /// Bits of one element.
    pub fn elem_bits(&self) -> usize {
        self.bits
    }

    /// Read (fetch) or write (commit).
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// Elements contiguous from the innermost entry outward: the innermost size, multiplied by
    /// each outer size while `stride_outer == size_inner × stride_inner` (*Sequencer* page,
    /// "Access Size"); 1 when there are no entries.
    pub fn contiguous_run(&self) -> usize {
        let mut it = self.entries.iter().rev();
        let Some(first) = it.next() else {
            return 1;
        };
        let (mut run, mut inner) = (first.size, *first);
        for e in it {
            if e.stride != inner.size * inner.stride {
                break;
            }
            run *= e.size;
            inner = *e;
        }
        run
    }

    /// Largest access in elements: `gcd(Packet::SIZE, contiguous run)`.
    pub fn access_elems(&self) -> usize {
        gcd(self.packet, self.contiguous_run())
    }

    /// Elements one hardware access moves in the main context: the largest divisor of
    /// [`Sequencer::access_elems`] whose byte size is 1, 2, 4, 8, 16 or 32 (*Fetch Engine*
    /// page, "Multi-Read Packet"); `None` when no divisor has such a size (e.g. one i4).
    pub fn hardware_access_elems(&self) -> Option<usize> {
        let access = self.access_elems();
        (1..=access)
            .rev()
            .filter(|d| access.is_multiple_of(*d))
            .find(|d| {
                let bits = d * self.bits;
                bits.is_multiple_of(8) && ACCESS_BYTES.contains(&(bits / 8))
            })
    }

    /// Highest element offset the loops give: `Σ (size − 1) × stride`.
    pub fn last_offset(&self) -> usize {
        self.entries
            .iter()
            .map(|e| e.size.saturating_sub(1).saturating_mul(e.stride))
            .fold(0usize, usize::saturating_add)
    }

    /// The element offset of every stream position, outermost loop slowest.
    pub fn offsets(&self) -> Offsets<'_> {
        Offsets {
            entries: &self.entries,
            digits: vec![0; self.entries.len()],
            offset: 0,
            done: false,
        }
    }

    /// Longest run of consecutive accesses (each [`Sequencer::access_elems`] elements) that
    /// touch one DM bank, for a buffer starting at byte `base` (*Memory Performance* page;
    /// compare with [`super::BANK_RUN_LIMIT`]).
    pub fn bank_run(&self, base: usize) -> usize {
        let access = self.access_elems();
        let bits = self.bits;
        let len = (access * bits).div_ceil(8);
        let starts = self
            .offsets()
            .step_by(access)
            .map(move |off| (base + off * bits / 8, len));
        longest_run(starts)
    }
}

fn check_positions(what: &'static str, positions: u128) -> Result<(), SequencerError> {
    let limit: Limit = STREAM_POSITIONS;
    let max = limit.max as u128;
    if positions > max {
        return Err(SequencerError::TooManyPositions {
            what,
            positions,
            limit: limit.max as usize,
        });
    }
    Ok(())
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 { a } else { gcd(b, a % b) }
}

/// The element offsets of a sequencer's loops, in stream order.
#[derive(Clone, Debug)]
pub struct Offsets<'a> {
    entries: &'a [Entry],
    digits: Vec<usize>,
    offset: usize,
    done: bool,
}

impl Iterator for Offsets<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        if self.done {
            return None;
        }
        let out = self.offset;
        // Advance the odometer, innermost digit fastest.
        self.done = true;
        for (d, e) in self.digits.iter_mut().zip(self.entries).rev() {
            if *d + 1 < e.size {
                *d += 1;
                self.offset += e.stride;
                self.done = false;
                break;
            }
            self.offset -= *d * e.stride;
            *d = 0;
        }
        Some(out)
    }
}

/// `[8:32, 8:256, 16:1] : 16`: the configured entries and the packet, in elements.
impl std::fmt::Display for Sequencer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} : {}", list(&self.entries), self.packet)
    }
}
