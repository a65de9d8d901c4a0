//! The vendor-shaped API (`docs/furiosa-engines.md` §2.4, §4.5, §11.1): a [`Device`] whose
//! `main` and `sub` fields are Tensor Unit contexts sharing one DM, so that a kernel reads as
//! the book's do — `dev.main.begin(x.view()).fetch(..)?.collect(..)?.commit_trim(..)?
//! .commit(..)?` — with run-time mappings where the vendor has type parameters (in the same
//! order, before the value arguments). Each `begin … commit` is one invocation: the chain
//! records its engines and, at the commit, the device schedules it (§10.2) on its context.
//!
//! The Fetch Engine page's `named_broadcast` (a slice lift), line for line:
//!
//! ```
//! use npusim_furiosa::device::{Device, Topology};
//! use npusim_furiosa::{DType, axes, m};
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let ax = axes![A = 128, H = 2, V = 16]?;
//! let device = Device::new(Topology { chips: 1, pes: 8 });
//! // DmTensor<bf16, m![1], m![1 # 2], m![A, 2], m![H, V]>, replicated over the `2`.
//! let dm = device.place(DType::BF16, &m!(ax; 1)?, &m!(ax; 1 # 2)?, &m!(ax; A, 2)?,
//!                       &m!(ax; H, V)?, 0)?;
//! device.write_logical(&dm, &["A", "H", "V"], &(0..4096).collect::<Vec<u64>>())?;
//! let out = device.main
//!     .begin(dm.view())
//!     .fetch(&m!(ax; H)?, &m!(ax; V)?)?
//!     .fetch_slice_lift(&m!(ax; A, H)?, &m!(ax; 1)?)?
//!     .collect(&m!(ax; 1)?, &m!(ax; V)?)?
//!     .commit_trim(&m!(ax; V)?)?
//!     .commit(&m!(ax; V)?)?;
//! assert_eq!(out.slice().m_notation(), "A, H");
//! assert_eq!(device.read_logical(&out, &["A", "H", "V"])?, (0..4096).collect::<Vec<u64>>());
//! assert_eq!(device.schedule().makespan, 1); // one 32-byte read per slice
//! # Ok(())
//! # }
//! ```

mod stream;

use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

pub use stream::{TuStream, TuStreamError};

use crate::DType;
use crate::dm::{Dm, DmError, DmTensor, DmTensorView};
use crate::engine::fetch_interleave::begin_interleaved;
use crate::mapping::Mapping;
use crate::schedule::{Context, InvocationSchedule, Schedule};

/// The device's shape (the vendor's `Topology { chips, pes }`): chips and processing elements
/// per chip (kept for reports; npusim's DM is two clusters of 256 slices per chip).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Topology {
    /// Chips.
    pub chips: usize,
    /// Processing elements per chip.
    pub pes: usize,
}

/// What the two contexts share: the DM, the schedule, the last invocation of each context and
/// the end of the highest placed tensor (the bump allocator of `commit`).
#[derive(Debug)]
struct Shared {
    dm: Mutex<Dm>,
    schedule: Mutex<Schedule>,
    last: Mutex<[Option<InvocationSchedule>; 2]>,
    placed_end: Mutex<usize>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock leaves data that is still consistent (every write is
    // checked before it starts), so a poisoned lock is used as is.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn note_placed(&self, t: &DmTensor) {
        let mut end = lock(&self.placed_end);
        *end = (*end).max(t.byte_range().end);
    }
}

/// A Furiosa RNGD device: DM, and the Tensor Unit's main and sub contexts.
#[derive(Debug)]
pub struct Device {
    /// The main context (`dev.main`).
    pub main: TuContext,
    /// The sub context (`dev.sub`): 8-byte DM accesses, no table lookup, no commit cast.
    pub sub: TuContext,
    topology: Topology,
    shared: Arc<Shared>,
}

/// One Tensor Unit context of a device (the vendor's `TuContext`).
#[derive(Debug)]
pub struct TuContext {
    context: Context,
    shared: Arc<Shared>,
}

impl Device {
    /// A device of `topology` with empty DM (fill byte 0).
    pub fn new(topology: Topology) -> Device {
        let shared = Arc::new(Shared {
            dm: Mutex::new(Dm::new(topology.chips.max(1))),
            schedule: Mutex::new(Schedule::new()),
            last: Mutex::new([None, None]),
            placed_end: Mutex::new(0),
        });
        Device {
            main: TuContext {
                context: Context::Main,
                shared: Arc::clone(&shared),
            },
            sub: TuContext {
                context: Context::Sub,
                shared: Arc::clone(&shared),
            },
            topology,
            shared,
        }
    }

    /// The device's topology.
    pub fn topology(&self) -> Topology {
        self.topology
    }

    /// Sets the byte that never-written DM reads as.
    pub fn fill_undefined(&self, byte: u8) {
        lock(&self.shared.dm).fill_undefined(byte);
    }

    /// `DmTensor::<D, Chip, Cluster, Slice, Element>::from_addr(address)` in this device's DM.
    pub fn place(
        &self,
        dtype: DType,
        chip: &Mapping,
        cluster: &Mapping,
        slice: &Mapping,
        element: &Mapping,
        address: usize,
    ) -> Result<DmTensor, DmError> {
        let dm = lock(&self.shared.dm);
        let t = DmTensor::from_addr(&dm, dtype, chip, cluster, slice, element, address)?;
        self.shared.note_placed(&t);
        Ok(t)
    }

    /// Writes one code per logical element of `t` (in `order`) into every DM copy.
    pub fn write_logical(
        &self,
        t: &DmTensor,
        order: &[&str],
        codes: &[u64],
    ) -> Result<(), DmError> {
        t.write_logical(&mut lock(&self.shared.dm), order, codes)
    }

    /// The codes of `t`'s logical elements, in `order`.
    pub fn read_logical(&self, t: &DmTensor, order: &[&str]) -> Result<Vec<u64>, DmError> {
        t.read_logical(&lock(&self.shared.dm), order)
    }

    /// Loads `t` from a `.npy` file of its logical shape (axes in `order`).
    pub fn load_npy(&self, t: &DmTensor, path: &Path, order: &[&str]) -> Result<(), DmError> {
        t.load_npy(&mut lock(&self.shared.dm), path, order)
    }

    /// Saves `t` as a `.npy` file (atomically; axes in `order`).
    pub fn save_npy(&self, t: &DmTensor, path: &Path, order: &[&str]) -> Result<(), DmError> {
        t.save_npy(&lock(&self.shared.dm), path, order)
    }

    /// Runs `f` on the DM (to inspect bytes).
    pub fn with_dm<R>(&self, f: impl FnOnce(&Dm) -> R) -> R {
        f(&lock(&self.shared.dm))
    }

    /// The schedule of every invocation committed so far, across both contexts.
    pub fn schedule(&self) -> Schedule {
        lock(&self.shared.schedule).clone()
    }
}

impl TuContext {
    /// Which context this is.
    pub fn context(&self) -> Context {
        self.context
    }

    /// `ctx.begin(view)`: the view enters the Tensor Unit (Time `m![1]`, Packet its Element).
    pub fn begin(&self, view: DmTensorView) -> TuStream<'_> {
        TuStream::begin(self, view)
    }

    /// `ctx.begin_interleaved::<I>(lhs, rhs)`: two views with identical mappings fetched in
    /// one sequencer operation, alternating along the size-2 axis `axis` of Time.
    pub fn begin_interleaved(
        &self,
        axis: &Mapping,
        lhs: DmTensorView,
        rhs: DmTensorView,
    ) -> Result<TuStream<'_>, TuStreamError> {
        {
            let dm = lock(&self.shared.dm);
            begin_interleaved(&dm, axis, &lhs, &rhs).map_err(TuStreamError::from)?;
        }
        Ok(TuStream::interleaved(self, axis.clone(), lhs, rhs))
    }

    /// The schedule of this context's last invocation.
    pub fn last_schedule(&self) -> Option<InvocationSchedule> {
        let i = usize::from(self.context == Context::Sub);
        lock(&self.shared.last)[i].clone()
    }

    fn dm(&self) -> MutexGuard<'_, Dm> {
        lock(&self.shared.dm)
    }

    /// Schedules a finished invocation on this context.
    fn finish(&self, inv: InvocationSchedule) {
        let i = usize::from(self.context == Context::Sub);
        lock(&self.shared.last)[i] = Some(inv.clone());
        lock(&self.shared.schedule).push(inv);
    }
}
