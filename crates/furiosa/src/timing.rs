//! Cycle model of the engines npusim runs (spec §4.7, seed 003's ring tail). It is a model:
//! the vendor publishes rules of thumb, not a cycle-accurate description, and every estimate
//! says which model produced it. Estimates are reported beside results, never inside them.
//!
//! Model `furiosa-rngd-v1`, per slice (slices run in parallel):
//! * **Cast Engine**: one flit per cycle: `Time.SIZE` cycles.
//! * **Vector Engine, streaming**: a Way8 stage takes one flit (8 × 32-bit) per cycle; a Way4
//!   stage takes half a flit per cycle, so a chain containing one takes `2 · T` cycles for `T`
//!   input flits. Upstream delivering a flit every `c` cycles makes streaming `c · T` when
//!   that is slower.
//! * **ALU latency**: +1 cycle per ALU the chain uses.
//! * **Inter-slice ring tail**: a reduction over `r` slices settles `r − 1` ring hops after its
//!   last flit enters the ring (no published constant; one cycle per hop, spec §0.7). The ring
//!   accepts one flit per cycle, so the reducer finishes at `ve_stream + (r − 1)`; when upstream
//!   is slower than that, the tail is hidden behind it.
//!
//! Total = `max(upstream stream, VE stream + ring tail) + ALU latency`; the stages reported are
//! `stream`, `ring tail` (the visible part) and `alu latency`.

use npusim_hw::CycleEstimate;

use crate::engine::vector::StageRecord;
use crate::engine::vector::stage::{Stage, Way};

/// Name of the model in every estimate.
pub const MODEL: &str = "furiosa-rngd-v1";

/// Ring hops of a reduction over `r` slices (one cycle each).
pub fn ring_tail(r: u64) -> u64 {
    r.saturating_sub(1)
}

/// The Cast Engine passing `flits` flits (per slice).
pub fn estimate_cast(flits: u64) -> CycleEstimate {
    CycleEstimate::new(MODEL).stage("cast", flits)
}

/// A Vector Engine invocation described by its stage `trace`, fed one flit every
/// `upstream_cycles_per_flit` cycles (1 = as fast as the VE takes them).
pub fn estimate_vector(trace: &[StageRecord], upstream_cycles_per_flit: u64) -> CycleEstimate {
    let flits = trace.first().map_or(0, |r| r.flits);
    let way4 = trace.iter().any(|r| r.way == Way::Way4);
    let ve_stream = if way4 { 2 * flits } else { flits };
    let upstream = flits.saturating_mul(upstream_cycles_per_flit.max(1));
    let ratio = trace
        .iter()
        .find(|r| r.stage == Stage::InterSliceReduce)
        .map_or(0, |r| r.ratio);
    let reducer_done = ve_stream + ring_tail(ratio);
    let stream = upstream.max(ve_stream);
    let visible_tail = reducer_done.saturating_sub(stream);
    let alus: u64 = trace.iter().map(|r| r.alus).sum();
    CycleEstimate::new(MODEL)
        .stage("stream", stream)
        .stage("ring tail", visible_tail)
        .stage("alu latency", alus)
}
