//! The data memory of a device: one sparse 512 KiB byte array per (chip, cluster, slice).

use std::collections::HashMap;

use super::{DM_SLICE_BYTES, DmError};
use crate::limits::{CLUSTERS_PER_CHIP, SLICES_PER_CLUSTER};

/// One slice's DM: chip, cluster and slice numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SliceId {
    /// Chip.
    pub chip: usize,
    /// Cluster in the chip (0 or 1).
    pub cluster: usize,
    /// Slice in the cluster (0..256).
    pub slice: usize,
}

/// The bytes a slice has been written, and which ones.
#[derive(Clone, Debug, Default)]
struct SliceBytes {
    /// Bytes up to the highest one written.
    data: Vec<u8>,
    /// One bit per byte of `data`: written at least once.
    written: Vec<u64>,
}

/// The DM of every slice of a device, stored sparsely: a slice's bytes are allocated up to the
/// highest byte written, and a byte never written reads as the fill byte (0 unless
/// [`Dm::fill_undefined`] sets another; `docs/furiosa-engines.md` §2.2, decision "storage").
#[derive(Clone, Debug)]
pub struct Dm {
    chips: usize,
    fill: u8,
    slices: HashMap<SliceId, SliceBytes>,
}

impl Dm {
    /// The DM of `chips` chips (2 clusters × 256 slices each), nothing written.
    pub fn new(chips: usize) -> Dm {
        Dm {
            chips,
            fill: 0,
            slices: HashMap::new(),
        }
    }

    /// Number of chips.
    pub fn chips(&self) -> usize {
        self.chips
    }

    /// Makes every byte never written read as `byte` (a test's proof that a kernel never reads
    /// DM it did not write).
    pub fn fill_undefined(&mut self, byte: u8) {
        self.fill = byte;
    }

    /// The value of bytes never written.
    pub fn fill_byte(&self) -> u8 {
        self.fill
    }

    fn check(&self, id: SliceId, addr: usize) -> Result<(), DmError> {
        let clusters = CLUSTERS_PER_CHIP.max as usize;
        let slices = SLICES_PER_CLUSTER.max as usize;
        if id.chip >= self.chips || id.cluster >= clusters || id.slice >= slices {
            return Err(DmError::NoSuchSlice {
                chip: id.chip,
                cluster: id.cluster,
                slice: id.slice,
                chips: self.chips,
                clusters,
                slices,
            });
        }
        if addr >= DM_SLICE_BYTES {
            return Err(DmError::OutsideSlice {
                address: addr,
                capacity: DM_SLICE_BYTES,
            });
        }
        Ok(())
    }

    /// The byte at `addr` of slice `id` (the fill byte if never written).
    pub fn read_byte(&self, id: SliceId, addr: usize) -> Result<u8, DmError> {
        self.check(id, addr)?;
        Ok(match self.slices.get(&id) {
            Some(s) if addr < s.data.len() && s.written[addr / 64] & (1 << (addr % 64)) != 0 => {
                s.data[addr]
            }
            _ => self.fill,
        })
    }

    /// Writes `byte` at `addr` of slice `id`.
    pub fn write_byte(&mut self, id: SliceId, addr: usize, byte: u8) -> Result<(), DmError> {
        self.check(id, addr)?;
        let s = self.slices.entry(id).or_default();
        if addr >= s.data.len() {
            s.data.resize(addr + 1, 0);
            s.written.resize((addr + 1).div_ceil(64), 0);
        }
        s.data[addr] = byte;
        s.written[addr / 64] |= 1 << (addr % 64);
        Ok(())
    }

    /// Bytes `start .. start + len` of slice `id`.
    pub fn read_bytes(&self, id: SliceId, start: usize, len: usize) -> Result<Vec<u8>, DmError> {
        (start..start.saturating_add(len))
            .map(|a| self.read_byte(id, a))
            .collect()
    }

    /// Bytes of DM allocated so far (the sparse storage's footprint).
    pub fn allocated_bytes(&self) -> usize {
        self.slices.values().map(|s| s.data.len()).sum()
    }
}
