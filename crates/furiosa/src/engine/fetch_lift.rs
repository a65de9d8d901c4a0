//! Axis lifting (`docs/furiosa-engines.md` §4.1, "Axis lifting"; plan step 13):
//! `fetch_chip_lift`, `fetch_cluster_lift` and `fetch_slice_lift` move axes from `Time` to
//! `Chip`, `Cluster` or `Slice` by giving each unit of that dimension its own read base, so the
//! lifted axes are read in parallel instead of one after another.
//!
//! Rules (the Fetch Engine page's requirements), each an error naming it:
//! * the input and output sizes of the dimension match ([`LiftError::Size`]);
//! * only broadcasts change: a unit's new cell keeps every coordinate of its placement's cell
//!   and adds coordinates of the lifted axes; a padding unit stays padding
//!   ([`LiftError::Changed`]); the lifted part of a unit is a power-of-two group, so a
//!   broadcast of 3 cannot be lifted ([`LiftError::Group`]);
//! * lifted axes leave `OutTime` (`OutPacket` is unchanged): unit `u` then reads, from base
//!   `base(u)`, the unlifted loops of `OutTime, OutPacket` ([`LiftError::NotShift`]), and the
//!   units of one replication group together read what the plain fetch read
//!   ([`LiftError::Unread`]);
//! * lifts in `Chip`, `Cluster`, `Slice` order, at most once each ([`LiftError::Order`],
//!   [`LiftError::Twice`]);
//! * every base a multiple of 8 bytes ([`LiftError::BaseAlignment`]);
//! * the source is replicated over the dimension: the DM copies a lifted unit reads hold what
//!   the group's first unit holds there ([`LiftError::NotReplicated`]; the vendor cannot check
//!   this and warns that the hardware and the CPU model then differ; npusim reads real DM bytes
//!   and refuses).
//!
//! The base of a unit is the element position of its lifted coordinates in the view's
//! `Element` (the book: "the sum of each lifted-axis value multiplied by its original DM
//! stride"). Cycles are those of the lifted loops: `OutTime::SIZE × reads per packet`.

use std::collections::{BTreeMap, HashMap, HashSet};

use thiserror::Error;

use super::fetch::{BeginTensor, FetchError, FetchPlan, read_elems};
use crate::dm::{DM_SLICE_BYTES, Place};
use crate::mapping::sequence::Direction;
use crate::mapping::{Final, Mapping};
use crate::sequencer::Sequencer;
use crate::tensor::{Dim, Position, combined_cells};
use crate::{Codes, StreamTensor, TensorError};

/// Why a lift is refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum LiftError {
    /// The output dimension has another size.
    #[error(
        "{method} to {dim} = m![{out}] ({out_size} positions) from m![{input}] ({size}) (rule: the input and output sizes of the lifted dimension match)"
    )]
    Size {
        /// The lift.
        method: &'static str,
        /// `Chip`, `Cluster` or `Slice`.
        dim: &'static str,
        /// The input mapping.
        input: String,
        /// Its size.
        size: usize,
        /// The output mapping.
        out: String,
        /// Its size.
        out_size: usize,
    },
    /// A unit's cell changes other than by a lifted broadcast.
    #[error(
        "{method}: {dim} position {unit} holds {was} in the placement m![{input}] but {now} in m![{out}] (rule: only broadcasts change; an existing axis or padding may not)"
    )]
    Changed {
        /// The lift.
        method: &'static str,
        /// `Chip`, `Cluster` or `Slice`.
        dim: &'static str,
        /// The unit.
        unit: usize,
        /// Its cell before.
        was: String,
        /// Its cell after.
        now: String,
        /// The input mapping.
        input: String,
        /// The output mapping.
        out: String,
    },
    /// A replication group is not lifted in size-2 steps.
    #[error(
        "{method}: {units} units of {dim} = m![{out}] share the placement cell {cell} (rule: a broadcast is lifted in size-2 groups; a broadcast of 3 may not change)"
    )]
    Group {
        /// The lift.
        method: &'static str,
        /// `Chip`, `Cluster` or `Slice`.
        dim: &'static str,
        /// The output mapping.
        out: String,
        /// The placement cell they share.
        cell: String,
        /// How many units share it.
        units: usize,
    },
    /// Lifts out of order.
    #[error(
        "{method} after {later} was lifted (rule: lifts are called in Chip, Cluster, Slice order)"
    )]
    Order {
        /// The lift.
        method: &'static str,
        /// The dimension lifted already.
        later: &'static str,
    },
    /// A dimension lifted twice.
    #[error("{method}: {dim} is lifted already (rule: at most one lift per dimension)")]
    Twice {
        /// The lift.
        method: &'static str,
        /// The dimension.
        dim: &'static str,
    },
    /// The lifted coordinates of a unit are no element of the view.
    #[error(
        "{method}: unit {unit} would start at {index}, which the view m![{element}] does not hold (rule: a lift only moves the read base)"
    )]
    NoBase {
        /// The lift.
        method: &'static str,
        /// The unit.
        unit: usize,
        /// The lifted coordinates.
        index: String,
        /// The view's element mapping.
        element: String,
    },
    /// A unit's reads are not the lifted loops from its base.
    #[error(
        "{method}: unit {unit} reading Time = m![{time}], Packet = m![{packet}] from base {base} finds {found} at stream position {position}, not {expected} (rule: lifted axes leave OutTime; each unit runs the same loops from its own base)"
    )]
    NotShift {
        /// The lift.
        method: &'static str,
        /// The unit.
        unit: usize,
        /// Base in elements.
        base: usize,
        /// Position in Time × Packet.
        position: usize,
        /// What the stream cell should hold.
        expected: String,
        /// What DM holds there.
        found: String,
        /// OutTime.
        time: String,
        /// OutPacket.
        packet: String,
    },
    /// The lifted units read less than the plain fetch.
    #[error(
        "{method}: no unit of the group of {dim} position {unit} reads {index}, which the fetch read (rule: lifted axes move from Time to {dim}; nothing is dropped)"
    )]
    Unread {
        /// The lift.
        method: &'static str,
        /// `Chip`, `Cluster` or `Slice`.
        dim: &'static str,
        /// A unit of the group.
        unit: usize,
        /// The logical index no unit reads.
        index: String,
    },
    /// A base that is not a multiple of 8 bytes.
    #[error(
        "{method}: unit {unit} reads from base {elements} elements = {bytes} bytes (rule: every lift base is a multiple of 8 bytes)"
    )]
    BaseAlignment {
        /// The lift.
        method: &'static str,
        /// The unit.
        unit: usize,
        /// Base in elements.
        elements: usize,
        /// Base in bytes (rounded down for sub-byte types).
        bytes: usize,
    },
    /// The DM copies a lift relies on differ.
    #[error(
        "{method}: unit {unit} holds code {code:#x} at element {element}, where unit {copy} of the same placement cell holds {copy_code:#x} (rule: a lift needs the source replicated over the dimension)"
    )]
    NotReplicated {
        /// The lift.
        method: &'static str,
        /// The lifted unit.
        unit: usize,
        /// The group's first unit.
        copy: usize,
        /// Element position (in the tensor).
        element: usize,
        /// Its code in `unit`.
        code: u64,
        /// Its code in `copy`.
        copy_code: u64,
    },
}

/// What a lift does: the lifted loops (read size, cycles) and each unit's read base.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiftPlan {
    /// The loops every unit runs, with read size and cycles (`OutTime::SIZE × reads`).
    pub fetch: FetchPlan,
    /// Per unit (chip, cluster, slice flattened; a dead unit 0): its base in elements.
    pub bases: Vec<usize>,
}

/// The dimension a lift moves axes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LiftDim {
    /// `fetch_chip_lift`.
    Chip,
    /// `fetch_cluster_lift`.
    Cluster,
    /// `fetch_slice_lift`.
    Slice,
}

impl LiftDim {
    /// Its index among Chip, Cluster, Slice, its name and its method's name.
    fn parts(self) -> (usize, &'static str, &'static str) {
        match self {
            LiftDim::Chip => (0, "Chip", "fetch_chip_lift"),
            LiftDim::Cluster => (1, "Cluster", "fetch_cluster_lift"),
            LiftDim::Slice => (2, "Slice", "fetch_slice_lift"),
        }
    }
}

fn add(a: &BTreeMap<String, usize>, b: &BTreeMap<String, usize>) -> BTreeMap<String, usize> {
    let mut out = a.clone();
    for (k, v) in b {
        *out.entry(k.clone()).or_insert(0) += v;
    }
    out
}

impl BeginTensor<'_> {
    /// `.fetch_chip_lift::<OutChip, OutTime>()` on the stream `fetched` this tensor produced.
    pub fn fetch_chip_lift(
        &self,
        fetched: StreamTensor,
        chip: &Mapping,
        time: &Mapping,
    ) -> Result<StreamTensor, FetchError> {
        self.fetch_lift(fetched, LiftDim::Chip, chip, time)
            .map(|r| r.0)
    }

    /// `.fetch_cluster_lift::<OutCluster, OutTime>()` on the stream `fetched` this tensor
    /// produced.
    pub fn fetch_cluster_lift(
        &self,
        fetched: StreamTensor,
        cluster: &Mapping,
        time: &Mapping,
    ) -> Result<StreamTensor, FetchError> {
        self.fetch_lift(fetched, LiftDim::Cluster, cluster, time)
            .map(|r| r.0)
    }

    /// `.fetch_slice_lift::<OutSlice, OutTime>()` on the stream `fetched` this tensor
    /// produced.
    pub fn fetch_slice_lift(
        &self,
        fetched: StreamTensor,
        slice: &Mapping,
        time: &Mapping,
    ) -> Result<StreamTensor, FetchError> {
        self.fetch_lift(fetched, LiftDim::Slice, slice, time)
            .map(|r| r.0)
    }

    /// The lift of `dim` to `out` with `OutTime = time`: the lifted stream and its plan.
    /// `fetched` is what `fetch` (and any earlier lift) of this tensor returned.
    pub fn fetch_lift(
        &self,
        fetched: StreamTensor,
        dim: LiftDim,
        out: &Mapping,
        time: &Mapping,
    ) -> Result<(StreamTensor, LiftPlan), FetchError> {
        let (k, dim_name, method) = dim.parts();
        fetched.position().check_transition(method)?;
        let view = self.view();
        let tensor = view.tensor();
        let placed = [tensor.chip(), tensor.cluster(), tensor.slice()];
        let current = [
            fetched.mapping(Dim::Chip),
            fetched.mapping(Dim::Cluster),
            fetched.mapping(Dim::Slice),
        ];
        let names = ["Chip", "Cluster", "Slice"];
        if let Some(j) = (k + 1..3).find(|&j| !current[j].equivalent(placed[j])) {
            return Err(LiftError::Order {
                method,
                later: names[j],
            }
            .into());
        }
        if !current[k].equivalent(placed[k]) {
            return Err(LiftError::Twice {
                method,
                dim: dim_name,
            }
            .into());
        }
        if out.size() != current[k].size() {
            return Err(LiftError::Size {
                method,
                dim: dim_name,
                input: current[k].m_notation(),
                size: current[k].size(),
                out: out.m_notation(),
                out_size: out.size(),
            }
            .into());
        }
        if time.size() == 0 {
            return Err(TensorError::Empty {
                dim: Dim::Time,
                mapping: time.m_notation(),
            }
            .into());
        }
        let mut spatial: [Mapping; 3] =
            [current[0].clone(), current[1].clone(), current[2].clone()];
        spatial[k] = out.clone();
        let packet = fetched.packet().clone();
        let dtype = tensor.dtype();
        let element = view.element();
        let before = combined_cells(&[placed[0], placed[1], placed[2]]);
        let after = combined_cells(&[&spatial[0], &spatial[1], &spatial[2]]);
        // The lifted coordinates of every unit (None: an idle unit).
        let mut lifted: Vec<Option<BTreeMap<String, usize>>> = Vec::with_capacity(after.len());
        for (u, (b, a)) in before.iter().zip(&after).enumerate() {
            let changed = || LiftError::Changed {
                method,
                dim: dim_name,
                unit: unit_of(u, &spatial, k),
                was: b.to_string(),
                now: a.to_string(),
                input: current[k].m_notation(),
                out: out.m_notation(),
            };
            match (b, a) {
                (Final::Live(was), Final::Live(now)) => {
                    let mut extra = BTreeMap::new();
                    for (axis, &c) in now {
                        let old = was.get(axis).copied().unwrap_or(0);
                        if c < old {
                            return Err(changed().into());
                        }
                        if c > old {
                            extra.insert(axis.clone(), c - old);
                        }
                    }
                    if was.keys().any(|axis| !now.contains_key(axis)) {
                        return Err(changed().into());
                    }
                    lifted.push(Some(extra));
                }
                (Final::Live(_), _) => lifted.push(None),
                (_, Final::Live(_)) => return Err(changed().into()),
                _ => lifted.push(None),
            }
        }
        // Replication groups: units sharing a placement cell; each is lifted in size-2 steps.
        let mut groups: HashMap<&Final, Vec<usize>> = HashMap::new();
        for (u, b) in before.iter().enumerate() {
            if b.is_live() && lifted[u].is_some() {
                groups.entry(b).or_default().push(u);
            }
        }
        for (cell, units) in &groups {
            let distinct: HashSet<&BTreeMap<String, usize>> =
                units.iter().filter_map(|&u| lifted[u].as_ref()).collect();
            if distinct.len() > 1 && !distinct.len().is_power_of_two() {
                return Err(LiftError::Group {
                    method,
                    dim: dim_name,
                    out: out.m_notation(),
                    cell: cell.to_string(),
                    units: units.len(),
                }
                .into());
            }
        }
        // Bases: the element position of each unit's lifted coordinates.
        let mut position_of: HashMap<Final, usize> = HashMap::new();
        for p in (0..element.size()).rev() {
            position_of.insert(element.cell(p), p);
        }
        let bits = dtype.bits();
        let mut bases = vec![0usize; after.len()];
        for (u, extra) in lifted.iter().enumerate() {
            let Some(extra) = extra else { continue };
            let want = Final::Live(extra.clone());
            let Some(&p) = position_of.get(&want) else {
                return Err(LiftError::NoBase {
                    method,
                    unit: unit_of(u, &spatial, k),
                    index: want.to_string(),
                    element: element.m_notation(),
                }
                .into());
            };
            if !(p * bits).is_multiple_of(64) {
                return Err(LiftError::BaseAlignment {
                    method,
                    unit: unit_of(u, &spatial, k),
                    elements: p,
                    bytes: p * bits / 8,
                }
                .into());
            }
            bases[u] = p;
        }
        // The loops every unit runs from its base.
        let seq = Sequencer::derive(element, time, &packet, dtype, Direction::Read)?;
        let stream = combined_cells(&[time, &packet]);
        let offsets: Vec<usize> = seq.offsets().collect();
        for (u, extra) in lifted.iter().enumerate() {
            let Some(extra) = extra else { continue };
            for (q, (&o, cell)) in offsets.iter().zip(&stream).enumerate() {
                let Final::Live(index) = cell else { continue };
                let expected = Final::Live(add(extra, index));
                let at = bases[u] + o;
                let found = if at < element.size() {
                    element.cell(at)
                } else {
                    Final::OutOfBounds
                };
                if found != expected {
                    return Err(LiftError::NotShift {
                        method,
                        unit: unit_of(u, &spatial, k),
                        base: bases[u],
                        position: q,
                        expected: expected.to_string(),
                        found: found.to_string(),
                        time: time.m_notation(),
                        packet: packet.m_notation(),
                    }
                    .into());
                }
            }
        }
        // Together, the units of a group read what the plain fetch read in any of them.
        let old_stream = combined_cells(&[fetched.time(), &packet]);
        for units in groups.values() {
            let mut read: HashSet<BTreeMap<String, usize>> = HashSet::new();
            for &u in units {
                let Some(extra) = &lifted[u] else { continue };
                for cell in &stream {
                    if let Final::Live(index) = cell {
                        read.insert(add(extra, index));
                    }
                }
            }
            if let Some(Final::Live(missing)) = old_stream
                .iter()
                .find(|c| matches!(c, Final::Live(i) if !read.contains(i)))
            {
                return Err(LiftError::Unread {
                    method,
                    dim: dim_name,
                    unit: unit_of(units[0], &spatial, k),
                    index: Final::Live(missing.clone()).to_string(),
                }
                .into());
            }
        }
        let span =
            ((bases.iter().max().copied().unwrap_or(0) + seq.last_offset() + 1) * bits).div_ceil(8);
        let last_byte = view.address() + span - 1;
        if last_byte >= DM_SLICE_BYTES {
            return Err(FetchError::OutsideDm {
                address: view.address(),
                entries: seq.to_string(),
                last_byte,
                capacity: DM_SLICE_BYTES,
            });
        }
        let read = read_elems(&seq, None, dtype)?;
        let reads_per_packet = packet.size() / read;
        // The data: each unit's own DM from its base; every copy checked against the group's
        // first unit.
        let tp = time.size() * packet.size();
        let (clusters, slices) = (spatial[1].size(), spatial[2].size());
        let place = |u: usize, element: usize| Place {
            chip: u / (clusters * slices),
            cluster: u / slices % clusters,
            slice: u % slices,
            element,
        };
        let first_of: HashMap<usize, usize> = groups
            .values()
            .flat_map(|units| units.iter().map(move |&u| (u, units[0])))
            .collect();
        let mut codes = vec![0u64; after.len() * tp];
        let dm = self.dm();
        for (u, extra) in lifted.iter().enumerate() {
            if extra.is_none() {
                continue;
            }
            for (q, (&o, cell)) in offsets.iter().zip(&stream).enumerate() {
                if !cell.is_live() {
                    continue;
                }
                let e = view.base_offset() + bases[u] + o;
                let code = tensor.read_code(dm, &place(u, e))?;
                if let Some(&copy) = first_of.get(&u)
                    && copy != u
                {
                    let copy_code = tensor.read_code(dm, &place(copy, e))?;
                    if copy_code != code {
                        return Err(LiftError::NotReplicated {
                            method,
                            unit: unit_of(u, &spatial, k),
                            copy: unit_of(copy, &spatial, k),
                            element: e,
                            code,
                            copy_code,
                        }
                        .into());
                    }
                }
                codes[u * tp + q] = code;
            }
        }
        let data = Codes::from_u64(dtype, &codes).map_err(|b| TensorError::BadCode {
            index: b.index,
            code: b.code,
            dtype,
        })?;
        let [chip, cluster, slice] = spatial;
        let lifted_stream = StreamTensor::from_codes(
            dtype,
            Position::Fetch,
            [chip, cluster, slice, time.clone(), packet],
            data,
        )?;
        let plan = LiftPlan {
            fetch: FetchPlan {
                read_bytes: read * bits / 8,
                reads_per_packet,
                cycles: time.size() * reads_per_packet,
                read_elems: read,
                last_byte,
                sequencer: seq,
            },
            bases,
        };
        Ok((lifted_stream, plan))
    }
}

/// The position of unit `u` (chip, cluster, slice flattened) along dimension `k`.
fn unit_of(u: usize, spatial: &[Mapping; 3], k: usize) -> usize {
    let (clusters, slices) = (spatial[1].size(), spatial[2].size());
    match k {
        0 => u / (clusters * slices),
        1 => u / slices % clusters,
        _ => u % slices,
    }
}
