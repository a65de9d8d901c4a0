//! A rectangular grid of routers moving wavelets one hop per cycle (spec §8, §9).
//!
//! Every router has one input slot per port (N, E, S, W, RAMP); a slot holds the wavelet
//! that crossed that link. In one cycle each wavelet in a slot may move to every port of its
//! color's `tx` set at once (multicast is all or nothing). A link carries at most one wavelet
//! per cycle: a target slot is free when it is empty or its occupant moves on in the same
//! cycle; when two wavelets want the same link, the one met first in the fixed order (PEs
//! row-major, ports N, E, S, W, RAMP) goes and the other waits. Wavelets routed to the RAMP
//! land in the input queue bound to their color; a full queue holds them back. After the
//! moves, each empty RAMP slot takes the next wavelet from the PE's output queues (round
//! robin). Edge ports can be opened to the host: wavelets sent there are collected, and
//! host streams enter through them.

use std::collections::VecDeque;

use super::color::Color;
use super::direction::{Dir, DirSet};
use super::error::FabricError;
use super::queue::{Delivery, PeQueues};
use super::route::ColorConfig;
use super::stepping::StepScratch;
use super::wavelet::Wavelet;
use crate::arch::Arch;

/// A wavelet that moved in one cycle, for traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hop {
    /// Column of the router.
    pub x: u32,
    /// Row of the router.
    pub y: u32,
    /// The port it came from.
    pub from: Dir,
    /// The ports it went to.
    pub to: DirSet,
    /// The wavelet.
    pub wavelet: Wavelet,
}

/// A wavelet sent off the grid through an open edge port.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Collected {
    /// Column of the sending router.
    pub x: u32,
    /// Row of the sending router.
    pub y: u32,
    /// The edge port.
    pub dir: Dir,
    /// The cycle it left.
    pub cycle: u64,
    /// The wavelet.
    pub wavelet: Wavelet,
}

#[derive(Clone, Debug, Default)]
pub(super) struct Router {
    pub(super) colors: [Option<ColorConfig>; Color::COUNT],
    pub(super) slots: [Option<Wavelet>; 5],
    pub(super) open_edges: DirSet,
    pub(super) streams: [VecDeque<Wavelet>; 5],
    /// Colors in teardown mode (bit per color): their wavelets stay in this router's slots.
    pub(super) teardown: u32,
    /// WSE-2 `color_swap_x`: a wavelet received from WEST and sent EAST toggles color bit 0.
    pub(super) color_swap_x: bool,
}

/// The routers of a `width` x `height` grid of PEs.
#[derive(Clone, Debug)]
pub struct Fabric {
    arch: Arch,
    width: u32,
    height: u32,
    pub(super) routers: Vec<Router>,
    pub(super) collected: Vec<Collected>,
    pub(super) changes: usize,
    /// Routers that may hold a wavelet in a slot (bit per router, row-major; a set bit may be
    /// stale, a clear one never is).
    pub(super) busy: Vec<u64>,
    /// Routers with host wavelets still to stream in, ascending.
    pub(super) streaming: Vec<usize>,
    /// PEs whose queues the last step changed.
    pub(super) touched: Vec<usize>,
    pub(super) scratch: StepScratch,
}

impl Fabric {
    /// `(width, height)` of the full fabric of `arch` (spec §1.3: WSE-2 757 × 996 PEs; WSE-3
    /// 762 × 1172, a third-party constant).
    pub const fn full_size(arch: Arch) -> (u32, u32) {
        match arch {
            Arch::Wse2 => (757, 996),
            Arch::Wse3 => (762, 1172),
        }
    }

    /// A grid of `width` x `height` PEs with no routes; it must fit the full fabric of `arch`.
    pub fn new(arch: Arch, width: u32, height: u32) -> Result<Fabric, FabricError> {
        let n = u64::from(width) * u64::from(height);
        if n == 0 {
            return Err(FabricError::EmptyGrid { width, height });
        }
        let (fw, fh) = Fabric::full_size(arch);
        if width > fw || height > fh {
            return Err(FabricError::TooLarge {
                width,
                height,
                max_width: fw,
                max_height: fh,
                arch,
            });
        }
        Ok(Fabric {
            arch,
            width,
            height,
            routers: (0..n).map(|_| Router::default()).collect(),
            collected: Vec::new(),
            changes: 0,
            busy: vec![0; n.div_ceil(64) as usize],
            streaming: Vec::new(),
            touched: Vec::new(),
            scratch: StepScratch::default(),
        })
    }

    /// The architecture.
    pub fn arch(&self) -> Arch {
        self.arch
    }

    /// `(width, height)`.
    pub fn dims(&self) -> (u32, u32) {
        (self.width, self.height)
    }

    /// Number of PEs.
    pub fn len(&self) -> usize {
        self.routers.len()
    }

    /// Whether the grid has no PE (never: a grid has at least one).
    pub fn is_empty(&self) -> bool {
        self.routers.is_empty()
    }

    /// The row-major index of PE `(x, y)`, checked.
    pub fn pe_index(&self, x: i64, y: i64) -> Result<usize, FabricError> {
        if x < 0 || y < 0 || x >= i64::from(self.width) || y >= i64::from(self.height) {
            return Err(FabricError::OutsideGrid {
                x,
                y,
                width: self.width,
                height: self.height,
            });
        }
        Ok((y * i64::from(self.width) + x) as usize)
    }

    /// The coordinates of the PE with row-major index `k`.
    pub fn coords(&self, k: usize) -> (u32, u32) {
        let w = self.width as usize;
        ((k % w) as u32, (k / w) as u32)
    }

    /// `@set_local_color_config(color, ...)` on PE `(x, y)`; the route needs at least one `rx`
    /// and one `tx` port.
    pub fn set_color_config(
        &mut self,
        x: i64,
        y: i64,
        color: Color,
        config: ColorConfig,
    ) -> Result<(), FabricError> {
        let k = self.pe_index(x, y)?;
        if config.base.rx.is_empty() || config.base.tx.is_empty() {
            return Err(FabricError::EmptyRoute {
                x: x as u32,
                y: y as u32,
                color,
            });
        }
        self.routers[k].colors[color.index()] = Some(config);
        Ok(())
    }

    /// The configuration of `color` on PE `(x, y)`, if any.
    pub fn color_config(
        &self,
        x: i64,
        y: i64,
        color: Color,
    ) -> Result<Option<&ColorConfig>, FabricError> {
        let k = self.pe_index(x, y)?;
        Ok(self.routers[k].colors[color.index()].as_ref())
    }

    /// Advances the switch position of `color` on PE `(x, y)`; returns the new position.
    pub fn advance_switch(&mut self, x: i64, y: i64, color: Color) -> Result<u8, FabricError> {
        let k = self.pe_index(x, y)?;
        self.advance_switch_at(k, color)
    }

    /// [`Fabric::advance_switch`] by row-major index.
    pub fn advance_switch_at(&mut self, k: usize, color: Color) -> Result<u8, FabricError> {
        let (x, y) = self.coords(k);
        match self
            .routers
            .get_mut(k)
            .and_then(|r| r.colors[color.index()].as_mut())
        {
            Some(c) => Ok(c.advance_switch()),
            None => Err(FabricError::Unroutable {
                x,
                y,
                color,
                from: Dir::Ramp,
                rx: DirSet::EMPTY,
            }),
        }
    }

    /// Opens edge port `dir` of PE `(x, y)` to the host: wavelets routed there are collected
    /// instead of being an error, and [`Fabric::stream_in`] may feed wavelets through it.
    pub fn open_edge(&mut self, x: i64, y: i64, dir: Dir) -> Result<(), FabricError> {
        let k = self.pe_index(x, y)?;
        let (dx, dy) = dir.offset();
        if dir == Dir::Ramp || self.pe_index(x + dx, y + dy).is_ok() {
            return Err(FabricError::NotAnEdge {
                x: x as u32,
                y: y as u32,
                dir,
            });
        }
        let r = &mut self.routers[k];
        r.open_edges = DirSet::of(&r.open_edges.iter().chain([dir]).collect::<Vec<_>>());
        Ok(())
    }

    /// Queues host wavelets to enter PE `(x, y)` through the open edge port `dir`, one per
    /// cycle when the port's slot is free.
    pub fn stream_in(
        &mut self,
        x: i64,
        y: i64,
        dir: Dir,
        wavelets: impl IntoIterator<Item = Wavelet>,
    ) -> Result<(), FabricError> {
        let k = self.pe_index(x, y)?;
        if !self.routers[k].open_edges.contains(dir) {
            return Err(FabricError::NotAnEdge {
                x: x as u32,
                y: y as u32,
                dir,
            });
        }
        self.routers[k].streams[dir.index()].extend(wavelets);
        if let Err(at) = self.streaming.binary_search(&k) {
            self.streaming.insert(at, k);
        }
        Ok(())
    }

    /// Wavelets collected at open edge ports, in the order they left.
    pub fn collected(&self) -> &[Collected] {
        &self.collected
    }

    /// Wavelets moved, taken from output queues or injected by the last [`Fabric::step`].
    pub fn changes(&self) -> usize {
        self.changes
    }

    /// Where wavelets sit in router slots: `(x, y, port, wavelet)`, row-major, port order.
    pub fn waiting(&self) -> Vec<(u32, u32, Dir, Wavelet)> {
        let mut out = Vec::new();
        for (k, r) in self.routers.iter().enumerate() {
            let (x, y) = self.coords(k);
            for d in Dir::ALL {
                if let Some(w) = r.slots[d.index()] {
                    out.push((x, y, d, w));
                }
            }
        }
        out
    }

    /// Whether any wavelet is in a router slot or waits in a host stream.
    pub fn in_flight(&self) -> bool {
        self.routers
            .iter()
            .any(|r| r.slots.iter().any(Option::is_some) || r.streams.iter().any(|s| !s.is_empty()))
    }

    /// One cycle of every router. `queues[k]` are the queues of PE `k` (row-major). Returns
    /// the hops taken, in processing order.
    pub fn step(
        &mut self,
        cycle: u64,
        queues: &mut [&mut PeQueues],
    ) -> Result<Vec<Hop>, FabricError> {
        let mut hops = Vec::new();
        self.step_into(cycle, queues, None, &mut hops)?;
        Ok(hops)
    }

    /// Injects `w` directly into PE `k`'s input queue bound to its color (host copy of a
    /// stream that does not go through the routers).
    pub fn deliver_direct(
        &self,
        k: usize,
        queues: &mut PeQueues,
        w: Wavelet,
    ) -> Result<bool, FabricError> {
        let (x, y) = self.coords(k);
        match queues.deliver(w) {
            Delivery::Queued => Ok(true),
            Delivery::Full => Ok(false),
            Delivery::Filtered => Ok(true),
            Delivery::Unbound => Err(FabricError::NoInputQueue {
                x,
                y,
                color: w.color,
            }),
        }
    }
}
