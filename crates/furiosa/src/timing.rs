//! Cycle model of the engines npusim runs (with the Inter-Slice Block page's ring tail). It is a
//! model: the vendor publishes rules of thumb, not a cycle-accurate description, and every estimate
//! says which model produced it. Estimates are reported beside results, never inside them.
//!
//! Model `furiosa-rngd-v1`, per slice (slices run in parallel):
//! * **Cast Engine**: one flit per cycle: `Time.SIZE` cycles of streaming, no latency of its
//!   own (the Cast Engine page: a pass-through stage that is never the bottleneck).
//! * **Vector Engine, streaming**: a Way8 stage takes one flit (8 × 32-bit) per cycle; a Way4
//!   stage takes half a flit per cycle, so a chain containing one takes `2 · T` cycles for `T`
//!   input flits. Upstream delivering a flit every `c` cycles makes streaming `c · T` when
//!   that is slower: the stream lasts the later of the two.
//! * **ALU latency**: +1 cycle per ALU the chain uses.
//! * **Inter-slice ring tail**: a reduction over `r` slices settles `r − 1` ring hops (no
//!   published constant; one cycle per hop, npusim's choice) after its last flit enters the ring.
//!   The Inter-Slice Block page: total time = input streaming time + the ring-sized tail; a
//!   slow upstream hides the per-flit inter-slice cost (the reducer keeps up with it) but not
//!   the tail, which starts after the later of the upstream and the Vector Engine stream.
//! * **First reduced output**: about one ring traversal after the first flit enters the ring
//!   ([`first_output`]).
//!
//! A Vector Engine estimate has the stages `stream`, `ring tail` and `alu latency`.
//!
//! **A pipeline** (Vector Engine, then Cast Engine) streams its engines concurrently, flit by
//! flit: its total is the slowest engine's streaming time, plus every engine's latency, plus
//! the ring tail where there is one ([`estimate_pipeline`]).

use npusim_hw::CycleEstimate;

use crate::engine::vector::stage::{Stage, StageRecord, Way};

/// Name of the model in every estimate.
pub const MODEL: &str = "furiosa-rngd-v1";

/// Stage name of a Vector Engine estimate's streaming time.
pub const STREAM: &str = "stream";
/// Stage name of the Cast Engine's streaming time.
pub const CAST: &str = "cast";
/// Stage name of the inter-slice ring tail.
pub const RING_TAIL: &str = "ring tail";
/// Stage name of the ALU latency.
pub const ALU_LATENCY: &str = "alu latency";
/// Stage name of a pipeline estimate's streaming time (its slowest engine's).
pub const SLOWEST_STREAM: &str = "slowest stream";

/// Ring hops of a reduction over `r` slices (one cycle each).
pub fn ring_tail(r: u64) -> u64 {
    r.saturating_sub(1)
}

/// The Cast Engine passing `flits` flits (per slice).
pub fn estimate_cast(flits: u64) -> CycleEstimate {
    CycleEstimate::new(MODEL).stage(CAST, flits)
}

/// Cycles the Vector Engine chain of `trace` spends per input flit (1 for Way8, 2 with a Way4
/// stage).
fn ve_cycles_per_flit(trace: &[StageRecord]) -> u64 {
    if trace.iter().any(|r| r.way == Way::Way4) {
        2
    } else {
        1
    }
}

/// The reduction ratio of the inter-slice reducer in `trace`, if it has one.
fn reduction_ratio(trace: &[StageRecord]) -> Option<u64> {
    trace
        .iter()
        .find(|r| r.stage == Stage::InterSliceReduce)
        .map(|r| r.ratio)
}

/// A Vector Engine invocation described by its stage `trace`, fed one flit every
/// `upstream_cycles_per_flit` cycles (1 = as fast as the VE takes them):
/// `stream = max(upstream · T, VE · T)`, then the whole ring tail, then the ALU latency.
pub fn estimate_vector(trace: &[StageRecord], upstream_cycles_per_flit: u64) -> CycleEstimate {
    let flits = trace.first().map_or(0, |r| r.flits);
    let ve_stream = flits.saturating_mul(ve_cycles_per_flit(trace));
    let upstream = flits.saturating_mul(upstream_cycles_per_flit.max(1));
    let tail = reduction_ratio(trace).map_or(0, ring_tail);
    let alus: u64 = trace.iter().map(|r| r.alus).sum();
    CycleEstimate::new(MODEL)
        .stage(STREAM, upstream.max(ve_stream))
        .stage(RING_TAIL, tail)
        .stage(ALU_LATENCY, alus)
}

/// Cycles until the first reduced output of the inter-slice reducer in `trace` settles (`None`
/// without a reducer): the first flit enters the ring after `max(upstream, VE)` cycles per
/// flit, then one ring traversal (`r − 1` hops) — the Inter-Slice Block page: "first output appears
/// after roughly O(r) cycles".
pub fn first_output(trace: &[StageRecord], upstream_cycles_per_flit: u64) -> Option<u64> {
    let r = reduction_ratio(trace)?;
    let enter = upstream_cycles_per_flit
        .max(1)
        .max(ve_cycles_per_flit(trace));
    Some(enter.saturating_add(ring_tail(r)))
}

/// The estimate of a pipeline whose engines (estimates made by [`estimate_vector`] and
/// [`estimate_cast`]) stream concurrently: the slowest engine's streaming time, plus the ring
/// tail, plus every engine's latency. The Cast Engine, a pass-through stage, is never the
/// bottleneck after the Vector Engine, so adding it does not change a total.
pub fn estimate_pipeline<'a>(
    engines: impl IntoIterator<Item = &'a CycleEstimate>,
) -> CycleEstimate {
    let (mut stream, mut tail, mut latency) = (0u64, 0u64, 0u64);
    for e in engines {
        for s in e.stages() {
            match s.name.as_str() {
                STREAM | CAST => stream = stream.max(s.cycles),
                RING_TAIL => tail = tail.saturating_add(s.cycles),
                _ => latency = latency.saturating_add(s.cycles),
            }
        }
    }
    CycleEstimate::new(MODEL)
        .stage(SLOWEST_STREAM, stream)
        .stage(RING_TAIL, tail)
        .stage(ALU_LATENCY, latency)
}
