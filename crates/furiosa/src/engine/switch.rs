//! The Switch Engine (`docs/furiosa-engines.md` §5): moves packets between the slices of a
//! cluster over the ring of routers, with one of the regular configurations of the book's
//! table. Chip, Cluster, Packet and the values are kept; only Slice and Time change.
//!
//! The input Slice is read as `[s2, s1, s0]` (outer to inner) and, with `time0`, the input Time
//! as `[t1, t0]` (`[t2, t1, t0]` for `InterTranspose`, `t1` of size `slice1`), decomposed by
//! value (`s0 = Slice % slice0`, `s1 = Slice / slice0 % slice1`, `s2 = Slice / (slice1 ·
//! slice0)`, decision §5.2). The expected OutSlice and OutTime are built from these pieces and
//! the user's broadcast pieces (`X`, `Y`: each a declared axis absent from the input Slice and
//! Time, or a bare number; never padded) and compared cell by cell with what the user wrote.
//!
//! | config | OutSlice | OutTime |
//! |---|---|---|
//! | `Broadcast01 {slice1, slice0, time0}` | `[s2, X, Y]` | `[t1, s1, t0, s0]` |
//! | `Broadcast1 {slice1, slice0}` | `[s2, X, s0]` | `[Time, s1]` |
//! | `Transpose {slice1, slice0}` | `[s2, s0, s1]` | `Time` |
//! | `InterTranspose {slice1, slice0, time0}` | `[s2, t1, s0]` (256 slices) | `[t2, t0, s1]` |
//! | `TransposedBroadcast1 {slice1, slice0}` | `[s2, Y, s1]` | `[Time, s0]` |
//!
//! Data (decision §5.2): an output cell takes the input cell with the same logical index in
//! the same chip and cluster; axes absent from the input are broadcast. Cost (§5.1, decisions
//! §5.2): `ring_size × Time::SIZE (input) × ceil(bytes(Packet) / 32)` cycles, `ring_size =
//! slice1 · slice0`; fill 0. `CustomBroadcast` is checked by
//! [`super::switch_custom::check_custom`] (its seven constraints and the derived ring size).

use std::collections::{BTreeSet, HashMap};

use thiserror::Error;

use crate::engine::fetch::{FetchError, check_packet_alignment};
use crate::engine::switch_custom::check_custom;
use crate::limits::FLIT_BYTES;
use crate::mapping::{Final, Mapping, ShapeError};
use crate::tensor::{Dim, Position, combined_cells};
use crate::{Codes, DType, StreamTensor, TensorError, TransitionError};

/// A Switch Engine configuration (the vendor's `SwitchConfig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SwitchConfig {
    /// `[s2, s1, s0] → [s2, X, Y]`, `[t1, t0] → [t1, s1, t0, s0]`.
    Broadcast01 {
        /// Size of `s1`.
        slice1: usize,
        /// Size of `s0`.
        slice0: usize,
        /// Size of `t0`.
        time0: usize,
    },
    /// `[s2, s1, s0] → [s2, X, s0]`, `[t0] → [t0, s1]`.
    Broadcast1 {
        /// Size of `s1`.
        slice1: usize,
        /// Size of `s0`.
        slice0: usize,
    },
    /// `[s2, s1, s0] → [s2, s0, s1]`, Time unchanged.
    Transpose {
        /// Size of `s1`.
        slice1: usize,
        /// Size of `s0`.
        slice0: usize,
    },
    /// `[s2, s1, s0] → [s2, t1, s0]`, `[t2, t1, t0] → [t2, t0, s1]`.
    InterTranspose {
        /// Size of `s1` (and of `t1`).
        slice1: usize,
        /// Size of `s0`.
        slice0: usize,
        /// Size of `t0`.
        time0: usize,
    },
    /// `[s2, s1, s0] → [s2, Y, s1]`, `[t0] → [t0, s0]`.
    TransposedBroadcast1 {
        /// Size of `s1`.
        slice1: usize,
        /// Size of `s0`.
        slice0: usize,
    },
    /// A routing the compiler derives from the mappings (a snoop bitmap over `ring_size`
    /// slices).
    CustomBroadcast {
        /// The ring size.
        ring_size: usize,
    },
}

impl SwitchConfig {
    /// The vendor's variant name.
    pub fn name(self) -> &'static str {
        match self {
            SwitchConfig::Broadcast01 { .. } => "Broadcast01",
            SwitchConfig::Broadcast1 { .. } => "Broadcast1",
            SwitchConfig::Transpose { .. } => "Transpose",
            SwitchConfig::InterTranspose { .. } => "InterTranspose",
            SwitchConfig::TransposedBroadcast1 { .. } => "TransposedBroadcast1",
            SwitchConfig::CustomBroadcast { .. } => "CustomBroadcast",
        }
    }

    /// The slices one sub-ring spans.
    pub fn ring_size(self) -> usize {
        match self {
            SwitchConfig::Broadcast01 { slice1, slice0, .. }
            | SwitchConfig::Broadcast1 { slice1, slice0 }
            | SwitchConfig::Transpose { slice1, slice0 }
            | SwitchConfig::InterTranspose { slice1, slice0, .. }
            | SwitchConfig::TransposedBroadcast1 { slice1, slice0 } => slice1 * slice0,
            SwitchConfig::CustomBroadcast { ring_size } => ring_size,
        }
    }

    /// The config's row of the book's table, as a rule text.
    fn rule(self) -> &'static str {
        match self {
            SwitchConfig::Broadcast01 { .. } => {
                "Broadcast01: Slice [s2, s1, s0] -> [s2, X, Y], Time [t1, t0] -> [t1, s1, t0, s0]"
            }
            SwitchConfig::Broadcast1 { .. } => {
                "Broadcast1: Slice [s2, s1, s0] -> [s2, X, s0], Time [t0] -> [t0, s1]"
            }
            SwitchConfig::Transpose { .. } => {
                "Transpose: Slice [s2, s1, s0] -> [s2, s0, s1], Time unchanged"
            }
            SwitchConfig::InterTranspose { .. } => {
                "InterTranspose: Slice [s2, s1, s0] -> [s2, t1, s0], Time [t2, t1, t0] -> [t2, t0, s1]"
            }
            SwitchConfig::TransposedBroadcast1 { .. } => {
                "TransposedBroadcast1: Slice [s2, s1, s0] -> [s2, Y, s1], Time [t0] -> [t0, s0]"
            }
            SwitchConfig::CustomBroadcast { .. } => "CustomBroadcast",
        }
    }
}

/// Why the Switch Engine refuses a configuration.
#[derive(Debug, Error)]
pub enum SwitchError {
    /// The method is not allowed at the tensor's position.
    #[error(transparent)]
    Transition(#[from] TransitionError),
    /// The fetched packet breaks the 8-byte rule.
    #[error(transparent)]
    Fetch(#[from] FetchError),
    /// The output stream cannot be built.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// OutSlice does not have the input Slice's size.
    #[error(
        "OutSlice = m![{out_slice}] has {got} slices but Slice = m![{slice}] has {expected} (rule: every switch configuration keeps the number of slices)"
    )]
    SliceSize {
        /// The input Slice.
        slice: String,
        /// The output Slice.
        out_slice: String,
        /// Input slices.
        expected: usize,
        /// Output slices.
        got: usize,
    },
    /// The decomposition of Slice or Time by the configuration's sizes is not whole.
    #[error("{config}: {error} (rule: {rule})")]
    Decompose {
        /// The config's name.
        config: &'static str,
        /// Why.
        error: ShapeError,
        /// The config's rule.
        rule: &'static str,
    },
    /// A broadcast position holds an axis of the input, or padding.
    #[error(
        "{config}: the broadcast position {which} = m![{piece}] of OutSlice = m![{out_slice}] {reason} (rule: a broadcast axis is new — absent from the input Slice and Time — or a bare number, and not padded)"
    )]
    BroadcastNotNew {
        /// The config's name.
        config: &'static str,
        /// `X` or `Y`.
        which: &'static str,
        /// The user's piece at that position.
        piece: String,
        /// The output Slice.
        out_slice: String,
        /// What is wrong.
        reason: String,
    },
    /// OutSlice or OutTime is not the configuration's structure.
    #[error("{config}: {what} m![{got}] must be equivalent to m![{expected}] (rule: {rule})")]
    Shape {
        /// The config's name.
        config: &'static str,
        /// `OutSlice` or `OutTime`.
        what: &'static str,
        /// What was written.
        got: String,
        /// What the configuration gives.
        expected: String,
        /// The config's rule.
        rule: &'static str,
    },
    /// `InterTranspose` over other than 256 slices.
    #[error(
        "InterTranspose needs s2 · s1 · s0 = 256 slices; Slice = m![{slice}] has {size} (rule: InterTranspose spans the whole ring)"
    )]
    InterTransposeSlices {
        /// The input Slice.
        slice: String,
        /// Its size.
        size: usize,
    },
    /// A `CustomBroadcast` constraint is broken.
    #[error("CustomBroadcast: {detail} (rule: {rule})")]
    Custom {
        /// The constraint.
        rule: &'static str,
        /// What breaks it, with the mappings.
        detail: String,
    },
    /// A `CustomBroadcast` ring size that is not a power of two.
    #[error(
        "CustomBroadcast {{ ring_size: {given} }}: not a power of two (rule: ring_size is a power of 2)"
    )]
    RingSizePower {
        /// The ring size given.
        given: usize,
    },
    /// A `CustomBroadcast` ring size other than the derived one.
    #[error(
        "CustomBroadcast {{ ring_size: {given} }}: the mappings need ring_size {derived}, the smallest power of two whose aligned blocks of slices hold every output slice's sources (rule: ring_size equals the one derived from the mappings)"
    )]
    RingSize {
        /// The ring size given.
        given: usize,
        /// The derived ring size.
        derived: usize,
    },
}

/// Cycles of a switch (per slice): `ring_size × time_steps × ceil(packet_bytes / 32)`; every
/// sub-ring runs in parallel, and a sub-flit packet still takes one flit slot (decision §5.2).
pub fn switch_cycles(ring_size: usize, time_steps: usize, packet_bytes: usize) -> usize {
    ring_size * time_steps * packet_bytes.div_ceil(FLIT_BYTES).max(1)
}

/// What a switch does per slice: the configuration's ring size and cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SwitchPlan {
    /// Slices of one sub-ring.
    pub ring_size: usize,
    /// Input time steps.
    pub time_steps: usize,
    /// Flits per packet (at least 1).
    pub flits_per_packet: usize,
    /// `ring_size × time_steps × flits_per_packet`.
    pub cycles: usize,
}

/// Checks `Slice`/`Time` → `out_slice`/`out_time` against `config` for packets of
/// `packet_elems` elements of `dtype`, and gives the cost.
pub fn plan_switch(
    slice: &Mapping,
    time: &Mapping,
    packet_elems: usize,
    dtype: DType,
    out_slice: &Mapping,
    out_time: &Mapping,
    config: SwitchConfig,
) -> Result<SwitchPlan, SwitchError> {
    let name = config.name();
    let rule = config.rule();
    if out_slice.size() != slice.size() {
        return Err(SwitchError::SliceSize {
            slice: slice.m_notation(),
            out_slice: out_slice.m_notation(),
            expected: slice.size(),
            got: out_slice.size(),
        });
    }
    if let SwitchConfig::CustomBroadcast { ring_size } = config {
        let ring_size = check_custom(slice, time, out_slice, out_time, ring_size)?;
        let packet_bytes = (packet_elems * dtype.bits()).div_ceil(8);
        return Ok(SwitchPlan {
            ring_size,
            time_steps: time.size(),
            flits_per_packet: packet_bytes.div_ceil(FLIT_BYTES).max(1),
            cycles: switch_cycles(ring_size, time.size(), packet_bytes),
        });
    }
    let de = |error: ShapeError| SwitchError::Decompose {
        config: name,
        error,
        rule,
    };
    let (s1n, s0n, t0n) = match config {
        SwitchConfig::Broadcast01 {
            slice1,
            slice0,
            time0,
        }
        | SwitchConfig::InterTranspose {
            slice1,
            slice0,
            time0,
        } => (slice1, slice0, time0),
        SwitchConfig::Broadcast1 { slice1, slice0 }
        | SwitchConfig::Transpose { slice1, slice0 }
        | SwitchConfig::TransposedBroadcast1 { slice1, slice0 } => (slice1, slice0, 1),
        SwitchConfig::CustomBroadcast { .. } => (1, 1, 1),
    };
    if matches!(config, SwitchConfig::InterTranspose { .. }) && slice.size() != 256 {
        return Err(SwitchError::InterTransposeSlices {
            slice: slice.m_notation(),
            size: slice.size(),
        });
    }
    let s0 = slice.clone().modulo(s0n).map_err(de)?;
    let s1 = slice
        .clone()
        .stride(s0n)
        .map_err(de)?
        .modulo(s1n)
        .map_err(de)?;
    let s2 = slice.clone().stride(s0n * s1n).map_err(de)?;
    let o0 = out_slice.clone().modulo(s0n).map_err(de)?;
    let o1 = out_slice
        .clone()
        .stride(s0n)
        .map_err(de)?
        .modulo(s1n)
        .map_err(de)?;
    let input_axes: BTreeSet<String> = slice
        .axes()
        .into_iter()
        .chain(time.axes())
        .map(|a| a.name)
        .collect();
    let fresh = |piece: &Mapping, which: &'static str| -> Result<Mapping, SwitchError> {
        let bad = |reason: String| SwitchError::BroadcastNotNew {
            config: name,
            which,
            piece: piece.normalize().m_notation(),
            out_slice: out_slice.m_notation(),
            reason,
        };
        let cells = piece.cells();
        // The axes its cells hold (an axis whose digit the piece drops is not held).
        let held = cells.iter().find_map(|c| match c {
            Final::Live(m) => m.keys().find(|a| input_axes.contains(*a)).cloned(),
            _ => None,
        });
        if let Some(a) = held {
            return Err(bad(format!("holds `{a}`, an axis of the input")));
        }
        if cells.iter().any(|c| !c.is_live()) {
            return Err(bad("is padded".into()));
        }
        Ok(piece.clone())
    };
    let pair = |parts: Vec<Mapping>| -> Result<Mapping, SwitchError> {
        let mut it = parts.into_iter();
        let first = it.next().unwrap_or_else(|| time.clone());
        it.try_fold(first, |acc, m| acc.pair(m)).map_err(de)
    };
    let (want_slice, want_time) = match config {
        SwitchConfig::Broadcast01 { .. } => {
            let t0 = time.clone().modulo(t0n).map_err(de)?;
            let t1 = time.clone().stride(t0n).map_err(de)?;
            (
                pair(vec![s2, fresh(&o1, "X")?, fresh(&o0, "Y")?])?,
                pair(vec![t1, s1, t0, s0])?,
            )
        }
        SwitchConfig::Broadcast1 { .. } => (
            pair(vec![s2, fresh(&o1, "X")?, s0])?,
            pair(vec![time.clone(), s1])?,
        ),
        SwitchConfig::Transpose { .. } => (pair(vec![s2, s0, s1])?, time.clone()),
        SwitchConfig::InterTranspose { .. } => {
            let t0 = time.clone().modulo(t0n).map_err(de)?;
            let t1 = time
                .clone()
                .stride(t0n)
                .map_err(de)?
                .modulo(s1n)
                .map_err(de)?;
            let t2 = time.clone().stride(t0n * s1n).map_err(de)?;
            (pair(vec![s2, t1, s0])?, pair(vec![t2, t0, s1])?)
        }
        SwitchConfig::TransposedBroadcast1 { .. } => (
            pair(vec![s2, fresh(&o1, "Y")?, s1])?,
            pair(vec![time.clone(), s0])?,
        ),
        SwitchConfig::CustomBroadcast { .. } => (out_slice.clone(), out_time.clone()),
    };
    for (what, got, want) in [
        ("OutSlice", out_slice, &want_slice),
        ("OutTime", out_time, &want_time),
    ] {
        if !got.equivalent(want) {
            return Err(SwitchError::Shape {
                config: name,
                what,
                got: got.m_notation(),
                expected: want.normalize().m_notation(),
                rule,
            });
        }
    }
    let ring_size = config.ring_size();
    let packet_bytes = (packet_elems * dtype.bits()).div_ceil(8);
    let flits_per_packet = packet_bytes.div_ceil(FLIT_BYTES).max(1);
    Ok(SwitchPlan {
        ring_size,
        time_steps: time.size(),
        flits_per_packet,
        cycles: switch_cycles(ring_size, time.size(), packet_bytes),
    })
}

impl StreamTensor {
    /// The plan of `.switch::<OutSlice, OutTime>(config)` on this stream (nothing moves).
    pub fn switch_plan(
        &self,
        out_slice: &Mapping,
        out_time: &Mapping,
        config: SwitchConfig,
    ) -> Result<SwitchPlan, SwitchError> {
        self.position().check_transition("switch")?;
        check_packet_alignment(self)?;
        plan_switch(
            self.mapping(Dim::Slice),
            self.time(),
            self.packet().size(),
            self.dtype(),
            out_slice,
            out_time,
            config,
        )
    }

    /// `.switch::<OutSlice, OutTime>(config)`: the `SwitchTensor` whose every live cell holds
    /// the input cell of the same logical index in its chip and cluster.
    pub fn switch(
        self,
        out_slice: &Mapping,
        out_time: &Mapping,
        config: SwitchConfig,
    ) -> Result<StreamTensor, SwitchError> {
        self.switch_plan(out_slice, out_time, config)?;
        let (slice, time, packet) = (self.mapping(Dim::Slice), self.time(), self.packet());
        let names: BTreeSet<String> = [slice, time, packet]
            .iter()
            .flat_map(|m| m.axes())
            .map(|a| a.name)
            .collect();
        let key = |c: &Final| match c {
            Final::Live(m) => Some(
                m.iter()
                    .filter(|(a, _)| names.contains(*a))
                    .map(|(a, v)| (a.clone(), *v))
                    .collect::<Vec<_>>(),
            ),
            _ => None,
        };
        let mut at: HashMap<Vec<(String, usize)>, usize> = HashMap::new();
        for (p, c) in combined_cells(&[slice, time, packet]).iter().enumerate() {
            if let Some(k) = key(c) {
                at.entry(k).or_insert(p);
            }
        }
        let source: Vec<Option<usize>> = combined_cells(&[out_slice, out_time, packet])
            .iter()
            .map(|c| key(c).and_then(|k| at.get(&k).copied()))
            .collect();
        let block_in = slice.size() * time.size() * packet.size();
        let block_out = source.len();
        let blocks = self.codes().len() / block_in.max(1);
        let mut codes = vec![0u64; blocks * block_out];
        let input = self.codes();
        for b in 0..blocks {
            for (q, s) in source.iter().enumerate() {
                if let Some(p) = s {
                    codes[b * block_out + q] = input.get(b * block_in + p).unwrap_or(0);
                }
            }
        }
        let dtype = self.dtype();
        let data = Codes::from_u64(dtype, &codes).map_err(|e| TensorError::BadCode {
            index: e.index,
            code: e.code,
            dtype,
        })?;
        let dims = [
            self.mapping(Dim::Chip).clone(),
            self.mapping(Dim::Cluster).clone(),
            out_slice.clone(),
            out_time.clone(),
            packet.clone(),
        ];
        Ok(StreamTensor::from_codes(
            dtype,
            Position::Switch,
            dims,
            data,
        )?)
    }
}
