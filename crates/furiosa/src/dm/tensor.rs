//! `DmTensor`: a tensor placed in DM by four mappings and a start address.

use std::collections::BTreeMap;
use std::ops::Range;

use super::{DM_SLICE_BYTES, Dm, DmError, Place, SliceId};
use crate::DType;
use crate::limits::{CLUSTERS_PER_CHIP, SLICES_PER_CLUSTER, STREAM_POSITIONS};
use crate::mapping::{Axes, Axis, Final, Mapping};
use crate::sequencer::Sequencer;

/// A logical element's coordinates by axis name (zero coordinates left out).
pub type LogicalIndex = BTreeMap<String, usize>;

/// One mapping's cells as coordinates on a list of axes: which positions are live, and each
/// live position's coordinate on every axis (0 for axes it does not move).
struct Coords {
    axes: usize,
    live: Vec<bool>,
    coords: Vec<usize>,
}

impl Coords {
    fn of(m: &Mapping, axes: &[Axis]) -> Coords {
        let n = axes.len();
        let mut live = vec![false; m.size()];
        let mut coords = vec![0; m.size() * n];
        for (p, is_live) in live.iter_mut().enumerate() {
            if let Final::Live(map) = m.cell(p) {
                *is_live = true;
                for (i, a) in axes.iter().enumerate() {
                    coords[p * n + i] = map.get(&a.name).copied().unwrap_or(0);
                }
            }
        }
        Coords {
            axes: n,
            live,
            coords,
        }
    }

    fn live_positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.live
            .iter()
            .enumerate()
            .filter(|(_, l)| **l)
            .map(|(p, _)| p)
    }

    /// Coordinate of live position `p` on axis slot `i`.
    fn at(&self, p: usize, i: usize) -> usize {
        self.coords[p * self.axes + i]
    }
}

/// A tensor in DM, the vendor's `DmTensor<D, Chip, Cluster, Slice, Element>` with the element
/// type and the mappings as run-time values: every (chip, cluster, slice) position holds the
/// same `Element` layout from byte `address`, and the element at (chip c, cluster k, slice s,
/// element e) holds the logical element `Chip.map(c) ∪ Cluster.map(k) ∪ Slice.map(s) ∪
/// Element.map(e)` (the coordinates of an axis split over several mappings add up).
///
/// The tensor is a placement; its data live in a [`Dm`] passed to each access.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DmTensor {
    dtype: DType,
    chip: Mapping,
    cluster: Mapping,
    slice: Mapping,
    element: Mapping,
    address: usize,
}

impl DmTensor {
    /// `DmTensor::<D, Chip, Cluster, Slice, Element>::from_addr(address)`: places the tensor
    /// at byte `address` of every slice it is in.
    ///
    /// Checks (`docs/furiosa-engines.md` §2.2): `Chip` at most the DM's chips, `Cluster` at
    /// most 2 and `Slice` at most 256 positions (upper bounds only); the start address a
    /// multiple of the element's bytes (at least 1); `address + Element::SIZE × bits / 8`
    /// (rounded up) at most 524,288.
    pub fn from_addr(
        dm: &Dm,
        dtype: DType,
        chip: &Mapping,
        cluster: &Mapping,
        slice: &Mapping,
        element: &Mapping,
        address: usize,
    ) -> Result<DmTensor, DmError> {
        let dims = [
            ("Chip", chip, dm.chips(), "chips"),
            (
                "Cluster",
                cluster,
                CLUSTERS_PER_CHIP.max as usize,
                "clusters per chip",
            ),
            (
                "Slice",
                slice,
                SLICES_PER_CLUSTER.max as usize,
                "slices per cluster",
            ),
        ];
        for (dim, m, max, unit) in dims {
            if m.size() > max {
                return Err(DmError::Dimension {
                    dim,
                    mapping: m.m_notation(),
                    size: m.size(),
                    max,
                    unit,
                });
            }
        }
        let unit = dtype.bits().div_ceil(8);
        if !address.is_multiple_of(unit) {
            return Err(DmError::Alignment {
                dtype: dtype.name(),
                address,
                unit,
            });
        }
        let bytes = (element.size() as u128 * dtype.bits() as u128).div_ceil(8);
        let end = address as u128 + bytes;
        if end > DM_SLICE_BYTES as u128 {
            return Err(DmError::Capacity {
                tensor: element.m_notation(),
                dtype: dtype.name(),
                address,
                bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
                end: usize::try_from(end).unwrap_or(usize::MAX),
                capacity: DM_SLICE_BYTES,
            });
        }
        Ok(DmTensor {
            dtype,
            chip: chip.clone(),
            cluster: cluster.clone(),
            slice: slice.clone(),
            element: element.clone(),
            address,
        })
    }

    /// Refuses a DM with fewer chips than the tensor spans (checked before any write, so that
    /// a refused write leaves DM as it was).
    pub(super) fn check_dm(&self, dm: &Dm) -> Result<(), DmError> {
        if self.chip.size() > dm.chips() {
            return Err(DmError::Dimension {
                dim: "Chip",
                mapping: self.chip.m_notation(),
                size: self.chip.size(),
                max: dm.chips(),
                unit: "chips",
            });
        }
        Ok(())
    }

    /// Element type.
    pub fn dtype(&self) -> DType {
        self.dtype
    }

    /// The `Chip` mapping.
    pub fn chip(&self) -> &Mapping {
        &self.chip
    }

    /// The `Cluster` mapping.
    pub fn cluster(&self) -> &Mapping {
        &self.cluster
    }

    /// The `Slice` mapping.
    pub fn slice(&self) -> &Mapping {
        &self.slice
    }

    /// The `Element` mapping: the layout inside each slice.
    pub fn element(&self) -> &Mapping {
        &self.element
    }

    /// Start byte in each slice.
    pub fn address(&self) -> usize {
        self.address
    }

    /// Bytes occupied in each slice it is in: `address .. address + Element::SIZE × bits / 8`.
    pub fn byte_range(&self) -> Range<usize> {
        let bytes = (self.element.size() * self.dtype.bits()).div_ceil(8);
        self.address..self.address + bytes
    }

    /// The logical axes of the tensor, each once: the axes the four mappings use, in the
    /// order `axes` declares them (the default `.npy` axis order, §2.2).
    pub fn logical_order(&self, axes: &Axes) -> Vec<String> {
        let used = self.used_axes();
        axes.iter()
            .filter(|a| used.iter().any(|u| u.name == a.name))
            .map(|a| a.name.clone())
            .collect()
    }

    /// The axes the four mappings use, in first-mention order (chip, cluster, slice,
    /// element).
    pub(super) fn used_axes(&self) -> Vec<Axis> {
        let mut out: Vec<Axis> = Vec::new();
        for m in [&self.chip, &self.cluster, &self.slice, &self.element] {
            for a in m.axes() {
                if !out.contains(&a) {
                    out.push(a);
                }
            }
        }
        out
    }

    /// The slice of DM that (chip, cluster, slice) positions `place` name.
    pub(super) fn slice_id(place: &Place) -> SliceId {
        SliceId {
            chip: place.chip,
            cluster: place.cluster,
            slice: place.slice,
        }
    }

    /// Calls `f` for every DM position of the tensor holding a logical element, in (chip,
    /// cluster, slice, element) order, with the element's coordinates on
    /// [`DmTensor::used_axes`] (an axis split over several mappings adds its parts; a sum past
    /// the axis, from a padded split, holds nothing). Stops at `f`'s first error.
    pub(super) fn visit_live(
        &self,
        mut f: impl FnMut(Place, &[usize]) -> Result<(), DmError>,
    ) -> Result<(), DmError> {
        let positions = [&self.chip, &self.cluster, &self.slice, &self.element]
            .iter()
            .map(|m| m.size() as u128)
            .product::<u128>();
        let limit = STREAM_POSITIONS.max as usize;
        if positions > limit as u128 {
            return Err(DmError::TooManyPositions { positions, limit });
        }
        let axes = self.used_axes();
        let n = axes.len();
        let [chips, clusters, slices, elements] =
            [&self.chip, &self.cluster, &self.slice, &self.element].map(|m| Coords::of(m, &axes));
        let mut index = vec![0usize; n];
        for c in chips.live_positions() {
            for k in clusters.live_positions() {
                for s in slices.live_positions() {
                    for e in elements.live_positions() {
                        let mut inside = true;
                        for (i, slot) in index.iter_mut().enumerate() {
                            *slot = chips.at(c, i)
                                + clusters.at(k, i)
                                + slices.at(s, i)
                                + elements.at(e, i);
                            inside &= *slot < axes[i].size;
                        }
                        if !inside {
                            continue;
                        }
                        let place = Place {
                            chip: c,
                            cluster: k,
                            slice: s,
                            element: e,
                        };
                        f(place, &index)?;
                    }
                }
            }
        }
        Ok(())
    }

    /// Every DM position holding the logical element with coordinates `index` (axes left out
    /// are 0), with its byte address.
    pub fn locate(&self, index: &[(&str, usize)]) -> Result<Vec<(Place, usize)>, DmError> {
        let axes = self.used_axes();
        let known = index
            .iter()
            .all(|(name, c)| *c == 0 || axes.iter().any(|a| a.name == *name));
        let want: Vec<usize> = axes
            .iter()
            .map(|a| {
                index
                    .iter()
                    .find(|(name, _)| *name == a.name)
                    .map_or(0, |(_, c)| *c)
            })
            .collect();
        let bits = self.dtype.bits();
        let mut out = Vec::new();
        if !known {
            return Ok(out);
        }
        self.visit_live(|p, i| {
            if i == want.as_slice() {
                out.push((p, self.address + p.element * bits / 8));
            }
            Ok(())
        })?;
        Ok(out)
    }

    /// The code of the element at `place` (4-bit elements: two per byte, the even element in
    /// the low nibble; wider ones little-endian).
    pub fn read_code(&self, dm: &Dm, place: &Place) -> Result<u64, DmError> {
        let id = Self::slice_id(place);
        let bits = self.dtype.bits();
        let bit = self.address * 8 + place.element * bits;
        if bits < 8 {
            let byte = dm.read_byte(id, bit / 8)?;
            let shift = bit % 8;
            return Ok(u64::from((byte >> shift) & ((1u8 << bits) - 1)));
        }
        let mut code = 0u64;
        for i in 0..bits / 8 {
            code |= u64::from(dm.read_byte(id, bit / 8 + i)?) << (8 * i);
        }
        Ok(code)
    }

    /// Writes `code` (at most `bits` wide, checked by the caller) at `place`.
    pub fn write_code(&self, dm: &mut Dm, place: &Place, code: u64) -> Result<(), DmError> {
        let id = Self::slice_id(place);
        let bits = self.dtype.bits();
        let bit = self.address * 8 + place.element * bits;
        if bits < 8 {
            let old = dm.read_byte(id, bit / 8)?;
            let shift = bit % 8;
            let mask = ((1u8 << bits) - 1) << shift;
            let new = (old & !mask) | (((code as u8) << shift) & mask);
            return dm.write_byte(id, bit / 8, new);
        }
        for i in 0..bits / 8 {
            dm.write_byte(id, bit / 8 + i, (code >> (8 * i)) as u8)?;
        }
        Ok(())
    }

    /// The longest run of consecutive accesses to one DM bank when `seq` walks this tensor
    /// (`docs/furiosa-engines.md` §2.2, decision "bank rule": reported against
    /// [`crate::sequencer::BANK_RUN_LIMIT`], not refused).
    pub fn bank_run(&self, seq: &Sequencer) -> usize {
        seq.bank_run(self.address)
    }
}
