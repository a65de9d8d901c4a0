//! The schedule records of the engines npusim runs, from their plans (§10.2): fetch packets ×
//! reads per packet (+ the adapter's latency), collect output flits, Vector Engine input flits ×
//! 1 or 2 (+ ALU latency and ring tail, blocking on an intra-slice reduction), cast flits, commit
//! packets × writes per packet (+ commit_cast's latency).

use super::{Engine, EngineRecord};
use crate::engine::commit::CommitPlan;
use crate::engine::fetch::FetchPlan;
use crate::engine::vector::stage::{Stage, StageRecord, Way};
use crate::timing::ring_tail;

impl EngineRecord {
    /// The Fetch Engine running `plan`, followed by adapter stages adding `adapter_latency`
    /// cycles (`fetch_cast` 2, `fetch_table_lookup` 1, `fetch_mask` 0).
    pub fn fetch(plan: &FetchPlan, adapter_latency: u64) -> EngineRecord {
        let reads = plan.reads_per_packet.max(1) as u64;
        EngineRecord {
            accesses_per_packet: reads,
            ..EngineRecord::new(Engine::Fetch, plan.cycles as u64 / reads, reads)
        }
        .with_fill(adapter_latency)
    }

    /// The Collect Engine emitting `flits` flits (one per cycle).
    pub fn collect(flits: u64) -> EngineRecord {
        EngineRecord::new(Engine::Collect, flits, 1)
    }

    /// The Vector Engine running the stages of `trace`: its input flits, 2 cycles each when a
    /// Way4 stage runs; fill = the ALUs' latency + the inter-slice ring tail; blocking = the
    /// time steps an intra-slice reduction folds before its first output.
    pub fn vector(trace: &[StageRecord]) -> EngineRecord {
        let flits = trace.first().map_or(0, |r| r.flits);
        let per_flit = if trace.iter().any(|r| r.way == Way::Way4) {
            2
        } else {
            1
        };
        let alus: u64 = trace.iter().map(|r| r.alus).sum();
        let tail = trace
            .iter()
            .find(|r| r.stage == Stage::InterSliceReduce)
            .map_or(0, |r| ring_tail(r.ratio));
        let blocking = trace
            .iter()
            .find(|r| r.stage == Stage::IntraSliceReduce)
            .map_or(1, |r| r.ratio.max(1));
        EngineRecord::new(Engine::Vector, flits, per_flit)
            .with_fill(alus.saturating_add(tail))
            .with_blocking(blocking)
    }

    /// The Cast Engine passing `flits` flits (one per cycle).
    pub fn cast(flits: u64) -> EngineRecord {
        EngineRecord::new(Engine::Cast, flits, 1)
    }

    /// The Commit Engine running `plan`, after adapter stages adding `adapter_latency` cycles
    /// (`commit_cast` 1, `commit_trim` 0).
    pub fn commit(plan: &CommitPlan, adapter_latency: u64) -> EngineRecord {
        let writes = plan.writes_per_packet.max(1) as u64;
        EngineRecord {
            accesses_per_packet: writes,
            ..EngineRecord::new(Engine::Commit, plan.cycles as u64 / writes, writes)
        }
        .with_fill(adapter_latency)
    }
}
