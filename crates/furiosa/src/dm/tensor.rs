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

    /// Every DM position of the tensor holding a logical element, with the element's
    /// coordinates by axis name (zeros left out), in (chip, cluster, slice, element) order.
    pub(super) fn live_places(&self) -> Result<Vec<(Place, LogicalIndex)>, DmError> {
        let positions = [&self.chip, &self.cluster, &self.slice, &self.element]
            .iter()
            .map(|m| m.size() as u128)
            .product::<u128>();
        let limit = STREAM_POSITIONS.max as usize;
        if positions > limit as u128 {
            return Err(DmError::TooManyPositions { positions, limit });
        }
        let sizes: BTreeMap<String, usize> = self
            .used_axes()
            .into_iter()
            .map(|a| (a.name, a.size))
            .collect();
        let cells = |m: &Mapping| -> Vec<Option<BTreeMap<String, usize>>> {
            m.cells()
                .into_iter()
                .map(|c| match c {
                    Final::Live(map) => Some(map),
                    _ => None,
                })
                .collect()
        };
        let (chips, clusters, slices, elements) = (
            cells(&self.chip),
            cells(&self.cluster),
            cells(&self.slice),
            cells(&self.element),
        );
        let mut out = Vec::new();
        for (c, cc) in chips.iter().enumerate() {
            let Some(cc) = cc else { continue };
            for (k, kc) in clusters.iter().enumerate() {
                let Some(kc) = kc else { continue };
                for (s, sc) in slices.iter().enumerate() {
                    let Some(sc) = sc else { continue };
                    for (e, ec) in elements.iter().enumerate() {
                        let Some(ec) = ec else { continue };
                        let mut index = cc.clone();
                        for part in [kc, sc, ec] {
                            for (a, v) in part {
                                *index.entry(a.clone()).or_insert(0) += v;
                            }
                        }
                        // A coordinate past its axis (a padded split) holds nothing.
                        if index
                            .iter()
                            .any(|(a, v)| sizes.get(a).is_some_and(|n| v >= n))
                        {
                            continue;
                        }
                        let place = Place {
                            chip: c,
                            cluster: k,
                            slice: s,
                            element: e,
                        };
                        out.push((place, index));
                    }
                }
            }
        }
        Ok(out)
    }

    /// Every DM position holding the logical element with coordinates `index` (axes left out
    /// are 0), with its byte address.
    pub fn locate(&self, index: &[(&str, usize)]) -> Result<Vec<(Place, usize)>, DmError> {
        let want = Final::live(index);
        let bits = self.dtype.bits();
        Ok(self
            .live_places()?
            .into_iter()
            .filter(|(_, i)| Final::Live(i.clone()) == want)
            .map(|(p, _)| (p, self.address + p.element * bits / 8))
            .collect())
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
